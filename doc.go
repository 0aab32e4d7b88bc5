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

// DemoFS holds the embedded demo data set, a seeded sample of
// Reuters-21578 articles as raw, gzip-compressed SGML (see
// testdata/demo/README.md).
//
//go:embed testdata/demo/reuters-demo.sgm.gz
var DemoFS embed.FS

// DemoCorpus is the path of the demo corpus inside DemoFS.
const DemoCorpus = "testdata/demo/reuters-demo.sgm.gz"
