package solver

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

// cdCases are the methods with a coordinate-descent solver, in both
// formulations where a graph is involved.
func cdCases() []Options {
	return []Options{
		{Method: NMF}, {Method: NMFNCW},
		{Method: GNMF, Lambda: Fixed(3)}, {Method: GNMF, Lambda: Fixed(3), Formulation: Papers},
		{Method: GNMFNCW, Lambda: Fixed(3)}, {Method: GNMFNCW, Lambda: Fixed(3), Formulation: Papers},
		{Method: NMFKL}, {Method: NMFKLNCW},
	}
}

// TestCDMonotone: every coordinate step minimizes the objective along its
// coordinate, so the objective never increases, on several shapes, sparse
// and dense, with lambda > 0.
func TestCDMonotone(t *testing.T) {
	for _, shape := range [][3]int{{40, 35, 4}, {300, 20, 6}, {25, 400, 3}} {
		n, m, k := shape[0], shape[1], shape[2]
		all, _ := datas(t, uint64(51+n), n, m, 0.25)
		g := randomGraph(uint64(52+n), n, 4)
		for _, o := range cdCases() {
			for name, d := range all {
				o.Algorithm, o.K, o.MaxIter, o.Tol, o.Seed, o.Graph = CD, k, 120, -1, 9, g
				res, err := Fit(context.Background(), d, o)
				if err != nil {
					t.Fatalf("%s: %v", o.Method, err)
				}
				checkMonotone(t, o.Method.String()+"/"+o.Formulation.String()+"/"+name, res.Objective)
			}
		}
	}
}

// exactData returns X = U0 V0^T for random non-negative U0 (m x k) and V0
// (n x k), as dense data and as the matrix.
func exactData(t *testing.T, seed uint64, n, m, k int) (*Data, *mat.Dense) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 5))
	u0, v0 := mat.NewDense(m, k, nil), mat.NewDense(n, k, nil)
	for i := range m {
		for c := range k {
			u0.Set(i, c, rng.Float64())
		}
	}
	for j := range n {
		for c := range k {
			v0.Set(j, c, rng.Float64())
		}
	}
	var x mat.Dense
	x.Mul(v0, u0.T()) // samples x features
	d, err := NewDenseData(&x)
	if err != nil {
		t.Fatal(err)
	}
	return d, &x
}

// TestCDExactFactorization: on X = U0 V0^T, CD reaches the zero-error
// optimum to 1e-6 relative error ||X - V U^T||_F / ||X||_F, under the
// Frobenius and the KL objectives.
func TestCDExactFactorization(t *testing.T) {
	for _, method := range []Method{NMF, NMFNCW, NMFKL, NMFKLNCW} {
		d, x := exactData(t, 61, 40, 30, 3)
		res, err := Fit(context.Background(), d, Options{Method: method, Algorithm: CD, K: 3, MaxIter: 3000, Tol: -1, PGTol: -1, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		var r mat.Dense
		r.Mul(res.V, res.U.T())
		r.Sub(&r, x)
		if rel := mat.Norm(&r, 2) / mat.Norm(x, 2); rel > 1e-6 {
			t.Fatalf("%s: relative error %v after %d iterations, want <= 1e-6", method, rel, res.Iterations)
		}
	}
}

// TestCDAgreesWithMU: from the same start, CD and MU converge to
// objectives within 1e-3 of each other. The KL objective on sparse random
// data has many local minima, which the two reach by different paths
// from one start (either lower, seed by seed), so the KL methods are
// compared on data near rank 3 (X = U0 V0^T with entries perturbed by up
// to 20 %), where the minimum is one.
func TestCDAgreesWithMU(t *testing.T) {
	all, _ := datas(t, 71, 30, 25, 0.4)
	g := randomGraph(72, 30, 3)
	_, x := exactData(t, 73, 30, 25, 3)
	rng := rand.New(rand.NewPCG(74, 1))
	for i, v := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = v * (0.8 + 0.4*rng.Float64())
	}
	nearRank3, err := NewDenseData(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range cdCases() {
		o.K, o.Tol, o.Seed, o.Graph = 3, -1, 4, g
		mu, cd := o, o
		mu.Algorithm, mu.MaxIter = MU, 20000
		cd.Algorithm, cd.MaxIter = CD, 2000
		d := all["sparse"]
		if o.Method.KL() {
			d = nearRank3
		}
		a, err := Fit(context.Background(), d, mu)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Fit(context.Background(), d, cd)
		if err != nil {
			t.Fatal(err)
		}
		if !relClose(a.Final(), b.Final(), 1e-3) {
			t.Errorf("%s/%s: mu converges to %v, cd to %v", o.Method, o.Formulation, a.Final(), b.Final())
		}
	}
}

// TestCDSparseDenseThreads: the sparse and dense forms of the data give
// the same CD fit (the inner loop's stopping test can tip on rounding, so
// within a tolerance), and any thread count gives the same bits. The
// sizes span several row chunks, cd blocks and graph colours.
func TestCDSparseDenseThreads(t *testing.T) {
	all, _ := datas(t, 81, 1300, 70, 0.08)
	g := randomGraph(82, 1300, 5)
	for _, o := range cdCases() {
		o.Algorithm, o.K, o.MaxIter, o.Tol, o.Seed, o.Graph = CD, 5, 15, -1, 3, g
		var ref *Result
		for _, name := range []string{"sparse", "dense"} {
			for _, threads := range []int{1, 2, 7} {
				o.Threads = threads
				res, err := Fit(context.Background(), all[name], o)
				if err != nil {
					t.Fatal(err)
				}
				if ref == nil {
					ref = res
					continue
				}
				if name == "sparse" {
					if !slices.Equal(ref.V.RawMatrix().Data, res.V.RawMatrix().Data) || !slices.Equal(ref.U.RawMatrix().Data, res.U.RawMatrix().Data) || !slices.Equal(ref.ProjGrad, res.ProjGrad) {
						t.Fatalf("%s/%s: %d threads differ from 1 in the last bits", o.Method, o.Formulation, threads)
					}
					continue
				}
				if !relClose(ref.Final(), res.Final(), 1e-6) || !mat.EqualApprox(ref.V, res.V, 1e-4) {
					t.Fatalf("%s/%s: dense (%d threads) objective %v, sparse %v", o.Method, o.Formulation, threads, res.Final(), ref.Final())
				}
			}
		}
	}
}

// TestCDRowsMatchRow: the blocked, column-by-column path (cdRows) makes
// the same coordinate steps as cdRow, the plain reference, row by row.
func TestCDRowsMatchRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 1))
	for _, k := range []int{1, 3, 8, 17} {
		for _, r := range []int{1, 5, cdBlock} {
			s := make([]float64, k*k)
			a := make([]float64, k*k)
			for i := range a {
				a[i] = rng.Float64()
			}
			for i := range k {
				for j := range k {
					for l := range k {
						s[i*k+j] += a[i*k+l] * a[j*k+l]
					}
				}
			}
			s[0] = 0 // an all-zero factor column: h = 0, left alone
			for c := 1; c < k; c++ {
				s[c] = 0
				s[c*k] = 0
			}
			invH := make([]float64, k)
			cdInverse(invH, s, 0)
			rule := &cdRule{sweeps: 3}
			w := newCDWork(k)
			rows := make([][]float64, r)
			bs := make([][]float64, r)
			for i := range r {
				rows[i], bs[i] = make([]float64, k), make([]float64, k)
				for c := range k {
					rows[i][c] = max(0, rng.Float64()-0.3)
					bs[i][c] = 2*rng.Float64() - 0.5
					w.u[c*cdBlock+i], w.p[c*cdBlock+i] = rows[i][c], bs[i][c]
				}
			}
			cdRows(w, s, invH, k, r, rule, nil, nil)
			idx := identity(k)
			grad := make([]float64, k)
			for i := range r {
				cdStart(grad, rows[i], bs[i], s, 0, idx)
				cdRow(rows[i], grad, s, 0, rule, invH)
				for c := range k {
					if got := w.u[c*cdBlock+i]; math.Abs(got-rows[i][c]) > 1e-12*(1+math.Abs(got)) {
						t.Fatalf("k=%d r=%d: row %d col %d: blocked %v, reference %v", k, r, i, c, got, rows[i][c])
					}
				}
			}
		}
	}
}

// TestColorGraph: every vertex gets one colour and no edge joins two
// vertices of the same colour.
func TestColorGraph(t *testing.T) {
	g := randomGraph(93, 500, 6)
	col := colorGraph(g.W)
	color := make([]int, g.W.Rows)
	for i := range color {
		color[i] = -1
	}
	for c := 0; c+1 < len(col.start); c++ {
		for _, j := range col.order[col.start[c]:col.start[c+1]] {
			if color[j] != -1 {
				t.Fatalf("vertex %d coloured twice", j)
			}
			color[j] = c
		}
	}
	for j, c := range color {
		if c < 0 {
			t.Fatalf("vertex %d not coloured", j)
		}
		for q := g.W.Indptr[j]; q < g.W.Indptr[j+1]; q++ {
			if s := g.W.Ind[q]; s != j && color[s] == c {
				t.Fatalf("edge %d-%d inside colour %d", j, s, c)
			}
		}
	}
}

// TestCDRefusedWhereMissing: asking CD of a method without it is an error
// that names the methods that have it.
func TestCDRefusedWhereMissing(t *testing.T) {
	all, _ := datas(t, 95, 20, 15, 0.4)
	for _, m := range []Method{CF, LCCF, LPNMF, LPNMFNCW} {
		_, err := Fit(context.Background(), all["sparse"], Options{Method: m, Algorithm: CD, K: 2, Lambda: Fixed(0)})
		if err == nil || !strings.Contains(err.Error(), "nmf, gnmf") {
			t.Errorf("%s with cd: error %v, want one naming the methods that have cd", m, err)
		}
	}
	if _, err := Fit(context.Background(), all["sparse"], Options{Algorithm: Algorithm(9), K: 2}); err == nil {
		t.Error("unknown algorithm accepted")
	}
	for _, s := range []string{"auto", "mu", "cd"} {
		a, err := ParseAlgorithm(s)
		if err != nil || a.String() != s {
			t.Errorf("ParseAlgorithm(%q) = %v, %v", s, a, err)
		}
	}
	if _, err := ParseAlgorithm("hals"); err == nil {
		t.Error(`ParseAlgorithm("hals") accepted`)
	}
}

// TestNonFiniteStops: factors that overflow stop the fit with an error
// naming the iteration, never a result with NaN or Inf in it.
func TestNonFiniteStops(t *testing.T) {
	all, _ := datas(t, 97, 20, 15, 0.5)
	for _, m := range []Method{NMF, NMFKL} {
		for _, alg := range []Algorithm{MU, CD} {
			init := randomFactors(98, 15, 20, 2)
			init.U.Scale(1e160, init.U)
			if m == NMFKL {
				init.V.Scale(1e160, init.V) // y itself overflows
			}
			res, err := Fit(context.Background(), all["sparse"], Options{Method: m, Algorithm: alg, K: 2, Init: init, MaxIter: 5})
			var nf *NonFiniteError
			if res != nil || !errors.As(err, &nf) {
				t.Fatalf("%s/%s: result %v, error %v; want no result and a NonFiniteError", m, alg, res != nil, err)
			}
			if !strings.Contains(err.Error(), "start 1") {
				t.Errorf("%s/%s: error %q does not name the start", m, alg, err)
			}
		}
	}
}

// klRowObjective is phi(f) = lin . f - sum_q x_q log(sum_c f_c ht[c*nq+q]).
func klRowObjective(f, lin, x, ht []float64) float64 {
	nq := len(x)
	var s float64
	for c, fc := range f {
		s += lin[c] * fc
	}
	for q, xq := range x {
		var y float64
		for c, fc := range f {
			y += fc * ht[c*nq+q]
		}
		s -= xq * math.Log(y)
	}
	return s
}

// TestKLCDRow: klCDRow never increases the row's objective, sweep after
// sweep, from starts far above and far below the data's scale (the first
// takes the backtracking of overshooting Newton steps), and converges to
// a point that satisfies the KKT conditions: zero gradient on the positive
// coordinates, non-negative on the zeros.
func TestKLCDRow(t *testing.T) {
	// One coordinate, one entry, optimum 1: the Newton step from 3 would
	// go to -3, is cut to 0 (where the objective is infinite) and must be
	// halved back to 1.5.
	f, y := []float64{3}, []float64{3}
	klCDRow(f, []float64{1}, []float64{1}, []float64{1}, y, 1, nil, nil, 1)
	if f[0] != 1.5 || y[0] != 1.5 {
		t.Fatalf("overshooting step: f = %v, y = %v; want both 1.5", f[0], y[0])
	}
	rng := rand.New(rand.NewPCG(99, 3))
	for _, k := range []int{1, 2, 5, 12} {
		for _, nq := range []int{1, 3, 17, 60} {
			for _, scale := range []float64{1e-3, 1, 1e3} {
				x, ht := make([]float64, nq), make([]float64, k*nq)
				for q := range x {
					x[q] = 0.1 + rng.Float64()
				}
				for i := range ht {
					ht[i] = max(0, rng.Float64()-0.2)
				}
				for q := range nq {
					ht[q] += 0.01 // every y positive for f > 0
				}
				lin := make([]float64, k)
				for c := range lin {
					for q := range nq {
						lin[c] += ht[c*nq+q] * (0.5 + rng.Float64())
					}
				}
				f := make([]float64, k)
				for c := range f {
					f[c] = scale * rng.Float64()
				}
				f[0] = max(f[0], scale/2)
				y := make([]float64, nq)
				name := fmt.Sprintf("k=%d nq=%d scale=%g", k, nq, scale)
				prev := klRowObjective(f, lin, x, ht)
				for sweep := 0; sweep < 500; sweep++ {
					// y afresh, as cdHalf sets it, every other sweep.
					if sweep%2 == 0 {
						clear(y)
						for c := range k {
							for q := range nq {
								y[q] += f[c] * ht[c*nq+q]
							}
						}
					}
					klCDRow(f, lin, x, ht, y, 1, nil, nil, 1)
					obj := klRowObjective(f, lin, x, ht)
					if obj > prev+1e-12*math.Abs(prev) {
						t.Fatalf("%s: objective rose in sweep %d: %v -> %v", name, sweep, prev, obj)
					}
					prev = obj
				}
				for c := range f {
					if f[c] < 0 {
						t.Fatalf("%s: f[%d] = %v", name, c, f[c])
					}
					grad := lin[c]
					for q := range nq {
						var yq float64
						for l := range f {
							yq += f[l] * ht[l*nq+q]
						}
						grad -= x[q] * ht[c*nq+q] / yq
					}
					if f[c] > 0 && math.Abs(grad) > 1e-6*lin[c] || f[c] == 0 && grad < -1e-6*lin[c] {
						t.Fatalf("%s: KKT fails at %d: f %v gradient %v", name, c, f[c], grad)
					}
				}
			}
		}
	}
}

// TestAutoAlgorithm: auto is cd for nmf, nmf-kl and their NC-weighted
// forms and mu for every other method; explicit choices stay.
func TestAutoAlgorithm(t *testing.T) {
	for _, m := range Methods() {
		want := MU
		if b := m.Base(); b == NMF || b == NMFKL {
			want = CD
		}
		if got := AutoAlgorithm.Resolve(m); got != want {
			t.Errorf("%s: auto resolves to %s, want %s", m, got, want)
		}
		if MU.Resolve(m) != MU || CD.Resolve(m) != CD {
			t.Errorf("%s: an explicit choice was changed", m)
		}
		if want == CD && !HasCD(m) {
			t.Errorf("%s: auto picks cd, which it does not have", m)
		}
	}
	// Fit with the zero value runs cd for nmf: the same factors as
	// explicit CD, not MU's.
	all, _ := datas(t, 97, 30, 20, 0.4)
	d := all["sparse"]
	run := func(a Algorithm) *Result {
		res, err := Fit(context.Background(), d, Options{Method: NMF, Algorithm: a, K: 3, MaxIter: 10, Tol: -1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	auto, cd, mu := run(AutoAlgorithm), run(CD), run(MU)
	if !slices.Equal(auto.V.RawMatrix().Data, cd.V.RawMatrix().Data) || slices.Equal(auto.V.RawMatrix().Data, mu.V.RawMatrix().Data) {
		t.Error("nmf under auto is not cd")
	}
}
