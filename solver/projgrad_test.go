package solver

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// internalXT returns the problem's X^T (samples x features, in the
// problem's own feature order) as a dense matrix.
func internalXT(p *problem) dmat {
	d := p.d
	xt := zeros(d.n, d.m)
	if d.xt != nil {
		for j := 0; j < d.n; j++ {
			for q := d.xt.Indptr[j]; q < d.xt.Indptr[j+1]; q++ {
				xt[j][d.xt.Ind[q]] = d.xt.Val[q]
			}
		}
		return xt
	}
	for j := 0; j < d.n; j++ {
		copy(xt[j], d.dense.Data[j*d.dense.Stride:j*d.dense.Stride+d.m])
	}
	return xt
}

func rowsOf(data []float64, r, k int) dmat {
	out := zeros(r, k)
	for i := range out {
		copy(out[i], data[i*k:(i+1)*k])
	}
	return out
}

// halfKKT is the plain reference of one half's measure, column by
// column: gradient f s - num (Frobenius, s = the other factor's Gram
// matrix) or colsum - num (KL, s nil), projected where f is zero. With
// sweep (Frobenius only) each row's gradient is taken as one cyclic
// coordinate-descent sweep over the row meets it, coordinate c after
// coordinates 0..c-1 have stepped to their minimizers (cd's measure);
// otherwise all at the starting f (mu's).
func halfKKT(f, num dmat, s dmat, colsum []float64, sweep bool) (pg, ref []float64) {
	k := len(f[0])
	pg, ref = make([]float64, k), make([]float64, k)
	for i := range f {
		fi := append([]float64(nil), f[i]...)
		var fs []float64
		if s != nil {
			fs = mul(dmat{fi}, s)[0]
		}
		for c := range fi {
			if sweep {
				fs = mul(dmat{fi}, s)[0]
			}
			g := -num[i][c]
			if s != nil {
				g += fs[c]
			} else {
				g += colsum[c]
			}
			if sweep && s[c][c] > 0 {
				fi[c] = max(0, fi[c]-g/s[c][c])
			}
			if f[i][c] <= 0 {
				g = min(g, 0)
			}
			pg[c] += g * g
			ref[c] += num[i][c] * num[i][c]
		}
	}
	return pg, ref
}

// referenceKKT computes Result.ProjGrad's value for the V half at (u, v)
// and the U half at (u, v1), balanced by the lengths of the columns of
// (u1, v1), straight from its definition; sweep as halfKKT's.
func referenceKKT(xt, u, v, v1, u1 dmat, kl, sweep bool) float64 {
	var numV, numU dmat
	var sV, sU dmat
	var colU, colV1 []float64
	k := len(u[0])
	if kl {
		ratios := func(a, b dmat) dmat { // x / max(a_i . b_j, Eps) at X^T's entries
			r := zeros(len(xt), len(xt[0]))
			for j := range xt {
				for i, x := range xt[j] {
					if x != 0 {
						r[j][i] = x / max(mul(dmat{b[j]}, tr(dmat{a[i]}))[0][0], Eps)
					}
				}
			}
			return r
		}
		numV = mul(ratios(u, v), u)
		numU = mul(tr(ratios(u, v1)), v1)
		colU, colV1 = make([]float64, k), make([]float64, k)
		for _, r := range u {
			for c, x := range r {
				colU[c] += x
			}
		}
		for _, r := range v1 {
			for c, x := range r {
				colV1[c] += x
			}
		}
	} else {
		numV, sV = mul(xt, u), mul(tr(u), u)
		numU, sU = mul(tr(xt), v1), mul(tr(v1), v1)
	}
	pgV, refV := halfKKT(v, numV, sV, colU, sweep)
	pgU, refU := halfKKT(u, numU, sU, colV1, sweep)
	gu, gv := mul(tr(u1), u1), mul(tr(v1), v1)
	var a, b, c2, d float64
	for c := 0; c < k; c++ {
		// D_cc^2 = |v_c| / |u_c| balances the columns.
		d2 := math.Sqrt(gv[c][c] / gu[c][c])
		a += pgU[c] / d2
		b += refU[c] / d2
		c2 += pgV[c] * d2
		d += refV[c] * d2
	}
	return math.Sqrt((a/b + c2/d) / 2)
}

// TestProjGradMatchesReference: the relative KKT residual the iterators
// measure inside their passes equals the one computed from the full
// gradients (for cd, those its first sweep meets), in the second
// iteration (where cd has set entries to zero, so the projection
// matters), for the Frobenius solvers and KL mu.
func TestProjGradMatchesReference(t *testing.T) {
	all, _ := datas(t, 91, 40, 30, 0.3)
	for _, c := range []struct {
		m Method
		a Algorithm
	}{{NMF, MU}, {NMF, CD}, {NMFKL, MU}} {
		for name, d := range all {
			// Plain cd: the reference rebuilds the steps of one plain
			// iteration from the factors before it.
			o := Options{Method: c.m, K: 4, Seed: 5, Control: Control{Algorithm: c.a, PlainCD: true}}.withDefaults()
			p, err := prepare(context.Background(), d, o, o.Method)
			if err != nil {
				t.Fatal(err)
			}
			f := p.newFactors()
			p.random(f, 5, 0)
			it := p.iterator(f)
			it.begin()
			if _, err := it.step(true); err != nil {
				t.Fatal(err)
			}
			k := f.k
			u := rowsOf(f.a.Data, f.a.Rows, k)
			v := rowsOf(f.v.Data, f.v.Rows, k)
			if _, err := it.step(true); err != nil {
				t.Fatal(err)
			}
			v1 := rowsOf(f.v.Data, f.v.Rows, k)
			u1 := rowsOf(f.a.Data, f.a.Rows, k)
			want := referenceKKT(internalXT(p), u, v, v1, u1, c.m.KL(), c.a == CD)
			got, ok := (&run{it: it}).projGrad()
			if !ok || math.Abs(got-want) > 1e-10*want {
				t.Errorf("%s/%s/%s: projected gradient %v (measured %v), reference %v", c.m, c.a, name, got, ok, want)
			}
		}
	}
}

// TestProjGradScaleFree: the residual does not change when the data are
// scaled or the factors rescaled (U D, V D^-1), for every solver that
// measures it; under the same seed and threads the trace is the same.
func TestProjGradScaleFree(t *testing.T) {
	const n, m, k = 50, 35, 4
	all, _ := datas(t, 93, n, m, 0.3)
	rng := rand.New(rand.NewPCG(93, 1))
	u0, v0 := mat.NewDense(m, k, nil), mat.NewDense(n, k, nil)
	for _, a := range []*mat.Dense{u0, v0} {
		r, c := a.Dims()
		for i := range r {
			for j := range c {
				a.Set(i, j, rng.Float64())
			}
		}
	}
	scales := []float64{0.01, 3, 40, 0.5}
	for _, c := range []struct {
		m Method
		a Algorithm
	}{{NMF, MU}, {NMF, CD}, {NMFKL, MU}, {NMFKL, CD}, {NMFNCW, CD}} {
		d := all["sparse"]
		base := Options{Method: c.m, K: k, Init: &Result{U: u0, W: u0, V: v0}, Control: Control{Algorithm: c.a, MaxIter: 30, Tol: -1, PGTol: -1}}
		ref, err := Fit(context.Background(), d, base)
		if err != nil {
			t.Fatal(err)
		}
		// The data times 1000 and U D, V D^-1 with the model scaled to match.
		const a = 1000.0
		var xs mat.Dense
		xs.Scale(a, dataDense(t, d))
		ds, err := NewDenseData(&xs)
		if err != nil {
			t.Fatal(err)
		}
		u1, v1 := mat.DenseCopyOf(u0), mat.DenseCopyOf(v0)
		for j, s := range scales {
			for i := range m {
				u1.Set(i, j, u1.At(i, j)*s*a)
			}
			for i := range n {
				v1.Set(i, j, v1.At(i, j)/s)
			}
		}
		o := base
		o.Init = &Result{U: u1, W: u1, V: v1}
		res, err := Fit(context.Background(), ds, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(ref.ProjGrad) != 30 || len(res.ProjGrad) != 30 {
			t.Fatalf("%s/%s: %d and %d residuals, want 30", c.m, c.a, len(ref.ProjGrad), len(res.ProjGrad))
		}
		for i := range ref.ProjGrad {
			if !relClose(ref.ProjGrad[i], res.ProjGrad[i], 1e-6) {
				t.Fatalf("%s/%s: iteration %d: residual %v on scaled data, %v on the data", c.m, c.a, i+1, res.ProjGrad[i], ref.ProjGrad[i])
			}
		}
	}
}

// dataDense returns d's samples x features matrix in the caller's order.
func dataDense(t *testing.T, d *Data) *mat.Dense {
	t.Helper()
	p, err := prepare(context.Background(), d, Options{Method: NMF, K: 1}.withDefaults(), NMF)
	if err != nil {
		t.Fatal(err)
	}
	xt := internalXT(p)
	out := mat.NewDense(d.n, d.m, nil)
	for j := range xt {
		for r, x := range xt[j] {
			i := r
			if d.order != nil {
				i = d.order[r]
			}
			out.Set(j, i, x)
		}
	}
	return out
}

// TestStationaryStop: with the objective's rule off, the projected-
// gradient rule stops cd on exactly factorizable data once the residual
// is below PGTol, reports it, and the fit is then close to exact; with
// both rules off every iteration runs.
func TestStationaryStop(t *testing.T) {
	d, x := exactData(t, 95, 40, 30, 3)
	for _, method := range []Method{NMF, NMFKL} {
		res, err := Fit(context.Background(), d, Options{Method: method, K: 3, Seed: 2, Control: Control{Algorithm: CD, MaxIter: 3000, Tol: -1, PGTol: 1e-7}})
		if err != nil {
			t.Fatal(err)
		}
		last := res.ProjGrad[len(res.ProjGrad)-1]
		if res.Status != Stationary || res.Iterations >= 3000 || !(last < 1e-7) || res.ProjGrad[len(res.ProjGrad)-2] < 1e-7 {
			t.Fatalf("%s: status %v after %d iterations, residuals ... %v, want stationary at the first below 1e-7", method, res.Status, res.Iterations, res.ProjGrad[len(res.ProjGrad)-2:])
		}
		var r mat.Dense
		r.Mul(res.V, res.U.T())
		r.Sub(&r, x)
		if rel := mat.Norm(&r, 2) / mat.Norm(x, 2); rel > 1e-4 {
			t.Fatalf("%s: relative error %v when stationary", method, rel)
		}
		all, err := Fit(context.Background(), d, Options{Method: method, K: 3, Seed: 2, Control: Control{Algorithm: CD, MaxIter: res.Iterations + 5, Tol: -1, PGTol: -1}})
		if err != nil {
			t.Fatal(err)
		}
		if all.Status != IterationLimit || all.Iterations != res.Iterations+5 {
			t.Fatalf("%s: both rules off: %v after %d iterations", method, all.Status, all.Iterations)
		}
	}
	if _, err := Fit(context.Background(), d, Options{Method: NMF, K: 3, Control: Control{PGTol: math.NaN()}}); err == nil {
		t.Fatal("PGTol NaN accepted")
	}
	if _, err := Fit(context.Background(), d, Options{Method: NMF, K: 3, Control: Control{PGTol: 1}}); err == nil {
		t.Fatal("PGTol 1 accepted")
	}
	// A relative decrease is at most 1: Tol 2 stopped every start after
	// one iteration and called it converged.
	if _, err := Fit(context.Background(), d, Options{Method: NMF, K: 3, Control: Control{Tol: 2}}); err == nil {
		t.Fatal("Tol 2 accepted")
	}
}
