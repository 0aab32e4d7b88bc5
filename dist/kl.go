package dist

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

// FitNMFKL runs NMF under the KL divergence with the multiplicative
// updates of package solver (paper 003 eq. 2, V first, the ratios X ./ Y
// floored at solver.Eps, taken only at X's non-zeros) on the grid g, with
// the arguments of FitNMF (Lambda must be 0: LPNMF's graph term is not
// distributed). The ratios of a block need the rank's blocks of both
// factors, U_i (gathered along the grid row) and V_j (along the grid
// column); the V half reduce-scatters R^T U_i to V's owners and the U half
// R' V_j to U's owners, and each factor's column sums, the updates'
// denominators, are summed over the ranks. Per iteration each gathered
// block is fetched once: U_i after the U half (for the next ratios), V_j
// after the V half.
//
// The objective (the divergence, sum x log(x / y) - x + y) agrees with
// solver.Fit's (NMFKL, MU, one start, the same Seed) to rounding.
func FitNMFKL(ctx context.Context, cs GridComms, g Grid, block *sparse.CSR, opts NMFOptions) (*NMFResult, error) {
	if opts.Lambda != 0 {
		return nil, fmt.Errorf("dist: lambda = %v: the KL divergence's graph term (lpnmf) is not distributed", opts.Lambda)
	}
	if opts.CD {
		return nil, fmt.Errorf("dist: the KL divergence's coordinate-descent steps are not distributed")
	}
	rs, err := begin(cs, g, block, opts)
	if err != nil {
		return nil, err
	}
	cs, world, rank, i, j, k := rs.cs, rs.cs.World, rs.rank, rs.i, rs.j, opts.K
	f0, f1, s0, s1 := rs.f0, rs.f1, rs.s0, rs.s1
	for _, x := range block.Val {
		if x < 0 {
			return nil, fmt.Errorf("dist: rank %d's block has a negative entry %v; the KL divergence needs non-negative data", rank, x)
		}
	}
	xt, x := block, block.T()
	res, uCounts, vCounts := startFactors(g, i, j, k, opts.Seed, opts.FeatureOrder)
	p, q := general(s1-s0, k), general(f1-f0, k)
	ui, vj, pOwn, qOwn := exchangeBuffers(g, res, p, q)
	// The ratios at the block's non-zeros, in X^T's order (rt) and X's
	// (r), as CSR matrices sharing the block's structure.
	rt := &sparse.CSR{Rows: xt.Rows, Cols: xt.Cols, Indptr: xt.Indptr, Ind: xt.Ind, Val: make([]float64, xt.NNZ())}
	r := &sparse.CSR{Rows: x.Rows, Cols: x.Cols, Indptr: x.Indptr, Ind: x.Ind, Val: make([]float64, x.NNZ())}

	// sum (x log x - x) over X, once.
	var xlogx float64
	for _, v := range xt.Val {
		if v > 0 {
			xlogx += v*math.Log(v) - v
		}
	}
	t := []float64{xlogx}
	if err := world.AllreduceSum(t); err != nil {
		return nil, err
	}
	xlogx = t[0]
	colU, wsumV := make([]float64, k), make([]float64, k)
	sums := func() error {
		buf := make([]float64, 2*k)
		columnSums(buf[:k], res.U)
		columnSums(buf[k:], res.V)
		if err := world.AllreduceSum(buf); err != nil {
			return err
		}
		copy(colU, buf[:k])
		copy(wsumV, buf[k:])
		return nil
	}
	// evaluate gathers U_i, forms the ratios X ./ (U V^T) at X^T's
	// non-zeros and returns the divergence (every rank the same).
	evaluate := func() (float64, error) {
		if err := gather(cs.Row, res.U.Data, ui.Data, uCounts); err != nil {
			return 0, err
		}
		if err := sums(); err != nil {
			return 0, err
		}
		xt.SampledTo(rt.Val, vj, ui, opts.Threads)
		var logSum float64
		for q, y := range rt.Val {
			y = max(y, solver.Eps)
			if v := xt.Val[q]; v != 0 {
				logSum += v * math.Log(y)
			}
			rt.Val[q] = xt.Val[q] / y
		}
		var fit float64
		for s := 0; s < res.V.Rows; s++ {
			fit += asm.Dot(colU, res.V.Data[s*k:(s+1)*k])
		}
		t := []float64{logSum, fit}
		if err := world.AllreduceSum(t); err != nil {
			return 0, err
		}
		return xlogx - t[0] + t[1], nil
	}
	if err := gather(cs.Col, res.V.Data, vj.Data, vCounts); err != nil {
		return nil, err
	}
	obj, err := evaluate()
	if err != nil {
		return nil, err
	}
	res.Objective = append(res.Objective, obj)
	// The blocks move as in FitNMF; in the Gram matrices' place go the
	// factors' column sums (twice) and the objective's two terms.
	if g.Size() > 1 {
		res.Formula = g.blockWords(rank, k) + 4*k + 2
	}
	defer rs.countFrom(res)()
	tol := opts.tol()
	for it := 1; it <= opts.iters(); it++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		// V half: R^T U_i to V's owners, divided by U's column sums.
		rt.MulDenseTo(p, ui, opts.Threads)
		if err := reduceScatter(cs.Col, p.Data, pOwn, vCounts); err != nil {
			return nil, err
		}
		mulUpdateRows(res.V, pOwn, colU, opts.Threads)
		// U half: the ratios against the new V, R' V_j to U's owners,
		// divided by V's new column sums.
		if err := gather(cs.Col, res.V.Data, vj.Data, vCounts); err != nil {
			return nil, err
		}
		if err := sums(); err != nil {
			return nil, err
		}
		x.SampledTo(r.Val, ui, vj, opts.Threads)
		for q, y := range r.Val {
			r.Val[q] = x.Val[q] / max(y, solver.Eps)
		}
		r.MulDenseTo(q, vj, opts.Threads)
		if err := reduceScatter(cs.Row, q.Data, qOwn, uCounts); err != nil {
			return nil, err
		}
		mulUpdateRows(res.U, qOwn, wsumV, opts.Threads)
		obj, err := evaluate()
		if err != nil {
			return nil, err
		}
		if stop, err := res.record(obj, it, tol); err != nil || stop {
			if err != nil {
				return nil, err
			}
			break
		}
	}
	return res, nil
}

// columnSums sets dst to the column sums of f.
func columnSums(dst []float64, f blas64.General) {
	clear(dst)
	k := f.Cols
	for r := 0; r < f.Rows; r++ {
		asm.Axpy(1, f.Data[r*k:(r+1)*k], dst)
	}
}

// mulUpdateRows applies f_r <- f_r .* num_r ./ max(den, Eps) to every row
// of f, rows in parallel.
func mulUpdateRows(f blas64.General, num, den []float64, threads int) {
	k := f.Cols
	parallel.For(f.Rows, threads, 256, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			asm.MulUpdate(f.Data[r*k:(r+1)*k], num[r*k:(r+1)*k], den, solver.Eps)
		}
	})
}
