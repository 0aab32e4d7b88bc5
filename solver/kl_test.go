package solver

import (
	"context"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/sparse"
)

// klObjective evaluates sum_ij g_j (x log(x/y) - x + y) + lambda R directly
// (x = X^T here: samples as rows), with y and v floored at Eps as the
// solver does.
func klObjective(xt, u, v dmat, g []float64, lambda float64, w dmat) float64 {
	var s float64
	for j := range xt {
		gj := 1.0
		if g != nil {
			gj = g[j]
		}
		for i := range u {
			var y float64
			for c := range u[i] {
				y += u[i][c] * v[j][c]
			}
			y = math.Max(y, Eps)
			x := xt[j][i]
			if x != 0 {
				s += gj * (x*math.Log(x/y) - x)
			}
			s += gj * y
		}
	}
	if lambda > 0 {
		lg := func(x float64) float64 { return math.Log(math.Max(x, Eps)) }
		for j := range v {
			for q := range v {
				if w[j][q] == 0 {
					continue
				}
				for c := range v[j] {
					s += 0.5 * lambda * w[j][q] * (v[j][c] - v[q][c]) * (lg(v[j][c]) - lg(v[q][c]))
				}
			}
		}
	}
	return s
}

// solveDense solves a x = b by Gaussian elimination with partial pivoting.
func solveDense(a dmat, b []float64) []float64 {
	n := len(b)
	m := zeros(n, n+1)
	for i := range a {
		copy(m[i], a[i])
		m[i][n] = b[i]
	}
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p] = m[p], m[c]
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			for q := c; q <= n; q++ {
				m[r][q] -= f * m[c][q]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := m[r][n]
		for q := r + 1; q < n; q++ {
			s -= m[r][q] * x[q]
		}
		x[r] = s / m[r][r]
	}
	return x
}

// referenceKL runs paper 003's updates with plain loops, V first: with
// lambda = 0 the NMF-KL rule of eq. 2, otherwise eq. 9 solved densely for
// each column, then eq. 8 for U; g weighs the samples.
func referenceKL(xt, u, v dmat, g []float64, lambda float64, w dmat, deg []float64, iters int) []float64 {
	n, m, k := len(v), len(u), len(u[0])
	gj := func(j int) float64 {
		if g == nil {
			return 1
		}
		return g[j]
	}
	y := func(i, j int) float64 {
		var s float64
		for c := 0; c < k; c++ {
			s += u[i][c] * v[j][c]
		}
		return math.Max(s, Eps)
	}
	var objs []float64
	for it := 0; it < iters; it++ {
		colU := make([]float64, k)
		for i := 0; i < m; i++ {
			for c := 0; c < k; c++ {
				colU[c] += u[i][c]
			}
		}
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
		for c := 0; c < k; c++ {
			if lambda == 0 {
				for j := 0; j < n; j++ {
					v[j][c] = b[j][c] / math.Max(colU[c], Eps)
				}
				continue
			}
			a := zeros(n, n)
			rhs := make([]float64, n)
			for j := 0; j < n; j++ {
				a[j][j] = gj(j)*colU[c] + lambda*deg[j]
				for q := 0; q < n; q++ {
					a[j][q] -= lambda * w[j][q]
				}
				rhs[j] = gj(j) * b[j][c]
			}
			sol := solveDense(a, rhs)
			for j := 0; j < n; j++ {
				v[j][c] = math.Max(sol[j], 0)
			}
		}
		wsum := make([]float64, k)
		for j := 0; j < n; j++ {
			for c := 0; c < k; c++ {
				wsum[c] += gj(j) * v[j][c]
			}
		}
		nu := zeros(m, k)
		for i := 0; i < m; i++ {
			for c := 0; c < k; c++ {
				var s float64
				for j := 0; j < n; j++ {
					s += gj(j) * xt[j][i] * v[j][c] / y(i, j)
				}
				nu[i][c] = u[i][c] * s / math.Max(wsum[c], Eps)
			}
		}
		for i := range u {
			copy(u[i], nu[i])
		}
		objs = append(objs, klObjective(xt, u, v, g, lambda, w))
	}
	return objs
}

func TestKLMatchesReference(t *testing.T) {
	const n, m, k, iters = 20, 26, 3, 15
	all, x := datas(t, 101, n, m, 0.35)
	xt := tr(x)
	g := randomGraph(102, n, 3)
	w, deg := graphDense(g)
	init := randomFactors(103, m, n, k)
	for _, c := range []struct {
		method Method
		lambda float64
	}{{NMFKL, 0}, {LPNMF, 0.8}, {LPNMFNCW, 0.8}, {NMFKLNCW, 0}} {
		var gamma []float64
		if c.method == LPNMFNCW || c.method == NMFKLNCW {
			gamma = make([]float64, n)
			sum := make([]float64, m)
			for j := range xt {
				for i := range xt[j] {
					sum[i] += xt[j][i]
				}
			}
			var total float64
			for j := range xt {
				var d float64
				for i := range xt[j] {
					d += xt[j][i] * sum[i]
				}
				gamma[j] = 1 / d
				total += gamma[j]
			}
			// The weights average 1 (no sample here is all zero).
			for j := range gamma {
				gamma[j] *= float64(n) / total
			}
		}
		ref := referenceKL(xt, rows(init.U, false), rows(init.V, false), gamma, c.lambda, w, deg, iters)
		for name, d := range all {
			// The reference solves densely, so the solves here go to
			// 1e-10, not DefaultCGTol's 1e-6.
			res, err := Fit(context.Background(), d, Options{Method: c.method, K: k, Init: init, Lambda: Fixed(c.lambda), Graph: g, Formulation: Papers, Control: Control{Algorithm: MU, MaxIter: iters, Tol: -1, CGTol: 1e-10}})
			if err != nil {
				t.Fatalf("%s %s: %v", c.method, name, err)
			}
			for i := range ref {
				if !relClose(res.Objective[i+1], ref[i], 1e-8) {
					t.Fatalf("%s %s: objective after iteration %d = %v, reference %v", c.method, name, i+1, res.Objective[i+1], ref[i])
				}
			}
			if c.lambda > 0 && (res.CG.Solves != iters*k || res.CG.MaxResidual > 1e-9) {
				t.Fatalf("%s %s: CG stats %+v", c.method, name, res.CG)
			}
			// U's columns sum to one.
			for col := 0; col < k; col++ {
				var s float64
				for i := 0; i < m; i++ {
					s += res.U.At(i, col)
				}
				if !relClose(s, 1, 1e-12) {
					t.Fatalf("%s: U column %d sums to %v", c.method, col, s)
				}
			}
		}
	}
}

// TestKLObjectiveNonIncreasing: the NMF-KL updates (eq. 2) never increase
// the divergence, weighted or not.
//
// For LPNMF, paper 003's Theorem 1 claims the same, but measured with the
// exact symmetric-KL R of eq. 6, exact solves (CG to 1e-13, checked
// against dense direct solves in TestKLMatchesReference) and no clamping,
// the objective rises slightly near convergence on some problems: up to
// 1.5e-6 relative per iteration (lambda = 50 here), and about 1e-6 with
// the NC weights. The iterates match a plain-loop implementation of eqs. 8
// and 9, so this is the update's behaviour on the stated objective, not a
// port error. The test asserts what holds: a large overall decrease and no
// single rise above 1e-5 relative.
func TestKLObjectiveNonIncreasing(t *testing.T) {
	all, _ := datas(t, 111, 60, 45, 0.2)
	g := randomGraph(112, 60, 4)
	for _, o := range []Options{{Method: NMFKL}, {Method: NMFKLNCW}, {Method: LPNMF, Lambda: Fixed(5)}, {Method: LPNMF, Lambda: Fixed(50)}, {Method: LPNMFNCW, Lambda: Fixed(0.05)}} {
		for name, d := range all {
			o.K, o.MaxIter, o.Tol, o.Seed, o.Graph, o.CGTol = 4, 200, -1, 3, g, 1e-13
			res, err := Fit(context.Background(), d, o)
			if err != nil {
				t.Fatal(err)
			}
			what := o.Method.String() + "/" + name
			if o.Method == NMFKL || o.Method == NMFKLNCW {
				checkMonotone(t, what, res.Objective)
			} else {
				obj := res.Objective
				for i := 1; i < len(obj); i++ {
					if obj[i] > obj[i-1]*(1+1e-5) {
						t.Fatalf("%s: objective rose by more than 1e-5 at iteration %d: %v -> %v", what, i, obj[i-1], obj[i])
					}
				}
				if !(obj[len(obj)-1] < 0.9*obj[0]) {
					t.Fatalf("%s: objective fell only from %v to %v", what, obj[0], obj[len(obj)-1])
				}
			}
			for i := 0; i < 60; i++ {
				for c := 0; c < 4; c++ {
					if v := res.V.At(i, c); !(v >= 0) {
						t.Fatalf("%s: V(%d,%d) = %v", what, i, c, v)
					}
				}
			}
		}
	}
}

// TestLPNMFLambdaZeroIsNMFKL: bit for bit, with a graph given.
func TestLPNMFLambdaZeroIsNMFKL(t *testing.T) {
	all, _ := datas(t, 121, 30, 25, 0.3)
	g := randomGraph(122, 30, 3)
	for name, d := range all {
		for _, f := range []Formulation{ScaleInvariant, Papers} {
			a, _ := Fit(context.Background(), d, Options{Method: NMFKL, K: 3, Seed: 2, Formulation: f, Control: Control{Algorithm: MU, MaxIter: 40, Tol: -1}})
			b, err := Fit(context.Background(), d, Options{Method: LPNMF, K: 3, Seed: 2, Graph: g, Lambda: Fixed(0), Formulation: f, Control: Control{MaxIter: 40, Tol: -1}})
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(a.V, b.V) || !mat.Equal(a.U, b.U) || a.Final() != b.Final() {
				t.Fatalf("%s %v: lpnmf with lambda = 0 differs from nmf-kl", name, f)
			}
		}
	}
}

func TestKLBadInput(t *testing.T) {
	all, _ := datas(t, 141, 20, 15, 0.3)
	d := all["sparse"]
	g := randomGraph(142, 20, 3)
	ctx := context.Background()
	if _, err := Fit(ctx, d, Options{Method: LPNMF, K: 2, Lambda: Fixed(-1), Graph: g}); err == nil {
		t.Error("lambda < 0 accepted")
	}
	if _, err := Fit(ctx, d, Options{Method: LPNMF, K: 2, Lambda: Fixed(1), Graph: randomGraph(1, 19, 2)}); err == nil {
		t.Error("graph of the wrong size accepted")
	}
	// A CG cap of one iteration cannot reach 1e-10 on this graph: the fit
	// must fail and say so, with the residual.
	_, err := Fit(ctx, d, Options{Method: LPNMF, K: 2, Lambda: Fixed(50), Graph: g, Control: Control{CGMaxIter: 1, MaxIter: 5}})
	if err == nil {
		t.Fatal("a non-converged CG solve passed silently")
	}
	t.Log(err)
}

// TestEvaluateEvery: evaluating the objective every 5th iteration leaves
// the iterates alone, so its values equal the full trace's at those
// iterations, bit for bit; the last iteration is always evaluated.
func TestEvaluateEvery(t *testing.T) {
	all, _ := datas(t, 151, 40, 30, 0.3)
	g := randomGraph(152, 40, 3)
	for _, m := range []Method{NMFKL, LPNMF, NMF, LCCF} {
		o := Options{Method: m, K: 3, Seed: 5, Lambda: Fixed(1), Graph: g, Control: Control{MaxIter: 23, Tol: -1}}
		full, err := Fit(context.Background(), all["sparse"], o)
		if err != nil {
			t.Fatal(err)
		}
		o.Evaluate = 5
		some, err := Fit(context.Background(), all["sparse"], o)
		if err != nil {
			t.Fatal(err)
		}
		want := []int{0, 5, 10, 15, 20, 23}
		if len(some.ObjectiveIters) != len(want) || some.Iterations != 23 {
			t.Fatalf("%s: evaluated at %v after %d iterations", m, some.ObjectiveIters, some.Iterations)
		}
		for i, it := range want {
			if some.ObjectiveIters[i] != it || some.Objective[i] != full.Objective[it] {
				t.Fatalf("%s: evaluation %d at iteration %d = %v, full trace %v", m, i, some.ObjectiveIters[i], some.Objective[i], full.Objective[it])
			}
		}
		if !mat.Equal(full.V, some.V) {
			t.Fatalf("%s: evaluating less often changed the factors", m)
		}
	}
}

// TestKLNCWUnitFree: the NC weights average 1, so lpnmf-ncw on the data
// in other units (x 255, as raw 8-bit pixels against [0, 1]) reaches the
// same factorization with V scaled by 255 and the same labels, and its
// linear solves converge; with raw 1/d weights the scaled data would meet
// a 255^2 times stronger lambda and near-singular solves.
func TestKLNCWUnitFree(t *testing.T) {
	x, _ := topics(61, 90)
	big := x.Clone()
	for i := range big.Val {
		big.Val[i] *= 255
	}
	g := randomGraph(62, 90, 4)
	fit := func(a *sparse.CSR) *Result {
		d, err := NewSparseData(a)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Fit(context.Background(), d, Options{Method: LPNMFNCW, K: 3, Seed: 4, Lambda: Fixed(10), Graph: g, Control: Control{MaxIter: 60, Tol: -1}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := fit(x), fit(big)
	if !slices.Equal(a.Labels, b.Labels) {
		t.Errorf("labels differ with the data in other units")
	}
	for i := range a.V.RawMatrix().Data {
		va, vb := a.V.RawMatrix().Data[i], b.V.RawMatrix().Data[i]
		if math.Abs(vb-255*va) > 1e-6*(255*math.Abs(va)+1) {
			t.Fatalf("V[%d]: %v at 255 x the data, %v x 255 = %v", i, vb, va, 255*va)
		}
	}
}

// TestLPNMFDefaultCGTol: CGTol 0 solves LPNMF's systems to DefaultCGTol,
// the same fit bit for bit as asking for it, and not to 1e-10.
func TestLPNMFDefaultCGTol(t *testing.T) {
	const n, m, k = 40, 30, 3
	all, _ := datas(t, 131, n, m, 0.4)
	g := randomGraph(132, n, 3)
	o := Options{Method: LPNMF, K: k, Lambda: Fixed(5), Graph: g, Seed: 2, Control: Control{Algorithm: MU, MaxIter: 20, Tol: -1}}
	def, err := Fit(context.Background(), all["sparse"], o)
	if err != nil {
		t.Fatal(err)
	}
	o.CGTol = DefaultCGTol
	explicit, err := Fit(context.Background(), all["sparse"], o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(def.Objective, explicit.Objective) || !mat.Equal(def.V, explicit.V) {
		t.Errorf("CGTol 0 and CGTol %v give different fits", DefaultCGTol)
	}
	if def.CG.MaxResidual > DefaultCGTol {
		t.Errorf("a solve stopped at relative residual %v, above %v", def.CG.MaxResidual, DefaultCGTol)
	}
	o.CGTol = 1e-10
	tight, err := Fit(context.Background(), all["sparse"], o)
	if err != nil {
		t.Fatal(err)
	}
	if tight.CG.Iterations <= def.CG.Iterations {
		t.Errorf("solves to 1e-10 took %d steps, the default's %d: the default is not the looser tolerance", tight.CG.Iterations, def.CG.Iterations)
	}
}
