package solver

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/sparse"
)

// meanDegree is the average of the graph's weighted degrees.
func meanDegree(deg []float64) float64 {
	var s float64
	for _, d := range deg {
		s += d
	}
	return s / float64(len(deg))
}

// graphQuad returns v_c^T L v_c for every column c.
func graphQuad(v, w dmat, deg []float64) []float64 {
	k := len(v[0])
	out := make([]float64, k)
	for c := 0; c < k; c++ {
		for i := range v {
			out[c] += deg[i] * v[i][c] * v[i][c]
			for j := range v {
				out[c] -= w[i][j] * v[i][c] * v[j][c]
			}
		}
	}
	return out
}

// normalizeCols divides column c of a by s[c] and multiplies column c of
// v by it.
func normalizeCols(a, v dmat, s []float64) {
	for c, x := range s {
		if !(x > 0) {
			continue
		}
		for i := range a {
			a[i][c] /= x
		}
		for i := range v {
			v[i][c] *= x
		}
	}
}

// referenceInvariant runs the ScaleInvariant updates of GNMF (concept
// false) or LCCF with the explicit linear kernel, with plain loops, V
// first, the basis rescaled after every iteration, and returns the
// objective after each iteration, evaluated directly as
// ||X - A V^T||^2 + lam sum_c |a_c|^2 v_c^T L v_c before the rescaling.
func referenceInvariant(x, f, v dmat, lambda float64, w dmat, deg []float64, iters int, concept bool) []float64 {
	n, k := len(v), len(v[0])
	lam := lambda / meanDegree(deg)
	K := mul(tr(x), x)
	basis := func() dmat {
		if concept {
			return mul(x, f)
		}
		return f
	}
	colNorms := func() []float64 {
		a := basis()
		s := make([]float64, k)
		for c := range s {
			for i := range a {
				s[c] += a[i][c] * a[i][c]
			}
			s[c] = math.Sqrt(s[c])
		}
		return s
	}
	normalizeCols(f, v, colNorms())
	var objs []float64
	for it := 0; it < iters; it++ {
		a := basis()
		num := mul(tr(x), a)
		den := mul(v, mul(tr(a), a))
		wv := mul(w, v)
		for i := 0; i < n; i++ {
			for c := 0; c < k; c++ {
				v[i][c] *= (num[i][c] + lam*wv[i][c]) / math.Max(den[i][c]+lam*deg[i]*v[i][c], Eps)
			}
		}
		g := graphQuad(v, w, deg)
		s := mul(tr(v), v)
		for c := 0; c < k; c++ {
			s[c][c] += lam * g[c]
		}
		if concept {
			kv := mul(K, v)
			d := mul(mul(K, f), s)
			for i := range f {
				for c := 0; c < k; c++ {
					f[i][c] *= kv[i][c] / math.Max(d[i][c], Eps)
				}
			}
		} else {
			xv := mul(x, v)
			d := mul(f, s)
			for i := range f {
				for c := 0; c < k; c++ {
					f[i][c] *= xv[i][c] / math.Max(d[i][c], Eps)
				}
			}
		}
		nrm := colNorms()
		obj := objectiveRef(x, basis(), v, 0, nil, nil)
		for c := 0; c < k; c++ {
			obj += lam * nrm[c] * nrm[c] * g[c]
		}
		objs = append(objs, obj)
		normalizeCols(f, v, nrm)
	}
	return objs
}

// TestInvariantMatchesReference: the ScaleInvariant GNMF and LCCF updates
// against plain loops, objective after every iteration and the returned
// factors, on sparse and dense data.
func TestInvariantMatchesReference(t *testing.T) {
	const n, m, k, iters, lambda = 24, 30, 3, 25, 2.5
	all, x := datas(t, 211, n, m, 0.3)
	g := randomGraph(212, n, 3)
	w, deg := graphDense(g)
	for _, method := range []Method{GNMF, LCCF} {
		rowsA := m
		if method == LCCF {
			rowsA = n
		}
		init := randomFactors(213, rowsA, n, k)
		ra, rv := rows(init.U, false), rows(init.V, false)
		ref := referenceInvariant(x, ra, rv, lambda, w, deg, iters, method == LCCF)
		for name, d := range all {
			res, err := Fit(context.Background(), d, Options{Method: method, K: k, Init: init, Lambda: Fixed(lambda), Graph: g, Control: Control{Algorithm: paperAlgo(method), MaxIter: iters, Tol: -1}})
			if err != nil {
				t.Fatal(err)
			}
			checkMonotone(t, fmt.Sprintf("%s %s", method, name), res.Objective)
			for i := range ref {
				if !relClose(res.Objective[i+1], ref[i], 1e-9) {
					t.Fatalf("%s %s: objective after iteration %d = %v, reference %v", method, name, i+1, res.Objective[i+1], ref[i])
				}
			}
			if !mat.EqualApprox(res.V, mat.NewDense(n, k, flat(rv)), 1e-8) {
				t.Fatalf("%s %s: V differs from the reference", method, name)
			}
			// The returned factors have unit basis columns, so the
			// objective evaluates directly from them.
			a := rows(res.U, false)
			direct := objectiveRef(x, a, rows(res.V, false), lambda/meanDegree(deg), w, deg)
			if !relClose(direct, res.Final(), 1e-9) {
				t.Fatalf("%s %s: objective of the returned factors %v, reported %v", method, name, direct, res.Final())
			}
		}
	}
}

// scaledGraph returns g with every weight multiplied by s.
func scaledGraph(t *testing.T, g *graph.Graph, s float64) *graph.Graph {
	w := g.W.Clone()
	for i := range w.Val {
		w.Val[i] *= s
	}
	return mustGraph(t, w)
}

// scaledData returns X (m x n, features as rows) multiplied by s, as
// sparse data.
func scaledData(t *testing.T, x dmat, s float64) *Data {
	t.Helper()
	x = tr(x)
	var ri, ci []int
	var v []float64
	for i := range x {
		for j, val := range x[i] {
			if val != 0 {
				ri, ci, v = append(ri, i), append(ci, j), append(v, s*val)
			}
		}
	}
	a, err := sparse.FromTriplets(len(x), len(x[0]), ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewSparseData(a)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestInvariantLambdaMeaning: under ScaleInvariant, what Lambda does does
// not depend on the start's scale (U D, V D^-1), on the data's units (c X
// from the matching start gives the objective times c^2 and the same U),
// or on the graph's weight units (W times s); under Papers the first and
// the last change the result (and for LCCF the second).
func TestInvariantLambdaMeaning(t *testing.T) {
	const n, m, k, iters = 30, 25, 3, 30
	_, x := datas(t, 221, n, m, 0.3)
	base := scaledData(t, x, 1)
	g := randomGraph(222, n, 4)
	for _, method := range []Method{GNMF, LCCF, LPNMF, GNMFNCW} {
		rowsA := m
		if method.Concept() {
			rowsA = n
		}
		init := randomFactors(223, rowsA, n, k)
		// The start with U's columns times d and V's divided by it.
		d := []float64{3, 0.1, 40}
		u2 := mat.DenseCopyOf(init.U)
		init2 := &Result{U: u2, W: u2, V: mat.DenseCopyOf(init.V)}
		for c, s := range d {
			for i := 0; i < rowsA; i++ {
				init2.U.Set(i, c, init2.U.At(i, c)*s)
			}
			for i := 0; i < n; i++ {
				init2.V.Set(i, c, init2.V.At(i, c)/s)
			}
		}
		// The data times 7 with the matching start (V times 7, or for
		// concept factorization the same W and V): the same path, the
		// objective times 49 (7 for the KL objective).
		const c = 7
		init3 := &Result{U: init.U, W: init.U, V: mat.DenseCopyOf(init.V)}
		if !method.Concept() {
			init3.V.Scale(c, init3.V)
		}
		objScale := c * c
		if method.KL() {
			objScale = c
		}
		for _, f := range []Formulation{ScaleInvariant, Papers} {
			o := Options{Method: method, K: k, Lambda: Fixed(2), Graph: g, Formulation: f, Control: Control{Algorithm: paperAlgo(method), MaxIter: iters, Tol: -1, CGTol: 1e-13}}
			run := func(d *Data, init *Result, g *graph.Graph) *Result {
				o := o
				o.Init, o.Graph = init, g
				res, err := Fit(context.Background(), d, o)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			ref := run(base, init, g)
			same := func(r *Result, scale float64) bool {
				for i := 1; i < len(ref.Objective); i++ {
					if !relClose(r.Objective[i], scale*ref.Objective[i], 1e-7) {
						return false
					}
				}
				return true
			}
			invariant := f == ScaleInvariant
			if got := same(run(base, init2, g), 1); got != invariant {
				t.Errorf("%s %v: start rescaled by columns: same path %v", method, f, got)
			}
			if got := same(run(scaledData(t, x, c), init3, g), float64(objScale)); invariant && !got {
				t.Errorf("%s %v: data times %d: not the same path", method, f, c)
			}
			if got := same(run(base, init, scaledGraph(t, g, 5)), 1); got != invariant {
				t.Errorf("%s %v: graph weights times 5: same path %v", method, f, got)
			}
		}
	}
}

// TestInvariantMonotone: the ScaleInvariant objective never increases, for
// every graph method, several shapes and lambdas, sparse and dense.
func TestInvariantMonotone(t *testing.T) {
	for _, shape := range [][3]int{{40, 35, 4}, {15, 60, 2}, {70, 12, 5}} {
		n, m, k := shape[0], shape[1], shape[2]
		all, _ := datas(t, uint64(231+n), n, m, 0.3)
		g := randomGraph(uint64(232+n), n, 4)
		for _, method := range []Method{GNMF, LCCF, LPNMF, GNMFNCW, LCCFNCW, LPNMFNCW} {
			for _, lambda := range []float64{0.1, 10, 1000} {
				for name, d := range all {
					o := Options{Method: method, K: k, Seed: 3, Lambda: Fixed(lambda), Graph: g, Control: Control{Algorithm: paperAlgo(method), MaxIter: 120, Tol: -1}}
					res, err := Fit(context.Background(), d, o)
					if err != nil {
						t.Fatalf("%s %s lambda %v: %v", method, name, lambda, err)
					}
					checkMonotone(t, fmt.Sprintf("%s %s %dx%d k=%d lambda %v", method, name, n, m, k, lambda), res.Objective)
				}
			}
		}
	}
}

// symKLCols returns R_c(V) = 1/2 sum_{j,q} w_jq (v_jc - v_qc)(log v_jc -
// log v_qc) for every column, logs floored at Eps.
func symKLCols(v, w dmat) []float64 {
	lg := func(x float64) float64 { return math.Log(math.Max(x, Eps)) }
	out := make([]float64, len(v[0]))
	for j := range v {
		for q := range v {
			for c := range out {
				out[c] += 0.5 * w[j][q] * (v[j][c] - v[q][c]) * (lg(v[j][c]) - lg(v[q][c]))
			}
		}
	}
	return out
}

// referenceLPNMFInvariant runs the ScaleInvariant LPNMF updates with plain
// loops: U's column sums at 1, V's columns from paper 003 eq. 9 with
// lambda' = lambda / mean degree, U's multiplicative step with
// lambda' R_c(V) added to its denominator, then the column sums back to 1.
func referenceLPNMFInvariant(xt, u, v dmat, lambda float64, w dmat, deg []float64, iters int) []float64 {
	n, m, k := len(v), len(u), len(u[0])
	lam := lambda / meanDegree(deg)
	sums := func() []float64 {
		s := make([]float64, k)
		for i := range u {
			for c := range s {
				s[c] += u[i][c]
			}
		}
		return s
	}
	normalizeCols(u, v, sums())
	y := func(i, j int) float64 {
		var s float64
		for c := 0; c < k; c++ {
			s += u[i][c] * v[j][c]
		}
		return math.Max(s, Eps)
	}
	var objs []float64
	for it := 0; it < iters; it++ {
		b := zeros(n, k)
		for j := 0; j < n; j++ {
			for c := 0; c < k; c++ {
				var s float64
				for i := 0; i < m; i++ {
					s += xt[j][i] * u[i][c] / y(i, j)
				}
				b[j][c] = v[j][c] * s
			}
		}
		colU := sums()
		for c := 0; c < k; c++ {
			a := zeros(n, n)
			rhs := make([]float64, n)
			for j := 0; j < n; j++ {
				a[j][j] = colU[c] + lam*deg[j]
				for q := 0; q < n; q++ {
					a[j][q] -= lam * w[j][q]
				}
				rhs[j] = b[j][c]
			}
			sol := solveDense(a, rhs)
			for j := 0; j < n; j++ {
				v[j][c] = math.Max(sol[j], 0)
			}
		}
		r := symKLCols(v, w)
		nu := zeros(m, k)
		for i := 0; i < m; i++ {
			for c := 0; c < k; c++ {
				var s, den float64
				for j := 0; j < n; j++ {
					s += xt[j][i] * v[j][c] / y(i, j)
					den += v[j][c]
				}
				nu[i][c] = u[i][c] * s / math.Max(den+lam*r[c], Eps)
			}
		}
		for i := range u {
			copy(u[i], nu[i])
		}
		s := sums()
		obj := klObjective(xt, u, v, nil, 0, nil)
		for c := range s {
			obj += lam * s[c] * r[c]
		}
		objs = append(objs, obj)
		normalizeCols(u, v, s)
	}
	return objs
}

func TestLPNMFInvariantMatchesReference(t *testing.T) {
	const n, m, k, iters, lambda = 20, 26, 3, 15, 3.0
	all, x := datas(t, 241, n, m, 0.35)
	xt := tr(x)
	g := randomGraph(242, n, 3)
	w, deg := graphDense(g)
	init := randomFactors(243, m, n, k)
	ru, rv := rows(init.U, false), rows(init.V, false)
	ref := referenceLPNMFInvariant(xt, ru, rv, lambda, w, deg, iters)
	for name, d := range all {
		res, err := Fit(context.Background(), d, Options{Method: LPNMF, K: k, Init: init, Lambda: Fixed(lambda), Graph: g, Control: Control{MaxIter: iters, Tol: -1, CGTol: 1e-14}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range ref {
			if !relClose(res.Objective[i+1], ref[i], 1e-8) {
				t.Fatalf("%s: objective after iteration %d = %v, reference %v", name, i+1, res.Objective[i+1], ref[i])
			}
		}
		if !mat.EqualApprox(res.V, mat.NewDense(n, k, flat(rv)), 1e-7) {
			t.Fatalf("%s: V differs from the reference", name)
		}
	}
}

// TestInvariantGeneralMatchesReference: ScaleInvariant LCCF on signed data
// (K = X^T X with negative entries, the general updates of paper 002
// eqs. 25 and 28 with V^T V + diag(g) in W's products) against plain
// loops.
func TestInvariantGeneralMatchesReference(t *testing.T) {
	const n, m, k, iters, lambda = 20, 9, 3, 25, 2.0
	rng := rand.New(rand.NewPCG(251, 1))
	xs := mat.NewDense(n, m, nil) // samples as rows
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			xs.Set(i, j, rng.NormFloat64())
		}
	}
	d, err := NewDenseData(xs)
	if err != nil {
		t.Fatal(err)
	}
	g := randomGraph(252, n, 3)
	w, deg := graphDense(g)
	lam := lambda / meanDegree(deg)
	x := tr(rows(xs, false)) // m x n
	K := mul(tr(x), x)
	kp, kn := zeros(n, n), zeros(n, n)
	for i := range K {
		for j := range K[i] {
			kp[i][j], kn[i][j] = math.Max(K[i][j], 0), math.Max(-K[i][j], 0)
		}
	}
	init := randomFactors(253, n, n, k)
	wf, v := rows(init.U, false), rows(init.V, false)
	norms := func() []float64 {
		kw := mul(K, wf)
		s := make([]float64, k)
		for c := range s {
			for i := range wf {
				s[c] += wf[i][c] * kw[i][c]
			}
			s[c] = math.Sqrt(s[c])
		}
		return s
	}
	general := func(f, b, pp, pn dmat) {
		for i := range f {
			for c := range f[i] {
				f[i][c] *= (b[i][c] + math.Sqrt(b[i][c]*b[i][c]+4*pp[i][c]*pn[i][c])) / (2 * math.Max(pp[i][c], Eps))
			}
		}
	}
	normalizeCols(wf, v, norms())
	var ref []float64
	for it := 0; it < iters; it++ {
		kw := mul(K, wf)
		qp, qn := mul(v, mul(tr(wf), mul(kp, wf))), mul(v, mul(tr(wf), mul(kn, wf)))
		sv := mul(w, v)
		for i := range v {
			for c := range v[i] {
				qp[i][c] += lam * deg[i] * v[i][c]
				qn[i][c] += lam * sv[i][c]
			}
		}
		general(v, kw, qp, qn)
		gq := graphQuad(v, w, deg)
		s := mul(tr(v), v)
		for c := 0; c < k; c++ {
			s[c][c] += lam * gq[c]
		}
		kv := mul(K, v)
		general(wf, kv, mul(mul(kp, wf), s), mul(mul(kn, wf), s))
		nrm := norms()
		obj := objectiveRef(x, mul(x, wf), v, 0, nil, nil)
		for c := 0; c < k; c++ {
			obj += lam * nrm[c] * nrm[c] * gq[c]
		}
		ref = append(ref, obj)
		normalizeCols(wf, v, nrm)
	}
	res, err := Fit(context.Background(), d, Options{Method: LCCF, K: k, Init: init, Lambda: Fixed(lambda), Graph: g, Control: Control{MaxIter: iters, Tol: -1}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.General {
		t.Fatal("general updates not used on signed data")
	}
	checkMonotone(t, "lccf signed", res.Objective)
	for i := range ref {
		if !relClose(res.Objective[i+1], ref[i], 1e-9) {
			t.Fatalf("objective after iteration %d = %v, reference %v", i+1, res.Objective[i+1], ref[i])
		}
	}
	if !mat.EqualApprox(res.V, mat.NewDense(n, k, flat(v)), 1e-8) {
		t.Fatal("V differs from the reference")
	}
}
