package solver

import (
	"context"
	"time"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/kernels"
)

// runNMF runs Frobenius NMF from f: it minimizes ||X - U V^T||_F^2 with the
// multiplicative updates of Lee and Seung (paper 004 eqs. 8-9), V first:
//
//	V <- V .* (X^T U) ./ max(V (U^T U), eps)
//	U <- U .* (X V)   ./ max(U (V^T V), eps)
//
// The objective is evaluated without forming U V^T, from products the
// updates need anyway:
//
//	||X||^2 - 2 tr(U^T (X V)) + tr((U^T U)(V^T V)).
func runNMF(ctx context.Context, d *Data, opts Options, f *factors) (*startResult, error) {
	k := f.k
	uw, vw := newPassWork(d.m, k), newPassWork(d.n, k)
	utu, vtv := general(k, k), general(k, k)
	// Dense X has no row-wise product; its products are formed whole by
	// BLAS into these before each pass.
	var xtu, xv blas64.General
	if !d.IsSparse() {
		xtu, xv = general(d.n, k), general(d.m, k)
	}
	rowsXtU := func() rowProduct {
		if d.IsSparse() {
			return rowProduct{a: d.xt, b: f.u}
		}
		d.mulTU(xtu, f.u, opts.Threads)
		return rowProduct{full: xtu}
	}
	rowsXV := func() rowProduct {
		if d.IsSparse() {
			return rowProduct{a: d.x, b: f.v}
		}
		d.mulV(xv, f.v, opts.Threads)
		return rowProduct{full: xv}
	}

	// The starting objective, and U^T U for the first V update.
	vw.update(f.v, vtv, rowProduct{}, vtv, false, false, opts.Threads)
	tr := uw.update(f.u, utu, rowsXV(), utu, false, true, opts.Threads)
	obj := d.sqNorm - 2*tr + kernels.Dot(utu.Data, vtv.Data)

	stop := stopRule{opts}
	res := &startResult{f: f, trace: []float64{obj}}
	begin := time.Now()
	defer func() { res.iterTime = time.Since(begin) }()
	for iter := 1; ; iter++ {
		if err := ctx.Err(); err != nil {
			res.status = Canceled
			return res, err
		}
		vw.update(f.v, utu, rowsXtU(), vtv, true, false, opts.Threads)
		tr := uw.update(f.u, vtv, rowsXV(), utu, true, true, opts.Threads)
		prev := obj
		obj = d.sqNorm - 2*tr + kernels.Dot(utu.Data, vtv.Data)
		res.trace = append(res.trace, obj)
		if opts.Progress != nil {
			opts.Progress(0, iter, obj)
		}
		if s := stop.check(iter, prev, obj); s != 0 {
			res.status = s
			return res, nil
		}
	}
}
