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

// topic is one cluster read as words.
type topic struct {
	Cluster       int       `json:"cluster"`
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
		fmt.Fprintf(stdout, "cluster %2d (%d samples", t.Cluster+1, t.Size)
		if t.DominantClass != "" {
			fmt.Fprintf(stdout, "; %.0f %% %s", 100*t.DominantShare, t.DominantClass)
		}
		fmt.Fprintf(stdout, "): %s\n", strings.Join(t.Terms, " "))
	}
	return nil
}

// readTopics lists each cluster's strongest features, its size, and the
// most common true class among its samples. A cluster's features are the
// largest entries of U times the mean of its samples' rows of V: its
// centroid in feature space as the factorization sees it (for the arg max
// assignment, mostly the cluster's own column of U), named by the
// vocabulary.
func readTopics(ds *dataset.Dataset, res *solver.Result, sizes []int, top int) []topic {
	m, k := res.U.Dims()
	out := make([]topic, k)
	order := make([]int, m)
	mean := make([]float64, k*k)
	count := make([]float64, k)
	for j, l := range res.Labels {
		if l >= 0 {
			count[l]++
			for f := 0; f < k; f++ {
				mean[l*k+f] += res.V.At(j, f)
			}
		}
	}
	score := make([]float64, m)
	for c := 0; c < k; c++ {
		for i := range order {
			order[i] = i
			score[i] = 0
			for f := 0; f < k; f++ {
				score[i] += res.U.At(i, f) * mean[c*k+f]
			}
			if count[c] > 0 {
				score[i] /= count[c]
			}
		}
		sort.SliceStable(order, func(a, b int) bool { return score[order[a]] > score[order[b]] })
		t := topic{Cluster: c, Size: sizes[c]}
		for _, i := range order[:min(top, m)] {
			if score[i] <= 0 {
				break
			}
			t.Terms = append(t.Terms, ds.Vocabulary[i])
			t.Weights = append(t.Weights, score[i])
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
