// Package manifactor is the root of a library and command-line tool that
// factorizes large non-negative data (term-document matrices, image sets)
// on the data's manifold and clusters it: NMF, its graph-regularized and
// concept-factorization relatives, with the graphs, baselines and
// evaluation protocol of the papers they come from.
//
// The work is done by the sub-packages (see DESIGN in the README): sparse,
// kernels and blas for the arithmetic, dataset for reading data, solver for
// the factorizations, cluster for scoring. This root package only embeds
// the small demo data set that `manifactor demo` runs on.
package manifactor

import "embed"

// DemoFS holds the embedded demo data set, a sample of TDT2 (see
// testdata/demo/README.md): tdt2-demo.mtx.gz, the documents x terms counts
// in Matrix Market form, and tdt2-demo.labels, one topic label per line.
//
//go:embed testdata/demo/tdt2-demo.mtx.gz testdata/demo/tdt2-demo.labels
var DemoFS embed.FS

// Paths of the demo data set inside DemoFS.
const (
	DemoMatrix = "testdata/demo/tdt2-demo.mtx.gz"
	DemoLabels = "testdata/demo/tdt2-demo.labels"
)
