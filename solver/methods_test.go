package solver

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/sparse"
)

// randomGraph returns a symmetric graph on n vertices with about p random
// neighbours each and weights in (0, 1].
func randomGraph(seed uint64, n, p int) *graph.Graph {
	rng := rand.New(rand.NewPCG(seed, 3))
	var ri, ci []int
	var v []float64
	seen := map[[2]int]bool{}
	for i := 0; i < n; i++ {
		for q := 0; q < p; q++ {
			j := rng.IntN(n)
			if j == i || seen[[2]int{i, j}] {
				continue
			}
			w := 1 - rng.Float64()
			seen[[2]int{i, j}], seen[[2]int{j, i}] = true, true
			ri, ci, v = append(ri, i, j), append(ci, j, i), append(v, w, w)
		}
	}
	w, err := sparse.FromTriplets(n, n, ri, ci, v)
	if err != nil {
		panic(err)
	}
	g, err := graph.NewGraph(w)
	if err != nil {
		panic(err)
	}
	return g
}

func mustGraph(t *testing.T, w *sparse.CSR) *graph.Graph {
	t.Helper()
	g, err := graph.NewGraph(w)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

type dmat = [][]float64

func zeros(r, c int) dmat {
	m := make(dmat, r)
	for i := range m {
		m[i] = make([]float64, c)
	}
	return m
}

func mul(a, b dmat) dmat {
	out := zeros(len(a), len(b[0]))
	for i := range a {
		for t := range b {
			for j := range b[0] {
				out[i][j] += a[i][t] * b[t][j]
			}
		}
	}
	return out
}

func tr(a dmat) dmat {
	out := zeros(len(a[0]), len(a))
	for i := range a {
		for j := range a[i] {
			out[j][i] = a[i][j]
		}
	}
	return out
}

func graphDense(g *graph.Graph) (dmat, []float64) {
	n := g.N()
	w := zeros(n, n)
	for i := 0; i < n; i++ {
		for p := g.W.Indptr[i]; p < g.W.Indptr[i+1]; p++ {
			w[i][g.W.Ind[p]] = g.W.Val[p]
		}
	}
	return w, g.Degree
}

// objectiveRef evaluates ||X - A V^T||^2 + lambda tr(V^T L V) directly,
// with A = U (nmf) or X W (concept).
func objectiveRef(x, a, v dmat, lambda float64, w dmat, deg []float64) float64 {
	p := mul(a, tr(v))
	var s float64
	for i := range x {
		for j := range x[i] {
			s += (x[i][j] - p[i][j]) * (x[i][j] - p[i][j])
		}
	}
	if lambda > 0 {
		for i := range v {
			for j := range v {
				var d float64
				for t := range v[i] {
					d += v[i][t] * v[j][t]
				}
				l := -w[i][j]
				if i == j {
					l += deg[i]
				}
				s += lambda * l * d
			}
		}
	}
	return s
}

// referenceGNMF runs paper 000 eqs. 15-16 with plain loops, V first.
func referenceGNMF(x, u, v dmat, lambda float64, w dmat, deg []float64, iters int) []float64 {
	n, k := len(v), len(v[0])
	var objs []float64
	for it := 0; it < iters; it++ {
		num := mul(tr(x), u)
		den := mul(v, mul(tr(u), u))
		wv := mul(w, v)
		for i := 0; i < n; i++ {
			for j := 0; j < k; j++ {
				v[i][j] *= (num[i][j] + lambda*wv[i][j]) / math.Max(den[i][j]+lambda*deg[i]*v[i][j], Eps)
			}
		}
		num = mul(x, v)
		den = mul(u, mul(tr(v), v))
		for i := range u {
			for j := 0; j < k; j++ {
				u[i][j] *= num[i][j] / math.Max(den[i][j], Eps)
			}
		}
		objs = append(objs, objectiveRef(x, u, v, lambda, w, deg))
	}
	return objs
}

// paperAlgo is the algorithm the tests of the papers' updates run: MU for
// GNMF's forms (whose default is CD, tested in cd_test.go), the default
// for every other method.
func paperAlgo(m Method) Algorithm {
	if m.Base() == GNMF {
		return MU
	}
	return AutoAlgorithm
}

// referenceLCCF runs paper 002 eqs. 18 then 17 with plain loops and the
// explicit linear kernel.
func referenceLCCF(x, wf, v dmat, lambda float64, g dmat, deg []float64, iters int) []float64 {
	n, k := len(v), len(v[0])
	K := mul(tr(x), x)
	var objs []float64
	for it := 0; it < iters; it++ {
		kw := mul(K, wf)
		den := mul(v, mul(tr(wf), kw))
		sv := mul(g, v)
		for i := 0; i < n; i++ {
			for j := 0; j < k; j++ {
				v[i][j] *= (kw[i][j] + lambda*sv[i][j]) / math.Max(den[i][j]+lambda*deg[i]*v[i][j], Eps)
			}
		}
		kv := mul(K, v)
		den = mul(kw, mul(tr(v), v))
		for i := 0; i < n; i++ {
			for j := 0; j < k; j++ {
				wf[i][j] *= kv[i][j] / math.Max(den[i][j], Eps)
			}
		}
		objs = append(objs, objectiveRef(x, mul(x, wf), v, lambda, g, deg))
	}
	return objs
}

func datas(t *testing.T, seed uint64, n, m int, density float64) (map[string]*Data, dmat) {
	t.Helper()
	sp, dn := randomSamples(seed, n, m, density)
	ds, err := NewSparseData(sp)
	if err != nil {
		t.Fatal(err)
	}
	dd, err := NewDenseData(dn)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Data{"sparse": ds, "dense": dd}, rows(dn, true)
}

func TestGNMFAndLCCFMatchReference(t *testing.T) {
	const n, m, k, iters, lambda = 24, 30, 3, 20, 0.7
	all, x := datas(t, 21, n, m, 0.3)
	g := randomGraph(22, n, 3)
	w, deg := graphDense(g)
	for _, method := range []Method{GNMF, LCCF} {
		rowsA := m
		if method == LCCF {
			rowsA = n
		}
		init := randomFactors(23, rowsA, n, k)
		var ref []float64
		ra, rv := rows(init.U, false), rows(init.V, false)
		if method == GNMF {
			ref = referenceGNMF(x, ra, rv, lambda, w, deg, iters)
		} else {
			ref = referenceLCCF(x, ra, rv, lambda, w, deg, iters)
			ra = mul(x, ra)
		}
		// The reconstruction term is invariant under the final
		// normalization (the graph term is not).
		refFit := objectiveRef(x, ra, rv, 0, nil, nil)
		for name, d := range all {
			res, err := Fit(context.Background(), d, Options{Method: method, K: k, Init: init, Lambda: Fixed(lambda), Graph: g, Formulation: Papers, Control: Control{Algorithm: paperAlgo(method), MaxIter: iters, Tol: -1}})
			if err != nil {
				t.Fatal(err)
			}
			for i := range ref {
				if !relClose(res.Objective[i+1], ref[i], 1e-9) {
					t.Fatalf("%s %s: objective after iteration %d = %v, reference %v", method, name, i+1, res.Objective[i+1], ref[i])
				}
			}
			// The reported objective equals the directly evaluated one of
			// the returned (normalized) factors.
			var a dmat
			if method == GNMF {
				a = rows(res.U, false)
			} else {
				a = mul(x, rows(res.W, false))
				if !mat.EqualApprox(res.U, mat.NewDense(m, k, flat(a)), 1e-10) {
					t.Fatalf("%s %s: U is not X W", method, name)
				}
			}
			if got := objectiveRef(x, a, rows(res.V, false), 0, nil, nil); !relClose(got, refFit, 1e-9) {
				t.Fatalf("%s %s: reconstruction error of returned factors %v, reference %v", method, name, got, refFit)
			}
		}
	}
}

func flat(a dmat) []float64 {
	var out []float64
	for _, r := range a {
		out = append(out, r...)
	}
	return out
}

// TestObjectiveNonIncreasingAllMethods is Theorem 1 of papers 000 and 002
// (and Theorem 2 for the general updates), for every method and kernel,
// under the papers' updates and under each method's default.
func TestObjectiveNonIncreasingAllMethods(t *testing.T) {
	all, _ := datas(t, 31, 40, 35, 0.25)
	g := randomGraph(32, 40, 4)
	cases := []Options{
		{Method: NMF, Control: Control{Algorithm: MU}}, {Method: GNMF, Lambda: Fixed(3), Control: Control{Algorithm: MU}}, {Method: CF}, {Method: LCCF, Lambda: Fixed(3)},
		{Method: NMFNCW, Control: Control{Algorithm: MU}}, {Method: GNMFNCW, Lambda: Fixed(3), Control: Control{Algorithm: MU}}, {Method: CFNCW}, {Method: LCCFNCW, Lambda: Fixed(3)},
		// The defaults of the methods that have cd (cd_test.go tests cd
		// further).
		{Method: NMF}, {Method: GNMF, Lambda: Fixed(3)}, {Method: NMFNCW}, {Method: GNMFNCW, Lambda: Fixed(3)},
		{Method: CF, Control: Control{Kernel: Kernel{Kind: Polynomial, Degree: 2}}},
		{Method: LCCF, Lambda: Fixed(2), Control: Control{Kernel: Kernel{Kind: Gaussian}}},
		{Method: LCCF, Lambda: Fixed(2), explicitKernel: true},
	}
	for _, o := range cases {
		for name, d := range all {
			o.K, o.MaxIter, o.Tol, o.Seed, o.Graph = 4, 150, -1, 9, g
			res, err := Fit(context.Background(), d, o)
			if err != nil {
				t.Fatalf("%s %v: %v", o.Method, o.Kernel.Kind, err)
			}
			checkMonotone(t, o.Method.String()+"/"+name+"/"+o.Kernel.Kind.String(), res.Objective)
		}
	}
}

func checkMonotone(t *testing.T, what string, obj []float64) {
	t.Helper()
	for i := 1; i < len(obj); i++ {
		if obj[i] > obj[i-1]+1e-9*math.Abs(obj[i-1]) {
			t.Fatalf("%s: objective rose at iteration %d: %v -> %v", what, i, obj[i-1], obj[i])
		}
	}
	if !(obj[len(obj)-1] < obj[0]) {
		t.Fatalf("%s: no progress: %v -> %v", what, obj[0], obj[len(obj)-1])
	}
}

// TestLambdaZeroIsPlainMethod: with lambda = 0 the graph methods reproduce
// nmf and cf bit for bit under their default algorithm (cd for gnmf, mu
// for lccf), even with a graph given.
func TestLambdaZeroIsPlainMethod(t *testing.T) {
	all, _ := datas(t, 41, 30, 25, 0.3)
	g := randomGraph(42, 30, 3)
	for _, pair := range [][2]Method{{NMF, GNMF}, {CF, LCCF}, {NMFNCW, GNMFNCW}, {CFNCW, LCCFNCW}} {
		for name, d := range all {
			for _, f := range []Formulation{ScaleInvariant, Papers} {
				// The graph method's default algorithm, named for the
				// plain one.
				alg := AutoAlgorithm.Resolve(pair[1])
				a, err := Fit(context.Background(), d, Options{Method: pair[0], K: 3, Seed: 4, Formulation: f, Control: Control{Algorithm: alg, MaxIter: 40, Tol: -1}})
				if err != nil {
					t.Fatal(err)
				}
				b, err := Fit(context.Background(), d, Options{Method: pair[1], K: 3, Seed: 4, Graph: g, Lambda: Fixed(0), Formulation: f, Control: Control{MaxIter: 40, Tol: -1}})
				if err != nil {
					t.Fatal(err)
				}
				if !mat.Equal(a.V, b.V) || a.Final() != b.Final() {
					t.Fatalf("%s vs %s (%s, %v): lambda = 0 differs", pair[0], pair[1], name, f)
				}
				// The zero Lambda is the default weight, not zero.
				c, err := Fit(context.Background(), d, Options{Method: pair[1], K: 3, Seed: 4, Graph: g, Formulation: f, Control: Control{MaxIter: 40, Tol: -1}})
				if err != nil {
					t.Fatal(err)
				}
				if mat.Equal(a.V, c.V) {
					t.Fatalf("%s (%s, %v): the default lambda ran the plain method", pair[1], name, f)
				}
			}
		}
	}
}

// TestLinearKernelImplicitEqualsExplicit: LCCF with K = X^T X never formed
// equals LCCF with K formed.
func TestLinearKernelImplicitEqualsExplicit(t *testing.T) {
	all, _ := datas(t, 51, 30, 40, 0.25)
	g := randomGraph(52, 30, 3)
	for name, d := range all {
		o := Options{Method: LCCF, K: 4, Seed: 2, Lambda: Fixed(1.5), Graph: g, Control: Control{MaxIter: 30, Tol: -1}}
		a, err := Fit(context.Background(), d, o)
		if err != nil {
			t.Fatal(err)
		}
		o.explicitKernel = true
		b, err := Fit(context.Background(), d, o)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a.Objective {
			if !relClose(a.Objective[i], b.Objective[i], 1e-9) {
				t.Fatalf("%s: iteration %d: implicit %v, explicit %v", name, i, a.Objective[i], b.Objective[i])
			}
		}
		if !mat.EqualApprox(a.V, b.V, 1e-7) || !mat.EqualApprox(a.W, b.W, 1e-7) {
			t.Fatalf("%s: implicit and explicit factors differ", name)
		}
	}
}

func TestAllMethodsSparseDenseAgreeAndThreadInvariant(t *testing.T) {
	all, _ := datas(t, 61, 1300, 60, 0.08)
	g := randomGraph(62, 1300, 4)
	for _, m := range []Method{GNMF, LCCF, GNMFNCW, LCCFNCW, NMFKL, LPNMF} {
		var ref *Result
		for _, name := range []string{"sparse", "dense"} {
			for _, threads := range []int{1, 3} {
				res, err := Fit(context.Background(), all[name], Options{Method: m, K: 5, Seed: 3, Lambda: Fixed(2), Graph: g, Threads: threads, Control: Control{Algorithm: paperAlgo(m), MaxIter: 12, Tol: -1}})
				if err != nil {
					t.Fatal(err)
				}
				if ref == nil {
					ref = res
					continue
				}
				if !mat.EqualApprox(ref.V, res.V, 1e-8) || !relClose(ref.Final(), res.Final(), 1e-10) {
					t.Fatalf("%s %s threads %d differs from sparse, 1 thread", m, name, threads)
				}
			}
		}
		// Bit-for-bit across thread counts on one form.
		a, _ := Fit(context.Background(), all["sparse"], Options{Method: m, K: 5, Seed: 3, Lambda: Fixed(2), Graph: g, Threads: 1, Control: Control{Algorithm: paperAlgo(m), MaxIter: 12, Tol: -1}})
		b, _ := Fit(context.Background(), all["sparse"], Options{Method: m, K: 5, Seed: 3, Lambda: Fixed(2), Graph: g, Threads: 8, Control: Control{Algorithm: paperAlgo(m), MaxIter: 12, Tol: -1}})
		if !mat.Equal(a.V, b.V) || a.Final() != b.Final() {
			t.Fatalf("%s: threads 1 and 8 differ", m)
		}
	}
}

// TestNCWIsPlainMethodOnWeightedData: nmf-ncw equals nmf on X D^(-1/2)
// (paper 004 appendix B) with V mapped back by D^(1/2).
func TestNCWIsPlainMethodOnWeightedData(t *testing.T) {
	sp, _ := randomSamples(71, 35, 30, 0.3)
	d, _ := NewSparseData(sp)
	// d_j = x_j . (X e), computed directly.
	n, m := sp.Dims()
	colSum := make([]float64, m)
	for i := 0; i < n; i++ {
		for p := sp.Indptr[i]; p < sp.Indptr[i+1]; p++ {
			colSum[sp.Ind[p]] += sp.Val[p]
		}
	}
	scale := make([]float64, n)
	for i := 0; i < n; i++ {
		var dj float64
		for p := sp.Indptr[i]; p < sp.Indptr[i+1]; p++ {
			dj += sp.Val[p] * colSum[sp.Ind[p]]
		}
		scale[i] = 1 / math.Sqrt(dj)
	}
	weighted := sp.Clone()
	weighted.ScaleRows(scale)
	dw, _ := NewSparseData(weighted)
	for _, pair := range [][2]Method{{NMFNCW, NMF}, {CFNCW, CF}} {
		a, err := Fit(context.Background(), d, Options{Method: pair[0], K: 3, Seed: 8, Control: Control{MaxIter: 30, Tol: -1}})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Fit(context.Background(), dw, Options{Method: pair[1], K: 3, Seed: 8, Control: Control{MaxIter: 30, Tol: -1}})
		if err != nil {
			t.Fatal(err)
		}
		if !relClose(a.Final(), b.Final(), 1e-9) {
			t.Fatalf("%s: objective %v, %s on weighted data %v", pair[0], a.Final(), pair[1], b.Final())
		}
		for i := 0; i < n; i++ {
			for j := 0; j < 3; j++ {
				if want := b.V.At(i, j) / scale[i]; !relClose(a.V.At(i, j), want, 1e-7) && math.Abs(a.V.At(i, j)-want) > 1e-12 {
					t.Fatalf("%s: V(%d,%d) = %v, want %v", pair[0], i, j, a.V.At(i, j), want)
				}
			}
			if a.Labels[i] != b.Labels[i] {
				t.Fatalf("%s: labels differ at %d", pair[0], i)
			}
		}
	}
}

// TestGeneralUpdatesOnSignedData: data with negative entries makes the
// linear kernel negative somewhere; CF and LCCF switch to eqs. 25 and 28
// and still never increase the objective.
func TestGeneralUpdatesOnSignedData(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 1))
	x := mat.NewDense(30, 12, nil)
	for i := 0; i < 30; i++ {
		for j := 0; j < 12; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	d, err := NewDenseData(x)
	if err != nil {
		t.Fatal(err)
	}
	g := randomGraph(82, 30, 3)
	for _, o := range []Options{{Method: CF}, {Method: LCCF, Lambda: Fixed(1), Graph: g}} {
		o.K, o.MaxIter, o.Tol, o.Seed = 3, 200, -1, 1
		res, err := Fit(context.Background(), d, o)
		if err != nil {
			t.Fatal(err)
		}
		if !res.General {
			t.Fatalf("%s: general updates not used on signed data", o.Method)
		}
		checkMonotone(t, o.Method.String()+" signed", res.Objective)
		// Without a graph term the normalization keeps the objective, so
		// it must match a direct evaluation of the returned factors.
		if o.Lambda.Value() == 0 {
			xs := rows(x, true)
			a := mul(xs, rows(res.W, false))
			if got := objectiveRef(xs, a, rows(res.V, false), 0, nil, nil); !relClose(got, res.Final(), 1e-8) {
				t.Fatalf("%s: objective %v, direct %v", o.Method, res.Final(), got)
			}
		}
	}
	if _, err := Fit(context.Background(), d, Options{Method: NMF, K: 2}); err == nil {
		t.Fatal("nmf accepted signed data")
	}
}

func TestMeanFitAndShortRestarts(t *testing.T) {
	all, _ := datas(t, 91, 50, 40, 0.2)
	d := all["sparse"]
	res, err := Fit(context.Background(), d, Options{K: 3, Seed: 1, Control: Control{StopRule: MeanFit, Tol: 1e-4, MaxIter: 5000, Restarts: 3, RestartIters: 10, MinIter: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Converged || res.Iterations <= 10 || res.Iterations >= 5000 {
		t.Fatalf("status %v after %d iterations", res.Status, res.Iterations)
	}
	checkMonotone(t, "meanfit", res.Objective)
}

func TestMethodBadInput(t *testing.T) {
	all, _ := datas(t, 95, 20, 15, 0.3)
	d := all["sparse"]
	ctx := context.Background()
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Method: GNMF, K: 2, Lambda: Fixed(1)}, "needs a sample graph"},
		{Options{Method: GNMF, K: 2, Lambda: Fixed(-1), Graph: randomGraph(1, 20, 2)}, "lambda = -1"},
		{Options{Method: LCCF, K: 2, Lambda: Fixed(math.NaN()), Graph: randomGraph(1, 20, 2)}, "lambda"},
		{Options{Method: GNMF, K: 2, Lambda: Fixed(1), Graph: randomGraph(1, 21, 2)}, "for 20 samples"},
		{Options{Method: NMF, K: 2, Control: Control{Kernel: Kernel{Kind: Polynomial}}}, "takes no kernel"},
		{Options{Method: CF, K: 2, Control: Control{Kernel: Kernel{Kind: Polynomial}, KernelMemory: 100}}, "over the limit"},
		{Options{Method: CF, K: 2, Control: Control{Kernel: Kernel{Kind: Gaussian, Sigma: -1}}}, "kernel parameters"},
		{Options{Method: Method(77), K: 2}, "unknown method"},
	} {
		if _, err := Fit(ctx, d, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.o.Method, err, c.want)
		}
	}
	if _, err := parseKernel("sigmoid"); err == nil {
		t.Error("parseKernel accepted sigmoid")
	}
}

// TestNormalizeStart: the rescaled start keeps U V^T (so with lambda = 0
// its objective is the raw start's), gives U (X W) unit columns, and the
// updates from it never increase the objective; KL methods refuse it.
func TestNormalizeStart(t *testing.T) {
	all, _ := datas(t, 51, 40, 35, 0.25)
	g := randomGraph(52, 40, 4)
	for _, m := range []Method{NMF, GNMF, CF, LCCF, NMFNCW, GNMFNCW, CFNCW, LCCFNCW} {
		for name, d := range all {
			raw, err := Fit(context.Background(), d, Options{Method: m, K: 4, Seed: 5, Lambda: Fixed(0), Control: Control{Algorithm: paperAlgo(m), MaxIter: 1, Tol: -1}})
			if err != nil {
				t.Fatal(err)
			}
			norm, err := Fit(context.Background(), d, Options{Method: m, K: 4, Seed: 5, Start: NormalizedStart, Lambda: Fixed(0), Control: Control{Algorithm: paperAlgo(m), MaxIter: 1, Tol: -1}})
			if err != nil {
				t.Fatal(err)
			}
			if r, n := raw.Objective[0], norm.Objective[0]; math.Abs(r-n) > 1e-9*r {
				t.Errorf("%s %s: start objective %v, raw start %v: the rescaling changed U V^T", m, name, n, r)
			}
			// Without a graph the updates are scale-equivariant, so U V^T
			// follows the same path from either start.
			if r, n := raw.Objective[1], norm.Objective[1]; math.Abs(r-n) > 1e-9*r {
				t.Errorf("%s %s: after one update %v, raw start %v", m, name, n, r)
			}
			// With a graph the start's scale weighs the papers' graph
			// term, and not the scale-invariant one.
			if m.TakesGraph() {
				for _, f := range []Formulation{Papers, ScaleInvariant} {
					o := Options{Method: m, K: 4, Seed: 5, Lambda: Fixed(3), Graph: g, Formulation: f, Control: Control{Algorithm: paperAlgo(m), MaxIter: 1, Tol: -1}}
					a, _ := Fit(context.Background(), d, o)
					o.Start = NormalizedStart
					b, _ := Fit(context.Background(), d, o)
					differ := math.Abs(a.Objective[1]-b.Objective[1]) >= 1e-6*a.Objective[1]
					if differ != (f == Papers) {
						t.Errorf("%s %s %v: objective %v from the raw start, %v from the rescaled one", m, name, f, a.Objective[1], b.Objective[1])
					}
				}
			}
			res, err := Fit(context.Background(), d, Options{Method: m, K: 4, Seed: 5, Start: NormalizedStart, Lambda: Fixed(3), Graph: g, Formulation: Papers, Control: Control{Algorithm: paperAlgo(m), MaxIter: 150, Tol: -1}})
			if err != nil {
				t.Fatal(err)
			}
			checkMonotone(t, m.String()+"/"+name+"/normalized start", res.Objective)
		}
	}
	d := all["sparse"]
	for _, m := range []Method{NMFKL, LPNMF} {
		if _, err := Fit(context.Background(), d, Options{Method: m, K: 3, Start: NormalizedStart, Lambda: Fixed(1), Graph: g, Formulation: Papers}); err == nil || !strings.Contains(err.Error(), "normalized start") {
			t.Errorf("%s with the normalized start: %v", m, err)
		}
	}
}
