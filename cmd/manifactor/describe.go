package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

type describeOutput struct {
	Data         string         `json:"data"`
	Samples      int            `json:"samples"`
	Features     int            `json:"features"`
	NNZ          int            `json:"nnz"`
	Density      float64        `json:"density"`
	Sparse       bool           `json:"sparse"`
	ZeroFeatures int            `json:"zero_features_dropped"`
	ZeroSamples  int            `json:"zero_samples"`
	EmptyIDs     []string       `json:"empty_ids,omitempty"`
	Classes      int            `json:"classes"`
	ClassSizes   map[string]int `json:"class_sizes"`
}

func runDescribe(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("describe", "--data D [data options] [--json]", stderr)
	var df dataFlags
	df.register(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	// describe reports the file as it is unless asked to drop features.
	df.keepZero = true
	p, err := df.load()
	if err != nil {
		return err
	}
	n, m := p.ds.Dims()
	out := describeOutput{
		Data: df.path, Samples: n, Features: m, NNZ: p.ds.NNZ(), Sparse: p.ds.Sparse != nil,
		ZeroSamples: p.zeroSamples, ClassSizes: classSizes(p.ds),
	}
	out.Density = float64(out.NNZ) / (float64(n) * float64(m))
	out.ZeroFeatures = countZeroFeatures(p)
	// Flag the samples with no non-zero feature (documents the text
	// pipeline left empty), by ID where the source has IDs; --drop-empty
	// removes them for text corpora.
	for i := 0; i < n && out.ZeroSamples > 0; i++ {
		if p.ds.Sparse != nil && p.ds.Sparse.Indptr[i] == p.ds.Sparse.Indptr[i+1] {
			id := strconv.Itoa(i + 1)
			if p.ds.IDs != nil {
				id = p.ds.IDs[i]
			}
			out.EmptyIDs = append(out.EmptyIDs, id)
		}
	}
	out.Classes = len(out.ClassSizes)
	if *asJSON {
		return writeJSON(stdout, out)
	}
	kind := "dense"
	if out.Sparse {
		kind = "sparse"
	}
	fmt.Fprintf(stdout, "%s: %d samples x %d features, %s, %d non-zeros (density %.4g)\n", df.path, n, m, kind, out.NNZ, out.Density)
	fmt.Fprintf(stdout, "all-zero features: %d, all-zero samples: %d", out.ZeroFeatures, out.ZeroSamples)
	if len(out.EmptyIDs) > 0 {
		fmt.Fprintf(stdout, " (IDs %s; --drop-empty removes them from text corpora)", strings.Join(out.EmptyIDs[:min(len(out.EmptyIDs), 20)], ", "))
	}
	fmt.Fprintln(stdout)
	if out.ClassSizes == nil {
		fmt.Fprintln(stdout, "no labels")
		return nil
	}
	fmt.Fprintf(stdout, "%d classes (label: size)\n", out.Classes)
	for _, k := range sortedKeys(out.ClassSizes) {
		fmt.Fprintf(stdout, "  %s: %d\n", k, out.ClassSizes[k])
	}
	return nil
}
