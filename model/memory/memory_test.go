package memory

import (
	"strings"
	"testing"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/internal/corpus"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/model/rank"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

// TestEstimateMemory: the parts follow the arrays' sizes: the data part is
// three copies of 16 bytes an entry (more for KL; X V's panels for a
// large V apart), factors grow with k, a
// graph is counted only for a graph method with a graph to build, and
// NN-descent's working set differs from the exact search's.
func TestEstimateMemory(t *testing.T) {
	a, _, err := corpus.Generate(corpus.Options{Docs: 500, Terms: 2000, Classes: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ds := &dataset.Dataset{Sparse: a}
	n, m := ds.Dims()
	nnz := int64(len(a.Ind))
	copyBytes := 16*nnz + 8*int64(n+m)
	nmf := Fit(ds, model.Options{Method: solver.NMF, K: 10}, 2)
	if nmf.Data != 3*copyBytes || nmf.Graph != 0 || nmf.Factors != 7*8*10*int64(n+m)+kmeansSampleBytes*int64(n) {
		t.Errorf("NMF k=10: %+v", nmf)
	}
	// One orientation: one solver copy fewer for nmf and gnmf, none for
	// the methods that transpose it anyway.
	if one := Fit(ds, model.Options{Method: solver.NMF, K: 10, Storage: model.OneOrientation}, 2); one.Data != 2*copyBytes || one.Factors != nmf.Factors || one.Panels != 0 {
		t.Errorf("NMF k=10, one orientation: %+v", one)
	}
	if one := Fit(ds, model.Options{Method: solver.NMF, K: 10, Storage: model.OneOrientation, ConsumeData: true}, 2); one.Data != copyBytes {
		t.Errorf("NMF k=10, one orientation, data consumed: %+v", one)
	}
	if one, kl := Fit(ds, model.Options{Method: solver.NMFKL, K: 10, Storage: model.OneOrientation}, 2), Fit(ds, model.Options{Method: solver.NMFKL, K: 10}, 2); one != kl {
		t.Errorf("NMF-KL, one orientation: %+v, both %+v", one, kl)
	}
	if am := Fit(ds, model.Options{Method: solver.NMF, K: 10, Assign: model.ArgMaxAssign}, 2); am.Factors != 7*8*10*int64(n+m) {
		t.Errorf("NMF k=10, argmax: %+v", am)
	}
	if kl := Fit(ds, model.Options{Method: solver.NMFKL, K: 10}, 2); kl.Data <= nmf.Data {
		t.Errorf("NMF-KL data %d, not above NMF's %d", kl.Data, nmf.Data)
	}
	if k20 := Fit(ds, model.Options{Method: solver.NMF, K: 20}, 2); k20.Factors-kmeansSampleBytes*int64(n) != 2*(nmf.Factors-kmeansSampleBytes*int64(n)) {
		t.Errorf("k=20 factors %d, want twice %d beside k-means'", k20.Factors, nmf.Factors)
	}
	g := Fit(ds, model.Options{Method: solver.GNMF, K: 10}, 2)
	if g.Graph <= 0 {
		t.Errorf("GNMF: no graph counted: %+v", g)
	}
	if z := Fit(ds, model.Options{Method: solver.GNMF, K: 10, Lambda: solver.Fixed(0)}, 2); z.Graph != 0 {
		t.Errorf("GNMF at lambda 0 counts a graph: %+v", z)
	}
	ap := Fit(ds, model.Options{Method: solver.GNMF, K: 10, Graph: graph.Options{Search: graph.ApproxSearch}}, 2)
	ex := Fit(ds, model.Options{Method: solver.GNMF, K: 10, Graph: graph.Options{Search: graph.ExactSearch}}, 2)
	if ap.Graph == ex.Graph {
		t.Error("approx and exact searches estimated alike")
	}
	if got := Graph(ds, graph.Options{Search: graph.ExactSearch}, 2, false); got.Graph != ex.Graph || got.Data != copyBytes {
		t.Errorf("graph alone: %+v, want graph %d and data %d", got, ex.Graph, copyBytes)
	}
	if r := Graph(ds, graph.Options{Search: graph.ExactSearch}, 2, true).Graph - ex.Graph; r != 20*nnz+16*int64(n) {
		t.Errorf("recall: %d bytes", r)
	}
	if nmf.Panels != 0 {
		t.Errorf("500 samples: panels of %d bytes", nmf.Panels)
	}
	// 100,000 samples of 3 features with no entries (only the shape is
	// read): V at k = 30 (24 MB) gets X V's panels, one more copy of the
	// entries with 16 row pointers a sample, outside Total; at k = 10 (8
	// MB) it does not.
	big := &dataset.Dataset{Sparse: &sparse.CSR{Rows: 100000, Cols: 3, Indptr: make([]int, 100001)}}
	bigCopy := 8 * int64(100000+3)
	e := Fit(big, model.Options{Method: solver.NMF, K: 30}, 2)
	if e.Data != 3*bigCopy || e.Panels != 8*100001*16 || e.Total() != e.Data+e.Graph+e.Factors {
		t.Errorf("100,000 samples, k = 30: %+v, want data %d and panels %d outside the total", e, 3*bigCopy, 8*100001*16)
	}
	if !strings.Contains(e.String(), "12.80 MB for faster products") {
		t.Errorf("String %q does not name the panels", e)
	}
	if e := Fit(big, model.Options{Method: solver.NMF, K: 10}, 2); e.Panels != 0 {
		t.Errorf("100,000 samples, k = 10: panels %d", e.Panels)
	}
}

// TestFitConsumeData: letting the solver take over the sparse data
// (model.Options.ConsumeData) counts one copy of it fewer.
func TestFitConsumeData(t *testing.T) {
	a, _, err := corpus.Generate(corpus.Options{Docs: 200, Terms: 500, Classes: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ds := &dataset.Dataset{Sparse: a}
	o := model.Options{K: 3}
	full := Fit(ds, o, 1)
	o.ConsumeData = true
	if less := Fit(ds, o, 1); full.Data-less.Data != dataBytes(shapeOf(ds)) {
		t.Errorf("ConsumeData's estimate %d, without %d: want one copy (%d) less", less.Data, full.Data, dataBytes(shapeOf(ds)))
	}
}

// TestRank: the cross-validation's estimate grows with the replicates
// and the hidden share, and holds one replicate's fit beside its mask.
func TestRank(t *testing.T) {
	a, _, err := corpus.Generate(corpus.Options{Docs: 300, Terms: 800, Classes: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ds := &dataset.Dataset{Sparse: a}
	o := model.Options{Method: solver.NMF}
	one, three := Rank(ds, o, 10, 0.05, 1, 2), Rank(ds, o, 10, 0.05, 3, 2)
	if three.Total() <= 2*one.Total() || three.Factors != 3*one.Factors {
		t.Errorf("1 replicate %v, 3 replicates %v", one, three)
	}
	extra := int64(rank.ExpectedHidden(ds, 0.2)) - int64(rank.ExpectedHidden(ds, 0.05))
	if more := Rank(ds, o, 10, 0.2, 1, 2); extra <= 0 || more.Data-one.Data != extra*48 {
		t.Errorf("a 20 %% share: %d more bytes than 5 %%, want 48 for each of %d more hidden entries", more.Data-one.Data, extra)
	}
	o.K = 10
	if fit := Fit(ds, o, 2); one.Factors != fit.Factors {
		t.Errorf("one replicate's factors %d, a fit's %d", one.Factors, fit.Factors)
	}
}

// TestConsensus: the consensus's estimate holds its arrays, 13 bytes a
// pair of the sample, and grows with the restarts run at once.
func TestConsensus(t *testing.T) {
	a, _, err := corpus.Generate(corpus.Options{Docs: 3000, Terms: 800, Classes: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ds := &dataset.Dataset{Sparse: a}
	o := model.Options{Method: solver.NMF}
	one, two := Consensus(ds, o, 10, 1000, 1), Consensus(ds, o, 10, 1000, 2)
	if one.Factors <= 13*1000*1000 || two.Factors <= one.Factors || two.Data != one.Data {
		t.Errorf("1 restart at once %v, 2 %v", one, two)
	}
	if big := Consensus(ds, o, 10, 2000, 1); big.Factors-one.Factors < 13*(2000*2000-1000*1000) {
		t.Errorf("a sample of 2,000: %v, 1,000: %v", big, one)
	}
}
