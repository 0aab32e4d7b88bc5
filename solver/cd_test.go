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

	"github.com/manifactor/manifactor/internal/klstep"
	"github.com/manifactor/manifactor/internal/testenv"

	"gonum.org/v1/gonum/mat"
)

// cdCases are the methods with a coordinate-descent solver, in both
// formulations where a graph is involved, and NMF's without extrapolation.
func cdCases() []Options {
	return []Options{
		{Method: NMF}, {Method: NMFNCW}, {Method: NMF, Control: Control{PlainCD: true}}, {Method: NMFNCW, Control: Control{PlainCD: true}},
		{Method: GNMF, Lambda: Fixed(3)}, {Method: GNMF, Lambda: Fixed(3), Formulation: Papers},
		{Method: GNMFNCW, Lambda: Fixed(3)}, {Method: GNMFNCW, Lambda: Fixed(3), Formulation: Papers},
		{Method: NMFKL}, {Method: NMFKLNCW},
		{Method: LPNMF, Lambda: Fixed(3)}, {Method: LPNMF, Lambda: Fixed(3), Formulation: Papers},
		{Method: LPNMFNCW, Lambda: Fixed(3)},
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

// nearRankData returns exactData's X with every entry scaled by lo +
// width u, u uniform in [0, 1) (seeded by seed+1), as Data and the
// matrix: data near rank k.
func nearRankData(t *testing.T, seed uint64, n, m, k int, lo, width float64) (*Data, *mat.Dense) {
	t.Helper()
	_, x := exactData(t, seed, n, m, k)
	rng := rand.New(rand.NewPCG(seed+1, 1))
	for i, v := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = v * (lo + width*rng.Float64())
	}
	d, err := NewDenseData(x)
	if err != nil {
		t.Fatal(err)
	}
	return d, x
}

// TestCDExactFactorization: on X = U0 V0^T, CD reaches the zero-error
// optimum to 1e-6 relative error ||X - V U^T||_F / ||X||_F, under the
// Frobenius and the KL objectives.
func TestCDExactFactorization(t *testing.T) {
	for _, o := range []Options{{Method: NMF}, {Method: NMFNCW}, {Method: NMF, Control: Control{PlainCD: true}}, {Method: NMFKL}, {Method: NMFKLNCW}} {
		method := o.Method
		d, x := exactData(t, 61, 40, 30, 3)
		o.Algorithm, o.K, o.MaxIter, o.Tol, o.PGTol, o.Seed = CD, 3, 3000, -1, -1, 2
		res, err := Fit(context.Background(), d, o)
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
// to 20 %), where the minimum is one. LPNMF is not compared: its MU
// (paper 003's eq. 9) replaces log x by 1 - 1/x in the graph term's
// gradient, so its fixed points are not the objective's stationary
// points; TestLPNMFCDStationary checks CD's instead.
func TestCDAgreesWithMU(t *testing.T) {
	if testenv.Race {
		t.Skip("a numerical comparison of long fits; the solvers' concurrency is TestSameSeedSameResultAnyThreads'")
	}
	all, _ := datas(t, 71, 30, 25, 0.4)
	g := randomGraph(72, 30, 3)
	nearRank3, _ := nearRankData(t, 73, 30, 25, 3, 0.8, 0.4)
	for _, o := range cdCases() {
		if o.Method.Base() == LPNMF {
			continue
		}
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

// TestLPNMFCDStationary: LPNMF's CD converges to a KKT point of the
// scale-invariant objective as stated (the symmetric KL graph term,
// evaluated by the plain-loop klObjective), where MU stops above it: the
// gradient of every entry above its bound (Eps for V's graph-coupled
// entries, 0 for U's) vanishes, and none at its bound points inward. The
// reported objective is klObjective's at the returned factors.
func TestLPNMFCDStationary(t *testing.T) {
	const n, m, k, lambda = 30, 25, 3, 3.0
	all, x := datas(t, 71, n, m, 0.4)
	xt := tr(x)
	g := randomGraph(72, n, 3)
	w, deg := graphDense(g)
	var total float64
	for _, d := range deg {
		total += d
	}
	eff := lambda * n / total // ScaleInvariant's lambda over the mean degree
	o := Options{Method: LPNMF, K: k, Seed: 4, Graph: g, Lambda: Fixed(lambda), Control: Control{Tol: -1}}
	cd, mu := o, o
	cd.Algorithm, cd.MaxIter = CD, 3000
	mu.Algorithm, mu.MaxIter = MU, 3000
	a, err := Fit(context.Background(), all["sparse"], cd)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Fit(context.Background(), all["sparse"], mu)
	if err != nil {
		t.Fatal(err)
	}
	u, v := rows(a.U, false), rows(a.V, false)
	if obj := klObjective(xt, u, v, nil, eff, w); !relClose(obj, a.Final(), 1e-9) {
		t.Fatalf("reported objective %v, klObjective %v", a.Final(), obj)
	}
	if !(a.Final() < b.Final()) {
		t.Fatalf("cd stops at %v, not below mu's %v", a.Final(), b.Final())
	}
	// U's columns sum to 1 (the KL normalization): s_c = 1 below.
	ratio := zeros(n, m) // x / y
	for j := range xt {
		for i := range u {
			var y float64
			for c := range k {
				y += u[i][c] * v[j][c]
			}
			ratio[j][i] = xt[j][i] / y
		}
	}
	lg := func(x float64) float64 { return math.Log(max(x, Eps)) }
	var scale float64 // the largest data part of a derivative
	check := func(what string, f, lo, grad, data float64) {
		t.Helper()
		scale = max(scale, data)
		if f > lo*(1+1e-9) && math.Abs(grad) > 1e-5*data || f <= lo*(1+1e-9) && grad < -1e-5*data {
			t.Fatalf("%s = %v: derivative %v against its data part %v", what, f, grad, data)
		}
	}
	for j := range n {
		for c := range k {
			var grad, data float64
			for i := range m {
				grad += u[i][c] * (1 - ratio[j][i])
				data += u[i][c] * ratio[j][i]
			}
			for s := range n {
				if w[j][s] > 0 {
					grad += eff * w[j][s] * (lg(v[j][c]) - lg(v[s][c]) + 1 - v[s][c]/v[j][c])
					data += eff * w[j][s] * v[s][c] / v[j][c]
				}
			}
			check(fmt.Sprintf("V(%d,%d)", j, c), v[j][c], Eps, grad, data)
		}
	}
	for c := range k {
		var r float64
		for j := range n {
			for s := range n {
				r += 0.5 * eff * w[j][s] * (v[j][c] - v[s][c]) * (lg(v[j][c]) - lg(v[s][c]))
			}
		}
		for i := range m {
			grad, data := r, 0.0
			for j := range n {
				grad += v[j][c] * (1 - ratio[j][i])
				data += v[j][c] * ratio[j][i]
			}
			check(fmt.Sprintf("U(%d,%d)", i, c), u[i][c], 0, grad, data)
		}
	}
	if !(scale > 0) {
		t.Fatal("no derivative checked")
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
	for _, m := range []Method{CF, LCCF, CFNCW, LCCFNCW} {
		_, err := Fit(context.Background(), all["sparse"], Options{Method: m, K: 2, Lambda: Fixed(0), Control: Control{Algorithm: CD}})
		if err == nil || !strings.Contains(err.Error(), "nmf, gnmf") {
			t.Errorf("%s with cd: error %v, want one naming the methods that have cd", m, err)
		}
	}
	if _, err := Fit(context.Background(), all["sparse"], Options{K: 2, Control: Control{Algorithm: Algorithm(9)}}); err == nil {
		t.Error("unknown algorithm accepted")
	}
	for _, s := range []string{"auto", "mu", "cd"} {
		a, err := parseAlgorithm(s)
		if err != nil || a.String() != s {
			t.Errorf("parseAlgorithm(%q) = %v, %v", s, a, err)
		}
	}
	if _, err := parseAlgorithm("hals"); err == nil {
		t.Error(`parseAlgorithm("hals") accepted`)
	}
}

// TestExtrapolation: NMF's cd, which extrapolates by default, returns
// the factors its final objective belongs to (the extrapolated U is put
// back), undoes steps that would raise the objective (some are, here; the
// trace stays monotone), and reaches plain cd's (PlainCD) 300-iteration
// objective in fewer iterations on data near rank 4.
func TestExtrapolation(t *testing.T) {
	d, x := nearRankData(t, 111, 200, 120, 4, 0.7, 0.6)
	o := Options{Method: NMF, K: 4, Seed: 3, Control: Control{Algorithm: CD, MaxIter: 300, Tol: -1, PGTol: -1}}
	plain, ex := plainAndExtrapolated(t, "nmf", d, o)
	// Early, where the extrapolated U is far from the accepted one.
	short := o
	short.MaxIter = 6
	early, err := Fit(context.Background(), d, short)
	if err != nil {
		t.Fatal(err)
	}
	var r mat.Dense
	r.Mul(early.V, early.U.T())
	r.Sub(&r, x)
	if f := mat.Norm(&r, 2); !relClose(f*f, early.Final(), 1e-9) {
		t.Fatalf("returned factors give %v, the reported objective is %v", f*f, early.Final())
	}
	target := plain.Final()
	at := slices.IndexFunc(ex.Objective, func(v float64) bool { return v <= target })
	if at < 0 || at >= 150 {
		t.Fatalf("extrapolated cd reached plain cd's 300-iteration objective %v at iteration %d (final %v), want within 150", target, at, ex.Final())
	}
	// The same fit step by step: some steps were undone.
	if last := stepExtrapolated(t, "nmf", d, o, 300); last != ex.Final() {
		t.Errorf("stepping by hand ends at %v, Fit at %v", last, ex.Final())
	}
}

// plainAndExtrapolated fits o on d with plain cd and with the default
// extrapolation, and checks the latter's trace is monotone.
func plainAndExtrapolated(t *testing.T, what string, d *Data, o Options) (plain, ex *Result) {
	t.Helper()
	o.PlainCD = true
	plain, err := Fit(context.Background(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	o.PlainCD = false
	if ex, err = Fit(context.Background(), d, o); err != nil {
		t.Fatal(err)
	}
	checkMonotone(t, what+" extrapolated", ex.Objective)
	return plain, ex
}

// stepExtrapolated runs the extrapolated cd of o on d by hand for iters
// iterations, failing if a step raises the objective or none was undone
// (the undo path would go untested), and returns the last objective.
func stepExtrapolated(t *testing.T, what string, d *Data, o Options, iters int) float64 {
	t.Helper()
	po := o.withDefaults()
	p, err := prepare(context.Background(), d, po, po.Method)
	if err != nil {
		t.Fatal(err)
	}
	f := p.newFactors()
	p.random(f, po.Seed, 0)
	it := p.iterator(f).(*nmfIter)
	last := it.begin()
	for range iters {
		obj, err := it.step(true)
		if err != nil {
			t.Fatal(err)
		}
		if obj > last*(1+1e-9) {
			t.Fatalf("%s: step raised the objective: %v -> %v", what, last, obj)
		}
		last = obj
	}
	if _, undone := it.ex.Counts(); undone == 0 {
		t.Errorf("%s: no step was undone in %d: the undo path went untested", what, iters)
	}
	return last
}

// TestGNMFExtrapolation: GNMF's cd extrapolates by default too, in both
// formulations (the scale-invariant one rescaling the driver's stored
// factors with the ones in use): the trace is monotone with some steps
// undone, the returned factors (unit basis columns under ScaleInvariant)
// give the reported objective, the result does not depend on threads, and
// plain cd's 300-iteration objective is reached within 150 iterations.
func TestGNMFExtrapolation(t *testing.T) {
	const n, m, k, lambda = 120, 90, 4, 10
	d, x := nearRankData(t, 121, n, m, k, 0.7, 0.6)
	xd := rows(x, true)
	g := randomGraph(122, n, 4)
	w, deg := graphDense(g)
	for _, f := range []Formulation{ScaleInvariant, Papers} {
		o := Options{Method: GNMF, Formulation: f, Lambda: Fixed(lambda), Graph: g, K: k, Seed: 3, Control: Control{Algorithm: CD, MaxIter: 300, Tol: -1, PGTol: -1}}
		plain, ex := plainAndExtrapolated(t, f.String(), d, o)
		at := slices.IndexFunc(ex.Objective, func(v float64) bool { return v <= plain.Final() })
		if at < 0 || at >= 150 {
			t.Errorf("%v: plain cd's 300-iteration objective %v reached at iteration %d (final %v), want within 150", f, plain.Final(), at, ex.Final())
		}
		o.Threads = 3
		if three, err := Fit(context.Background(), d, o); err != nil || !slices.Equal(three.Objective, ex.Objective) || !mat.Equal(three.V, ex.V) {
			t.Errorf("%v: 3 threads differ from the default (%v)", f, err)
		}
		o.Threads = 0
		lam := float64(lambda)
		if f == ScaleInvariant {
			lam /= meanDegree(deg)
		}
		short := o
		short.MaxIter = 6
		early, err := Fit(context.Background(), d, short)
		if err != nil {
			t.Fatal(err)
		}
		// Under Papers the result's final normalization rescales V, which
		// changes the graph term (Result.Objective): only U V^T, whose
		// fit is part of the objective, can be checked there.
		if f == Papers {
			lam = 0
		}
		direct := objectiveRef(xd, rows(early.U, false), rows(early.V, false), lam, w, deg)
		if (f == ScaleInvariant && !relClose(direct, early.Final(), 1e-9)) || direct > early.Final()*(1+1e-9) {
			t.Errorf("%v: returned factors give %v, the reported objective is %v", f, direct, early.Final())
		}
		// The same fit step by step: some steps were undone.
		stepExtrapolated(t, f.String(), d, o, 300)
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
			res, err := Fit(context.Background(), all["sparse"], Options{Method: m, K: 2, Init: init, Control: Control{Algorithm: alg, MaxIter: 5}})
			var nf *nonFiniteError
			if res != nil || !errors.As(err, &nf) {
				t.Fatalf("%s/%s: result %v, error %v; want no result and a nonFiniteError", m, alg, res != nil, err)
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

// TestKLCDRow: klstep.Row never increases the row's objective, sweep after
// sweep, from starts far above and far below the data's scale (the first
// takes the backtracking of overshooting Newton steps), and converges to
// a point that satisfies the KKT conditions: zero gradient on the positive
// coordinates, non-negative on the zeros.
func TestKLCDRow(t *testing.T) {
	// One coordinate, one entry, optimum 1: the Newton step from 3 would
	// go to -3, is cut to 0 (where the objective is infinite) and must be
	// halved back to 1.5.
	f, y := []float64{3}, []float64{3}
	klstep.Row(f, []float64{1}, []float64{1}, []float64{1}, y, make([]float64, 2), 1, nil, nil, 1, nil, Eps)
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
					klstep.Row(f, lin, x, ht, y, make([]float64, 2*len(x)), 1, nil, nil, 1, nil, Eps)
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

// TestKLCDRowGraph: with LPNMF's graph term (klGraphRow, built from
// explicit neighbours), klstep.Row never increases the row's objective,
// keeps every coordinate at or above Eps, and converges to the KKT point
// of the bounded problem; also for a row with no stored entries, where
// the graph term alone balances the linear one.
func TestKLCDRowGraph(t *testing.T) {
	rng := rand.New(rand.NewPCG(101, 3))
	for _, k := range []int{1, 3, 8} {
		for _, nq := range []int{0, 1, 5, 40} {
			for _, scale := range []float64{1e-3, 1, 1e3} {
				name := fmt.Sprintf("k=%d nq=%d scale=%g", k, nq, scale)
				x, ht := make([]float64, nq), make([]float64, k*nq)
				for q := range x {
					x[q] = 0.1 + rng.Float64()
				}
				for i := range ht {
					ht[i] = max(0, rng.Float64()-0.2)
				}
				for q := range nq {
					ht[q] += 0.01
				}
				lin := make([]float64, k)
				for c := range lin {
					lin[c] = 0.2 + rng.Float64()
					for q := range nq {
						lin[c] += ht[c*nq+q] * (0.5 + rng.Float64())
					}
				}
				// Neighbours: weights and rows, some entries at Eps.
				nb := 1 + rng.IntN(5)
				wts, rowsNb := make([]float64, nb), zeros(nb, k)
				gr := &klGraphRow{alpha: make([]float64, k), a: make([]float64, k), lg: make([]float64, k)}
				for s := range nb {
					wts[s] = 0.1 + rng.Float64()
					gr.deg += wts[s]
					for c := range k {
						rowsNb[s][c] = max(Eps, rng.Float64()-0.3)
						gr.a[c] += wts[s] * rowsNb[s][c]
						gr.lg[c] += wts[s] * math.Log(rowsNb[s][c])
					}
				}
				for c := range k {
					gr.alpha[c] = 0.5 + rng.Float64()
				}
				objective := func(f []float64) float64 {
					o := klRowObjective(f, lin, x, ht)
					for c, fc := range f {
						for s := range nb {
							o += gr.alpha[c] * wts[s] * (fc - rowsNb[s][c]) * (math.Log(fc) - math.Log(rowsNb[s][c]))
						}
					}
					return o
				}
				f := make([]float64, k)
				for c := range f {
					f[c] = max(Eps, scale*rng.Float64())
				}
				y := make([]float64, nq)
				prev := objective(f)
				for sweep := 0; sweep < 400; sweep++ {
					clear(y)
					for c := range k {
						for q := range nq {
							y[q] += f[c] * ht[c*nq+q]
						}
					}
					klstep.Row(f, lin, x, ht, y, make([]float64, 2*len(x)), 1, nil, nil, 1, gr, Eps)
					obj := objective(f)
					if obj > prev+1e-12*math.Abs(prev) {
						t.Fatalf("%s: objective rose in sweep %d: %v -> %v", name, sweep, prev, obj)
					}
					prev = obj
				}
				for c := range f {
					if !(f[c] >= Eps) {
						t.Fatalf("%s: f[%d] = %v, below Eps", name, c, f[c])
					}
					grad, data := lin[c], 0.0
					for s := range nb {
						grad += gr.alpha[c] * wts[s] * (math.Log(f[c]) - math.Log(rowsNb[s][c]) + 1 - rowsNb[s][c]/f[c])
						data += gr.alpha[c] * wts[s] * rowsNb[s][c] / f[c]
					}
					for q := range nq {
						var yq float64
						for l := range f {
							yq += f[l] * ht[l*nq+q]
						}
						grad -= x[q] * ht[c*nq+q] / yq
						data += x[q] * ht[c*nq+q] / yq
					}
					if f[c] > Eps*(1+1e-9) && math.Abs(grad) > 1e-8*data || grad < -1e-8*data {
						t.Fatalf("%s: KKT fails at %d: f %v derivative %v (data part %v)", name, c, f[c], grad, data)
					}
				}
			}
		}
	}
}

// TestAutoAlgorithm: auto is cd for nmf, gnmf, nmf-kl and their
// NC-weighted forms and mu for every other method; explicit choices stay.
func TestAutoAlgorithm(t *testing.T) {
	for _, m := range Methods() {
		want := MU
		if b := m.Base(); b == NMF || b == GNMF || b == NMFKL {
			want = CD
		}
		if got := AutoAlgorithm.Resolve(m); got != want {
			t.Errorf("%s: auto resolves to %s, want %s", m, got, want)
		}
		if MU.Resolve(m) != MU || CD.Resolve(m) != CD {
			t.Errorf("%s: an explicit choice was changed", m)
		}
		if want == CD && !m.HasCD() {
			t.Errorf("%s: auto picks cd, which it does not have", m)
		}
	}
	// Fit with the zero value runs cd for nmf: the same factors as
	// explicit CD, not MU's.
	all, _ := datas(t, 97, 30, 20, 0.4)
	d := all["sparse"]
	run := func(a Algorithm) *Result {
		res, err := Fit(context.Background(), d, Options{Method: NMF, K: 3, Seed: 1, Control: Control{Algorithm: a, MaxIter: 10, Tol: -1}})
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

// TestGNMFGraphPasses: GNMF's cd V half passes over the graph more than
// once per data product where the product dominates (many entries per
// sample, few factors), never more than graphPasses allows, with the
// objective still never rising and the same passes and bits for any
// thread count and for the sparse and dense forms of the data.
func TestGNMFGraphPasses(t *testing.T) {
	for _, c := range []struct{ nnz, gnnz, n, k, want int }{
		{1000, 100, 100, 10, 1},        // rho = 20000 / 11000
		{7200, 480, 80, 4, 5},          // rho = 30080 / 3200
		{1 << 20, 1 << 10, 64, 2, 456}, // rho = 2097408 / 2304
	} {
		if got := graphPasses(c.nnz, c.gnnz, c.n, c.k); got != c.want {
			t.Errorf("graphPasses(%d, %d, %d, %d) = %d, want %d", c.nnz, c.gnnz, c.n, c.k, got, c.want)
		}
	}
	const n, m, k = 80, 300, 4
	all, _ := datas(t, 71, n, m, 0.3)
	g := randomGraph(72, n, 4)
	for _, f := range []Formulation{ScaleInvariant, Papers} {
		var ref *Result
		for _, name := range []string{"sparse", "dense"} {
			for _, threads := range []int{1, 3} {
				d := all[name]
				// Plain cd: the rule caps a plain iteration's passes (an
				// extrapolated step undone makes two V halves).
				o := Options{Method: GNMF, Lambda: Fixed(100), Formulation: f, K: k, Seed: 5, Graph: g, Threads: threads, Control: Control{Algorithm: CD, MaxIter: 40, Tol: -1, PGTol: -1, PlainCD: true}}
				res, err := Fit(context.Background(), d, o)
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("%v/%s/%d threads", f, name, threads)
				checkMonotone(t, what, res.Objective)
				most := graphPasses(d.nnz, g.W.NNZ(), n, k)
				if most < 2 || res.GraphPasses <= res.Iterations || res.GraphPasses > most*res.Iterations {
					t.Errorf("%s: %d passes over %d iterations, want more than one an iteration and at most %d", what, res.GraphPasses, res.Iterations, most)
				}
				if ref == nil {
					ref = res
					continue
				}
				if res.GraphPasses != ref.GraphPasses {
					t.Errorf("%s: %d passes, %d with 1 thread on sparse data", what, res.GraphPasses, ref.GraphPasses)
				}
				if name == "sparse" && !slices.Equal(ref.V.RawMatrix().Data, res.V.RawMatrix().Data) {
					t.Errorf("%s: V differs from 1 thread's", what)
				}
			}
		}
	}
}
