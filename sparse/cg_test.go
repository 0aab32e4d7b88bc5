package sparse

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
)

// cgGraph returns a symmetric n x n graph with zero diagonal in which every
// node links to about p random others; weights are 1 if binary, otherwise
// in (0, 1].
func cgGraph(rng *rand.Rand, n, p int, binary bool) *CSR {
	edges := map[[2]int]float64{}
	for i := 0; i < n && n > 1; i++ {
		for t := 0; t < p; t++ {
			j := rng.IntN(n - 1)
			if j >= i {
				j++
			}
			w := 1.0
			if !binary {
				w = 1 - rng.Float64()
			}
			edges[[2]int{min(i, j), max(i, j)}] = w
		}
	}
	var ri, ci []int
	var v []float64
	for e, w := range edges {
		ri, ci, v = append(ri, e[0], e[1]), append(ci, e[1], e[0]), append(v, w, w)
	}
	g, err := FromTriplets(n, n, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return g
}

// cgLaplacian returns a random shifted Laplacian for k columns: random
// graph, lambda, shifts, weights (sometimes nil), degrees at or above the
// row sums, sometimes a stored diagonal in W.
func cgLaplacian(rng *rand.Rand, n, k int) *ShiftedLaplacian {
	w := cgGraph(rng, n, 3+rng.IntN(4), false)
	if rng.IntN(4) == 0 && n > 0 {
		var ri, ci []int
		var v []float64
		for i := 0; i < n; i++ {
			for q := w.Indptr[i]; q < w.Indptr[i+1]; q++ {
				ri, ci, v = append(ri, i), append(ci, w.Ind[q]), append(v, w.Val[q])
			}
			ri, ci, v = append(ri, i), append(ci, i), append(v, rng.Float64())
		}
		w, _ = FromTriplets(n, n, ri, ci, v)
	}
	a := &ShiftedLaplacian{W: w, Degree: w.RowSums(), Lambda: []float64{0, 0.1, 1, 10, 100}[rng.IntN(5)]}
	if rng.IntN(2) == 0 {
		for i := range a.Degree {
			a.Degree[i] *= 1 + rng.Float64()
		}
	}
	if rng.IntN(2) == 0 {
		a.Weight = make([]float64, n)
		for i := range a.Weight {
			a.Weight[i] = 0.2 + 2*rng.Float64()
		}
	}
	a.Shift = make([]float64, k)
	for c := range a.Shift {
		a.Shift[c] = 0.5 + 9.5*rng.Float64()
	}
	return a
}

// cgDenseA returns A_c as a dense matrix.
func cgDenseA(a *ShiftedLaplacian, c int) [][]float64 {
	d := toDense(a.W)
	for i := range d {
		for j := range d[i] {
			d[i][j] *= -a.Lambda
		}
		g := 1.0
		if a.Weight != nil {
			g = a.Weight[i]
		}
		d[i][i] += g*a.Shift[c] + a.Lambda*a.Degree[i]
	}
	return d
}

// cgDenseSolve solves a x = b by Gaussian elimination with partial pivoting,
// leaving a and b unchanged.
func cgDenseSolve(a [][]float64, b []float64) []float64 {
	n := len(b)
	m := make([][]float64, n)
	for i := range m {
		m[i] = append(append([]float64(nil), a[i]...), b[i])
	}
	for col := 0; col < n; col++ {
		piv := col
		for i := col + 1; i < n; i++ {
			if math.Abs(m[i][col]) > math.Abs(m[piv][col]) {
				piv = i
			}
		}
		m[col], m[piv] = m[piv], m[col]
		for i := col + 1; i < n; i++ {
			f := m[i][col] / m[col][col]
			for j := col; j <= n; j++ {
				m[i][j] -= f * m[col][j]
			}
		}
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := m[i][n]
		for j := i + 1; j < n; j++ {
			s -= m[i][j] * x[j]
		}
		x[i] = s / m[i][i]
	}
	return x
}

// cgRelResidual returns ||b - a x|| / ||b|| (0 when b = 0) in plain loops,
// and the size of the round-off in forming it: eps ||(|b| + |a||x|)|| / ||b||.
func cgRelResidual(a [][]float64, b, x []float64) (res, noise float64) {
	var rr, bb, ss float64
	for i := range b {
		r, s := b[i], math.Abs(b[i])
		for j, v := range a[i] {
			r -= v * x[j]
			s += math.Abs(v * x[j])
		}
		rr += r * r
		bb += b[i] * b[i]
		ss += s * s
	}
	if bb == 0 {
		return 0, 0
	}
	return math.Sqrt(rr / bb), 0x1p-52 * math.Sqrt(ss/bb)
}

func cgRelDiff(x, y []float64) float64 {
	var d, s float64
	for i := range x {
		d += (x[i] - y[i]) * (x[i] - y[i])
		s += y[i] * y[i]
	}
	if s == 0 {
		return math.Sqrt(d)
	}
	return math.Sqrt(d / s)
}

func cgColumn(g blas64.General, c int) []float64 {
	v := make([]float64, g.Rows)
	for i := range v {
		v[i] = g.Data[i*g.Stride+c]
	}
	return v
}

// cgCheckResidual compares a reported residual with the recomputed one,
// allowing for the round-off of forming b - A x in both.
func cgCheckResidual(t *testing.T, what string, reported, want, noise float64) {
	t.Helper()
	if math.Abs(reported-want) > 1e-9*want+4*noise {
		t.Errorf("%s: reported residual %v, recomputed %v (round-off %.2g)", what, reported, want, noise)
	}
}

// TestSolveBlockCGMatchesDenseSolve runs on every kernel path this CPU
// has, with strided b and x.
func TestSolveBlockCGMatchesDenseSolve(t *testing.T) {
	defer asm.Use("auto")
	for _, path := range asm.Available() {
		if err := asm.Use(path); err != nil {
			t.Fatal(err)
		}
		t.Run(path, testSolveBlockCGMatchesDenseSolve)
	}
}

func testSolveBlockCGMatchesDenseSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 60; n++ {
		k := 1 + rng.IntN(5)
		a := cgLaplacian(rng, n, k)
		b := randomGeneral(rng, n, k, k+1)
		if n%9 == 0 {
			for i := 0; i < n; i++ {
				b.Data[i*b.Stride] = 0 // a zero right-hand side
			}
		}
		x := blas64.General{Rows: n, Cols: k, Stride: k + 3, Data: make([]float64, n*(k+3))}
		guard := make([]float64, len(x.Data))
		for i := range x.Data {
			if i%x.Stride >= k {
				x.Data[i], guard[i] = 7, 7
			}
		}
		bCopy := append([]float64(nil), b.Data...)
		tol := 1e-12
		res, err := SolveBlockCG(context.Background(), a, b, x, CGOptions{Tol: tol})
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for c := 0; c < k; c++ {
			ad := cgDenseA(a, c)
			bc, xc := cgColumn(b, c), cgColumn(x, c)
			what := fmt.Sprintf("n=%d lambda=%v column %d", n, a.Lambda, c)
			if d := cgRelDiff(xc, cgDenseSolve(ad, bc)); d > 1e-8 {
				t.Errorf("%s: relative error %v", what, d)
			}
			if !res[c].Converged || res[c].Residual > tol {
				t.Errorf("%s: %+v", what, res[c])
			}
			r, noise := cgRelResidual(ad, bc, xc)
			cgCheckResidual(t, what, res[c].Residual, r, noise)
		}
		for i, v := range x.Data {
			if i%x.Stride >= k && v != guard[i] {
				t.Fatalf("n=%d: x's padding at %d changed to %v", n, i, v)
			}
		}
		for i, v := range b.Data {
			if v != bCopy[i] {
				t.Fatalf("n=%d: b changed at %d", n, i)
			}
		}
	}
}

func TestSolveBlockCGWarmStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, k := 50, 3
	a := cgLaplacian(rng, n, k)
	a.Lambda = 10
	b := randomGeneral(rng, n, k, k)
	exact := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
	for c := 0; c < k; c++ {
		for i, v := range cgDenseSolve(cgDenseA(a, c), cgColumn(b, c)) {
			exact.Data[i*k+c] = v
		}
	}
	res, err := SolveBlockCG(context.Background(), a, b, exact, CGOptions{})
	if err != nil {
		t.Fatal(err)
	}
	zero := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
	cold, err := SolveBlockCG(context.Background(), a, b, zero, CGOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for c := range res {
		if res[c].Iterations > 1 || !res[c].Converged {
			t.Errorf("column %d from the solution: %+v", c, res[c])
		}
		if cold[c].Iterations < 3 {
			t.Errorf("column %d from zero: only %d iterations", c, cold[c].Iterations)
		}
	}
}

// TestSolveBlockCGNonNegative: an M-matrix has a non-negative inverse, so
// b >= 0 gives x >= 0.
func TestSolveBlockCGNonNegative(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 10; trial++ {
		n, k := 200, 4
		a := cgLaplacian(rng, n, k)
		b := randomGeneral(rng, n, k, k)
		for i := range b.Data {
			if rng.IntN(20) != 0 {
				b.Data[i] = 0
			}
		}
		x := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
		if _, err := SolveBlockCG(context.Background(), a, b, x, CGOptions{Tol: 1e-12}); err != nil {
			t.Fatal(err)
		}
		var big float64
		for _, v := range x.Data {
			big = max(big, v)
		}
		for i, v := range x.Data {
			if v < -1e-14*big {
				t.Fatalf("trial %d: x[%d,%d] = %v < 0 (max %v)", trial, i/k, i%k, v, big)
			}
		}
	}
}

// TestSolveBlockCGIdenticalForAnyThreadCount runs over many row chunks with
// columns that freeze at different steps.
func TestSolveBlockCGIdenticalForAnyThreadCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n, k := 5000, 5
	a := &ShiftedLaplacian{W: cgGraph(rng, n, 4, false), Lambda: 50, Shift: []float64{0.3, 1, 3, 10, 30}}
	a.Degree = a.W.RowSums()
	b := randomGeneral(rng, n, k, k)
	var first []float64
	var firstRes []CGResult
	for _, threads := range []int{1, 2, 3, 8} {
		x := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
		res, err := SolveBlockCG(context.Background(), a, b, x, CGOptions{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first, firstRes = x.Data, res
			if res[0].Iterations == res[k-1].Iterations {
				t.Fatalf("columns should freeze at different steps: %+v", res)
			}
			continue
		}
		for i, v := range x.Data {
			if v != first[i] {
				t.Fatalf("threads=%d: x[%d] = %v, with 1 thread %v", threads, i, v, first[i])
			}
		}
		for c := range res {
			if res[c] != firstRes[c] {
				t.Fatalf("threads=%d: column %d: %+v, with 1 thread %+v", threads, c, res[c], firstRes[c])
			}
		}
	}
	// Each column is solved as if alone: frozen columns are unaffected by
	// the others.
	for c := 0; c < k; c++ {
		one := &ShiftedLaplacian{W: a.W, Degree: a.Degree, Lambda: a.Lambda, Shift: a.Shift[c : c+1]}
		bc := blas64.General{Rows: n, Cols: 1, Stride: 1, Data: cgColumn(b, c)}
		x := blas64.General{Rows: n, Cols: 1, Stride: 1, Data: make([]float64, n)}
		res, err := SolveBlockCG(context.Background(), one, bc, x, CGOptions{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Iterations != firstRes[c].Iterations {
			t.Errorf("column %d alone: %d iterations, in the block %d", c, res[0].Iterations, firstRes[c].Iterations)
		}
		if d := cgRelDiff(x.Data, cgColumn(blas64.General{Rows: n, Cols: k, Stride: k, Data: first}, c)); d > 1e-12 {
			t.Errorf("column %d alone differs from the block by %v", c, d)
		}
	}
}

func TestSolveCGMatchesDenseSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for n := 1; n <= 40; n++ {
		// Symmetric off-diagonals of both signs, strictly dominant diagonal.
		off := cgGraph(rng, n, 1+rng.IntN(5), false)
		var ri, ci []int
		var v []float64
		for i := 0; i < n; i++ {
			var s float64
			for q := off.Indptr[i]; q < off.Indptr[i+1]; q++ {
				j, w := off.Ind[q], off.Val[q]
				if (i+j)%3 == 0 {
					w = -w
				}
				ri, ci, v = append(ri, i), append(ci, j), append(v, w)
				s += math.Abs(w)
			}
			ri, ci, v = append(ri, i), append(ci, i), append(v, s+0.01+rng.Float64())
		}
		a, err := FromTriplets(n, n, ri, ci, v)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]float64, n)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		x := make([]float64, n)
		res, err := SolveCG(context.Background(), a, b, x, CGOptions{Tol: 1e-12, Threads: 2})
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		ad := toDense(a)
		if d := cgRelDiff(x, cgDenseSolve(ad, b)); d > 1e-8 {
			t.Errorf("n=%d: relative error %v", n, d)
		}
		if !res.Converged {
			t.Errorf("n=%d: %+v", n, res)
		}
		want, noise := cgRelResidual(ad, b, x)
		cgCheckResidual(t, fmt.Sprintf("n=%d", n), res.Residual, want, noise)
	}
}

func TestSolveCGNotConverged(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	n := 400
	a := &ShiftedLaplacian{W: cgGraph(rng, n, 3, true), Lambda: 100, Shift: []float64{5, 0.01, 0.01}}
	a.Degree = a.W.RowSums()
	b := randomGeneral(rng, n, 3, 3)
	x := blas64.General{Rows: n, Cols: 3, Stride: 3, Data: make([]float64, n*3)}
	for c := range b.Data {
		if c%3 == 0 {
			b.Data[c] = 0 // column 0 converges at once
		}
	}
	res, err := SolveBlockCG(context.Background(), a, b, x, CGOptions{MaxIter: 1})
	if !errors.Is(err, ErrNotConverged) {
		t.Fatalf("err = %v, want ErrNotConverged", err)
	}
	if !res[0].Converged || res[1].Converged || res[2].Converged {
		t.Fatalf("results %+v", res)
	}
	for c := 1; c < 3; c++ {
		want, noise := cgRelResidual(cgDenseA(a, c), cgColumn(b, c), cgColumn(x, c))
		cgCheckResidual(t, fmt.Sprintf("column %d", c), res[c].Residual, want, noise)
		if res[c].Iterations != 1 || !(res[c].Residual > 1e-10) {
			t.Errorf("column %d: %+v", c, res[c])
		}
	}
	for _, s := range []string{"column 2 (1-based)", fmt.Sprintf("%.3g", res[1].Residual), "2 of 3"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}

	// A tolerance below round-off: the restarts stop when the true residual
	// stops decreasing, long before MaxIter.
	clear(x.Data)
	res, err = SolveBlockCG(context.Background(), a, b, x, CGOptions{Tol: 1e-18})
	if !errors.Is(err, ErrNotConverged) || !strings.Contains(err.Error(), "stopped decreasing") {
		t.Fatalf("tolerance 1e-18: %v", err)
	}
	for c := 1; c < 3; c++ {
		if res[c].Converged || res[c].Iterations >= 1000 || res[c].Residual > 1e-10 {
			t.Errorf("tolerance 1e-18, column %d: %+v", c, res[c])
		}
	}

	// Single system; and an indefinite matrix breaks down at once.
	ind, _ := FromTriplets(2, 2, []int{0, 0, 1, 1}, []int{0, 1, 0, 1}, []float64{1, 2, 2, 1})
	xs := make([]float64, 2)
	r, err := SolveCG(context.Background(), ind, []float64{1, -1}, xs, CGOptions{})
	if !errors.Is(err, ErrNotConverged) || !strings.Contains(err.Error(), "breakdown") || r.Converged {
		t.Errorf("indefinite: %+v, %v", r, err)
	}
	if xs[0] != 0 || xs[1] != 0 {
		t.Errorf("indefinite: x changed to %v at a breakdown", xs)
	}
}

func TestSolveBlockCGCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	a := cgLaplacian(rng, 100, 2)
	b := randomGeneral(rng, 100, 2, 2)
	x := blas64.General{Rows: 100, Cols: 2, Stride: 2, Data: make([]float64, 200)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := SolveBlockCG(ctx, a, b, x, CGOptions{})
	if !errors.Is(err, context.Canceled) || len(res) != 2 || res[0].Converged || math.Abs(res[0].Residual-1) > 1e-14 {
		t.Errorf("cancelled: %+v, %v", res, err)
	}
}

func TestSolveBlockCGLambdaZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	a := cgLaplacian(rng, 30, 2)
	a.Lambda = 0
	b := randomGeneral(rng, 30, 2, 2)
	x := blas64.General{Rows: 30, Cols: 2, Stride: 2, Data: make([]float64, 60)}
	res, err := SolveBlockCG(context.Background(), a, b, x, CGOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for c := range res {
		if res[c].Iterations != 1 {
			t.Errorf("column %d: %d iterations for a diagonal system", c, res[c].Iterations)
		}
		for i := 0; i < 30; i++ {
			g := 1.0
			if a.Weight != nil {
				g = a.Weight[i]
			}
			if want := b.Data[i*2+c] / (g * a.Shift[c]); math.Abs(x.Data[i*2+c]-want) > 1e-14*math.Abs(want) {
				t.Fatalf("x[%d,%d] = %v, want %v", i, c, x.Data[i*2+c], want)
			}
		}
	}
}

func TestSolveCGBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	n := 10
	fresh := func() (*ShiftedLaplacian, blas64.General, blas64.General) {
		a := cgLaplacian(rng, n, 2)
		a.Weight = make([]float64, n)
		for i := range a.Weight {
			a.Weight[i] = 1
		}
		return a, randomGeneral(rng, n, 2, 2), blas64.General{Rows: n, Cols: 2, Stride: 2, Data: make([]float64, 2*n)}
	}
	for _, tc := range []struct {
		name, want string
		spoil      func(a *ShiftedLaplacian, b, x blas64.General, o *CGOptions)
	}{
		{"negative lambda", "lambda", func(a *ShiftedLaplacian, _, _ blas64.General, _ *CGOptions) { a.Lambda = -1 }},
		{"NaN lambda", "lambda", func(a *ShiftedLaplacian, _, _ blas64.General, _ *CGOptions) { a.Lambda = math.NaN() }},
		{"zero shift", "shift of column 2 (1-based)", func(a *ShiftedLaplacian, _, _ blas64.General, _ *CGOptions) { a.Shift[1] = 0 }},
		{"negative shift", "shift of column 1 (1-based)", func(a *ShiftedLaplacian, _, _ blas64.General, _ *CGOptions) { a.Shift[0] = -2 }},
		{"zero weight", "weight of row 5 (1-based)", func(a *ShiftedLaplacian, _, _ blas64.General, _ *CGOptions) { a.Weight[4] = 0 }},
		{"NaN degree", "degree of row 4 (1-based)", func(a *ShiftedLaplacian, _, _ blas64.General, _ *CGOptions) { a.Degree[3] = math.NaN() }},
		{"negative diagonal", "row 3 (1-based): diagonal", func(a *ShiftedLaplacian, _, _ blas64.General, _ *CGOptions) {
			a.Lambda, a.Degree[2] = 1, -1e6
		}},
		{"NaN in b", "b at row 6, column 2 (1-based)", func(_ *ShiftedLaplacian, b, _ blas64.General, _ *CGOptions) { b.Data[11] = math.NaN() }},
		{"Inf in x", "x at row 1, column 1 (1-based)", func(_ *ShiftedLaplacian, _, x blas64.General, _ *CGOptions) { x.Data[0] = math.Inf(1) }},
		{"negative tolerance", "tolerance", func(_ *ShiftedLaplacian, _, _ blas64.General, o *CGOptions) { o.Tol = -1 }},
		{"negative MaxIter", "iteration limit", func(_ *ShiftedLaplacian, _, _ blas64.General, o *CGOptions) { o.MaxIter = -1 }},
	} {
		a, b, x := fresh()
		var o CGOptions
		tc.spoil(a, b, x, &o)
		if _, err := SolveBlockCG(context.Background(), a, b, x, o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}

	a, _ := FromTriplets(3, 3, []int{0, 1, 1, 2}, []int{0, 1, 2, 1}, []float64{1, 2, 0.5, 0.5})
	for _, tc := range []struct {
		name, want string
		a          *CSR
		b          []float64
	}{
		{"missing diagonal", "row 3 (1-based): diagonal entry 0", a, []float64{1, 1, 1}},
		{"NaN in b", "b at row 2, column 1 (1-based)", cgIdentity(3), []float64{1, math.NaN(), 1}},
	} {
		if _, err := SolveCG(context.Background(), tc.a, tc.b, make([]float64, 3), CGOptions{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SolveCG %s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	neg, _ := FromTriplets(2, 2, []int{0, 1}, []int{0, 1}, []float64{1, -1})
	if _, err := SolveCG(context.Background(), neg, []float64{1, 1}, make([]float64, 2), CGOptions{}); err == nil || !strings.Contains(err.Error(), "row 2 (1-based)") {
		t.Errorf("SolveCG negative diagonal: %v", err)
	}

	defer func() {
		if recover() == nil {
			t.Error("SolveBlockCG with k+1 columns in b did not panic")
		}
	}()
	sa, sb, sx := fresh()
	sb.Cols = 3
	sb.Stride = 3
	sb.Data = make([]float64, 3*n)
	_, _ = SolveBlockCG(context.Background(), sa, sb, sx, CGOptions{})
}

func cgIdentity(n int) *CSR {
	ind := make([]int, n)
	ptr := make([]int, n+1)
	val := make([]float64, n)
	for i := range ind {
		ind[i], ptr[i+1], val[i] = i, i+1, 1
	}
	return &CSR{Rows: n, Cols: n, Indptr: ptr, Ind: ind, Val: val}
}

// BenchmarkSolveBlockCG solves LPNMF-sized systems: n = 9394, a binary
// graph of about 5 links per node, k = 30, lambda = 100, shifts in
// [1, 10], from zero and from the solution perturbed by 1%.
func BenchmarkSolveBlockCG(b *testing.B) {
	rng := rand.New(rand.NewPCG(19, 20))
	n, k := 9394, 30
	a := &ShiftedLaplacian{W: cgGraph(rng, n, 5, true), Lambda: 100, Shift: make([]float64, k)}
	a.Degree = a.W.RowSums()
	for c := range a.Shift {
		a.Shift[c] = 1 + 9*rng.Float64()
	}
	rhs := randomGeneral(rng, n, k, k)
	exact := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
	if _, err := SolveBlockCG(context.Background(), a, rhs, exact, CGOptions{Tol: 1e-13}); err != nil && !errors.Is(err, ErrNotConverged) {
		b.Fatal(err)
	}
	perturbed := make([]float64, n*k)
	for i, v := range exact.Data {
		perturbed[i] = v * (1 + 0.01*rng.NormFloat64())
	}
	// A smooth 1% change, as between LPNMF iterations: the solution for
	// shifts and right-hand sides each changed by about 1%.
	near := &ShiftedLaplacian{W: a.W, Degree: a.Degree, Lambda: a.Lambda, Shift: make([]float64, k)}
	for c, s := range a.Shift {
		near.Shift[c] = s * (1 + 0.01*rng.NormFloat64())
	}
	nearRHS := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
	for i, v := range rhs.Data {
		nearRHS.Data[i] = v * (1 + 0.01*rng.NormFloat64())
	}
	nearby := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
	if _, err := SolveBlockCG(context.Background(), near, nearRHS, nearby, CGOptions{}); err != nil {
		b.Fatal(err)
	}
	for _, start := range []struct {
		name string
		x0   []float64
	}{{"zero", make([]float64, n*k)}, {"perturbed1pct", perturbed}, {"nearby1pct", nearby.Data}} {
		b.Run(start.name, func(b *testing.B) {
			x := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
			var res []CGResult
			b.ReportAllocs()
			b.ResetTimer()
			begin := time.Now()
			for it := 0; it < b.N; it++ {
				copy(x.Data, start.x0)
				var err error
				if res, err = SolveBlockCG(context.Background(), a, rhs, x, CGOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(begin).Microseconds())/1e3/float64(b.N), "ms/solve")
			lo, hi := res[0].Iterations, res[0].Iterations
			for _, r := range res {
				lo, hi = min(lo, r.Iterations), max(hi, r.Iterations)
			}
			b.ReportMetric(float64(lo), "min-iter")
			b.ReportMetric(float64(hi), "max-iter")
		})
	}
}
