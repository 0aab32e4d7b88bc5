package solver

import (
	"math"

	"github.com/manifactor/manifactor/internal/nmfstep"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
)

// nmfIter runs Frobenius NMF and GNMF. It minimizes
//
//	||X - U V^T||_F^2 + lambda Tr(V^T L V),  L = D - W,
//
// with the multiplicative updates of paper 004 eqs. 8-9 and paper 000
// eqs. 15-16, V first:
//
//	V <- V .* (X^T U + lambda W V) ./ max(V (U^T U) + lambda D V, eps)
//	U <- U .* (X V) ./ max(U (V^T V), eps)
//
// With lambda = 0 (no regularizer) it is plain NMF. The objective is
// evaluated without forming U V^T, from products the updates need anyway:
//
//	||X||^2 - 2 tr(U^T (X V)) + tr((U^T U)(V^T V))
//	  + sum_i (lambda D_ii |v_i|^2 - v_i . (lambda W V)_i).
//
// Under ScaleInvariant the graph term is sum_c |u_c|^2 g_c with
// g_c = lambda v_c^T L v_c, and U's columns are brought to unit length
// (V's scaled to match) after every iteration and at the start, which
// leaves the objective unchanged. With |u_c| = 1 the V update above is
// exactly the minorization step of paper 000 (its auxiliary function,
// column by column); for fixed V the graph term is a ridge penalty
// sum_c g_c |u_c|^2 (g_c >= 0, L being positive semi-definite), whose
// multiplicative step
//
//	U <- U .* (X V) ./ max(U (V^T V + diag(g)), eps)
//
// has the auxiliary function of Lee and Seung with V^T V + diag(g) in
// place of V^T V. So every half-step, and the rescaling, leaves the
// objective no larger.
type nmfIter struct {
	p        *problem
	f        *factors
	uw, vw   *passWork
	utu, vtv blas64.General
	// xtu and xv are the data products formed whole: for dense X, xv
	// where V needs column panels or blocks (Data.mulV), and xtu for GNMF's cd V half, which
	// visits the rows colour by colour (cdGraphHalf).
	xtu, xv blas64.General
	wv      blas64.General // lambda W V for the current V, with a regularizer
	// invariant: the scale-invariant graph term (ScaleInvariant with a
	// regularizer); gk[c] is lambda v_c^T L v_c for the current V, and sv the k x k
	// V^T V + diag(gk) of the U half.
	invariant bool
	gk        []float64
	sv        blas64.General
	// cdU and cdV, set under CD, replace the multiplicative steps of the
	// U and V halves by coordinate descent (nmfstep.Rows); with a regularizer V's
	// rows go colour by colour (cdGraphHalf, p.colors).
	cdU, cdV *nmfstep.Rule
	// graphPasses caps the passes of GNMF's cd V half over the graph per
	// data product (see graphPasses), the passes after the first under
	// cdPass (one sweep a row); passGain holds a pass's gain per block of
	// rows; passes counts the passes made.
	graphPasses int
	cdPass      *nmfstep.Rule
	passGain    []float64
	passes      int
	// graphKKT holds GNMF's cd V half's measure of stationarity, kkt the
	// last iteration's (see projGrader).
	graphKKT kktSums
	kkt      kktState
	// ex drives the iterations under CD unless Options.PlainCD (see
	// nmfstep.Extrapolated; graphHalves with a graph term); nil otherwise.
	ex *nmfstep.Extrapolated
}

func newNMFIter(p *problem, f *factors) *nmfIter {
	d, k := p.d, f.k
	it := &nmfIter{p: p, f: f, utu: general(k, k), vtv: general(k, k), kkt: newKKTState(k)}
	if !d.IsSparse() {
		it.xtu, it.xv = general(d.n, k), general(d.m, k)
		it.uw, it.vw = newPassWork(d.m, k), newPassWork(d.n, k)
	} else {
		// The U pass's chunks follow X's rows also when X V is formed
		// whole (below), so that panels and blocks change no sum; those chunks
		// then differ in rows rather than cost, which the passes'
		// dynamic scheduling evens out.
		it.uw, it.vw = newPassWorkCost(d.m, k, d.featurePtr()), newPassWorkCost(d.n, k, d.xt.Indptr)
		if d.compact() || d.xPanels(k, p.opts.Threads) != nil || d.xBlocks(k) != nil {
			// V is too large for the caches, or X is not held: X V is
			// formed whole by column panels, blocks or ranges
			// (Data.mulV) instead of row by row in the U pass.
			it.xv = general(d.m, k)
		}
	}
	if p.opts.Algorithm == CD {
		// The stored non-zeros also for dense data, so that both forms
		// of the same matrix run the same sweeps.
		nnz := d.nnz
		it.cdU = nmfstep.NewRule(nnz, d.m, k)
		if p.reg != nil {
			it.graphPasses = graphPasses(nnz, p.reg.w.NNZ(), d.n, k)
			it.cdPass = nmfstep.OneSweep()
			nnz += p.reg.w.NNZ()
		}
		it.cdV = nmfstep.NewRule(nnz, d.n, k)
	}
	if p.reg != nil {
		it.wv = general(d.n, k)
		if p.opts.Formulation == ScaleInvariant {
			it.invariant, it.gk, it.sv = true, make([]float64, k), general(k, k)
		}
	}
	return it
}

// rowsXtU and rowsXV give the rows of X^T U and X V for the current
// factors: gathered row by row for sparse X, formed whole by BLAS for dense
// X and by column panels of X^T (or blocks of X) for X V when V outgrows
// the caches.
func (it *nmfIter) rowsXtU() rowProduct {
	d := it.p.d
	if d.IsSparse() {
		return rowProduct{a: d.xt, b: it.f.a}
	}
	d.mulTU(it.xtu, it.f.a, it.p.opts.Threads)
	return rowProduct{full: it.xtu}
}

func (it *nmfIter) rowsXV() rowProduct {
	d := it.p.d
	if d.IsSparse() && it.xv.Data == nil {
		return rowProduct{a: d.x, b: it.f.v}
	}
	d.mulV(it.xv, it.f.v, it.p.opts.Threads)
	return rowProduct{full: it.xv}
}

func (it *nmfIter) begin() float64 {
	th := it.p.opts.Threads
	if it.invariant {
		// The objective does not depend on the scale; the updates below
		// take U's columns at unit length.
		it.p.normalizeStart(it.f)
	}
	it.vw.run(half{f: it.f.v, gram: it.vtv}, th)
	it.graphProduct()
	tr := it.uw.run(half{f: it.f.a, num: it.rowsXV(), gram: it.utu, wantDot: true}, th)
	obj := it.objective(tr)
	if !it.p.opts.PlainCD && it.cdU != nil {
		it.ex = nmfstep.NewExtrapolated(it.f.a.Data, it.f.v.Data, obj)
	}
	return obj
}

func (it *nmfIter) step(eval bool) (float64, error) {
	if it.ex != nil {
		h := it.halves(eval)
		if it.p.reg != nil {
			h = it.graphHalves(eval)
		}
		return it.ex.Step(it.f.a.Data, it.f.v.Data, h, it.p.opts.Threads)
	}
	th := it.p.opts.Threads
	h := half{f: it.f.v, num: it.rowsXtU(), s: it.utu, gram: it.vtv, update: true, measure: eval, cd: it.cdV}
	switch {
	case it.p.reg != nil && it.cdV != nil:
		it.cdGraphHalf(h.num, it.utu.Data, th, eval)
		it.kkt.v = &it.graphKKT
		it.vw.run(half{f: it.f.v, gram: it.vtv}, th)
	case it.p.reg != nil:
		h.addNum, h.deg = it.wv, it.p.reg.deg
		fallthrough
	default:
		it.vw.run(h, th)
		it.kkt.v = &it.vw.kkt
	}
	obj := it.graphUHalf(eval)
	if it.invariant {
		it.rescale()
	}
	return obj, nil
}

// graphUHalf forms lambda W V for the current V (nothing without a graph
// term) and makes the U half-step, returning the objective of the pair.
// Under ScaleInvariant, with V fixed, the graph term is sum_c gk[c]
// |u_c|^2, a ridge penalty on U's columns, which adds gk[c] to the
// diagonal of V^T V.
func (it *nmfIter) graphUHalf(eval bool) float64 {
	it.graphProduct()
	if !it.invariant {
		return it.uHalf(eval)
	}
	th := it.p.opts.Threads
	columnGraphTerms(it.gk, it.f.v, it.wv, it.p.reg.deg, th)
	s := withDiagonal(it.sv, it.vtv, it.gk)
	tr := it.uw.run(half{f: it.f.a, num: it.rowsXV(), s: s, gram: it.utu, update: true, wantDot: true, measure: eval, cd: it.cdU}, th)
	it.measured(eval)
	return it.p.d.sqNorm - 2*tr + asm.Dot(it.utu.Data, it.vtv.Data) + diagDot(it.utu, it.gk)
}

// uHalf is the U half-step without the scale-invariant graph term; it
// returns the objective.
func (it *nmfIter) uHalf(eval bool) float64 {
	tr := it.uw.run(half{f: it.f.a, num: it.rowsXV(), s: it.vtv, gram: it.utu, update: true, wantDot: true, measure: eval, cd: it.cdU}, it.p.opts.Threads)
	it.measured(eval)
	return it.objective(tr)
}

// halves are the half-steps of plain NMF under cd, for nmfstep.Extrapolated.
func (it *nmfIter) halves(eval bool) nmfstep.Halves {
	th := it.p.opts.Threads
	return it.withGrams(nmfstep.Halves{
		V: func(gram bool) error {
			h := half{f: it.f.v, num: it.rowsXtU(), s: it.utu, update: true, measure: eval, cd: it.cdV}
			if gram {
				h.gram = it.vtv
			}
			it.vw.run(h, th)
			it.kkt.v = &it.vw.kkt
			return nil
		},
		U: func() (float64, error) { return it.uHalf(eval), nil },
	})
}

// graphHalves are GNMF's half-steps under cd, for nmfstep.Extrapolated. The V
// half is cdGraphHalf's passes; in the scale-invariant formulation it
// first brings U's columns to unit length (the passes minimize the
// objective for unit columns), scaling the driver's stored factors alike,
// which leaves every pair's objective unchanged. The U half
// (graphUHalf) forms lambda W V for the V it meets, extrapolated or not,
// so the objective it returns is that pair's.
func (it *nmfIter) graphHalves(eval bool) nmfstep.Halves {
	th := it.p.opts.Threads
	return it.withGrams(nmfstep.Halves{
		V: func(gram bool) error {
			if it.invariant {
				it.ex.Rescale(it.rescale(), th)
			}
			it.cdGraphHalf(it.rowsXtU(), it.utu.Data, th, eval)
			it.kkt.v = &it.graphKKT
			if gram {
				it.vw.run(half{f: it.f.v, gram: it.vtv}, th)
			}
			return nil
		},
		U: func() (float64, error) { return it.graphUHalf(eval), nil },
	})
}

// withGrams sets h's VGram and UGram, the same for NMF and GNMF: each
// factor's Gram pass, with the momentum's move run on each chunk of rows
// just before the chunk's sums (half.pre).
func (it *nmfIter) withGrams(h nmfstep.Halves) nmfstep.Halves {
	th := it.p.opts.Threads
	h.VGram = func(move func(lo, hi int)) error {
		it.vw.run(half{f: it.f.v, gram: it.vtv, pre: move}, th)
		return nil
	}
	h.UGram = func(move func(lo, hi int)) error {
		it.uw.run(half{f: it.f.a, gram: it.utu, pre: move}, th)
		return nil
	}
	return h
}

// finish leaves f holding the accepted pair, whose objective the last
// iteration reported, so that a fit returns the factors its objective
// belongs to.
func (it *nmfIter) finish() {
	if it.ex != nil {
		it.ex.Accepted(it.f.a.Data)
		it.uw.run(half{f: it.f.a, gram: it.utu}, it.p.opts.Threads)
		if it.invariant {
			// As after every plain iteration: U's columns at unit
			// length, for the result and for a run that goes on (lambda
			// W V is the last U half's, for this V, and is scaled too).
			it.ex.Rescale(it.rescale(), it.p.opts.Threads)
		}
	}
}

// measured completes the iteration's measure of stationarity, taken
// when the iteration is evaluated: U's half and the column lengths,
// before any rescaling.
func (it *nmfIter) measured(eval bool) {
	it.kkt.ok = eval
	it.kkt.a = &it.uw.kkt
	gramDiagonal(it.kkt.na, it.utu.Data)
	gramDiagonal(it.kkt.nv, it.vtv.Data)
}

func (it *nmfIter) projGrad() (kktState, bool) { return it.kkt, it.kkt.ok }

// rescale sets U's columns to unit length and scales V's columns, the
// Gram matrices and lambda W V to match; U V^T and the scale-invariant
// objective are unchanged.
func (it *nmfIter) rescale() []float64 {
	norms, th := unitScales(it.utu), it.p.opts.Threads
	nmfstep.ScaleColumns(it.f.a, norms, false, th)
	nmfstep.ScaleColumns(it.f.v, norms, true, th)
	nmfstep.ScaleColumns(it.wv, norms, true, th)
	scaleGram(it.utu, norms, false)
	scaleGram(it.vtv, norms, true)
	return norms
}

// graphProduct forms lambda W V for the current V: the regularizer's part
// of this iteration's objective and of the next V update.
func (it *nmfIter) graphProduct() {
	if it.p.reg != nil {
		it.p.reg.w.MulDenseTo(it.wv, it.f.v, it.p.opts.Threads)
	}
}

func (it *nmfIter) objective(tr float64) float64 {
	return it.p.d.sqNorm - 2*tr + asm.Dot(it.utu.Data, it.vtv.Data) + it.p.graphTerm(it.f.v, it.wv)
}

// graphTerm returns lambda Tr(V^T L V) = sum_i lambda D_ii |v_i|^2 -
// v_i . (lambda W V)_i, given wv = lambda W V; 0 without a regularizer.
func (p *problem) graphTerm(v, wv blas64.General) float64 {
	if p.reg == nil {
		return 0
	}
	k := v.Cols
	return fixedSum(v.Rows, p.opts.Threads, func(lo, hi int) float64 {
		var s float64
		for i := lo; i < hi; i++ {
			vi := v.Data[i*k : (i+1)*k]
			s += p.reg.deg[i]*asm.Dot(vi, vi) - asm.Dot(vi, wv.Data[i*k:(i+1)*k])
		}
		return s
	})
}

// columnGraphTerms sets gk[c] = v_c^T (lambda L) v_c = sum_i deg_i v_ic^2 -
// v_ic (lambda W V)_ic, given wv = lambda W V and deg = lambda D: row
// chunks in parallel, each chunk's k sums added in chunk order so the
// result does not depend on threads.
func columnGraphTerms(gk []float64, v, wv blas64.General, deg []float64, threads int) {
	k := v.Cols
	columnSumsBy(gk, v.Rows, threads, func(i int, acc []float64) {
		vi, wi := v.Data[i*k:(i+1)*k], wv.Data[i*k:(i+1)*k]
		for c, x := range vi {
			acc[c] += deg[i]*x*x - x*wi[c]
		}
	})
}

// withDiagonal sets dst = s + diag(d) for the k x k s and returns it.
func withDiagonal(dst, s blas64.General, d []float64) blas64.General {
	copy(dst.Data, s.Data)
	k := s.Cols
	for c, x := range d {
		dst.Data[c*k+c] += x
	}
	return dst
}

// diagDot returns sum_c g_cc d_c for the k x k g.
func diagDot(g blas64.General, d []float64) float64 {
	var s float64
	for c, x := range d {
		s += g.Data[c*g.Stride+c] * x
	}
	return s
}

// unitScales returns sqrt(g_cc) for the Gram matrix g, 1 where that is
// zero: the factors that bring the columns to unit length.
func unitScales(g blas64.General) []float64 {
	k := g.Cols
	out := make([]float64, k)
	for c := range out {
		out[c] = math.Sqrt(g.Data[c*g.Stride+c])
		if !(out[c] > 0) {
			out[c] = 1
		}
	}
	return out
}

// scaleGram multiplies (mul) or divides entry (a, b) of the k x k Gram
// matrix g by s[a] s[b], as scaleColumns does to the matrix it came from.
func scaleGram(g blas64.General, s []float64, mul bool) {
	k := g.Cols
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			if mul {
				g.Data[a*g.Stride+b] *= s[a] * s[b]
			} else {
				g.Data[a*g.Stride+b] /= s[a] * s[b]
			}
		}
	}
}
