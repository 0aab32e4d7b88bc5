package main

import (
	"context"
	"fmt"
	"io"
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
	out.Classes = len(out.ClassSizes)
	if *asJSON {
		return writeJSON(stdout, out)
	}
	kind := "dense"
	if out.Sparse {
		kind = "sparse"
	}
	fmt.Fprintf(stdout, "%s: %d samples x %d features, %s, %d non-zeros (density %.4g)\n", df.path, n, m, kind, out.NNZ, out.Density)
	fmt.Fprintf(stdout, "all-zero features: %d, all-zero samples: %d\n", out.ZeroFeatures, out.ZeroSamples)
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
