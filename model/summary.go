package model

import (
	"fmt"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/graph"
)

// Summary is what a clustering of n samples into k clusters is judged by,
// as the command line reports it for fit, cluster, transform and the
// protocol.
type Summary struct {
	// Sizes counts the samples of each of the k clusters; Unassigned
	// those with label -1 (no cluster).
	Sizes      []int
	Unassigned int
	// Accuracy (after the best matching of clusters to classes) and NMI
	// against the true classes; nil without them.
	Accuracy, NMI *float64
	// Isolated counts the samples without an edge in the graph (out of
	// the graph term's reach), and GraphPurity is the share of the
	// graph's edge weight between samples of one class; nil without a
	// graph (and without classes, for the purity).
	Isolated    *int
	GraphPurity *float64
}

// Summarize returns the summary of labels (a cluster in [0, k) or -1 per
// sample), scored against truth when it is not nil, with g's isolated
// samples and purity when g is not nil. It is an error when truth or g
// does not have one entry per sample, or a label is out of range.
func Summarize(labels []int, k int, truth []int, g *graph.Graph) (*Summary, error) {
	s := &Summary{Sizes: make([]int, k)}
	for i, l := range labels {
		switch {
		case l == -1:
			s.Unassigned++
		case l < 0 || l >= k:
			return nil, fmt.Errorf("model: label %d of sample %d is outside [-1, %d)", l, i+1, k)
		default:
			s.Sizes[l]++
		}
	}
	if truth != nil {
		if len(truth) != len(labels) {
			return nil, fmt.Errorf("model: %d true classes for %d samples", len(truth), len(labels))
		}
		acc, _, err := cluster.Accuracy(truth, labels)
		if err != nil {
			return nil, err
		}
		nmi, err := cluster.NMI(truth, labels)
		if err != nil {
			return nil, err
		}
		s.Accuracy, s.NMI = &acc, &nmi
	}
	if g != nil {
		if len(g.Degree) != len(labels) {
			return nil, fmt.Errorf("model: a graph of %d samples for %d", len(g.Degree), len(labels))
		}
		isolated := 0
		for _, d := range g.Degree {
			if d == 0 {
				isolated++
			}
		}
		s.Isolated = &isolated
		if truth != nil {
			purity := g.Agreement(truth)
			s.GraphPurity = &purity
		}
	}
	return s, nil
}
