package sparse

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func denseOf(a *CSR) *mat.Dense {
	d := mat.NewDense(max(a.Rows, 1), max(a.Cols, 1), nil)
	for i, row := range toDense(a) {
		d.SetRow(i, row)
	}
	return d
}

// denseSingularValues returns all singular values of a by gonum's dense SVD.
func denseSingularValues(t *testing.T, a *CSR) []float64 {
	t.Helper()
	var svd mat.SVD
	if !svd.Factorize(denseOf(a), mat.SVDNone) {
		t.Fatal("dense SVD failed")
	}
	return svd.Values(nil)
}

// checkTriplets checks that u and v have orthonormal columns, that s is
// descending and non-negative, that a v_j = s_j u_j and a^T u_j = s_j v_j
// to tol relative to s_0, and the sign rule.
func checkTriplets(t *testing.T, name string, a *CSR, u *mat.Dense, s []float64, v *mat.Dense, tol float64) {
	t.Helper()
	r, c := a.Dims()
	k := len(s)
	if ur, uc := u.Dims(); ur != r || uc != k {
		t.Fatalf("%s: u is %d x %d, want %d x %d", name, ur, uc, r, k)
	}
	if vr, vc := v.Dims(); vr != c || vc != k {
		t.Fatalf("%s: v is %d x %d, want %d x %d", name, vr, vc, c, k)
	}
	for _, f := range []*mat.Dense{u, v} {
		var g mat.Dense
		g.Mul(f.T(), f)
		for i := range k {
			for j := range k {
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(g.At(i, j)-want) > 1e-12 {
					t.Fatalf("%s: columns not orthonormal: (%d,%d) of the Gram matrix is %v", name, i, j, g.At(i, j))
				}
			}
		}
	}
	for j := range k {
		if s[j] < 0 || (j > 0 && s[j] > s[j-1]) {
			t.Fatalf("%s: singular values %v not descending and non-negative", name, s)
		}
	}
	ad := denseOf(a).Slice(0, r, 0, c)
	var av, atu mat.Dense
	av.Mul(ad, v)
	atu.Mul(ad.T(), u)
	scale := max(s[0], 1e-300)
	for j := range k {
		for i := range r {
			if e := math.Abs(av.At(i, j) - s[j]*u.At(i, j)); e > tol*scale {
				t.Fatalf("%s: (a v - s u)[%d,%d] = %v", name, i, j, e)
			}
		}
		for i := range c {
			if e := math.Abs(atu.At(i, j) - s[j]*v.At(i, j)); e > tol*scale {
				t.Fatalf("%s: (a^T u - s v)[%d,%d] = %v", name, i, j, e)
			}
		}
		col := mat.Col(nil, j, u)
		at, big := 0, -1.0
		for i, x := range col {
			if math.Abs(x) > big {
				at, big = i, math.Abs(x)
			}
		}
		if col[at] < 0 {
			t.Fatalf("%s: column %d of u has its largest entry %v negative", name, j, col[at])
		}
	}
}

// reconstructionError returns ||a - u diag(s) v^T||_F.
func reconstructionError(a *CSR, u *mat.Dense, s []float64, v *mat.Dense) float64 {
	var us, e mat.Dense
	us.Scale(1, u)
	for j, sj := range s {
		for i := range a.Rows {
			us.Set(i, j, us.At(i, j)*sj)
		}
	}
	e.Mul(&us, v.T())
	e.Sub(denseOf(a).Slice(0, a.Rows, 0, a.Cols), &e)
	return mat.Norm(&e, 2)
}

// TestTruncatedSVDMatchesDense covers the spectrum with the sketch
// (k + Oversample >= min(r, c)), so the result must agree with the dense
// SVD to rounding, for tall, wide, square and degenerate shapes.
func TestTruncatedSVDMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sh := range []struct {
		r, c, k int
		density float64
	}{{30, 20, 5, 0.3}, {20, 45, 20, 0.3}, {64, 64, 10, 0.1}, {1, 5, 1, 1}, {7, 1, 1, 1}, {90, 70, 3, 0.05}} {
		a := randomCSR(rng, sh.r, sh.c, sh.density)
		name := fmt.Sprintf("%dx%d k=%d", sh.r, sh.c, sh.k)
		u, s, v, err := TruncatedSVD(context.Background(), a, sh.k, SVDOptions{Oversample: min(sh.r, sh.c), Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		want := denseSingularValues(t, a)
		for j := range sh.k {
			if math.Abs(s[j]-want[j]) > 1e-12*want[0]+1e-10*want[j] {
				t.Errorf("%s: s[%d] = %v, dense %v", name, j, s[j], want[j])
			}
		}
		checkTriplets(t, name, a, u, s, v, 1e-11)
		// The best rank-k approximation misses exactly the other values.
		var tail float64
		for _, x := range want[sh.k:] {
			tail += x * x
		}
		if e := reconstructionError(a, u, s, v); math.Abs(e-math.Sqrt(tail)) > 1e-10*want[0] {
			t.Errorf("%s: ||a - u s v^T|| = %v, want %v", name, e, math.Sqrt(tail))
		}
	}
}

// TestTruncatedSVDDecayingSpectrum uses the default options on a matrix
// whose columns shrink geometrically, so its spectrum decays and 4 power
// iterations with 10 extra directions pin the leading values down.
func TestTruncatedSVDDecayingSpectrum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	a := randomCSR(rng, 300, 200, 0.05)
	f := make([]float64, a.Cols)
	for j := range f {
		f[j] = math.Pow(0.85, float64(j))
	}
	a.ScaleCols(f)
	const k = 6
	u, s, v, err := TruncatedSVD(context.Background(), a, k, SVDOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := denseSingularValues(t, a)
	if want[k+10] > 0.2*want[k-1] {
		t.Fatalf("spectrum decays too slowly for the test: s[%d] = %v, s[%d] = %v", k-1, want[k-1], k+10, want[k+10])
	}
	for j := range k {
		if math.Abs(s[j]-want[j]) > 1e-8*want[j] {
			t.Errorf("s[%d] = %v, dense %v (relative error %.2g)", j, s[j], want[j], math.Abs(s[j]-want[j])/want[j])
		}
	}
	checkTriplets(t, "decaying", a, u, s, v, 1e-6)
}

// TestTruncatedSVDRitzBound: without power iterations or oversampling the
// values are those of Q^T a for an orthonormal Q, which never exceed the
// true ones (Cauchy interlacing).
func TestTruncatedSVDRitzBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	a := randomCSR(rng, 80, 60, 0.1)
	want := denseSingularValues(t, a)
	u, s, v, err := TruncatedSVD(context.Background(), a, 8, SVDOptions{Oversample: -1, PowerIters: -1, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for j := range s {
		if s[j] > want[j]*(1+1e-12) {
			t.Errorf("s[%d] = %v above the true %v", j, s[j], want[j])
		}
	}
	if s[0] < 0.5*want[0] {
		t.Errorf("s[0] = %v, true %v: the sketch missed the leading direction", s[0], want[0])
	}
	for _, f := range []*mat.Dense{u, v} {
		var g mat.Dense
		g.Mul(f.T(), f)
		if !mat.EqualApprox(&g, eye(len(s)), 1e-12) {
			t.Error("columns not orthonormal")
		}
	}
}

func eye(n int) *mat.Dense {
	d := mat.NewDense(n, n, nil)
	for i := range n {
		d.Set(i, i, 1)
	}
	return d
}

func TestTruncatedSVDZeroMatrix(t *testing.T) {
	a := &CSR{Rows: 6, Cols: 4, Indptr: make([]int, 7)}
	u, s, v, err := TruncatedSVD(context.Background(), a, 3, SVDOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s, []float64{0, 0, 0}) {
		t.Errorf("singular values %v, want zeros", s)
	}
	for _, f := range []*mat.Dense{u, v} {
		var g mat.Dense
		g.Mul(f.T(), f)
		if !mat.EqualApprox(&g, eye(3), 1e-14) {
			t.Error("columns not orthonormal")
		}
	}
}

func TestTruncatedSVDIdenticalForAnyThreadCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	a := randomCSR(rng, 700, 300, 0.03)
	opt := SVDOptions{Seed: 99}
	u1, s1, v1, err := TruncatedSVD(context.Background(), a, 12, opt)
	if err != nil {
		t.Fatal(err)
	}
	bits := func(x []float64) []uint64 {
		b := make([]uint64, len(x))
		for i, v := range x {
			b[i] = math.Float64bits(v)
		}
		return b
	}
	for _, threads := range []int{1, 3, 8} {
		opt.Threads = threads
		u, s, v, err := TruncatedSVD(context.Background(), a, 12, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(bits(s), bits(s1)) || !slices.Equal(bits(u.RawMatrix().Data), bits(u1.RawMatrix().Data)) ||
			!slices.Equal(bits(v.RawMatrix().Data), bits(v1.RawMatrix().Data)) {
			t.Errorf("threads %d: result differs from the default thread count", threads)
		}
	}
	opt.Seed = 100
	_, _, v, err := TruncatedSVD(context.Background(), a, 12, opt)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(bits(v.RawMatrix().Data), bits(v1.RawMatrix().Data)) {
		t.Error("another seed gave bit-identical vectors; is the seed used?")
	}
}

func TestTruncatedSVDBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	a := randomCSR(rng, 5, 4, 0.5)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		ctx  context.Context
		a    *CSR
		k    int
		want string
	}{
		{"nil", context.Background(), nil, 1, "nil"},
		{"invalid", context.Background(), &CSR{Rows: 1, Cols: 2, Indptr: []int{0, 1}, Ind: []int{5}, Val: []float64{1}}, 1, "out of range"},
		{"not finite", context.Background(), &CSR{Rows: 1, Cols: 2, Indptr: []int{0, 1}, Ind: []int{1}, Val: []float64{math.NaN()}}, 1, "not finite"},
		{"no rows", context.Background(), &CSR{Rows: 0, Cols: 3, Indptr: []int{0}}, 1, "0 x 3"},
		{"no columns", context.Background(), &CSR{Rows: 2, Cols: 0, Indptr: []int{0, 0, 0}}, 1, "2 x 0"},
		{"k zero", context.Background(), a, 0, "k = 0"},
		{"k negative", context.Background(), a, -3, "k = -3"},
		{"k too large", context.Background(), a, 5, "k = 5"},
		{"cancelled", cancelled, a, 2, context.Canceled.Error()},
	}
	for _, c := range cases {
		u, s, v, err := TruncatedSVD(c.ctx, c.a, c.k, SVDOptions{})
		if err == nil || u != nil || s != nil || v != nil {
			t.Errorf("%s: got %v, %v, %v, %v", c.name, u, s, v, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
	if _, _, _, err := TruncatedSVD(cancelled, a, 2, SVDOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v is not context.Canceled", err)
	}
}

// randomRows returns an r x c matrix with nnz random columns in each row
// and values in (0, 1], shaped like a tf-idf corpus.
func randomRows(rng *rand.Rand, r, c, nnz int) *CSR {
	a := &CSR{Rows: r, Cols: c, Indptr: make([]int, r+1), Ind: make([]int, 0, r*nnz), Val: make([]float64, 0, r*nnz)}
	seen := make(map[int]bool, nnz)
	for i := range r {
		clear(seen)
		for len(seen) < nnz {
			seen[rng.IntN(c)] = true
		}
		row := make([]int, 0, nnz)
		for j := range seen {
			row = append(row, j)
		}
		slices.Sort(row)
		for _, j := range row {
			a.Ind = append(a.Ind, j)
			a.Val = append(a.Val, 1-rng.Float64())
		}
		a.Indptr[i+1] = len(a.Ind)
	}
	return a
}

// BenchmarkTruncatedSVD times a TDT2-sized corpus: 9394 documents, 36093
// terms, about 130 terms per document, k = 30.
func BenchmarkTruncatedSVD(b *testing.B) {
	a := randomRows(rand.New(rand.NewPCG(1, 1)), 9394, 36093, 130)
	for _, threads := range []int{1, 0} {
		b.Run(fmt.Sprintf("9394x36093/k=30/threads=%d", threads), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, _, err := TruncatedSVD(context.Background(), a, 30, SVDOptions{Threads: threads}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/op")
		})
	}
}

// TestTruncatedSVDCentered: with Center the singular values and u s are
// those of the explicitly centered dense matrix (column means removed), so
// the principal components come out of the sparse matrix as it is.
func TestTruncatedSVDCentered(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, sh := range [][3]int{{30, 20, 5}, {20, 45, 12}, {50, 8, 3}} {
		r, c, k := sh[0], sh[1], sh[2]
		a := randomCSR(rng, r, c, 0.3)
		u, s, v, err := TruncatedSVD(context.Background(), a, k, SVDOptions{Oversample: min(r, c), Seed: 5, Center: true})
		if err != nil {
			t.Fatal(err)
		}
		x := mat.DenseCopyOf(denseOf(a).Slice(0, r, 0, c))
		for j := range c {
			var m float64
			for i := range r {
				m += x.At(i, j)
			}
			m /= float64(r)
			for i := range r {
				x.Set(i, j, x.At(i, j)-m)
			}
		}
		var svd mat.SVD
		if !svd.Factorize(x, mat.SVDThin) {
			t.Fatal("dense SVD failed")
		}
		want := svd.Values(nil)
		for j := range k {
			if math.Abs(s[j]-want[j]) > 1e-10*want[0] {
				t.Errorf("%dx%d: s[%d] = %v, centered dense %v", r, c, j, s[j], want[j])
			}
		}
		// u s v^T reconstructs the centered matrix's best rank-k part.
		var us, rec mat.Dense
		us.CloneFrom(u)
		for j, sj := range s {
			for i := range r {
				us.Set(i, j, us.At(i, j)*sj)
			}
		}
		rec.Mul(&us, v.T())
		rec.Sub(x, &rec)
		var tail float64
		for _, w := range want[k:] {
			tail += w * w
		}
		if e := mat.Norm(&rec, 2); math.Abs(e-math.Sqrt(tail)) > 1e-9*want[0] {
			t.Errorf("%dx%d: ||xc - u s v^T|| = %v, want %v", r, c, e, math.Sqrt(tail))
		}
	}
}

// TestTruncatedSVDGivenTranspose: with a's transpose given in SVDOptions.T
// the result is the same bits as with the copy TruncatedSVD makes; with
// the transpose's rows in another order it agrees to rounding; a
// transpose of the wrong shape, entry count or array lengths is an error.
func TestTruncatedSVDGivenTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	a := randomCSR(rng, 120, 70, 0.1)
	ctx := context.Background()
	u0, s0, v0, err := TruncatedSVD(ctx, a, 6, SVDOptions{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	at := a.T()
	u1, s1, v1, err := TruncatedSVD(ctx, a, 6, SVDOptions{Seed: 4, T: at})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s1, s0) || !mat.Equal(u1, u0) || !mat.Equal(v1, v0) {
		t.Error("the transpose given gives another result than TruncatedSVD's own")
	}
	// Each row of the transpose reversed: the products sum in another
	// order, the same numbers to rounding.
	rev := at.Clone()
	for i := range rev.Rows {
		lo, hi := rev.Indptr[i], rev.Indptr[i+1]
		slices.Reverse(rev.Ind[lo:hi])
		slices.Reverse(rev.Val[lo:hi])
	}
	u2, s2, v2, err := TruncatedSVD(ctx, a, 6, SVDOptions{Seed: 4, T: rev})
	if err != nil {
		t.Fatal(err)
	}
	for i := range s0 {
		if math.Abs(s2[i]-s0[i]) > 1e-10*s0[0] {
			t.Errorf("singular value %d: %v with the rows reversed, %v", i, s2[i], s0[i])
		}
	}
	if !mat.EqualApprox(u2, u0, 1e-8) || !mat.EqualApprox(v2, v0, 1e-8) {
		t.Error("vectors with the transpose's rows reversed differ beyond rounding")
	}
	short := at.Clone()
	short.Ind = short.Ind[:len(short.Ind)-1]
	for _, bad := range []*CSR{a, {Rows: 70, Cols: 120, Indptr: make([]int, 71)}, short} {
		if _, _, _, err := TruncatedSVD(ctx, a, 6, SVDOptions{T: bad}); err == nil || !strings.Contains(err.Error(), "transpose given") {
			t.Errorf("transpose %d x %d with %d entries: error %v", bad.Rows, bad.Cols, bad.NNZ(), err)
		}
	}
}
