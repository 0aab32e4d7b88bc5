package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/model"
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

// readTopics lists each cluster's strongest features (model.TopTerms),
// its size, and the most common true class among its samples.
func readTopics(ds *dataset.Dataset, res *solver.Result, sizes []int, top int) []topic {
	_, k := res.U.Dims()
	terms := model.TopTerms(res.U, res.V, res.Labels, ds.Vocabulary, k, top)
	out := make([]topic, k)
	for c := 0; c < k; c++ {
		t := topic{Cluster: c, Size: sizes[c]}
		for _, term := range terms[c] {
			t.Terms = append(t.Terms, term.Name)
			t.Weights = append(t.Weights, term.Weight)
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
