package solver

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/sparse"
)

// randomHidden returns an n x m pattern of about share of all positions,
// zeros included, leaving every row and column at least one entry.
func randomHidden(seed uint64, n, m int, share float64) *sparse.CSR {
	rng := rand.New(rand.NewPCG(seed, 31))
	var ri, ci []int
	var v []float64
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			// The diagonal band stays observed, so no row or column is
			// hidden whole.
			if j%n != i%m && rng.Float64() < share {
				ri, ci, v = append(ri, i), append(ci, j), append(v, 1)
			}
		}
	}
	h, err := sparse.FromTriplets(n, m, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return h
}

// maskedCase is a method and solver that fit data with hidden entries.
type maskedCase struct {
	method Method
	alg    Algorithm
	form   Formulation
}

func maskedCases() []maskedCase {
	var out []maskedCase
	for _, m := range []Method{NMF, GNMF, NMFKL, NMFNCW, GNMFNCW, NMFKLNCW} {
		for _, a := range []Algorithm{MU, CD} {
			out = append(out, maskedCase{m, a, ScaleInvariant})
			if m.TakesGraph() {
				out = append(out, maskedCase{m, a, Papers})
			}
		}
	}
	return out
}

func (c maskedCase) options(k int, seed uint64, n int) Options {
	o := Options{Method: c.method, K: k, Seed: seed, Formulation: c.form, Control: Control{Algorithm: c.alg, MaxIter: 30, Tol: -1, PGTol: -1}}
	if c.method.TakesGraph() {
		o.Graph, o.Lambda = randomGraph(seed+5, n, 4), Fixed(3)
	}
	return o
}

// maskedLoss computes the masked objective's data part from the returned
// factors with plain loops: sum over the observed entries of (x - y)^2,
// or of the KL divergence, each sample weighted by gamma (nil: 1).
func maskedLoss(x *mat.Dense, hidden *sparse.CSR, u, v *mat.Dense, kl bool, gamma []float64) float64 {
	n, m := x.Dims()
	_, k := u.Dims()
	var s float64
	for j := 0; j < n; j++ {
		hid := hidden.Ind[hidden.Indptr[j]:hidden.Indptr[j+1]]
		w := 1.0
		if gamma != nil {
			w = gamma[j]
		}
		for i := 0; i < m; i++ {
			if slices.Contains(hid, i) {
				continue
			}
			var y float64
			for c := 0; c < k; c++ {
				y += u.At(i, c) * v.At(j, c)
			}
			xi := x.At(j, i)
			switch {
			case !kl:
				s += w * (xi - y) * (xi - y)
			case xi > 0:
				s += w * (xi*math.Log(xi/max(y, Eps)) - xi + y)
			default:
				s += w * y
			}
		}
	}
	return s
}

// TestMaskedObjectiveNeverIncreases: for every method that can leave
// entries out, under mu and cd, on sparse and dense data, the masked
// objective does not increase from one iteration to the next, and for the
// plain methods the last one is the masked loss of the returned factors.
func TestMaskedObjectiveNeverIncreases(t *testing.T) {
	t.Parallel()
	const n, m, k = 40, 30, 4
	a, dense := randomSamples(71, n, m, 0.35)
	hidden := randomHidden(72, n, m, 0.2)
	for _, sp := range []bool{true, false} {
		var d *Data
		var err error
		if sp {
			d, err = NewSparseData(a)
		} else {
			d, err = NewDenseData(dense)
		}
		if err != nil {
			t.Fatal(err)
		}
		if d, err = d.Hide(hidden); err != nil {
			t.Fatal(err)
		}
		for _, c := range maskedCases() {
			res, err := Fit(context.Background(), d, c.options(k, 3, n))
			if err != nil {
				t.Fatalf("%v %v: %v", c, sp, err)
			}
			for i := 1; i < len(res.Objective); i++ {
				if prev, cur := res.Objective[i-1], res.Objective[i]; cur > prev*(1+1e-12)+1e-12 {
					t.Errorf("%s %v %v sparse=%v: objective rose at iteration %d: %.17g -> %.17g", c.method, c.alg, c.form, sp, i, prev, cur)
					break
				}
			}
			if c.method.TakesGraph() || c.method.NCW() {
				continue
			}
			got := res.Final()
			want := maskedLoss(dense, hidden, res.U, res.V, c.method.KL(), nil)
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("%s %v sparse=%v: final objective %.12g, masked loss of the factors %.12g", c.method, c.alg, sp, got, want)
			}
		}
	}
}

// TestMaskedHiddenValuesIgnored: what the data hold at the hidden entries
// changes nothing, bit for bit; an empty hidden set is no hidden set.
func TestMaskedHiddenValuesIgnored(t *testing.T) {
	t.Parallel()
	const n, m, k = 30, 25, 3
	_, dense := randomSamples(81, n, m, 0.5)
	hidden := randomHidden(82, n, m, 0.15)
	other, zeroed := mat.DenseCopyOf(dense), mat.DenseCopyOf(dense)
	for j := 0; j < n; j++ {
		for q := hidden.Indptr[j]; q < hidden.Indptr[j+1]; q++ {
			other.Set(j, hidden.Ind[q], 7+float64(q))
			zeroed.Set(j, hidden.Ind[q], 0) // Hide then shares the data's arrays
		}
	}
	for _, c := range maskedCases() {
		var got [6]*Result
		for i, x := range []*mat.Dense{dense, other, zeroed, dense, other, zeroed} {
			var d *Data
			var err error
			if i < 3 {
				d, err = NewSparseData(sparse.FromMatrix(x))
			} else {
				d, err = NewDenseData(x)
			}
			if err != nil {
				t.Fatal(err)
			}
			if d, err = d.Hide(hidden); err != nil {
				t.Fatal(err)
			}
			if got[i], err = Fit(context.Background(), d, c.options(k, 4, n)); err != nil {
				t.Fatal(err)
			}
		}
		for i := 1; i < 6; i++ {
			if b := i / 3 * 3; !mat.Equal(got[b].U, got[i].U) || !mat.Equal(got[b].V, got[i].V) {
				t.Errorf("%s %v %v: the hidden entries' values changed the fit (%d)", c.method, c.alg, c.form, i)
			}
		}
	}
	d, err := NewDenseData(dense)
	if err != nil {
		t.Fatal(err)
	}
	for _, empty := range []*sparse.CSR{nil, {Rows: n, Cols: m, Indptr: make([]int, n+1)}} {
		if e, err := d.Hide(empty); err != nil || e != d {
			t.Errorf("an empty hidden set: %v, same data %v", err, e == d)
		}
	}
}

// TestMaskedMatchesReference: masked mu NMF is the weighted
// multiplicative updates written out with a 0/1 weight matrix, V first.
func TestMaskedMatchesReference(t *testing.T) {
	t.Parallel()
	const n, m, k, iters = 20, 15, 3, 12
	_, dense := randomSamples(91, n, m, 0.6)
	hidden := randomHidden(92, n, m, 0.25)
	init := randomFactors(93, m, n, k)
	w := mat.NewDense(m, n, nil) // 1 where observed, features as rows
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			w.Set(i, j, 1)
		}
	}
	for j := 0; j < n; j++ {
		for q := hidden.Indptr[j]; q < hidden.Indptr[j+1]; q++ {
			w.Set(hidden.Ind[q], j, 0)
		}
	}
	x := mat.DenseCopyOf(dense.T())
	u, v := mat.DenseCopyOf(init.U), mat.DenseCopyOf(init.V)
	var want []float64
	var wx mat.Dense
	wx.MulElem(w, x)
	for it := 0; it < iters; it++ {
		var y, wy, num, den mat.Dense
		y.Mul(u, v.T())
		wy.MulElem(w, &y)
		num.Mul(wx.T(), u)
		den.Mul(wy.T(), u)
		v.Apply(func(i, j int, val float64) float64 { return val * num.At(i, j) / max(den.At(i, j), Eps) }, v)
		var y2, wy2, num2, den2 mat.Dense
		y2.Mul(u, v.T())
		wy2.MulElem(w, &y2)
		num2.Mul(&wx, v)
		den2.Mul(&wy2, v)
		u.Apply(func(i, j int, val float64) float64 { return val * num2.At(i, j) / max(den2.At(i, j), Eps) }, u)
		want = append(want, maskedLoss(dense, hidden, u, v, false, nil))
	}
	d, err := NewDenseData(dense)
	if err != nil {
		t.Fatal(err)
	}
	if d, err = d.Hide(hidden); err != nil {
		t.Fatal(err)
	}
	res, err := Fit(context.Background(), d, Options{K: k, Init: init, Control: Control{Algorithm: MU, MaxIter: iters, Tol: -1, PGTol: -1}})
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range res.Objective[1:] {
		if math.Abs(o-want[i]) > 1e-10*want[i] {
			t.Errorf("iteration %d: objective %.14g, reference %.14g", i+1, o, want[i])
		}
	}
}

// TestMaskedThreads: the same seed gives the same bits on 1 and 3
// goroutines.
func TestMaskedThreads(t *testing.T) {
	t.Parallel()
	const n, m, k = 50, 40, 4
	a, _ := randomSamples(101, n, m, 0.3)
	d, err := NewSparseData(a)
	if err != nil {
		t.Fatal(err)
	}
	if d, err = d.Hide(randomHidden(102, n, m, 0.1)); err != nil {
		t.Fatal(err)
	}
	for _, c := range maskedCases() {
		var got [2]*Result
		for i, th := range []int{1, 3} {
			o := c.options(k, 6, n)
			o.Threads = th
			if got[i], err = Fit(context.Background(), d, o); err != nil {
				t.Fatal(err)
			}
		}
		if !mat.Equal(got[0].U, got[1].U) || !mat.Equal(got[0].V, got[1].V) || !slices.Equal(got[0].Objective, got[1].Objective) {
			t.Errorf("%s %v %v: threads changed the result", c.method, c.alg, c.form)
		}
	}
}

// TestHideErrors: a hidden set of the wrong shape, one that hides a whole
// sample (or, for a fit, a whole feature), hiding twice and a method that cannot leave entries
// out are errors that say so.
func TestHideErrors(t *testing.T) {
	t.Parallel()
	a, _ := randomSamples(111, 6, 5, 0.8)
	d, err := NewSparseData(a)
	if err != nil {
		t.Fatal(err)
	}
	pattern := func(n, m int, pos ...[2]int) *sparse.CSR {
		var ri, ci []int
		var v []float64
		for _, p := range pos {
			ri, ci, v = append(ri, p[0]), append(ci, p[1]), append(v, 1)
		}
		h, err := sparse.FromTriplets(n, m, ri, ci, v)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	row := [][2]int{{2, 0}, {2, 1}, {2, 2}, {2, 3}, {2, 4}}
	col := [][2]int{{0, 3}, {1, 3}, {2, 3}, {3, 3}, {4, 3}, {5, 3}}
	for _, c := range []struct {
		h    *sparse.CSR
		want string
	}{
		{pattern(5, 5, [2]int{0, 0}), "5 x 5 hidden entries for data of 6 samples x 5 features"},
		{pattern(6, 5, row...), "every feature of sample 3 (1-based) is hidden"},
	} {
		if _, err := d.Hide(c.h); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	// A feature hidden in every sample can be placed (Transform) but
	// not fitted.
	whole, err := d.Hide(pattern(6, 5, col...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Fit(context.Background(), whole, Options{K: 2}); err == nil || !strings.Contains(err.Error(), "every sample of feature 4 (1-based) is hidden") {
		t.Errorf("a feature hidden whole: %v", err)
	}
	h, err := d.Hide(pattern(6, 5, [2]int{1, 1}))
	if err != nil || h.HiddenCount() != 1 {
		t.Fatalf("one hidden entry: %v", err)
	}
	if _, err := h.Hide(pattern(6, 5, [2]int{2, 2})); err == nil {
		t.Error("hiding twice accepted")
	}
	for _, m := range []Method{CF, LCCF, LPNMF} {
		o := Options{Method: m, K: 2}
		if m == LPNMF {
			o.Graph = randomGraph(1, 6, 2)
		}
		if _, err := Fit(context.Background(), h, o); err == nil || !strings.Contains(err.Error(), "cannot leave entries out") {
			t.Errorf("%s on hidden entries: %v", m, err)
		}
	}
}

// transformRef is Transform's multiplicative updates for nmf (Frobenius)
// or nmf-kl on each new sample, written plainly over its known features
// only (x's hidden ones listed by hidden), from Transform's start.
func transformRef(u, x *mat.Dense, hidden *sparse.CSR, seed uint64, iters int, kl bool) *mat.Dense {
	m, k := u.Dims()
	n, _ := x.Dims()
	rng := rand.New(rand.NewPCG(seed, 0x7472616e))
	v := mat.NewDense(n, k, nil)
	for j := 0; j < n; j++ {
		for c := 0; c < k; c++ {
			v.Set(j, c, rng.Float64())
		}
	}
	for j := 0; j < n; j++ {
		known := make([]bool, m)
		for i := range known {
			known[i] = true
		}
		for _, i := range hidden.Ind[hidden.Indptr[j]:hidden.Indptr[j+1]] {
			known[i] = false
		}
		vj := v.RawRowView(j)
		for t := 0; t < iters; t++ {
			num, den := make([]float64, k), make([]float64, k)
			for i := 0; i < m; i++ {
				if !known[i] {
					continue
				}
				var y float64
				for c := 0; c < k; c++ {
					y += u.At(i, c) * vj[c]
				}
				for c := 0; c < k; c++ {
					if kl {
						num[c] += u.At(i, c) * x.At(j, i) / max(y, Eps)
						den[c] += u.At(i, c)
					} else {
						num[c] += u.At(i, c) * x.At(j, i)
						den[c] += u.At(i, c) * y
					}
				}
			}
			for c := range vj {
				if kl {
					vj[c] = vj[c] * num[c] / max(den[c], Eps)
				} else {
					vj[c] *= num[c] / max(den[c], Eps)
				}
			}
		}
	}
	return v
}

// TestTransformHidden: placing new samples with unknown entries, sparse
// or dense, for nmf and nmf-kl, matches the plain updates over each
// sample's known features; the values at the unknown entries change
// nothing, and a feature unknown in every new sample is allowed.
func TestTransformHidden(t *testing.T) {
	t.Parallel()
	train, _ := randomSamples(120, 40, 12, 0.6)
	a, dense := randomSamples(121, 9, 12, 0.7)
	rng := rand.New(rand.NewPCG(122, 1))
	var ri, ci []int
	var ones []float64
	for j := 0; j < 9; j++ {
		for i := 0; i < 12; i++ {
			if i == 5 || (rng.Float64() < 0.25 && j != 4) {
				ri, ci, ones = append(ri, j), append(ci, i), append(ones, 1)
			}
		}
	}
	hidden, err := sparse.FromTriplets(9, 12, ri, ci, ones)
	if err != nil {
		t.Fatal(err)
	}
	dt, _ := NewSparseData(train)
	for _, m := range []Method{NMF, NMFKL} {
		res, err := Fit(context.Background(), dt, Options{Method: m, K: 3, Seed: 1, Control: Control{MaxIter: 100}})
		if err != nil {
			t.Fatal(err)
		}
		want := transformRef(res.U, dense, hidden, 9, 60, m.KL())
		for _, sparseForm := range []bool{true, false} {
			var d *Data
			if sparseForm {
				d, err = NewSparseData(a)
			} else {
				d, err = NewDenseData(dense)
			}
			if err != nil {
				t.Fatal(err)
			}
			h, err := d.Hide(hidden)
			if err != nil {
				t.Fatal(err)
			}
			got, err := res.Transform(context.Background(), nil, h, TransformOptions{MaxIter: 60, Seed: 9})
			if err != nil {
				t.Fatal(m, err)
			}
			if !mat.EqualApprox(got, want, 1e-9) {
				t.Errorf("%s, sparse %v: transform %v, reference %v", m, sparseForm, mat.Formatted(got), mat.Formatted(want))
			}
		}
	}
}

// TestMaskedProjGrad: masked nmf and gnmf measure the projected gradient
// of the masked objective: it falls until PGTol stops the fit
// (Stationary), the same for any thread count, and where it stops, V's
// gradient over the observed entries, computed plainly, is within 10
// times PGTol of its data part.
func TestMaskedProjGrad(t *testing.T) {
	t.Parallel()
	const n, m, k = 200, 60, 3
	a, x := randomSamples(131, n, m, 0.4)
	d, err := NewSparseData(a)
	if err != nil {
		t.Fatal(err)
	}
	hidden := randomHidden(132, n, m, 0.15)
	if d, err = d.Hide(hidden); err != nil {
		t.Fatal(err)
	}
	for _, c := range maskedCases() {
		if c.method.KL() || c.method.NCW() {
			continue
		}
		var got [2]*Result
		for i, th := range []int{1, 3} {
			o := c.options(k, 7, n)
			o.Threads, o.MaxIter, o.PGTol = th, 5000, pgTol(c.alg)
			if got[i], err = Fit(context.Background(), d, o); err != nil {
				t.Fatal(err)
			}
		}
		r := got[0]
		name := c.method.String() + " " + c.alg.String() + " " + c.form.String()
		if !slices.Equal(r.ProjGrad, got[1].ProjGrad) || !mat.Equal(r.V, got[1].V) {
			t.Errorf("%s: threads changed the measure", name)
		}
		if r.Status != Stationary || len(r.ProjGrad) != r.Iterations || r.ProjGrad[0] < 10*r.ProjGrad[len(r.ProjGrad)-1] {
			t.Errorf("%s: status %v after %d iterations, measure %v to %v", name, r.Status, r.Iterations, r.ProjGrad[0], r.ProjGrad[len(r.ProjGrad)-1])
			continue
		}
		if c.method.TakesGraph() {
			continue // the plain check below has no graph term
		}
		var pg, ref float64
		for j := 0; j < n; j++ {
			hid := hidden.Ind[hidden.Indptr[j]:hidden.Indptr[j+1]]
			for cc := 0; cc < k; cc++ {
				var grad, data float64
				for i := 0; i < m; i++ {
					if slices.Contains(hid, i) {
						continue
					}
					var y float64
					for q := 0; q < k; q++ {
						y += r.U.At(i, q) * r.V.At(j, q)
					}
					grad += (y - x.At(j, i)) * r.U.At(i, cc)
					data += x.At(j, i) * r.U.At(i, cc)
				}
				g := projected(r.V.At(j, cc), grad)
				pg, ref = pg+g*g, ref+data*data
			}
		}
		if rel := math.Sqrt(pg / ref); rel > 10*pgTol(c.alg) {
			t.Errorf("%s: V's projected gradient over the observed entries %.3g of its data part where the fit stopped", name, rel)
		}
	}
}

// pgTol is what TestMaskedProjGrad asks of each algorithm: mu closes in
// on a stationary point far more slowly than cd, masked or not.
func pgTol(a Algorithm) float64 {
	if a == MU {
		return 0.05
	}
	return 1e-4
}
