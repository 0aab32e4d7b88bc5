package solver

import (
	"fmt"
	"math"

	"github.com/manifactor/manifactor/internal/nmfstep"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
)

// cfIter runs concept factorization and LCCF. It minimizes
//
//	||X - X W V^T||^2 + lambda Tr(V^T L V)
//	  = Tr(K) - 2 tr(W^T K V) + tr((W^T K W)(V^T V)) + lambda Tr(V^T L V)
//
// over non-negative W and V (n x k), K = X^T X or another kernel, with
// the updates of paper 002 eqs. 17-18 (eq. 7 with lambda = 0), V first:
//
//	V <- V .* (K W + lambda S V) ./ max(V (W^T K W) + lambda D V, eps)
//	W <- W .* (K V) ./ max(K W (V^T V), eps)
//
// When K has negative entries it uses eqs. 28 and 25 instead, with
// K = K+ - K-:
//
//	V <- V .* (KW + sqrt(KW.^2 + 4 Q+ .* Q-)) ./ (2 Q+),
//	     Q+ = V (W^T K+ W) + lambda D V,  Q- = V (W^T K- W) + lambda S V
//	W <- W .* (KV + sqrt(KV.^2 + 4 P+ .* P-)) ./ (2 P+),
//	     P+ = K+ W (V^T V),  P- = K- W (V^T V).
//
// With the linear kernel on non-negative data K is never formed: K B is
// X^T (X B) and W^T K W the Gram matrix of X W, so memory stays O((m+n)k).
//
// Under ScaleInvariant the graph term is sum_c (w_c^T K w_c) g_c with
// g_c = lambda v_c^T L v_c, and X W's columns are brought to unit length
// (w^T K w = 1, V's columns scaled to match) at the start and after every
// iteration, which leaves the objective unchanged. The V update above is then the
// papers'; for fixed V the graph term is a quadratic sum_c g_c w_c^T K w_c
// with g_c >= 0, which adds g_c to the diagonal of V^T V in the W update's
// denominator (K W (V^T V + diag(g)), and in P+ and P- for the general
// updates): the same auxiliary-function argument as without it, so the
// objective does not increase.
type cfIter struct {
	p      *problem
	f      *factors
	vw, ww *passWork
	xw     *passWork // Gram of X W (m rows), implicit kernel only
	idx    []int

	wtkw, vtv  blas64.General // k x k
	wtkp, wtkn blas64.General // k x k, general updates: W^T K+ W, W^T K- W
	kw, kv     blas64.General // n x k: K W, K V
	kpw, knw   blas64.General // n x k, general updates: K+ W, K- W
	den, den2  blas64.General // n x k scratch
	sv         blas64.General // lambda S V with a regularizer
	xwm, xvm   blas64.General // m x k, implicit kernel: X W, X V, and
	pm         blas64.General // X W (V^T V)
	// invariant: the scale-invariant graph term; gk[c] is
	// lambda v_c^T L v_c for the current V and sm the k x k
	// V^T V + diag(gk) of the W half.
	invariant bool
	gk        []float64
	sm        blas64.General
	kkt       kktState // the last iteration's (see projGrader)
}

func newCFIter(p *problem, f *factors) *cfIter {
	d, k, n := p.d, f.k, p.d.n
	it := &cfIter{p: p, f: f, vw: newPassWork(n, k), ww: newPassWork(n, k), idx: identity(k), kkt: newKKTState(k),
		wtkw: general(k, k), vtv: general(k, k), kw: general(n, k), kv: general(n, k), den: general(n, k)}
	if p.reg != nil {
		it.sv = general(n, k)
		if p.opts.Formulation == ScaleInvariant {
			it.invariant, it.gk, it.sm = true, make([]float64, k), general(k, k)
		}
	}
	switch {
	case p.kern == nil:
		it.xw = newPassWork(d.m, k)
		it.xwm, it.xvm, it.pm = general(d.m, k), general(d.m, k), general(d.m, k)
	case p.kern.neg.Data != nil:
		it.wtkp, it.wtkn = general(k, k), general(k, k)
		it.kpw, it.knw, it.den2 = general(n, k), general(n, k), general(n, k)
	}
	return it
}

func (it *cfIter) general() bool { return it.p.kern != nil && it.p.kern.neg.Data != nil }

// mulK sets dst = K b.
func (it *cfIter) mulK(dst, b blas64.General) {
	km, th := it.p.kern, it.p.opts.Threads
	if km == nil {
		it.p.d.mulV(it.xvm, b, th)
		it.p.d.mulTU(dst, it.xvm, th)
		return
	}
	mulPart(dst, km.pos, b)
	if km.neg.Data != nil {
		mulPart(it.den, km.neg, b)
		sub(dst, it.den)
	}
}

// kernelProducts forms K W and W^T K W for the current W (and their
// positive and negative parts for the general updates).
func (it *cfIter) kernelProducts() {
	km, th, w := it.p.kern, it.p.opts.Threads, it.f.a
	switch {
	case km == nil:
		it.p.d.mulV(it.xwm, w, th)
		it.xw.run(half{f: it.xwm, gram: it.wtkw}, th)
		it.p.d.mulTU(it.kw, it.xwm, th)
	case km.neg.Data == nil:
		mulPart(it.kw, km.pos, w)
		smallGram(it.wtkw, w, it.kw)
	default:
		mulPart(it.kpw, km.pos, w)
		mulPart(it.knw, km.neg, w)
		smallGram(it.wtkp, w, it.kpw)
		smallGram(it.wtkn, w, it.knw)
		copy(it.kw.Data, it.kpw.Data)
		sub(it.kw, it.knw)
		copy(it.wtkw.Data, it.wtkp.Data)
		sub(it.wtkw, it.wtkn)
	}
}

func (it *cfIter) begin() float64 {
	th := it.p.opts.Threads
	if it.invariant {
		// The objective does not depend on the scale; the updates below
		// take X W's columns at unit length.
		it.p.normalizeStart(it.f)
	}
	it.kernelProducts()
	it.vw.run(half{f: it.f.v, gram: it.vtv}, th)
	it.graphProduct()
	it.mulK(it.kv, it.f.v)
	return it.objective(frob(it.f.a, it.kv, th))
}

func (it *cfIter) step(eval bool) (float64, error) {
	th, f, reg := it.p.opts.Threads, it.f, it.p.reg
	// V update.
	if it.general() {
		mulSmall(it.den, f.v, it.wtkp, it.idx, th)
		mulSmall(it.den2, f.v, it.wtkn, it.idx, th)
		if reg != nil {
			addDeg(it.den, f.v, reg.deg)
			add(it.den2, it.sv)
		}
		generalUpdate(f.v, it.kw, it.den, it.den2, th)
		it.vw.run(half{f: f.v, gram: it.vtv}, th)
	} else {
		h := half{f: f.v, num: rowProduct{full: it.kw}, s: it.wtkw, gram: it.vtv, update: true, measure: eval}
		if reg != nil {
			h.addNum, h.deg = it.sv, reg.deg
		}
		it.vw.run(h, th)
		it.kkt.v = &it.vw.kkt
	}
	it.graphProduct()
	// W update, against the new V. Under ScaleInvariant the graph term
	// is sum_c gk[c] w_c^T K w_c for fixed V, which adds gk[c] to the
	// diagonal of V^T V in the denominator.
	it.mulK(it.kv, f.v)
	s := it.vtv
	if it.invariant {
		columnGraphTerms(it.gk, f.v, it.sv, reg.deg, th)
		s = withDiagonal(it.sm, it.vtv, it.gk)
	}
	var tr float64
	switch {
	case it.general():
		mulSmall(it.den, it.kpw, s, it.idx, th)
		mulSmall(it.den2, it.knw, s, it.idx, th)
		generalUpdate(f.a, it.kv, it.den, it.den2, th)
		tr = frob(f.a, it.kv, th)
	case it.p.kern == nil:
		// K W S = X^T ((X W) S).
		mulSmall(it.pm, it.xwm, s, it.idx, th)
		it.p.d.mulTU(it.den, it.pm, th)
		tr = it.ww.run(half{f: f.a, num: rowProduct{full: it.kv}, den: rowProduct{full: it.den}, update: true, wantDot: true, measure: eval}, th)
	default:
		mulSmall(it.den, it.kw, s, it.idx, th)
		tr = it.ww.run(half{f: f.a, num: rowProduct{full: it.kv}, den: rowProduct{full: it.den}, update: true, wantDot: true, measure: eval}, th)
	}
	it.kernelProducts()
	// The measure's column lengths, before any rescaling: |X w_c| and
	// |v_c|, from the Gram matrices.
	it.kkt.a, it.kkt.ok = &it.ww.kkt, eval
	gramDiagonal(it.kkt.na, it.wtkw.Data)
	gramDiagonal(it.kkt.nv, it.vtv.Data)
	if !it.invariant {
		return it.objective(tr), nil
	}
	obj := it.fit(tr) + diagDot(it.wtkw, it.gk)
	it.rescale()
	return obj, nil
}

// projGrad is available for the updates of linear and non-negative
// kernels; the general updates (a kernel with negative entries) split
// the gradient in two parts and are not measured.
func (it *cfIter) projGrad() (kktState, bool) { return it.kkt, it.kkt.ok && !it.general() }

// rescale sets X W's columns to unit length (w_c^T K w_c = 1) and scales
// V's columns, and every product that depends on them, to match; X W V^T
// and the scale-invariant objective are unchanged.
func (it *cfIter) rescale() {
	norms, th := unitScales(it.wtkw), it.p.opts.Threads
	f := it.f
	nmfstep.ScaleColumns(f.a, norms, false, th)
	nmfstep.ScaleColumns(f.v, norms, true, th)
	nmfstep.ScaleColumns(it.kw, norms, false, th)
	nmfstep.ScaleColumns(it.sv, norms, true, th)
	scaleGram(it.wtkw, norms, false)
	scaleGram(it.vtv, norms, true)
	switch {
	case it.p.kern == nil:
		nmfstep.ScaleColumns(it.xwm, norms, false, th)
	case it.general():
		nmfstep.ScaleColumns(it.kpw, norms, false, th)
		nmfstep.ScaleColumns(it.knw, norms, false, th)
		scaleGram(it.wtkp, norms, false)
		scaleGram(it.wtkn, norms, false)
	}
}

func (it *cfIter) graphProduct() {
	if it.p.reg != nil {
		it.p.reg.w.MulDenseTo(it.sv, it.f.v, it.p.opts.Threads)
	}
}

// objective is Tr(K) - 2 tr(W^T K V) + tr((W^T K W)(V^T V)) + the graph
// term, given tr = tr(W^T K V).
func (it *cfIter) objective(tr float64) float64 {
	return it.fit(tr) + it.p.graphTerm(it.f.v, it.sv)
}

// fit is the objective's first term, ||X - X W V^T||^2 in kernel form.
func (it *cfIter) fit(tr float64) float64 {
	traceK := it.p.d.sqNorm
	if it.p.kern != nil {
		traceK = it.p.kern.trace
	}
	return traceK - 2*tr + asm.Dot(it.wtkw.Data, it.vtv.Data)
}

// generalUpdate applies f <- f .* (b + sqrt(b.^2 + 4 pp .* pn)) ./ (2 pp)
// elementwise (Sha et al.'s update for quadratic forms with mixed signs),
// with pp floored at Eps.
func generalUpdate(f, b, pp, pn blas64.General, threads int) {
	k := f.Cols
	parallel.For(f.Rows, threads, 512, func(lo, hi int) {
		for i := lo * k; i < hi*k; i++ {
			bi := b.Data[i]
			den := max(pp.Data[i], Eps)
			f.Data[i] *= (bi + math.Sqrt(bi*bi+4*pp.Data[i]*pn.Data[i])) / (2 * den)
		}
	})
}

// smallGram sets dst (k x k) = a^T b for n x k a and b by BLAS, made exactly
// symmetric (b = K a with K symmetric).
func smallGram(dst, a, b blas64.General) {
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, a, b, 0, dst)
	k := dst.Rows
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			m := 0.5 * (dst.Data[i*k+j] + dst.Data[j*k+i])
			dst.Data[i*k+j], dst.Data[j*k+i] = m, m
		}
	}
}

func sub(dst, b blas64.General) {
	for i, x := range b.Data {
		dst.Data[i] -= x
	}
}

func add(dst, b blas64.General) {
	for i, x := range b.Data {
		dst.Data[i] += x
	}
}

// addDeg adds deg[i] * v_i to row i of dst.
func addDeg(dst, v blas64.General, deg []float64) {
	k := v.Cols
	for i, g := range deg {
		asm.Axpy(g, v.Data[i*k:(i+1)*k], dst.Data[i*k:(i+1)*k])
	}
}

// conceptNorms returns sqrt(diag(W^T K W)) for the factors in the
// weighted domain: the column scales of the normalization w^T K w = 1.
func (p *problem) conceptNorms(f *factors) []float64 {
	k := f.k
	g := general(k, k)
	if p.kern == nil {
		xw := general(p.d.m, k)
		p.d.mulV(xw, f.a, p.opts.Threads)
		newPassWork(p.d.m, k).run(half{f: xw, gram: g}, p.opts.Threads)
	} else {
		kw := general(p.d.n, k)
		mulPart(kw, p.kern.pos, f.a)
		if p.kern.neg.Data != nil {
			tmp := general(p.d.n, k)
			mulPart(tmp, p.kern.neg, f.a)
			sub(kw, tmp)
		}
		smallGram(g, f.a, kw)
	}
	norms := make([]float64, k)
	for j := range norms {
		norms[j] = math.Sqrt(max(0, g.Data[j*k+j]))
	}
	return norms
}

// conceptBasis returns U = X W (m x k) in the caller's feature order.
func (d *Data) conceptBasis(w blas64.General, threads int) *mat.Dense {
	k := w.Cols
	u := general(d.m, k)
	d.mulV(u, w, threads)
	out := make([]float64, len(u.Data))
	for r := 0; r < d.m; r++ {
		i := d.feature(r)
		copy(out[i*k:(i+1)*k], u.Data[r*k:(r+1)*k])
	}
	return mat.NewDense(d.m, k, out)
}

func errNegativeDegree(j int, dj float64) error {
	return fmt.Errorf("solver: NC weighting needs non-negative degrees, but sample %d (1-based) has degree %v (x_j . X e, or a row sum of the kernel)", j+1, dj)
}
