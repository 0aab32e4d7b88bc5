package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/sparse"
)

// eachBLAS runs f once with each BLAS backend of this build, as Dense
// gets its inner products from whichever is installed, and restores the
// default afterwards.
func eachBLAS(t *testing.T, f func(t *testing.T)) {
	defer blas.Use("")
	backends := []string{blas.Gonum}
	if blas.HasOpenBLAS() {
		backends = append(backends, blas.OpenBLAS)
	}
	for _, b := range backends {
		if err := blas.Use(b); err != nil {
			t.Fatal(err)
		}
		t.Run("blas="+b, f)
	}
}

// randomRows returns n random samples of m features with about density
// non-zeros each, values in (0, 1] (or (-1, 1] when signed). Every ninth
// sample is all zero and every seventh a copy of the one before, so that
// the zero-sample rule and exact ties are exercised.
func randomRows(rng *rand.Rand, n, m int, density float64, signed bool) [][]float64 {
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, m)
		switch {
		case i%9 == 4:
			continue
		case i%7 == 6:
			copy(x[i], x[i-1])
			continue
		}
		for j := range x[i] {
			if rng.Float64() < density {
				v := 1 - rng.Float64()
				if signed && rng.IntN(3) == 0 {
					v = -v
				}
				x[i][j] = v
			}
		}
	}
	return x
}

func toCSR(x [][]float64) *sparse.CSR {
	m := len(x[0])
	a := &sparse.CSR{Rows: len(x), Cols: m, Indptr: make([]int, len(x)+1)}
	for i, row := range x {
		for j, v := range row {
			if v != 0 {
				a.Ind, a.Val = append(a.Ind, j), append(a.Val, v)
			}
		}
		a.Indptr[i+1] = len(a.Ind)
	}
	return a
}

func toDense(x [][]float64) *mat.Dense {
	d := mat.NewDense(len(x), len(x[0]), nil)
	for i, row := range x {
		d.SetRow(i, row)
	}
	return d
}

func unitRows(x [][]float64) [][]float64 {
	out := make([][]float64, len(x))
	for i, row := range x {
		out[i] = slices.Clone(row)
		var s float64
		for _, v := range row {
			s += v * v
		}
		if s > 0 {
			for j := range out[i] {
				out[i][j] /= math.Sqrt(s)
			}
		}
	}
	return out
}

type edge struct{ i, j int }

// reference builds the graph the slow obvious way: all pairwise
// similarities (sparse: cosine, candidates at positive similarity only) or
// squared Euclidean distances (dense: sum of squared differences, every sample a
// candidate), the p best with ties to the lower index, the OR rule, and
// the weights; zero weights are not edges. Keys are i < j.
func reference(x [][]float64, sparseRule bool, p int, w Weight, t float64) map[edge]float64 {
	return referenceRule(x, sparseRule, Options{Neighbors: p, Weight: w, HeatT: t, Metric: EuclideanMetric})
}

// referenceRule is reference with opt's symmetry rule, shared-neighbour
// pruning and (dense) metric: the rows transformed by metricRows, then
// compared by Euclidean distance.
func referenceRule(x [][]float64, sparseRule bool, opt Options) map[edge]float64 {
	if !sparseRule {
		x = metricRows(x, opt.Metric.ForDense(len(x[0])))
	}
	n, p, w, t := len(x), opt.Neighbors, opt.Weight, opt.HeatT
	dot := func(i, j int) float64 {
		var s float64
		for f := range x[i] {
			s += x[i][f] * x[j][f]
		}
		return s
	}
	dist2 := func(i, j int) float64 {
		var s float64
		for f := range x[i] {
			d := x[i][f] - x[j][f]
			s += d * d
		}
		return s
	}
	weight := func(i, j int) float64 {
		switch w {
		case Heat:
			return math.Exp(-dist2(i, j) / (2 * t * t))
		case Cosine:
			den := math.Sqrt(dot(i, i)) * math.Sqrt(dot(j, j))
			if d := dot(i, j); d > 0 && den > 0 {
				return d / den
			}
			return 0
		}
		return 1
	}
	chosen := make([]map[int]bool, n)
	for i := 0; i < n; i++ {
		type cand struct {
			j   int
			key float64 // larger is nearer
		}
		var cs []cand
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			if sparseRule {
				ni, nj := math.Sqrt(dot(i, i)), math.Sqrt(dot(j, j))
				if ni == 0 || nj == 0 {
					continue
				}
				if s := dot(i, j) / (ni * nj); s > 0 {
					cs = append(cs, cand{j, s})
				}
			} else {
				cs = append(cs, cand{j, -dist2(i, j)})
			}
		}
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].key > cs[b].key })
		chosen[i] = map[int]bool{}
		for _, c := range cs[:min(p, len(cs))] {
			chosen[i][c.j] = true
		}
	}
	out := make(map[edge]float64)
	for i := 0; i < n; i++ {
		for j := range chosen[i] {
			if opt.Symmetry == Mutual && !chosen[j][i] {
				continue
			}
			shared := 0
			for q := range chosen[i] {
				if chosen[j][q] {
					shared++
				}
			}
			if shared < opt.MinShared {
				continue
			}
			if wt := weight(i, j); wt > 0 {
				out[edge{min(i, j), max(i, j)}] = wt
			}
		}
	}
	return out
}

// edgesOf returns the edges of g, keys i < j, after checking that g is a
// valid graph whose degrees are its row sums and whose weights are
// positive.
func edgesOf(t *testing.T, g *Graph, n int) map[edge]float64 {
	t.Helper()
	if err := g.Check(n); err != nil {
		t.Fatal(err)
	}
	out := make(map[edge]float64)
	w := g.W
	for i := 0; i < n; i++ {
		var sum float64
		for p := w.Indptr[i]; p < w.Indptr[i+1]; p++ {
			j, v := w.Ind[p], w.Val[p]
			if !(v > 0) || j == i {
				t.Fatalf("stored weight %v at (%d,%d)", v, i, j)
			}
			sum += v
			if i < j {
				out[edge{i, j}] = v
			}
		}
		if sum != g.Degree[i] {
			t.Fatalf("Degree[%d] = %v, row sum %v", i, g.Degree[i], sum)
		}
	}
	if g.Edges() != len(out) {
		t.Fatalf("Edges() = %d, %d pairs stored", g.Edges(), len(out))
	}
	return out
}

func sameEdges(t *testing.T, got, want map[edge]float64, tol float64) {
	t.Helper()
	bad := 0
	for e, w := range want {
		g, ok := got[e]
		switch {
		case !ok:
			t.Errorf("edge (%d,%d) of weight %v missing", e.i, e.j, w)
		case math.Abs(g-w) > tol*math.Abs(w):
			t.Errorf("edge (%d,%d): weight %v, want %v", e.i, e.j, g, w)
		default:
			continue
		}
		if bad++; bad > 10 {
			t.Fatal("too many differences")
		}
	}
	for e, g := range got {
		if _, ok := want[e]; !ok {
			t.Errorf("extra edge (%d,%d) of weight %v", e.i, e.j, g)
			if bad++; bad > 10 {
				t.Fatal("too many differences")
			}
		}
	}
}

func TestAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		n, m, p int
		density float64
		signed  bool
	}{
		{2, 3, 1, 0.9, false},
		{12, 6, 3, 0.3, false},
		{40, 20, 5, 0.15, false},
		{90, 40, 7, 0.1, true},
		{130, 25, 5, 0.4, false},
		{75, 12, 10, 0.5, true},
	} {
		x := randomRows(rng, c.n, c.m, c.density, c.signed)
		for _, w := range []Weight{Binary, Heat, Cosine} {
			const heatT = 0.8
			// The dense search by the papers' Euclidean distance; the
			// other metrics: TestDenseMetricsAgainstReference.
			opt := Options{Neighbors: c.p, Weight: w, HeatT: heatT, Metric: EuclideanMetric}
			name := fmt.Sprintf("n=%d/m=%d/p=%d/signed=%v/%v", c.n, c.m, c.p, c.signed, w)
			t.Run("sparse/"+name, func(t *testing.T) {
				a := toCSR(x)
				before := a.Clone()
				opt := opt
				opt.Metric = AutoMetric
				g, err := Sparse(context.Background(), a, opt)
				if err != nil {
					t.Fatal(err)
				}
				sameEdges(t, edgesOf(t, g, c.n), reference(x, true, c.p, w, heatT), 1e-12)
				if !slices.Equal(a.Val, before.Val) || !slices.Equal(a.Ind, before.Ind) {
					t.Error("Sparse changed its input")
				}
			})
			t.Run("dense/"+name, func(t *testing.T) {
				eachBLAS(t, func(t *testing.T) {
					d := toDense(x)
					before := mat.DenseCopyOf(d)
					g, err := Dense(context.Background(), d, opt)
					if err != nil {
						t.Fatal(err)
					}
					sameEdges(t, edgesOf(t, g, c.n), reference(x, false, c.p, w, heatT), 1e-12)
					if !mat.Equal(d, before) {
						t.Error("Dense changed its input")
					}
				})
			})
		}
	}
}

// TestPruningAgainstReference: the mutual rule and shared-neighbour
// pruning against the slow reference, sparse and dense.
func TestPruningAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ n, m, p int }{{30, 12, 4}, {80, 30, 6}, {120, 20, 9}} {
		x := randomRows(rng, c.n, c.m, 0.3, false)
		for _, sym := range []Symmetry{Either, Mutual} {
			for _, shared := range []int{0, 1, 2, c.p - 1} {
				opt := Options{Neighbors: c.p, Symmetry: sym, MinShared: shared, Weight: Cosine, Metric: EuclideanMetric}
				name := fmt.Sprintf("n=%d/p=%d/%v/shared=%d", c.n, c.p, sym, shared)
				sopt := opt
				sopt.Metric = AutoMetric
				gs, err := Sparse(context.Background(), toCSR(x), sopt)
				if err != nil {
					t.Fatal(err)
				}
				sameEdges(t, edgesOf(t, gs, c.n), referenceRule(x, true, sopt), 1e-12)
				gd, err := Dense(context.Background(), toDense(x), opt)
				if err != nil {
					t.Fatal(err)
				}
				sameEdges(t, edgesOf(t, gd, c.n), referenceRule(x, false, opt), 1e-12)
				if t.Failed() {
					t.Fatal(name)
				}
			}
		}
	}
}

func TestAgreement(t *testing.T) {
	// A path 0-1-2-3 with weights 1, 2, 3.
	w, err := sparse.FromTriplets(4, 4, []int{0, 1, 1, 2, 2, 3}, []int{1, 0, 2, 1, 3, 2}, []float64{1, 1, 2, 2, 3, 3})
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGraph(w)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		labels []int
		want   float64
	}{
		{[]int{0, 0, 0, 0}, 1}, {[]int{0, 0, 1, 1}, 4.0 / 6}, {[]int{0, 1, 0, 1}, 0}, {[]int{5, 5, 7, 7}, 4.0 / 6},
	} {
		if got := g.Agreement(c.labels); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("Agreement(%v) = %v, want %v", c.labels, got, c.want)
		}
	}
	empty, _ := NewGraph(&sparse.CSR{Rows: 3, Cols: 3, Indptr: make([]int, 4)})
	if got := empty.Agreement([]int{1, 2, 3}); got != 1 {
		t.Errorf("no edges: %v, want 1", got)
	}
}

// TestSparseMatchesDense checks that on unit-length rows the cosine graph
// and the Euclidean graph choose the same neighbours, as
// |a-b|^2 = 2 - 2 cos for unit vectors. The data are dense enough for every
// sample to have p candidates at positive similarity, and have no copies,
// so there are no exact ties that the two searches might break apart by
// rounding.
func TestSparseMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, m := 150, 30
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, m)
		for j := range x[i] {
			if rng.Float64() < 0.5 {
				x[i][j] = rng.Float64()
			}
		}
	}
	raw := x
	x = unitRows(x)
	for _, p := range []int{1, 5, 12} {
		gs, err := Sparse(context.Background(), toCSR(x), Options{Neighbors: p})
		if err != nil {
			t.Fatal(err)
		}
		gd, err := Dense(context.Background(), toDense(x), Options{Neighbors: p, Metric: EuclideanMetric})
		if err != nil {
			t.Fatal(err)
		}
		sameEdges(t, edgesOf(t, gs, n), edgesOf(t, gd, n), 0)
		// By cosine, the dense search needs no unit rows.
		gc, err := Dense(context.Background(), toDense(raw), Options{Neighbors: p, Metric: CosineMetric})
		if err != nil {
			t.Fatal(err)
		}
		sameEdges(t, edgesOf(t, gs, n), edgesOf(t, gc, n), 0)
	}
}

func sameGraph(t *testing.T, got, want *Graph, what string) {
	t.Helper()
	if !slices.Equal(got.W.Indptr, want.W.Indptr) || !slices.Equal(got.W.Ind, want.W.Ind) ||
		!slices.Equal(got.W.Val, want.W.Val) || !slices.Equal(got.Degree, want.Degree) {
		t.Errorf("%s: graphs differ", what)
	}
}

func TestThreadInvariance(t *testing.T) {
	eachBLAS(t, testThreadInvariance)
}

func testThreadInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// 700 samples are 22 chunks of sparse queries and, for the dense
	// search, rows split among goroutines in chunks of 8.
	x := randomRows(rng, 700, 60, 0.08, false)
	a, d := toCSR(x), toDense(x)
	for _, w := range []Weight{Binary, Heat, Cosine} {
		var refS, refD *Graph
		for _, threads := range []int{1, 2, 3, 8} {
			opt := Options{Neighbors: 6, Weight: w, Threads: threads, Seed: 9}
			gs, err := Sparse(context.Background(), a, opt)
			if err != nil {
				t.Fatal(err)
			}
			gd, err := Dense(context.Background(), d, opt)
			if err != nil {
				t.Fatal(err)
			}
			if refS == nil {
				refS, refD = gs, gd
				continue
			}
			sameGraph(t, gs, refS, fmt.Sprintf("sparse %v, %d threads", w, threads))
			sameGraph(t, gd, refD, fmt.Sprintf("dense %v, %d threads", w, threads))
		}
	}
}

// TestFewCandidates checks the sparse rule for samples with fewer than p
// samples at positive similarity: they get only those, and an all-zero
// sample gets nothing, while the dense search joins every sample to p
// others.
func TestFewCandidates(t *testing.T) {
	x := [][]float64{
		{1, 0, 0, 0},
		{1, 1, 0, 0},
		{0, 0, 1, 0}, // shares a feature with nobody
		{0, 0, 0, 0}, // all zero
		{2, 1, 0, 0},
		{0, 3, 0, 1},
	}
	g, err := Sparse(context.Background(), toCSR(x), Options{Neighbors: 3})
	if err != nil {
		t.Fatal(err)
	}
	got := edgesOf(t, g, len(x))
	want := reference(x, true, 3, Binary, 0)
	sameEdges(t, got, want, 0)
	for _, v := range []int{2, 3} {
		if g.Degree[v] != 0 {
			t.Errorf("sample %d has degree %v, want 0", v, g.Degree[v])
		}
	}
	gd, err := Dense(context.Background(), toDense(x), Options{Neighbors: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i, deg := range gd.Degree {
		if deg < 3 {
			t.Errorf("dense: sample %d has degree %v, want at least 3", i, deg)
		}
	}
}

// TestTies checks the lower-index rule on exact ties: samples 1 to 4 are
// copies, equally near to sample 0, which must choose 1 and 2.
func TestTies(t *testing.T) {
	x := [][]float64{{1, 1}, {1, 0}, {1, 0}, {1, 0}, {1, 0}, {0, 1}}
	for _, dense := range []bool{false, true} {
		var g *Graph
		var err error
		if dense {
			g, err = Dense(context.Background(), toDense(x), Options{Neighbors: 2})
		} else {
			g, err = Sparse(context.Background(), toCSR(x), Options{Neighbors: 2})
		}
		if err != nil {
			t.Fatal(err)
		}
		e := edgesOf(t, g, len(x))
		for _, j := range []int{1, 2} {
			if _, ok := e[edge{0, j}]; !ok {
				t.Errorf("dense=%v: sample 0 not joined to %d: %v", dense, j, e)
			}
		}
		for _, j := range []int{3, 4} {
			if _, ok := e[edge{0, j}]; ok {
				t.Errorf("dense=%v: sample 0 joined to %d: %v", dense, j, e)
			}
		}
	}
}

func TestLaplacianAndMulTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := randomRows(rng, 97, 30, 0.2, false)
	g, err := Sparse(context.Background(), toCSR(x), Options{Neighbors: 4, Weight: Cosine})
	if err != nil {
		t.Fatal(err)
	}
	n := g.N()
	l := g.Laplacian()
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		var sum float64
		for p := l.Indptr[i]; p < l.Indptr[i+1]; p++ {
			j := l.Ind[p]
			want := -g.W.At(i, j)
			if j == i {
				want = g.Degree[i]
			}
			if l.Val[p] != want {
				t.Fatalf("L(%d,%d) = %v, want %v", i, j, l.Val[p], want)
			}
			sum += l.Val[p]
		}
		if math.Abs(sum) > 1e-12*max(1, g.Degree[i]) {
			t.Errorf("row %d of L sums to %v", i, sum)
		}
		if l.At(i, i) != g.Degree[i] {
			t.Errorf("L(%d,%d) = %v, want the degree %v", i, i, l.At(i, i), g.Degree[i])
		}
	}
	if l.NNZ() != g.W.NNZ()+n {
		t.Errorf("L has %d entries, want %d", l.NNZ(), g.W.NNZ()+n)
	}

	const guard = -777.0
	for k := 1; k <= 33; k++ {
		v := blas64.General{Rows: n, Cols: k, Stride: k + 3, Data: make([]float64, n*(k+3))}
		for i := range v.Data {
			v.Data[i] = rng.Float64()
		}
		vBefore := slices.Clone(v.Data)
		dst := blas64.General{Rows: n, Cols: k, Stride: k + 2, Data: make([]float64, n*(k+2))}
		for i := range dst.Data {
			dst.Data[i] = guard
		}
		for _, threads := range []int{1, 3} {
			g.MulTo(dst, v, threads)
			for i := 0; i < n; i++ {
				for c := 0; c < k; c++ {
					var want float64
					for j := 0; j < n; j++ {
						want += g.W.At(i, j) * v.Data[j*v.Stride+c]
					}
					if got := dst.Data[i*dst.Stride+c]; math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
						t.Fatalf("k=%d: (WV)(%d,%d) = %v, want %v", k, i, c, got, want)
					}
				}
				for c := k; c < dst.Stride; c++ {
					if dst.Data[i*dst.Stride+c] != guard {
						t.Fatalf("k=%d: guard at row %d, column %d overwritten", k, i, c)
					}
				}
			}
		}
		if !slices.Equal(v.Data, vBefore) {
			t.Fatalf("k=%d: MulTo changed v", k)
		}
	}
}

// meanPairDistance is the mean Euclidean distance over the distinct pairs
// of the samples idx.
func meanPairDistance(x [][]float64, idx []int) float64 {
	var sum float64
	for a, i := range idx {
		for _, j := range idx[a+1:] {
			var s float64
			for f := range x[i] {
				d := x[i][f] - x[j][f]
				s += d * d
			}
			sum += math.Sqrt(s)
		}
	}
	s := float64(len(idx))
	return sum / (s * (s - 1) / 2)
}

func TestDefaultHeatT(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 10))
	small := randomRows(rng, 200, 15, 0.3, false)
	all := make([]int, len(small))
	for i := range all {
		all[i] = i
	}
	want := meanPairDistance(small, all)
	ts, err := sparseHeatT(ctx, toCSR(small), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	td, err := denseHeatT(ctx, toDense(small).RawMatrix(), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The search computes squared distances as |a|^2 + |b|^2 - 2 a.b,
	// which for copies leaves a rounding residue of about 1e-16 whose
	// square root is 1e-8: hence the looser tolerance.
	for _, got := range []float64{ts, td} {
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("default t = %v, want the mean pairwise distance %v", got, want)
		}
	}

	// Past heatSampleSize samples, t comes from a seeded sample: the same
	// for the same seed, another for another, near the mean of all pairs.
	big := randomRows(rng, heatSampleSize+400, 4, 0.7, false)
	a, d := toCSR(big), toDense(big).RawMatrix()
	t1, err := sparseHeatT(ctx, a, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	t1b, _ := sparseHeatT(ctx, a, 1, 1)
	t2, _ := sparseHeatT(ctx, a, 2, 2)
	d1, _ := denseHeatT(ctx, d, 1, 2)
	if t1 != t1b || t1 == t2 || !(t1 > 0) {
		t.Errorf("sparse default t: %v and %v for seed 1, %v for seed 2", t1, t1b, t2)
	}
	if math.Abs(d1-t1) > 1e-9*t1 {
		t.Errorf("dense default t %v differs from sparse %v on the same sample", d1, t1)
	}
	if exact := meanPairDistance(big, heatSample(len(big), 1)); math.Abs(t1-exact) > 1e-9*exact {
		t.Errorf("default t = %v, mean over its sample %v", t1, exact)
	}
	sample := heatSample(len(big), 1)
	if len(sample) != heatSampleSize || !slices.IsSorted(sample) || len(slices.Compact(slices.Clone(sample))) != len(sample) {
		t.Errorf("heatSample: %d samples", len(sample))
	}

	// The graph with the default t is the graph with that t given.
	opt := Options{Weight: Heat, Seed: 1}
	g0, err := Sparse(ctx, a, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.HeatT = t1
	g1, err := Sparse(ctx, a, opt)
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, g0, g1, "default t against explicit t")

	// Coinciding samples leave no scale to choose.
	same := [][]float64{{1, 2}, {1, 2}, {1, 2}}
	if _, err := Dense(ctx, toDense(same), Options{Neighbors: 1, Weight: Heat}); err == nil || !strings.Contains(err.Error(), "heat kernel width") {
		t.Errorf("coinciding samples: error %v", err)
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	x := [][]float64{{1, 0}, {0, 1}, {1, 1}, {2, 1}}
	a, d := toCSR(x), toDense(x)
	nan := toCSR(x)
	nan.Val[2] = math.NaN()
	dnan := toDense(x)
	dnan.Set(2, 1, math.NaN())
	for _, c := range []struct {
		name string
		run  func() (*Graph, error)
		want string
	}{
		{"negative p", func() (*Graph, error) { return Sparse(ctx, a, Options{Neighbors: -1}) }, "at least 1"},
		{"p = n", func() (*Graph, error) { return Sparse(ctx, a, Options{Neighbors: 4}) }, "p = 4 neighbours needs at least 5 samples"},
		{"default p too large", func() (*Graph, error) { return Dense(ctx, d, Options{}) }, "p = 5 neighbours needs at least 6 samples"},
		{"sparse NaN", func() (*Graph, error) { return Sparse(ctx, nan, Options{Neighbors: 1}) }, "not finite"},
		{"dense NaN", func() (*Graph, error) { return Dense(ctx, dnan, Options{Neighbors: 1}) }, "sample 3, feature 2 (1-based): value NaN"},
		{"nil sparse", func() (*Graph, error) { return Sparse(ctx, nil, Options{}) }, "nil"},
		{"empty sparse", func() (*Graph, error) {
			return Sparse(ctx, &sparse.CSR{Indptr: []int{0}}, Options{})
		}, "empty data"},
		{"no features", func() (*Graph, error) {
			return Sparse(ctx, &sparse.CSR{Rows: 2, Indptr: []int{0, 0, 0}}, Options{Neighbors: 1})
		}, "empty data"},
		{"empty dense", func() (*Graph, error) { return Dense(ctx, &mat.Dense{}, Options{}) }, "empty"},
		{"nil dense", func() (*Graph, error) { return Dense(ctx, nil, Options{}) }, "empty"},
		{"negative t", func() (*Graph, error) { return Sparse(ctx, a, Options{Neighbors: 1, Weight: Heat, HeatT: -1}) }, "t = -1"},
		{"NaN t", func() (*Graph, error) { return Dense(ctx, d, Options{Neighbors: 1, Weight: Heat, HeatT: math.NaN()}) }, "t = NaN"},
		{"unknown weight", func() (*Graph, error) { return Sparse(ctx, a, Options{Neighbors: 1, Weight: 7}) }, "unknown weight"},
		{"unknown symmetry", func() (*Graph, error) { return Sparse(ctx, a, Options{Neighbors: 1, Symmetry: 3}) }, "unknown symmetry"},
		{"shared = p", func() (*Graph, error) { return Dense(ctx, d, Options{Neighbors: 2, MinShared: 2}) }, "2 shared neighbours required of p = 2"},
		{"negative shared", func() (*Graph, error) { return Dense(ctx, d, Options{Neighbors: 2, MinShared: -1}) }, "-1 shared"},
		{"bad CSR", func() (*Graph, error) {
			return Sparse(ctx, &sparse.CSR{Rows: 2, Cols: 2, Indptr: []int{0, 1, 1}, Ind: []int{5}, Val: []float64{1}}, Options{Neighbors: 1})
		}, "out of range"},
		// Weights each finite whose degrees overflow (a path 1-2-3), and
		// an infinite weight: Check must refuse both.
		{"degree overflow", func() (*Graph, error) {
			return NewGraph(&sparse.CSR{Rows: 3, Cols: 3, Indptr: []int{0, 1, 3, 4}, Ind: []int{1, 0, 2, 1}, Val: []float64{1e308, 1e308, 1e308, 1e308}})
		}, "overflow: their sum reaches +Inf at vertex 2"},
		{"infinite weight", func() (*Graph, error) {
			inf := math.Inf(1)
			return NewGraph(&sparse.CSR{Rows: 2, Cols: 2, Indptr: []int{0, 1, 2}, Ind: []int{1, 0}, Val: []float64{inf, inf}})
		}, "row 1, column 2 (1-based): value +Inf is not finite"},
	} {
		g, err := c.run()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if g != nil {
			t.Errorf("%s: a graph with the error", c.name)
		}
	}
	if _, err := parseWeight("gaussian"); err == nil || !strings.Contains(err.Error(), `"gaussian"`) {
		t.Errorf("parseWeight(gaussian): %v", err)
	}
	for _, w := range []Weight{Binary, Heat, Cosine} {
		if got, err := parseWeight(w.String()); err != nil || got != w {
			t.Errorf("parseWeight(%q) = %v, %v", w.String(), got, err)
		}
	}
	if s := Weight(9).String(); s != "Weight(9)" {
		t.Errorf("Weight(9).String() = %q", s)
	}
}

func TestCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x := randomRows(rng, 100, 10, 0.5, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if g, err := Sparse(ctx, toCSR(x), Options{}); !errors.Is(err, context.Canceled) || g != nil {
		t.Errorf("sparse: %v", err)
	}
	if g, err := Dense(ctx, toDense(x), Options{}); !errors.Is(err, context.Canceled) || g != nil {
		t.Errorf("dense: %v", err)
	}
	if g, err := Dense(ctx, toDense(x), Options{Weight: Heat}); !errors.Is(err, context.Canceled) || g != nil {
		t.Errorf("dense heat: %v", err)
	}
}

// TestCheckOrder: Check runs over chunks of rows in parallel and must
// still report what a pass in row order meets first, across chunks.
func TestCheckOrder(t *testing.T) {
	n := 3*4096 + 10
	ring := func() *sparse.CSR {
		w := &sparse.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
		for i := 0; i < n; i++ {
			nb := []int{(i + n - 1) % n, (i + 1) % n}
			if nb[0] > nb[1] {
				nb[0], nb[1] = nb[1], nb[0]
			}
			w.Ind = append(w.Ind, nb...)
			w.Val = append(w.Val, 1, 1)
			w.Indptr[i+1] = len(w.Ind)
		}
		return w
	}
	// set changes W(i,j) (0-based), an existing entry.
	set := func(w *sparse.CSR, i, j int, v float64) {
		for p := w.Indptr[i]; p < w.Indptr[i+1]; p++ {
			if w.Ind[p] == j {
				w.Val[p] = v
				return
			}
		}
		t.Fatalf("no entry (%d,%d)", i, j)
	}
	w := ring()
	g, err := NewGraph(w)
	if err != nil {
		t.Fatalf("ring: %v", err)
	}
	if !slices.Equal(g.Degree, w.RowSums()) {
		t.Error("NewGraph's degrees differ from W's row sums")
	}
	for _, c := range []struct {
		name string
		edit func(w *sparse.CSR)
		want string
	}{
		{"asymmetric in the third chunk", func(w *sparse.CSR) { set(w, 9000, 9001, 2) }, "W(9001,9002) = 2 but W(9002,9001) = 1"},
		{"the second chunk's before the third's", func(w *sparse.CSR) {
			set(w, 9000, 9001, 2)
			set(w, 5000, 5001, -1)
		}, "weight -1 at (5001,5002)"},
		{"the mirror of an asymmetric pair is met first", func(w *sparse.CSR) { set(w, 9001, 9000, 2) }, "W(9001,9002) = 1 but W(9002,9001) = 2"},
		{"overflow before a later chunk's error", func(w *sparse.CSR) {
			set(w, 4000, 4001, 1e308)
			set(w, 4001, 4000, 1e308)
			set(w, 4001, 4002, 1e308)
			set(w, 4002, 4001, 1e308)
			set(w, 9000, 9001, 2)
		}, "reaches +Inf at vertex 4002"},
		{"an error before the overflow's vertex", func(w *sparse.CSR) {
			set(w, 4000, 4001, 1e308)
			set(w, 4001, 4000, 1e308)
			set(w, 4001, 4002, 1e308)
			set(w, 4002, 4001, 1e308)
			set(w, 100, 101, -1)
		}, "weight -1 at (101,102)"},
	} {
		w := ring()
		c.edit(w)
		g, err := NewGraph(w)
		if err == nil || !strings.Contains(err.Error(), c.want) || g != nil {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}
