package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/solver"
)

// topic is one factor read as words.
type topic struct {
	Factor        int       `json:"factor"`
	Size          int       `json:"size"`
	Terms         []string  `json:"terms"`
	Weights       []float64 `json:"weights"`
	DominantClass string    `json:"dominant_class,omitempty"`
	DominantShare float64   `json:"dominant_share,omitempty"`
}

type topicsOutput struct {
	*fitSummary
	Topics []topic `json:"topics"`
}

// printTopics prints each factor as words, after the fit's summary.
func printTopics(stdout io.Writer, ds *dataset.Dataset, res *solver.Result, sum *fitSummary, top int, asJSON bool) error {
	if res.U == nil {
		return errors.New("topics needs the basis U in feature space, which a non-linear kernel does not give; use the linear kernel")
	}
	topics := readTopics(ds, res, sum.ClusterSizes, top)
	if asJSON {
		return writeJSON(stdout, topicsOutput{sum, topics})
	}
	printSummary(stdout, sum)
	fmt.Fprintln(stdout)
	for _, t := range topics {
		fmt.Fprintf(stdout, "factor %2d (%d samples", t.Factor+1, t.Size)
		if t.DominantClass != "" {
			fmt.Fprintf(stdout, "; %.0f %% %s", 100*t.DominantShare, t.DominantClass)
		}
		fmt.Fprintf(stdout, "): %s\n", strings.Join(t.Terms, " "))
	}
	return nil
}

// readTopics lists each factor's strongest features (largest entries of
// its column of U, named by the vocabulary when there is one), its size,
// and the most common true class among the samples assigned to it.
func readTopics(ds *dataset.Dataset, res *solver.Result, sizes []int, top int) []topic {
	m, k := res.U.Dims()
	out := make([]topic, k)
	order := make([]int, m)
	for c := 0; c < k; c++ {
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return res.U.At(order[a], c) > res.U.At(order[b], c) })
		t := topic{Factor: c, Size: sizes[c]}
		for _, i := range order[:min(top, m)] {
			if res.U.At(i, c) <= 0 {
				break
			}
			t.Terms = append(t.Terms, ds.Vocabulary[i])
			t.Weights = append(t.Weights, res.U.At(i, c))
		}
		if ds.Labels != nil && t.Size > 0 {
			count := map[int]int{}
			for j, l := range res.Labels {
				if l == c {
					count[ds.Labels[j]]++
				}
			}
			best, bestN := 0, -1
			for l, n := range count {
				if n > bestN || n == bestN && l < best {
					best, bestN = l, n
				}
			}
			t.DominantClass = strconv.Itoa(best)
			if name, ok := ds.ClassNames[best]; ok {
				t.DominantClass = name
			} else if best == 0 && ds.ClassNames != nil {
				t.DominantClass = "(no topic)" // Reuters articles without TOPICS
			}
			t.DominantShare = float64(bestN) / float64(t.Size)
		}
		out[c] = t
	}
	return out
}
