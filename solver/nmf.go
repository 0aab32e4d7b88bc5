package solver

import (
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/kernels"
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
type nmfIter struct {
	p        *problem
	f        *factors
	uw, vw   *passWork
	utu, vtv blas64.General
	xtu, xv  blas64.General // dense X only: the data products, formed whole
	wv       blas64.General // lambda W V for the current V, with a regularizer
}

func newNMFIter(p *problem, f *factors) *nmfIter {
	d, k := p.d, f.k
	it := &nmfIter{p: p, f: f, uw: newPassWork(d.m, k), vw: newPassWork(d.n, k), utu: general(k, k), vtv: general(k, k)}
	if !d.IsSparse() {
		it.xtu, it.xv = general(d.n, k), general(d.m, k)
	}
	if p.reg != nil {
		it.wv = general(d.n, k)
	}
	return it
}

// rowsXtU and rowsXV give the rows of X^T U and X V for the current
// factors: gathered row by row for sparse X, formed whole by BLAS for dense.
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
	if d.IsSparse() {
		return rowProduct{a: d.x, b: it.f.v}
	}
	d.mulV(it.xv, it.f.v, it.p.opts.Threads)
	return rowProduct{full: it.xv}
}

func (it *nmfIter) begin() float64 {
	th := it.p.opts.Threads
	it.vw.run(half{f: it.f.v, gram: it.vtv}, th)
	it.graphProduct()
	tr := it.uw.run(half{f: it.f.a, num: it.rowsXV(), gram: it.utu, wantDot: true}, th)
	return it.objective(tr)
}

func (it *nmfIter) step(bool) (float64, error) {
	th := it.p.opts.Threads
	h := half{f: it.f.v, num: it.rowsXtU(), s: it.utu, gram: it.vtv, update: true}
	if it.p.reg != nil {
		h.addNum, h.deg = it.wv, it.p.reg.deg
	}
	it.vw.run(h, th)
	it.graphProduct()
	tr := it.uw.run(half{f: it.f.a, num: it.rowsXV(), s: it.vtv, gram: it.utu, update: true, wantDot: true}, th)
	return it.objective(tr), nil
}

// graphProduct forms lambda W V for the current V: the regularizer's part
// of this iteration's objective and of the next V update.
func (it *nmfIter) graphProduct() {
	if it.p.reg != nil {
		it.p.reg.w.MulDenseTo(it.wv, it.f.v, it.p.opts.Threads)
	}
}

func (it *nmfIter) objective(tr float64) float64 {
	return it.p.d.sqNorm - 2*tr + kernels.Dot(it.utu.Data, it.vtv.Data) + it.p.graphTerm(it.f.v, it.wv)
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
			s += p.reg.deg[i]*kernels.Dot(vi, vi) - kernels.Dot(vi, wv.Data[i*k:(i+1)*k])
		}
		return s
	})
}
