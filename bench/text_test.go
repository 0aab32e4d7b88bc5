package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/manifactor/manifactor/dataset"
)

var reutersDir = filepath.Join("..", "..", "shared", "data", "reuters21578")

// BenchmarkReutersVectorize times LoadReuters on the whole Reuters-21578
// corpus (22 gzip-compressed SGML files): decompressing and parsing the
// files, tokenizing, stop words, stemming, counting, tf-idf and unit
// length. Sub-benchmarks: every article; the 9,494 single-label articles
// of the papers; every article without stemming (scikit-learn's
// TfidfVectorizer does not stem; bench/text_compare.py compares). Metrics:
// the shape of the result, and the read and vectorize phases of the last
// run in ms.
func BenchmarkReutersVectorize(b *testing.B) {
	if _, err := os.Stat(reutersDir); err != nil {
		b.Skipf("%s not found: the real data sets live in ../shared/data beside the project", reutersDir)
	}
	files, err := dataset.ReutersFiles(reutersDir)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		opt  dataset.ReutersOptions
	}{
		{"all", dataset.ReutersOptions{}},
		{"single-label", dataset.ReutersOptions{SingleLabel: true}},
		{"all-nostem", dataset.ReutersOptions{Text: dataset.TextOptions{NoStem: true}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var st *dataset.CorpusStats
			var ds *dataset.Dataset
			for b.Loop() {
				ds, st, err = dataset.LoadReuters(context.Background(), files, bc.opt)
				if err != nil {
					b.Fatal(err)
				}
			}
			n, m := ds.Dims()
			b.ReportMetric(float64(n), "docs")
			b.ReportMetric(float64(m), "terms")
			b.ReportMetric(float64(ds.NNZ()), "nnz")
			b.ReportMetric(float64(st.Read.Microseconds())/1000, "read-ms")
			b.ReportMetric(float64(st.Vectorize.Microseconds())/1000, "vectorize-ms")
		})
	}
}
