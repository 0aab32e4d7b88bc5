package graph

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/manifactor/manifactor/internal/testenv"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/corpus"
	"github.com/manifactor/manifactor/sparse"
)

// TestApproxSmallIsExact: when NN-descent's start already holds every
// other sample (2 K >= n - 1), its graph is the exact one, sparse and
// dense, for each weighting and edge rule.
func TestApproxSmallIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 2))
	for _, c := range []struct{ n, p int }{{12, 3}, {20, 5}, {7, 1}} {
		if 2*descentK(c.p, c.n) < c.n-1 {
			t.Fatalf("n=%d p=%d: the start would not hold every sample", c.n, c.p)
		}
		x := randomRows(rng, c.n, 30, 0.3, false)
		a, d := toCSR(x), toDense(x)
		for _, w := range []Weight{Binary, Heat, Cosine} {
			for _, sym := range []Symmetry{Either, Mutual} {
				opt := Options{Neighbors: c.p, Weight: w, Symmetry: sym, Seed: 4}
				exact, approx := opt, opt
				exact.Search, approx.Search = ExactSearch, ApproxSearch
				what := fmt.Sprintf("n=%d p=%d %v %v", c.n, c.p, w, sym)
				ge, err := Sparse(context.Background(), a, exact)
				if err != nil {
					t.Fatal(err)
				}
				ga, err := Sparse(context.Background(), a, approx)
				if err != nil {
					t.Fatal(err)
				}
				t.Run("sparse "+what, func(t *testing.T) { sameEdges(t, edgesOf(t, ga, c.n), edgesOf(t, ge, c.n), 1e-12) })
				ge, err = Dense(context.Background(), d, exact)
				if err != nil {
					t.Fatal(err)
				}
				ga, err = Dense(context.Background(), d, approx)
				if err != nil {
					t.Fatal(err)
				}
				t.Run("dense "+what, func(t *testing.T) { sameEdges(t, edgesOf(t, ga, c.n), edgesOf(t, ge, c.n), 1e-9) })
			}
		}
	}
}

// edgeRecall is the share of want's edges that got has.
func edgeRecall(t *testing.T, got, want *Graph, n int) float64 {
	g, w := edgesOf(t, got, n), edgesOf(t, want, n)
	hit := 0
	for e := range w {
		if _, ok := g[e]; ok {
			hit++
		}
	}
	return float64(hit) / float64(len(w))
}

// TestApproxRecall: NN-descent finds at least 95 % of the exact graph's
// edges on a generated text corpus (sparse cosine) and on clustered
// Gaussian points (dense Euclidean), and its graph is the same at 1, 2
// and 7 threads.
func TestApproxRecall(t *testing.T) {
	if testenv.Race {
		t.Skip("a recall measure; the search's concurrency is TestThreadInvariance's")
	}
	const n = 3000
	a := planted(t)
	rng := rand.New(rand.NewPCG(41, 1))
	d := mat.NewDense(n, 16, nil)
	for i := range n {
		for j := range 16 {
			d.Set(i, j, float64(i%10)+rng.NormFloat64()*2)
		}
	}
	for _, c := range []struct {
		name  string
		build func(Options) (*Graph, error)
	}{
		{"sparse", func(o Options) (*Graph, error) { return Sparse(context.Background(), a, o) }},
		{"dense", func(o Options) (*Graph, error) { return Dense(context.Background(), d, o) }},
	} {
		exact, err := c.build(Options{Search: ExactSearch})
		if err != nil {
			t.Fatal(err)
		}
		var ref *Graph
		for _, threads := range []int{1, 2, 7} {
			g, err := c.build(Options{Search: ApproxSearch, Seed: 3, Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = g
				if r := edgeRecall(t, g, exact, n); r < 0.95 {
					t.Errorf("%s: recall %.4f, want at least 0.95", c.name, r)
				} else {
					t.Logf("%s: recall %.4f", c.name, r)
				}
				continue
			}
			sameGraph(t, g, ref, fmt.Sprintf("%s, %d threads", c.name, threads))
		}
	}
}

// planted is a generated corpus of 3,000 documents over 5,000 terms in 10
// classes without stories (internal/corpus, Flat): a class's documents
// differ only by chance, the hardest case for NN-descent measured.
func planted(t *testing.T) *sparse.CSR {
	t.Helper()
	a, _, err := corpus.Generate(corpus.Options{Docs: 3000, Terms: 5000, Classes: 10, Words: 80, Flat: true, Seed: 40})
	if err != nil {
		t.Fatal(err)
	}
	ds := &dataset.Dataset{Sparse: a}
	if err := ds.LogTFIDF(); err != nil {
		t.Fatal(err)
	}
	return ds.Sparse
}

// TestSearchChoice: the names parse and print, auto resolves as
// AutoSearch says, and an unknown search is an error.
func TestSearchChoice(t *testing.T) {
	for _, s := range []Search{AutoSearch, ExactSearch, ApproxSearch} {
		got, err := parseSearch(s.String())
		if err != nil || got != s {
			t.Errorf("parseSearch(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := parseSearch("lsh"); err == nil {
		t.Error(`parseSearch("lsh") accepted`)
	}
	// Auto: exact for dense data and for sparse data with few pairs that
	// share a feature; approx for 2,000 samples that all share their 10
	// features (1,000 pairs per stored entry). The graph says what ran.
	few := toCSR(randomRows(rand.New(rand.NewPCG(1, 2)), 200, 50, 0.1, false))
	dense := &sparse.CSR{Rows: 2000, Cols: 10, Indptr: make([]int, 2001)}
	for i := range 2000 {
		for f := range 10 {
			dense.Ind, dense.Val = append(dense.Ind, f), append(dense.Val, 1+float64((i*7+f)%13))
		}
		dense.Indptr[i+1] = len(dense.Ind)
	}
	for _, c := range []struct {
		a    *sparse.CSR
		s    Search
		want Search
	}{{few, AutoSearch, ExactSearch}, {dense, AutoSearch, ApproxSearch}, {dense, ExactSearch, ExactSearch}, {few, ApproxSearch, ApproxSearch}} {
		if got := c.s.ForSparse(c.a); got != c.want {
			t.Errorf("%v on %d samples: %v, want %v", c.s, c.a.Rows, got, c.want)
		}
		g, err := Sparse(context.Background(), c.a, Options{Search: c.s})
		if err != nil {
			t.Fatal(err)
		}
		if g.Search != c.want {
			t.Errorf("%v on %d samples ran %v, want %v", c.s, c.a.Rows, g.Search, c.want)
		}
	}
	if AutoSearch.ForDense() != ExactSearch || ApproxSearch.ForDense() != ApproxSearch {
		t.Error("ForDense does not follow AutoSearch's rule")
	}
	x := toCSR(randomRows(rand.New(rand.NewPCG(1, 1)), 10, 5, 0.5, false))
	if _, err := Sparse(context.Background(), x, Options{Search: Search(7)}); err == nil {
		t.Error("Search(7) accepted")
	}
}

// BenchmarkSearch times the exact and the approximate 5-NN search on
// generated corpora (internal/corpus's defaults: 100,000 terms, about 130
// distinct terms a document, 20 classes), log tf-idf weighted as the CLI
// weighs counts. Larger sizes: bench/scale.sh.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{20000, 50000} {
		a := generated(b, n)
		for _, s := range []Search{ExactSearch, ApproxSearch} {
			b.Run(fmt.Sprintf("n=%d/%v", n, s), func(b *testing.B) {
				for b.Loop() {
					if _, err := Sparse(context.Background(), a, Options{Search: s, Seed: 1}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// generated returns internal/corpus's corpus of n documents, seed 1, log
// tf-idf weighted.
func generated(tb testing.TB, n int) *sparse.CSR {
	tb.Helper()
	a, _, err := corpus.Generate(corpus.Options{Docs: n, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	ds := &dataset.Dataset{Sparse: a}
	if err := ds.LogTFIDF(); err != nil {
		tb.Fatal(err)
	}
	return ds.Sparse
}

// TestSampleRecall: SparseRecall and DenseRecall give 1 for the exact
// graph, and for a graph with every edge between samples below 100 and
// the rest removed, the share of the plain-loop neighbour lists it keeps;
// bad arguments are errors.
func TestSampleRecall(t *testing.T) {
	const n, cut = 300, 100
	x := randomRows(rand.New(rand.NewPCG(5, 5)), n, 40, 0.3, false)
	a, d := toCSR(x), toDense(x)
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		cosine bool
		build  func(Options) (*Graph, error)
		recall func(*Graph, Options, int) (float64, error)
	}{
		{"sparse", true, func(o Options) (*Graph, error) { return Sparse(ctx, a, o) },
			func(g *Graph, o Options, q int) (float64, error) { return SparseRecall(ctx, a, g, o, q) }},
		{"dense", false, func(o Options) (*Graph, error) { return Dense(ctx, d, o) },
			func(g *Graph, o Options, q int) (float64, error) { return DenseRecall(ctx, d, g, o, q) }},
	} {
		opt := Options{Search: ExactSearch, Seed: 2}
		if !c.cosine {
			// plainNeighbors compares dense rows by Euclidean distance.
			opt.Metric = EuclideanMetric
		}
		exact, err := c.build(opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []int{50, n, 10 * n} {
			if r, err := c.recall(exact, opt, q); err != nil || r != 1 {
				t.Errorf("%s: exact graph, %d queries: recall %v, %v; want 1", c.name, q, r, err)
			}
		}
		w := exact.W
		var ri, ci []int
		var v []float64
		for i := 0; i < n; i++ {
			for r := w.Indptr[i]; r < w.Indptr[i+1]; r++ {
				if j := w.Ind[r]; (i < cut) == (j < cut) {
					ri, ci, v = append(ri, i), append(ci, j), append(v, w.Val[r])
				}
			}
		}
		cw, err := sparse.FromTriplets(n, n, ri, ci, v)
		if err != nil {
			t.Fatal(err)
		}
		g, err := NewGraph(cw)
		if err != nil {
			t.Fatal(err)
		}
		var kept, total int
		for i, nb := range plainNeighbors(x, DefaultNeighbors, c.cosine) {
			for _, j := range nb {
				total++
				if (i < cut) == (j < cut) {
					kept++
				}
			}
		}
		want := float64(kept) / float64(total)
		if r, err := c.recall(g, opt, n); err != nil || math.Abs(r-want) > 1e-12 {
			t.Errorf("%s: cut graph: recall %v, %v; want %v", c.name, r, err, want)
		}
		if want > 0.9 {
			t.Errorf("%s: the cut removes too little (%v) to test anything", c.name, want)
		}
		if _, err := c.recall(exact, opt, 0); err == nil {
			t.Errorf("%s: 0 queries accepted", c.name)
		}
		if _, err := c.recall(exact, Options{Neighbors: n}, 10); err == nil {
			t.Errorf("%s: p = n accepted", c.name)
		}
	}
	if _, err := SparseRecall(ctx, toCSR(x[:10]), &Graph{W: a}, Options{}, 10); err == nil {
		t.Error("a non-square graph accepted")
	}
}

// plainNeighbors returns each row's p nearest other rows by plain loops:
// by cosine similarity among those at positive similarity, or by
// Euclidean distance; ties to the lower index.
func plainNeighbors(x [][]float64, p int, cosine bool) [][]int {
	out := make([][]int, len(x))
	for i := range x {
		type cand struct {
			j   int
			key float64
		}
		var cs []cand
		for j := range x {
			if j == i {
				continue
			}
			var dot, ni, nj, d2 float64
			for f := range x[i] {
				dot += x[i][f] * x[j][f]
				ni += x[i][f] * x[i][f]
				nj += x[j][f] * x[j][f]
				d2 += (x[i][f] - x[j][f]) * (x[i][f] - x[j][f])
			}
			if cosine {
				if dot > 0 {
					cs = append(cs, cand{j, dot / math.Sqrt(ni*nj)})
				}
				continue
			}
			cs = append(cs, cand{j, -d2})
		}
		slices.SortStableFunc(cs, func(a, b cand) int {
			switch {
			case a.key > b.key:
				return -1
			case a.key < b.key:
				return 1
			}
			return 0
		})
		for _, c := range cs[:min(p, len(cs))] {
			out[i] = append(out[i], c.j)
		}
	}
	return out
}

// TestProgress: each search reports increasing counts that end at the
// total, and a graph built with a callback is the graph built without.
func TestProgress(t *testing.T) {
	x := randomRows(rand.New(rand.NewPCG(8, 8)), 200, 30, 0.3, false)
	a, d := toCSR(x), toDense(x)
	ctx := context.Background()
	for _, s := range []Search{ExactSearch, ApproxSearch} {
		for _, dense := range []bool{false, true} {
			var calls, last, total int
			opt := Options{Search: s, Seed: 1, Threads: 3}
			build := func(o Options) *Graph {
				var g *Graph
				var err error
				if dense {
					g, err = Dense(ctx, d, o)
				} else {
					g, err = Sparse(ctx, a, o)
				}
				if err != nil {
					t.Fatal(err)
				}
				return g
			}
			want := build(opt)
			opt.Progress = func(done, tot int) {
				if done < last || done > tot {
					t.Errorf("%v dense=%v: %d of %d after %d", s, dense, done, tot, last)
				}
				calls, last, total = calls+1, done, tot
			}
			sameGraph(t, build(opt), want, fmt.Sprintf("%v dense=%v with progress", s, dense))
			if calls == 0 || last != total || total < 200 {
				t.Errorf("%v dense=%v: %d calls, last %d of %d", s, dense, calls, last, total)
			}
		}
	}
}

// TestSumTable: the table's sums equal a dense accumulator's bit for bit
// (each sample's terms added in the same order), every touched sample is
// listed once in the order first touched, through collisions, probes that
// wrap past the last slot, tables larger than the first, and reuse after
// clear.
func TestSumTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	var tab sumTable
	wrapped := false
	for _, c := range []struct{ n, adds int }{{5, 40}, {3000, 200}, {3000, 5000}, {100000, 20000}, {7, 0}, {50, 3}} {
		for rep := 0; rep < 2; rep++ {
			tab.start(c.adds)
			dense := make([]float32, c.n)
			var order []int32
			met := make([]bool, c.n)
			keys, ok := lastSlotKeys(tab.bits, c.n)
			for a := 0; a < c.adds; a++ {
				j := int32(rng.IntN(c.n))
				if ok && a < 3 {
					// Keys that hash to the table's last slot, so that
					// probing wraps to slot 0 (n = 3000 with 200 adds).
					j = keys[a%2]
					wrapped = true
				}
				x, p := rng.Float32(), rng.Float32()
				if !met[j] {
					met[j] = true
					order = append(order, j)
				}
				dense[j] += x * p
				tab.add(j, x, p)
			}
			if len(tab.used) != len(order) {
				t.Fatalf("n=%d adds=%d: %d slots used, %d samples touched", c.n, c.adds, len(tab.used), len(order))
			}
			for u, slot := range tab.used {
				if j := tab.key[slot]; j != order[u] {
					t.Fatalf("n=%d adds=%d: slot %d holds sample %d, touched %d-th was %d", c.n, c.adds, u, j, u, order[u])
				}
				if got, want := tab.sum[slot], dense[order[u]]; math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("n=%d adds=%d: sample %d sums to %v, dense accumulator %v", c.n, c.adds, order[u], got, want)
				}
			}
			tab.clear()
			for s, j := range tab.key {
				if j != -1 {
					t.Fatalf("slot %d still holds %d after clear", s, j)
				}
			}
		}
	}
	if !wrapped {
		t.Error("no case made a probe wrap past the last slot")
	}
}

// lastSlotKeys returns the first two samples below n that sumTable with
// 1<<bits slots hashes to its last slot, if there are two.
func lastSlotKeys(bits uint, n int) ([2]int32, bool) {
	var keys [2]int32
	found := 0
	for j := 0; j < n && found < 2; j++ {
		if (uint32(j)*0x9E3779B1)>>(32-bits) == 1<<bits-1 {
			keys[found] = int32(j)
			found++
		}
	}
	return keys, found == 2
}

// TestJoinCandidates: joins.candidates gives the plain definition's
// candidates in its order: for each v in B(i), the members u of B(v) where
// i-v or v-u is fresh, first occurrences only, skipping stamped samples.
func TestJoinCandidates(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	for _, c := range []struct{ n, k int }{{40, 6}, {200, 15}, {9, 3}} {
		for _, pFresh := range []float64{0, 0.1, 0.5, 1} {
			cur := newKLists(c.n, c.k)
			for i := range c.n {
				cur.cnt[i] = rng.IntN(c.k + 1)
				for r := i * c.k; r < i*c.k+cur.cnt[i]; r++ {
					cur.idx[r], cur.fresh[r] = rng.IntN(c.n), rng.Float64() < pFresh
				}
			}
			jn := &joins{k: c.k, sampled: max(1, c.k/2), cur: cur, revStart: make([]int, c.n+1), revCnt: make([]int, c.n)}
			for v := range c.n {
				jn.revCnt[v] = rng.IntN(c.k + 1)
				jn.revStart[v+1] = jn.revStart[v] + jn.revCnt[v] + rng.IntN(3) // unused slots between
			}
			jn.rev, jn.revFresh = make([]int, jn.revStart[c.n]), make([]bool, jn.revStart[c.n])
			for q := range jn.rev {
				jn.rev[q], jn.revFresh[q] = rng.IntN(c.n), rng.Float64() < pFresh
			}
			jn.collectFresh(3)
			stamp, ref := make([]int32, c.n), make([]int32, c.n)
			for i := range c.n {
				mark := int32(i + 1)
				for s := range c.n {
					if rng.IntN(5) == 0 {
						stamp[s], ref[s] = mark, mark
					}
				}
				got := jn.candidates(i, stamp, mark, nil)
				var want []int
				jn.each(i, func(v int, freshIV bool) {
					jn.each(v, func(u int, freshVU bool) {
						if (freshIV || freshVU) && ref[u] != mark {
							ref[u] = mark
							want = append(want, u)
						}
					})
				})
				if !slices.Equal(got, want) {
					t.Fatalf("n=%d k=%d fresh %v, sample %d: candidates %v, want %v", c.n, c.k, pFresh, i, got, want)
				}
			}
		}
	}
}

// TestPerColumn: the pruned index keeps max(k, 8) samples a feature
// while that names each sample k / 2 times on average, the smallest
// length that does otherwise, and 8 k at most.
func TestPerColumn(t *testing.T) {
	const k = 15
	flat := func(d int) func(int) int { return func(int) int { return d } }
	for _, c := range []struct {
		df      func(int) int
		m, n    int
		want    int
		comment string
	}{
		{flat(1000), 100, 100, 15, "a small corpus: the floor"},
		{flat(1000), 1000, 2000, 15, "1000 x 15 names 2000 x 7.5"},
		{flat(1000), 1000, 2001, 16, "one sample more needs a longer list"},
		{flat(1000), 100, 800, 60, "800 x 15 / 2 over 100 features"},
		{flat(1000), 10, 1000000, 8 * k, "the cap"},
		{flat(1), 10, 1000000, 8 * k, "features in one sample name nobody"},
		// sum_{f=2}^{c} f + c (39 - c) first reaches 100 x 15 / 2 = 750 at c = 32.
		{func(f int) int { return f }, 40, 100, 32, "short columns count what they hold"},
	} {
		if got := perColumn(c.df, c.m, c.n, k); got != c.want {
			t.Errorf("%s: perColumn = %d, want %d", c.comment, got, c.want)
		}
	}
}
