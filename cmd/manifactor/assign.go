package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/manifactor/manifactor/dataset"
)

// assignment names a sample's cluster: the sample (its ID in the source,
// such as a file's path, a line's number or a Reuters NEWID; its 1-based
// row where the source has none), its cluster (0-based, -1 for none, as
// in labels.txt) and its class when the data has labels.
type assignment struct {
	ID      string `json:"id"`
	Cluster int    `json:"cluster"`
	Class   string `json:"class,omitempty"`
}

// oneLine keeps a sample's ID on its line of assignments.tsv: a path's
// tab or newline becomes a space.
var oneLine = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

// className names label l of ds: by ClassNames where the source names its
// classes (a Reuters article without TOPICS, label 0, has none), else by
// its number.
func className(ds *dataset.Dataset, l int) string {
	if name, ok := ds.ClassNames[l]; ok {
		return name
	}
	if l == 0 && ds.ClassNames != nil {
		return "(no topic)"
	}
	return strconv.Itoa(l)
}

// assignmentsOf pairs the samples of ds with their clusters.
func assignmentsOf(ds *dataset.Dataset, clusters []int) []assignment {
	out := make([]assignment, len(clusters))
	for i, c := range clusters {
		a := assignment{ID: strconv.Itoa(i + 1), Cluster: c}
		if i < len(ds.IDs) {
			a.ID = oneLine.Replace(ds.IDs[i])
		}
		if i < len(ds.Labels) {
			a.Class = className(ds, ds.Labels[i])
		}
		out[i] = a
	}
	return out
}

// assignmentsOutput is assignments.tsv: a header, then the sample, its
// cluster and its class, tab-separated, a line per sample in the data's
// order.
func assignmentsOutput(a []assignment) output {
	return output{"assignments.tsv", func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		fmt.Fprintln(bw, "id\tcluster\tclass")
		for _, s := range a {
			fmt.Fprintf(bw, "%s\t%d\t%s\n", s.ID, s.Cluster, s.Class)
		}
		return bw.Flush()
	}}
}
