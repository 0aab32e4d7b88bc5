package solver

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/sparse"
)

// randomSamples returns an n x m non-negative matrix with about density of
// its entries non-zero, in both sparse and dense form.
func randomSamples(seed uint64, n, m int, density float64) (*sparse.CSR, *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 99))
	dense := mat.NewDense(n, m, nil)
	var ri, ci []int
	var v []float64
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			if rng.Float64() < density {
				x := rng.ExpFloat64()
				dense.Set(i, j, x)
				ri, ci, v = append(ri, i), append(ci, j), append(v, x)
			}
		}
	}
	a, err := sparse.FromTriplets(n, m, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return a, dense
}

func randomFactors(seed uint64, m, n, k int) *Result {
	rng := rand.New(rand.NewPCG(seed, 7))
	u, v := mat.NewDense(m, k, nil), mat.NewDense(n, k, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < k; j++ {
			u.Set(i, j, rng.Float64())
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			v.Set(i, j, rng.Float64())
		}
	}
	// U and W both: the first factor of whichever method runs.
	return &Result{U: u, W: u, V: v}
}

// referenceNMF runs the Lee-Seung updates with plain loops over the dense
// m x n matrix x (features as rows), V first, and returns U, V before
// normalization and the objective after each iteration, computed as
// ||X - U V^T||^2 directly.
func referenceNMF(x [][]float64, u, v [][]float64, iters int) ([][]float64, [][]float64, []float64) {
	m, n, k := len(x), len(x[0]), len(u[0])
	mul := func(a, b [][]float64, ta bool) [][]float64 { // a or a^T times b
		r := len(a)
		inner := len(a[0])
		if ta {
			r, inner = inner, r
		}
		out := make([][]float64, r)
		for i := range out {
			out[i] = make([]float64, len(b[0]))
			for t := 0; t < inner; t++ {
				var ait float64
				if ta {
					ait = a[t][i]
				} else {
					ait = a[i][t]
				}
				for j := range b[0] {
					out[i][j] += ait * b[t][j]
				}
			}
		}
		return out
	}
	xt := make([][]float64, n)
	for j := range xt {
		xt[j] = make([]float64, m)
		for i := 0; i < m; i++ {
			xt[j][i] = x[i][j]
		}
	}
	var objs []float64
	for it := 0; it < iters; it++ {
		num := mul(xt, u, false)
		den := mul(v, mul(u, u, true), false)
		for i := 0; i < n; i++ {
			for j := 0; j < k; j++ {
				v[i][j] *= num[i][j] / math.Max(den[i][j], Eps)
			}
		}
		num = mul(x, v, false)
		den = mul(u, mul(v, v, true), false)
		for i := 0; i < m; i++ {
			for j := 0; j < k; j++ {
				u[i][j] *= num[i][j] / math.Max(den[i][j], Eps)
			}
		}
		objs = append(objs, residual(x, u, v))
	}
	return u, v, objs
}

func residual(x, u, v [][]float64) float64 {
	var s float64
	for i := range x {
		for j := range x[i] {
			var p float64
			for t := range u[i] {
				p += u[i][t] * v[j][t]
			}
			s += (x[i][j] - p) * (x[i][j] - p)
		}
	}
	return s
}

func rows(a mat.Matrix, transpose bool) [][]float64 {
	r, c := a.Dims()
	if transpose {
		r, c = c, r
	}
	out := make([][]float64, r)
	for i := range out {
		out[i] = make([]float64, c)
		for j := range out[i] {
			if transpose {
				out[i][j] = a.At(j, i)
			} else {
				out[i][j] = a.At(i, j)
			}
		}
	}
	return out
}

func relClose(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))+1e-300
}

// TestNMFMatchesReference checks U V^T, the objective trace and the final
// normalization against the plain-loop reference, for sparse and dense X.
func TestNMFMatchesReference(t *testing.T) {
	const n, m, k, iters = 23, 31, 4, 25
	sp, dn := randomSamples(1, n, m, 0.3)
	init := randomFactors(2, m, n, k)
	x := rows(dn, true)
	ru, rv, robj := referenceNMF(x, rows(init.U, false), rows(init.V, false), iters)
	for name, build := range map[string]func() (*Data, error){
		"sparse": func() (*Data, error) { return NewSparseData(sp) },
		"dense":  func() (*Data, error) { return NewDenseData(dn) },
	} {
		d, err := build()
		if err != nil {
			t.Fatal(err)
		}
		if d.IsSparse() && (d.order == nil || sort.IntsAreSorted(d.order)) {
			t.Fatal("the fixture does not exercise the internal feature renumbering")
		}
		res, err := Fit(context.Background(), d, Options{K: k, Init: init, Control: Control{Algorithm: MU, MaxIter: iters, Tol: -1}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Iterations != iters || res.Status != IterationLimit || len(res.Objective) != iters+1 {
			t.Fatalf("%s: %d iterations, status %v, %d objectives", name, res.Iterations, res.Status, len(res.Objective))
		}
		for it := 0; it < iters; it++ {
			if !relClose(res.Objective[it+1], robj[it], 1e-9) {
				t.Fatalf("%s: objective after iteration %d = %v, reference %v", name, it+1, res.Objective[it+1], robj[it])
			}
		}
		// U V^T must equal the reference product; U's columns unit length.
		for j := 0; j < k; j++ {
			var s float64
			for i := 0; i < m; i++ {
				s += res.U.At(i, j) * res.U.At(i, j)
			}
			if !relClose(s, 1, 1e-12) {
				t.Fatalf("%s: column %d of U has squared length %v", name, j, s)
			}
		}
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var got, want float64
				for t2 := 0; t2 < k; t2++ {
					got += res.U.At(i, t2) * res.V.At(j, t2)
					want += ru[i][t2] * rv[j][t2]
				}
				if !relClose(got, want, 1e-9) {
					t.Fatalf("%s: (U V^T)(%d,%d) = %v, reference %v", name, i, j, got, want)
				}
			}
		}
		// Labels are the arg max of V's rows.
		for j := 0; j < n; j++ {
			best := 0
			for t2 := 1; t2 < k; t2++ {
				if res.V.At(j, t2) > res.V.At(j, best) {
					best = t2
				}
			}
			if res.Labels[j] != best {
				t.Fatalf("%s: label of sample %d = %d, arg max %d", name, j, res.Labels[j], best)
			}
		}
	}
}

// TestObjectiveNeverIncreases is the monotonicity property the update
// rules are proved to have, on several random problems.
func TestObjectiveNeverIncreases(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		sp, _ := randomSamples(seed, 40+int(seed)*7, 30+int(seed)*5, 0.2)
		d, err := NewSparseData(sp)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Fit(context.Background(), d, Options{K: int(seed) + 1, Seed: seed, Control: Control{MaxIter: 200, Tol: -1}})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(res.Objective); i++ {
			prev, cur := res.Objective[i-1], res.Objective[i]
			if cur > prev+1e-10*prev {
				t.Fatalf("seed %d: objective rose at iteration %d: %v -> %v", seed, i, prev, cur)
			}
		}
		if res.Final() >= res.Objective[0] {
			t.Fatalf("seed %d: no progress: %v -> %v", seed, res.Objective[0], res.Final())
		}
	}
}

func TestSparseAndDenseAgree(t *testing.T) {
	sp, dn := randomSamples(11, 50, 40, 0.25)
	ds, _ := NewSparseData(sp)
	dd, _ := NewDenseData(dn)
	opts := Options{K: 5, Seed: 3, Control: Control{MaxIter: 60, Tol: -1}}
	rs, err := Fit(context.Background(), ds, opts)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := Fit(context.Background(), dd, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(rs.U, rd.U, 1e-8) || !mat.EqualApprox(rs.V, rd.V, 1e-8) {
		t.Fatal("sparse and dense fits differ")
	}
	if !relClose(rs.Final(), rd.Final(), 1e-10) {
		t.Fatalf("objectives differ: %v vs %v", rs.Final(), rd.Final())
	}
}

// TestSameSeedSameResultAnyThreads requires bit-for-bit equal results.
// The sizes cross several row chunks so the chunked sums are exercised.
func TestSameSeedSameResultAnyThreads(t *testing.T) {
	sp, dn := randomSamples(12, 2500, 1100, 0.01)
	ds, _ := NewSparseData(sp)
	dd, _ := NewDenseData(dn)
	for name, d := range map[string]*Data{"sparse": ds, "dense": dd} {
		var ref *Result
		for _, threads := range []int{1, 2, 3, 8} {
			res, err := Fit(context.Background(), d, Options{K: 7, Seed: 42, Threads: threads, Control: Control{MaxIter: 15, Tol: -1, Restarts: 2}})
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = res
				continue
			}
			if !mat.Equal(ref.U, res.U) || !mat.Equal(ref.V, res.V) || ref.Final() != res.Final() {
				t.Fatalf("%s, threads %d: result differs from threads 1", name, threads)
			}
		}
	}
}

func TestRestartsKeepBest(t *testing.T) {
	sp, _ := randomSamples(13, 60, 50, 0.2)
	d, _ := NewSparseData(sp)
	for _, short := range []int{0, 5} {
		last := map[int]float64{}
		res, err := Fit(context.Background(), d, Options{
			K:        6,
			Seed:     5,
			Progress: func(start, _ int, obj float64) { last[start] = obj },
			Control:  Control{MaxIter: 30, Tol: -1, PGTol: -1, Restarts: 4, RestartIters: short},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(last) != 4 {
			t.Fatalf("RestartIters %d: progress from %d starts, want 4", short, len(last))
		}
		for s, obj := range last {
			if s != res.Start && obj < res.Final() {
				t.Fatalf("RestartIters %d: start %d reached %v, below the returned %v", short, s, obj, res.Final())
			}
		}
		if res.Iterations != 30 {
			t.Fatalf("RestartIters %d: the returned start ran %d iterations, want 30", short, res.Iterations)
		}
	}
}

func TestProgressReportsEachStart(t *testing.T) {
	sp, _ := randomSamples(17, 30, 20, 0.3)
	d, _ := NewSparseData(sp)
	var calls [3]int
	_, err := Fit(context.Background(), d, Options{
		K: 2,
		Progress: func(start, iter int, _ float64) {
			if iter != calls[start]+1 {
				t.Errorf("start %d: iteration %d after %d calls", start, iter, calls[start])
			}
			calls[start]++
		},
		Control: Control{MaxIter: 4, Tol: -1, Restarts: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != [3]int{4, 4, 4} {
		t.Fatalf("progress calls per start %v, want 4 each", calls)
	}
}

func TestStopping(t *testing.T) {
	sp, _ := randomSamples(14, 40, 30, 0.3)
	d, _ := NewSparseData(sp)
	res, err := Fit(context.Background(), d, Options{K: 3, Seed: 1, Control: Control{Tol: 1e-3, MaxIter: 10000}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Converged || res.Iterations >= 10000 {
		t.Fatalf("status %v after %d iterations, want converged", res.Status, res.Iterations)
	}
	n := len(res.Objective)
	if rel := (res.Objective[n-2] - res.Objective[n-1]) / res.Objective[n-2]; rel >= 1e-3 {
		t.Fatalf("stopped with relative decrease %v >= tol", rel)
	}
	res, err = Fit(context.Background(), d, Options{K: 3, Seed: 1, Control: Control{Tol: 0.5, MinIter: 17}})
	if err != nil || res.Iterations != 17 {
		t.Fatalf("MinIter 17: %d iterations, err %v", res.Iterations, err)
	}
}

func TestCancel(t *testing.T) {
	sp, _ := randomSamples(15, 40, 30, 0.3)
	d, _ := NewSparseData(sp)
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	res, err := Fit(ctx, d, Options{
		K: 3,
		Progress: func(_, iter int, _ float64) {
			calls++
			if iter == 5 {
				cancel()
			}
		},
		Control: Control{Tol: -1, MaxIter: 1000},
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res == nil || res.Status != Canceled || res.Iterations != 5 || calls != 5 {
		t.Fatalf("partial result %+v after %d progress calls", res, calls)
	}
}

func TestZeroSampleGetsNoLabel(t *testing.T) {
	a, err := sparse.FromTriplets(3, 3, []int{0, 0, 2}, []int{0, 1, 2}, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := NewSparseData(a)
	res, err := Fit(context.Background(), d, Options{K: 2, Seed: 1, Control: Control{MaxIter: 50}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Labels[1] != -1 || res.Labels[0] < 0 || res.Labels[2] < 0 {
		t.Fatalf("labels %v, want -1 only for the empty sample 1", res.Labels)
	}
	for j := 0; j < 2; j++ {
		if x := res.V.At(1, j); x != 0 || math.IsNaN(x) {
			t.Fatalf("empty sample has V row entry %v", x)
		}
	}
}

func TestBadInput(t *testing.T) {
	sp, dn := randomSamples(16, 10, 8, 0.5)
	d, _ := NewSparseData(sp)
	ctx := context.Background()
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{K: 0}, "k = 0 out of range"},
		{Options{K: 9}, "k = 9 out of range"},
		{Options{K: 2, Method: Method(-1)}, "unknown method"},
		{Options{K: 2, Control: Control{MaxIter: -1}}, "negative"},
		{Options{K: 2, Threads: -2}, "negative thread"},
		{Options{K: 2, Init: &Result{U: mat.NewDense(8, 3, nil), V: mat.NewDense(10, 2, nil)}}, "Init.U is 8 x 3"},
		{Options{K: 1, Init: &Result{U: mat.NewDense(8, 1, nil), V: mat.NewDense(10, 1, []float64{-1, 0, 0, 0, 0, 0, 0, 0, 0, 0})}}, "non-negative"},
	} {
		if _, err := Fit(ctx, d, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.opts, err, c.want)
		}
	}
	if _, err := Fit(ctx, nil, Options{K: 1}); err == nil {
		t.Error("nil data accepted")
	}
	neg := mat.DenseCopyOf(dn)
	neg.Set(3, 4, -0.5)
	if dNeg, err := NewDenseData(neg); err != nil {
		t.Fatal(err)
	} else if _, err := Fit(ctx, dNeg, Options{K: 2}); err == nil || !strings.Contains(err.Error(), "sample 4, feature 5") {
		t.Errorf("negative dense entry: %v", err)
	}
	neg.Set(3, 4, math.NaN())
	if _, err := NewDenseData(neg); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("NaN dense entry: %v", err)
	}
	spNeg := sp.Clone()
	spNeg.Val[2] = -1
	dNeg, err := NewSparseData(spNeg)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Method{NMF, GNMF, NMFNCW} {
		if _, err := Fit(ctx, dNeg, Options{K: 2, Method: m}); err == nil || !strings.Contains(err.Error(), "negative entry -1") {
			t.Errorf("%s on a negative sparse entry: %v", m, err)
		}
	}
	spNaN := sp.Clone()
	spNaN.Val[0] = math.Inf(1)
	if _, err := NewSparseData(spNaN); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("Inf sparse entry: %v", err)
	}
	if _, err := NewSparseData(&sparse.CSR{Rows: 0, Cols: 3, Indptr: []int{0}}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty data: %v", err)
	}
	if _, err := NewDenseData(&mat.Dense{}); err == nil {
		t.Error("empty dense data accepted")
	}
}

func TestTranspose(t *testing.T) {
	for _, rows := range []int{0, 1, 3, 4, 5, 8, 1023, rowChunk} {
		for _, k := range []int{1, 3, 30} {
			a := make([]float64, rows*k)
			for i := range a {
				a[i] = float64(i + 1)
			}
			tr := make([]float64, k*transStride)
			transpose(tr, a, rows, k)
			for i := 0; i < rows; i++ {
				for j := 0; j < k; j++ {
					if tr[j*transStride+i] != a[i*k+j] {
						t.Fatalf("rows %d k %d: (%d,%d) = %v, want %v", rows, k, i, j, tr[j*transStride+i], a[i*k+j])
					}
				}
			}
		}
	}
}
