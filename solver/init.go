package solver

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/sparse"
)

// nndsvdSeed seeds the randomized SVD of NNDSVD.
const nndsvdSeed = 0x6e6e64737664

// initialize sets f to the deterministic start o.Start asks for.
func (p *problem) initialize(ctx context.Context, f *factors) error {
	o := p.opts
	switch o.Start {
	case NNDSVDStart:
		return p.nndsvd(ctx, f)
	case LabelsStart:
		return p.fromLabels(f, o.InitLabels)
	}
	return fmt.Errorf("solver: start %v is not deterministic", o.Start)
}

// floor is the value given to entries a deterministic start leaves at zero.
func (p *problem) floor() float64 {
	d := p.d
	var sum float64
	if d.xt != nil {
		for _, x := range d.xt.Val {
			sum += x
		}
	} else {
		for _, x := range d.dense.Data {
			sum += x
		}
	}
	return sum / (float64(d.m) * float64(d.n)) / 100
}

// nndsvd sets U (m x k) and V from the leading singular pairs of X; for
// concept factorization W takes V's columns scaled so X W has unit columns.
func (p *problem) nndsvd(ctx context.Context, f *factors) error {
	d, k := p.d, f.k
	var ua, va *mat.Dense // left (features) and right (samples) vectors
	var s []float64
	if d.xt != nil {
		// The SVD of X, with X^T given so that it is not copied (its rows
		// are not sorted, which its products do not need). The randomized
		// SVD's seed is fixed so the start is the same whatever
		// Options.Seed is, as NNDSVD is meant to be deterministic.
		x, xt := d.sparseForms()
		var err error
		ua, s, va, err = sparse.TruncatedSVD(ctx, x, k, sparse.SVDOptions{Seed: nndsvdSeed, Threads: p.opts.Threads, T: xt})
		if err != nil {
			return fmt.Errorf("solver: nndsvd: %w", err)
		}
	} else {
		var svd mat.SVD
		if !svd.Factorize(mat.NewDense(d.n, d.m, d.dense.Data), mat.SVDThin) {
			return fmt.Errorf("solver: nndsvd: the SVD of the data did not converge")
		}
		var l, r mat.Dense
		svd.UTo(&l)
		svd.VTo(&r)
		va, ua, s = &l, &r, svd.Values(nil)
	}
	fill := p.floor()
	u := general(d.m, k)
	for c := 0; c < k; c++ {
		x, y := colOf(ua, c), colOf(va, c)
		sigma := s[c]
		if c > 0 {
			xp, xn := split(x)
			yp, yn := split(y)
			np, nn := norm(xp)*norm(yp), norm(xn)*norm(yn)
			if np >= nn {
				x, y, sigma = scale(xp, 1/norm(xp)), scale(yp, 1/norm(yp)), s[c]*np
			} else {
				x, y, sigma = scale(xn, 1/norm(xn)), scale(yn, 1/norm(yn)), s[c]*nn
			}
		} else {
			x, y = abs(x), abs(y)
		}
		g := math.Sqrt(sigma)
		for i, xi := range x {
			u.Data[i*k+c] = g * xi
		}
		for j, yj := range y {
			f.v.Data[j*k+c] = g * yj
		}
	}
	fillZeros(u.Data, fill)
	fillZeros(f.v.Data, fill)
	if p.spec.Concept() {
		p.conceptFromV(f)
		return nil
	}
	copy(f.a.Data, u.Data)
	return nil
}

// fromLabels sets U to the cluster means and V to the clipped
// least-squares coefficients X^T U (U^T U)^-1.
func (p *problem) fromLabels(f *factors, labels []int) error {
	d, k := p.d, f.k
	if len(labels) != d.n {
		return fmt.Errorf("solver: %d initial labels for %d samples", len(labels), d.n)
	}
	count := make([]float64, k)
	for j, l := range labels {
		if l < 0 || l >= k {
			return fmt.Errorf("solver: initial label %d of sample %d outside 0..%d", l, j+1, k-1)
		}
		count[l]++
	}
	fill := p.floor()
	if p.spec.Concept() {
		for j, l := range labels {
			for c := 0; c < k; c++ {
				f.a.Data[j*k+c] = fill
			}
			f.a.Data[j*k+l] += 1 / count[l]
		}
		p.conceptV(f, fill)
		return nil
	}
	u := f.a
	clear(u.Data)
	if d.xt != nil {
		for j, l := range labels {
			for q := d.xt.Indptr[j]; q < d.xt.Indptr[j+1]; q++ {
				u.Data[d.xt.Ind[q]*k+l] += d.xt.Val[q] / count[l]
			}
		}
	} else {
		for j, l := range labels {
			for t, x := range d.dense.Data[j*d.m : (j+1)*d.m] {
				u.Data[t*k+l] += x / count[l]
			}
		}
	}
	fillZeros(u.Data, fill)
	xtu := general(d.n, k)
	d.mulTU(xtu, u, p.opts.Threads)
	leastSquares(f.v, xtu, u, fill)
	return nil
}

// conceptFromV sets W from V's columns, scaled so that X W has unit
// columns.
func (p *problem) conceptFromV(f *factors) {
	copy(f.a.Data, f.v.Data)
	norms := p.conceptNorms(f)
	k := f.k
	for j := 0; j < f.a.Rows; j++ {
		for c := 0; c < k; c++ {
			if norms[c] > 0 {
				f.a.Data[j*k+c] /= norms[c]
			}
		}
	}
}

// conceptV sets V to the clipped least-squares coefficients of X on the
// basis X W: for the linear kernel, X^T (X W) ((X W)^T (X W))^-1.
func (p *problem) conceptV(f *factors, fill float64) {
	d, k := p.d, f.k
	if p.kern != nil {
		// K W against W^T K W, the kernel form of the same step.
		kw := general(d.n, k)
		mulPart(kw, p.kern.pos, f.a)
		if p.kern.neg.Data != nil {
			tmp := general(d.n, k)
			mulPart(tmp, p.kern.neg, f.a)
			sub(kw, tmp)
		}
		g := general(k, k)
		smallGram(g, f.a, kw)
		solveSmall(f.v, kw, g, fill)
		return
	}
	xw := general(d.m, k)
	d.mulV(xw, f.a, p.opts.Threads)
	kw := general(d.n, k)
	d.mulTU(kw, xw, p.opts.Threads)
	leastSquares(f.v, kw, xw, fill)
}

// leastSquares sets v = max(xtb (b^T b)^-1, fill) for the basis b.
func leastSquares(v, xtb, b blas64.General, fill float64) {
	k := b.Cols
	g := general(k, k)
	newPassWork(b.Rows, k).run(half{f: b, gram: g}, 0)
	solveSmall(v, xtb, g, fill)
}

// solveSmall sets v = max(r g^-1, fill) row by row for the symmetric k x k
// g, regularized slightly so a singular g (a repeated or empty cluster)
// still solves.
func solveSmall(v, r, g blas64.General, fill float64) {
	k := g.Rows
	gm := mat.NewDense(k, k, append([]float64(nil), g.Data...))
	var tr float64
	for c := 0; c < k; c++ {
		tr += gm.At(c, c)
	}
	for c := 0; c < k; c++ {
		gm.Set(c, c, gm.At(c, c)+1e-10*tr/float64(k)+1e-300)
	}
	rm := mat.NewDense(r.Rows, k, append([]float64(nil), r.Data...))
	var sol mat.Dense
	// v g = r, with g symmetric: v = r g^-1 = (g^-1 r^T)^T.
	if err := sol.Solve(gm, rm.T()); err != nil {
		for i := range v.Data {
			v.Data[i] = fill
		}
		return
	}
	for i := 0; i < r.Rows; i++ {
		for c := 0; c < k; c++ {
			v.Data[i*k+c] = max(sol.At(c, i), fill)
		}
	}
}

func colOf(m *mat.Dense, c int) []float64 {
	r, _ := m.Dims()
	out := make([]float64, r)
	for i := range out {
		out[i] = m.At(i, c)
	}
	return out
}

func split(x []float64) (pos, neg []float64) {
	pos, neg = make([]float64, len(x)), make([]float64, len(x))
	for i, v := range x {
		if v > 0 {
			pos[i] = v
		} else {
			neg[i] = -v
		}
	}
	return pos, neg
}

func abs(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Abs(v)
	}
	return out
}

func norm(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

func scale(x []float64, a float64) []float64 {
	if math.IsInf(a, 0) || math.IsNaN(a) {
		a = 0
	}
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * a
	}
	return out
}

func fillZeros(x []float64, fill float64) {
	for i, v := range x {
		if !(v > 0) {
			x[i] = fill
		}
	}
}
