package model

import (
	"strings"
	"testing"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/sparse"
)

// TestSummarize: the sizes, the unassigned samples, accuracy and NMI as
// package cluster computes them, the graph's isolated samples and purity;
// labels, classes or a graph of the wrong size are errors.
func TestSummarize(t *testing.T) {
	labels := []int{0, 0, 1, -1, 2, 1}
	truth := []int{5, 5, 7, 7, 9, 7}
	w, err := sparse.FromTriplets(6, 6, []int{0, 1, 2, 5}, []int{1, 0, 5, 2}, []float64{1, 1, 2, 2})
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.NewGraph(w)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(labels, 3, truth, g)
	if err != nil {
		t.Fatal(err)
	}
	acc, _, _ := cluster.Accuracy(truth, labels)
	nmi, _ := cluster.NMI(truth, labels)
	if s.Sizes[0] != 2 || s.Sizes[1] != 2 || s.Sizes[2] != 1 || s.Unassigned != 1 || *s.Accuracy != acc || *s.NMI != nmi {
		t.Errorf("summary %+v, accuracy %v, NMI %v; want sizes [2 2 1], 1 unassigned, %v, %v", s, *s.Accuracy, *s.NMI, acc, nmi)
	}
	if *s.Isolated != 2 || *s.GraphPurity != 1 {
		t.Errorf("isolated %d, purity %v; want 2 and 1", *s.Isolated, *s.GraphPurity)
	}
	if s, err := Summarize(labels, 3, nil, nil); err != nil || s.Accuracy != nil || s.Isolated != nil || s.GraphPurity != nil {
		t.Errorf("without classes or graph: %+v, %v", s, err)
	}
	for _, c := range []struct {
		labels, truth []int
		want          string
	}{{[]int{0, 3}, nil, "label 3 of sample 2"}, {[]int{0, 1}, []int{1}, "1 true classes for 2 samples"}} {
		if _, err := Summarize(c.labels, 3, c.truth, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, %v: %v, want %q", c.labels, c.truth, err, c.want)
		}
	}
	if _, err := Summarize(labels[:5], 3, nil, g); err == nil {
		t.Error("a graph of 6 samples for 5 labels: no error")
	}
}
