package minibatch

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/klstep"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// The KL loss, D(X || Y) = sum (x log(x/y) - x + y) with Y = V U^T.
//
// A batch's row v of V minimizes colU . v - sum_q x_q log y_q (the
// sample's share, up to a constant), a convex problem with U fixed, by
// coordinate Newton steps (klstep.Row). It starts from the constant row
// whose model sums to the sample's total, the sum every stationary point
// has; a zero row would give y = 0, where the logarithm has no slope to
// follow.
//
// U takes the online multiplicative update of Lefèvre, Bach and Févotte
// (2011), as scikit-learn's MiniBatchNMF does for this loss: the batch's
// multiplicative numerator U .* ((X_b ./ Y_b)^T V_b) adds to the numerator
// a, the batch's V_b^T 1 to the denominator den, and U becomes a ./ den.
// Were the statistics empty before a batch, that would be the batch's
// multiplicative step; over many batches it is the step on every sample
// seen, with their V fixed.

// klForget is Options.Forget's default under KL: the statistics fall by
// this factor over the first pass, by its square root over the second,
// its cube root over the third, and so on (discountKL).
const klForget = 1e-4

// klSweeps is the Newton sweeps that solve a row of V by default.
const klSweeps = 5

// eps floors the model values, as solver.Eps does (which this package
// cannot import: solver imports it).
const eps = 1e-10

// klSeeds is the first batch's samples that KL's start adds to each
// column of U.
const klSeeds = 3

// seedColumns adds to each column of the random U the mean of klSeeds
// samples of the first batch (rows), drawn by rng. Multiplicative steps
// move a column only as far as the samples use it: a column as bland as
// the others at the start can lose every sample in the first batch's
// solves and never win one back (a dead column, seen on planted data in
// batches of 64). Columns that start at distinct samples each fit some.
func (md *Model) seedColumns(x *sparse.CSR, rows []int, rng *rand.Rand) {
	k := md.opts.K
	for c := 0; c < k; c++ {
		for range klSeeds {
			j := rows[rng.IntN(len(rows))]
			for q := x.Indptr[j]; q < x.Indptr[j+1]; q++ {
				md.u[x.Ind[q]*k+c] += x.Val[q] / klSeeds
			}
		}
	}
}

// klWork is one worker's room for a row, kept across batches: U's rows
// at the row's entries, transposed, the model values, and klstep.Row's
// ratios.
type klWork struct {
	ht, y, ratios []float64
}

func (w *klWork) grow(nq, k int) {
	if cap(w.y) < nq {
		w.ht, w.y, w.ratios = make([]float64, 2*nq*k), make([]float64, 2*nq), make([]float64, 4*nq)
	}
	w.ht, w.y, w.ratios = w.ht[:nq*k], w.y[:nq], w.ratios[:2*nq]
}

// solveRowsKL sets v (len(rows) x k) to the KL fit of the samples rows
// for the current U, loss[r] to sample rows[r]'s divergence, and, when
// ratio is not nil, returns ratio (grown as needed) holding x/y at the
// batch's entries in the batch's order, for accumulateKL.
func (md *Model) solveRowsKL(x *sparse.CSR, rows []int, v, loss, ratio []float64) []float64 {
	k := md.opts.K
	var off []int
	if ratio != nil {
		off = make([]int, len(rows)+1)
		for r, j := range rows {
			off[r+1] = off[r] + x.Indptr[j+1] - x.Indptr[j]
		}
		if cap(ratio) < off[len(rows)] {
			ratio = make([]float64, off[len(rows)])
		}
		ratio = ratio[:off[len(rows)]]
	}
	var total float64
	for _, s := range md.colU {
		total += s
	}
	for len(md.work) < parallel.Workers(len(rows), md.opts.Threads, 16) {
		md.work = append(md.work, &klWork{})
	}
	parallel.ForWorker(len(rows), md.opts.Threads, 16, func(worker, a, b int) {
		w := md.work[worker]
		for r := a; r < b; r++ {
			j := rows[r]
			p0, p1 := x.Indptr[j], x.Indptr[j+1]
			xs := x.Val[p0:p1]
			f := v[r*k : (r+1)*k]
			var sum float64
			for _, xq := range xs {
				sum += xq
			}
			if sum == 0 || total == 0 {
				// An empty sample's fit is zero; a zero U fits only zeros.
				clear(f)
				loss[r] = sum
				if total == 0 {
					loss[r] = klData(xs, nil)
				}
				if off != nil {
					clear(ratio[off[r]:off[r+1]])
				}
				continue
			}
			for c := range f {
				f[c] = sum / total
			}
			w.grow(len(xs), k)
			asm.DotGatherT(w.y, w.ht, f, x.Ind[p0:p1], md.u, k)
			klstep.Row(f, md.colU, xs, w.ht, w.y, w.ratios, md.opts.Sweeps, nil, nil, 1, nil, eps)
			loss[r] = klData(xs, w.y) + asm.Dot(md.colU, f)
			if off != nil {
				rq := ratio[off[r]:off[r+1]]
				for q, xq := range xs {
					rq[q] = xq / max(w.y[q], eps)
				}
			}
		}
	})
	return ratio
}

// klData is a sample's share of the divergence but its sum of y:
// sum_q x_q (log x_q - log y_q) - x_q, with y floored at eps (y nil: all
// at eps).
func klData(x, y []float64) float64 {
	var s float64
	for q, xq := range x {
		if xq == 0 {
			continue
		}
		yq := eps
		if y != nil {
			yq = max(y[q], eps)
		}
		s += xq*(math.Log(xq)-math.Log(yq)) - xq
	}
	return s
}

// accumulateKL adds the batch's V to the denominator and (X ./ Y)^T V to
// b, in the batch's order.
func (md *Model) accumulateKL(x *sparse.CSR, rows []int, v, ratio []float64) {
	k := md.opts.K
	q := 0
	for r, j := range rows {
		row := v[r*k : (r+1)*k]
		for c, y := range row {
			md.den[c] += y
		}
		for p := x.Indptr[j]; p < x.Indptr[j+1]; p++ {
			if rq := ratio[q]; rq != 0 {
				i := x.Ind[p]
				asm.Axpy(rq, row, md.b[i*k:(i+1)*k])
			}
			q++
		}
	}
}

// discountKL discounts the statistics before a batch of nb samples of a
// pass over total: by Forget^(nb / total / p) in pass p, so by Forget^(1/p)
// over the pass whatever its split into blocks and batches. The numerator
// sums U .* (the batch's step) with U as each batch found it, so a
// batch's share stays anchored at an older U as U moves on: a steep
// discount in the first passes, where U moves most, lets the recent
// batches lead, and a gentle one later, where the batches' noise
// dominates, lets many average. A discount once a pass, as for the
// Frobenius loss, ended far higher after the first passes and no lower
// after many (docs/PERFORMANCE.md).
func (md *Model) discountKL(nb, total int) {
	r := math.Pow(md.opts.Forget, float64(nb)/float64(total)/float64(max(md.passes, 1)))
	for i := range md.a {
		md.a[i] *= r
	}
	for c := range md.den {
		md.den[c] *= r
	}
}

// updateRowKL takes U's row i through the online multiplicative step and
// empties its share of b for the next batch.
func (md *Model) updateRowKL(i int) {
	k := md.opts.K
	u, a, b := md.u[i*k:(i+1)*k], md.a[i*k:(i+1)*k], md.b[i*k:(i+1)*k]
	for c := range u {
		a[c] += u[c] * b[c]
		u[c] = a[c] / md.den[c]
		b[c] = 0
	}
}

// sweepColumns is sweepU under KL: fn on every row of U, and U's column
// sums into md.colU, summed by blocks of gramBlock rows in block order.
func (md *Model) sweepColumns(fn func(i int), nb int) {
	k := md.opts.K
	parts := make([]float64, nb*k)
	parallel.For(nb, md.opts.Threads, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			s := parts[b*k : (b+1)*k]
			for i := b * gramBlock; i < min((b+1)*gramBlock, md.features); i++ {
				if fn != nil {
					fn(i)
				}
				asm.Axpy(1, md.u[i*k:(i+1)*k], s)
			}
		}
	})
	md.colU = make([]float64, k)
	for b := 0; b < nb; b++ {
		asm.Axpy(1, parts[b*k:(b+1)*k], md.colU)
	}
}

// KLObjective returns D(X || V U^T) = sum (x log(x/y) - x + y) for X
// (samples x features), U (features x k) and V (samples x k), the model
// values floored at 1e-10 (solver.Eps) in the logarithm; sum y is
// (1^T U)(V^T 1).
func KLObjective(x *sparse.CSR, u, v *mat.Dense) float64 {
	m, k := u.Dims()
	colU, colV := make([]float64, k), make([]float64, k)
	for i := 0; i < m; i++ {
		asm.Axpy(1, u.RawRowView(i), colU)
	}
	var s float64
	y := make([]float64, 0, 64)
	for j := 0; j < x.Rows; j++ {
		vrow := v.RawRowView(j)
		asm.Axpy(1, vrow, colV)
		p0, p1 := x.Indptr[j], x.Indptr[j+1]
		y = y[:0]
		for _, i := range x.Ind[p0:p1] {
			y = append(y, asm.Dot(vrow, u.RawRowView(i)))
		}
		s += klData(x.Val[p0:p1], y)
	}
	return s + asm.Dot(colU, colV)
}
