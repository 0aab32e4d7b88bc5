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
	Weighting    string         `json:"weighting"`
	Samples      int            `json:"samples"`
	Features     int            `json:"features"`
	NNZ          int            `json:"nnz"`
	Density      float64        `json:"density"`
	Sparse       bool           `json:"sparse"`
	ZeroFeatures int            `json:"zero_features"`
	ZeroSamples  int            `json:"zero_samples"`
	EmptyIDs     []string       `json:"empty_ids,omitempty"`
	Classes      int            `json:"classes"`
	ClassSizes   map[string]int `json:"class_sizes"`
	GraphPurity  *float64       `json:"graph_purity,omitempty"`
	Neighbors    int            `json:"neighbors,omitempty"`
	Skipped      *skippedJSON   `json:"skipped,omitempty"`
}

func runDescribe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("describe", "--data D [options]", stdout, stderr)
	var df dataFlags
	var rt runtimeFlags
	var gf graphFlags
	df.register(fs)
	rt.register(fs)
	gf.register(fs, false)
	purity := fs.Bool("purity", true, "with labels, report the label purity of the samples' nearest-neighbour graph (--neighbors etc.)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := rt.apply(); err != nil {
		return err
	}
	gopt, err := gf.options()
	if err != nil {
		return err
	}
	// describe reports the file as it is unless asked to drop features.
	df.prep.KeepZeroFeatures = !set(fs, "keep-zero-features") || df.prep.KeepZeroFeatures
	p, err := df.load(ctx, &rt)
	if err != nil {
		return err
	}
	if err := gf.checkMetric(p.Data.Sparse != nil); err != nil {
		return err
	}
	ds := p.Data
	n, m := ds.Dims()
	out := describeOutput{
		Skipped: skippedOf(df.skipped),
		Data:    df.path, Weighting: p.Weighting.String(), Samples: n, Features: m, NNZ: ds.NNZ(), Sparse: ds.Sparse != nil,
		ZeroSamples: p.ZeroSamples, ClassSizes: classSizes(ds),
	}
	out.Density = float64(out.NNZ) / (float64(n) * float64(m))
	// All-zero features in the file: still there unless dropped.
	out.ZeroFeatures = p.ZeroFeatures
	if df.prep.KeepZeroFeatures {
		out.ZeroFeatures = countZeroFeatures(ds)
	}
	if *purity && ds.Labels != nil && n > gopt.Neighbors {
		g, err := p.Graph(ctx, gopt, 1, rt.threads)
		if err != nil {
			return fmt.Errorf("%s: %w", ds.Source, err)
		}
		pur := g.Agreement(ds.Labels)
		out.GraphPurity, out.Neighbors = &pur, gopt.Neighbors
	}
	// Flag the samples with no non-zero feature (documents the text
	// pipeline left empty), by ID where the source has IDs; --drop-empty
	// removes them for text corpora.
	for i := 0; i < n && out.ZeroSamples > 0; i++ {
		if ds.Sparse != nil && ds.Sparse.Indptr[i] == ds.Sparse.Indptr[i+1] {
			id := strconv.Itoa(i + 1)
			if ds.IDs != nil {
				id = ds.IDs[i]
			}
			out.EmptyIDs = append(out.EmptyIDs, id)
		}
	}
	out.Classes = len(out.ClassSizes)
	if *asJSON {
		return writeJSON(stdout, out)
	}
	out.print(stdout)
	return nil
}

// print writes the description as text, the empty samples' first 20 IDs
// and, with labels, the classes' sizes.
func (out *describeOutput) print(w io.Writer) {
	kind := "dense"
	if out.Sparse {
		kind = "sparse"
	}
	fmt.Fprintf(w, "%s: %d samples x %d features, %s, %d non-zeros (density %.4g), weighting %s\n", out.Data, out.Samples, out.Features, kind, out.NNZ, out.Density, out.Weighting)
	fmt.Fprintf(w, "all-zero features: %d, all-zero samples: %d", out.ZeroFeatures, out.ZeroSamples)
	if len(out.EmptyIDs) > 0 {
		fmt.Fprintf(w, " (IDs %s; --drop-empty removes them from text corpora)", strings.Join(out.EmptyIDs[:min(len(out.EmptyIDs), 20)], ", "))
	}
	fmt.Fprintln(w)
	if out.ClassSizes == nil {
		fmt.Fprintln(w, "no labels")
		return
	}
	if out.GraphPurity != nil {
		fmt.Fprintf(w, "%d-NN graph label purity: %.3f (the share of edge weight within a class)\n", out.Neighbors, *out.GraphPurity)
	}
	fmt.Fprintf(w, "%d classes (label: size)\n", out.Classes)
	for _, k := range sortedKeys(out.ClassSizes) {
		fmt.Fprintf(w, "  %s: %d\n", k, out.ClassSizes[k])
	}
}
