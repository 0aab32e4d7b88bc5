package solver

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/klstep"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// klSweepsV and klSweepsU are the cyclic sweeps over a row's k
// coordinates per half step of KL coordinate descent, for V's rows (the
// samples) and U's (the features). Unlike the Frobenius case, a sweep is
// not cheap against the half step's shared work: every coordinate step
// passes over the row's stored entries with a division each, about what
// gathering the other factor's rows costs. Samples (documents) have long
// rows over which that gather is amortized; most features (terms) have a
// handful of entries, where each step's fixed cost dominates. Measured
// as time to mu's 200-iteration objective on TDT2 and la1
// (docs/PERFORMANCE.md), two sweeps for V's rows and one for U's took
// about as long as one for each and less than three for V's rows, and
// two sweeps on both halves took longer than one.
const (
	klSweepsV = 2
	klSweepsU = 1
)

// klGraphRow is LPNMF's graph term seen from one row j of V with the
// other rows fixed: per column c,
//
//	h_c(v) = alpha_c sum_s w_js (v - v_sc)(log v - log v_sc),
//
// (both directions of each symmetric edge of 1/2 sum_{j,s}), with alpha_c
// the column's weight over the row's sample weight (the row's data part
// runs unweighted). With deg = sum_s w_js, a_c = sum_s w_js v_sc and
// lg_c = sum_s w_js log v_sc,
//
//	h'(v)  = alpha_c (deg (log v + 1) - lg_c - a_c / v),
//	h”(v)  = alpha_c (deg / v + a_c / v^2) > 0,
//	h”'(v) = -alpha_c (deg / v^2 + 2 a_c / v^3) <= 0:
//
// h is convex with a concave derivative on v > 0, the property of the
// data part that klstep.Row's certificate rests on, so the sum keeps it.
// Near v = 0 the derivative falls to -infinity; the objective floors
// logarithms at Eps, so klstep.Row keeps graph-coupled coordinates at or
// above Eps, where the floor never acts and h is exactly the objective's.
type klGraphRow struct {
	alpha, a, lg []float64
	deg          float64
}

// Derivatives returns h'(v) and h”(v) for column c.
func (g *klGraphRow) Derivatives(c int, v float64) (d1, d2 float64) {
	al := g.alpha[c]
	d1 = al * (g.deg*(math.Log(v)+1) - g.lg[c] - g.a[c]/v)
	d2 = al * (g.deg/v + g.a[c]/(v*v))
	return d1, d2
}

// klCDWork is one worker's space: the other factor's rows at a row's
// stored entries (transposed), the row's model values, and LPNMF's graph
// term for the row.
type klCDWork struct {
	ht, y, ratios []float64
	graph         klGraphRow
}

// workers makes room for the workers of a pass over n rows.
func (it *klIter) workers(n, k int) {
	for len(it.cdWork) < parallel.Workers(n, it.p.opts.Threads, 16) {
		rows := parallel.OwnRows(3, k)
		it.cdWork = append(it.cdWork, &klCDWork{graph: klGraphRow{alpha: rows[0], a: rows[1], lg: rows[2]}})
	}
}

// cdHalf runs klstep.Row on every row r of a (the data with the rows of f as
// its rows; vals its values, weighted or not), against h (indexed by a's
// columns) and the linear coefficients lin. With logs given it also sets
// logs[r] = sum_q vals_q log max(y_q, Eps) at the row's final y, the
// row's share of the objective. Rows are independent and each is done by
// one worker from start to end, so the result does not depend on threads.
// s, when not nil, receives the half's measure of stationarity
// (klstep.Row's), each row's times gamma[r]^2 when gamma is given: the V
// half runs on X's values without the sample weights, which cancel in the
// steps but not in the gradient.
func (it *klIter) cdHalf(a *sparse.CSR, vals []float64, f, h blas64.General, lin, logs []float64, s *kktSums, gamma []float64, sweeps int) {
	k := f.Cols
	it.workers(a.Rows, k)
	if s != nil {
		s.reset(blocks(a.Rows, 16), k)
	}
	parallel.ForWorker(a.Rows, it.p.opts.Threads, 16, func(worker, lo, hi int) {
		w := it.cdWork[worker]
		var pg, ref []float64
		if s != nil {
			pg, ref = s.block(lo / 16)
		}
		for r := lo; r < hi; r++ {
			w2 := 1.0
			if gamma != nil {
				w2 = gamma[r] * gamma[r]
			}
			logSum := w.row(a, vals, f, h, lin, r, sweeps, pg, ref, w2, nil, logs != nil)
			if logs != nil {
				logs[r] = logSum
			}
		}
	})
}

// row runs klstep.Row on row r of f (see cdHalf) with the graph term gr, or
// none, and, with wantLog, returns sum_q vals_q log max(y_q, Eps) at the
// row's final model values.
func (w *klCDWork) row(a *sparse.CSR, vals []float64, f, h blas64.General, lin []float64, r, sweeps int, pg, ref []float64, w2 float64, gr *klGraphRow, wantLog bool) float64 {
	k := f.Cols
	p0, p1 := a.Indptr[r], a.Indptr[r+1]
	nq := p1 - p0
	fr := f.Data[r*k : (r+1)*k]
	if nq == 0 && gr == nil {
		// The row's objective is lin . f: zero is its minimum. Its
		// gradient is lin, taken at f as it was, with no data part.
		if pg != nil {
			for c, l := range lin {
				l = projected(fr[c], l)
				pg[c] += w2 * l * l
			}
		}
		clear(fr)
		return 0
	}
	if cap(w.ht) < nq*k {
		w.ht, w.y, w.ratios = make([]float64, 2*nq*k), make([]float64, 2*nq), make([]float64, 4*nq)
	}
	ht, y := w.ht[:nq*k], w.y[:nq]
	// The model values and the transposed rows in one pass.
	asm.DotGatherT(y, ht, fr, a.Ind[p0:p1], h.Data, k)
	x := vals[p0:p1]
	var term klstep.Term
	if gr != nil {
		term = gr
	}
	klstep.Row(fr, lin, x, ht, y, w.ratios, sweeps, pg, ref, w2, term, Eps)
	if !wantLog {
		return 0
	}
	var logSum float64
	for q, xq := range x {
		if xq != 0 {
			logSum += xq * math.Log(max(y[q], Eps))
		}
	}
	return logSum
}

// cdGraphHalf is LPNMF's V half under CD: each row of V by klstep.Row
// against U, with the graph term of its neighbours' current rows
// (klGraphRow). Rows of one colour share no edge, so they run in
// parallel, colour after colour (block Gauss-Seidel), and each row reads
// its neighbours' latest values and logarithms; the result does not
// depend on threads. Column c's graph weight is U's column sum under
// ScaleInvariant (lambda sum_c s_c R_c), 1 under Papers; a row's is
// divided by its sample weight, as its data part runs on X's unweighted
// values.
func (it *klIter) cdGraphHalf(sweeps int) {
	k, f, reg := it.f.k, it.f, it.p.reg
	col := it.p.colors
	it.workers(f.v.Rows, k)
	for colour := 0; colour+1 < len(col.start); colour++ {
		rows := col.order[col.start[colour]:col.start[colour+1]]
		parallel.ForWorker(len(rows), it.p.opts.Threads, 16, func(worker, lo, hi int) {
			w := it.cdWork[worker]
			gr := &w.graph
			for _, j := range rows[lo:hi] {
				var g *klGraphRow
				if reg.deg[j] > 0 {
					p0, p1 := reg.w.Indptr[j], reg.w.Indptr[j+1]
					clear(gr.a)
					clear(gr.lg)
					asm.AxpyGather(gr.a, reg.w.Val[p0:p1], reg.w.Ind[p0:p1], f.v.Data, k)
					asm.AxpyGather(gr.lg, reg.w.Val[p0:p1], reg.w.Ind[p0:p1], it.logV, k)
					gj := it.weight(j)
					for c := range gr.alpha {
						gr.alpha[c] = 1 / gj
						if it.invariant {
							gr.alpha[c] = it.colU[c] / gj
						}
					}
					gr.deg, g = reg.deg[j], gr
				}
				w.row(it.xt, it.xt.Val, f.v, f.a, it.colU, j, sweeps, nil, nil, 1, g, false)
				for q := j * k; q < (j+1)*k; q++ {
					it.logV[q] = math.Log(max(f.v.Data[q], Eps))
				}
			}
		})
	}
}

// scaleStart multiplies V by the alpha that minimizes the objective
// along alpha V: the divergence's part sum(y) - sum x log y and the graph
// term are both linear in alpha after the logarithm's share, so
// alpha = sum x / (sum y + lambda R), sums weighted as the divergence is.
func (it *klIter) scaleStart() {
	f := it.f
	it.logs()
	it.sums()
	sx := fixedSum(it.xt.Rows, it.p.opts.Threads, func(lo, hi int) float64 {
		var s float64
		for j := lo; j < hi; j++ {
			g := it.weight(j)
			for q := it.xt.Indptr[j]; q < it.xt.Indptr[j+1]; q++ {
				s += g * it.xt.Val[q]
			}
		}
		return s
	})
	it.graphTerms(it.rc)
	den := asm.Dot(it.colU, it.wsumV)
	for c, r := range it.rc {
		if it.invariant {
			r *= it.colU[c]
		}
		den += r
	}
	if alpha := sx / den; alpha > 0 && !math.IsInf(alpha, 0) {
		for q := range f.v.Data {
			f.v.Data[q] *= alpha
		}
	}
}

// floorGraphRows raises V's entries below Eps to Eps in the rows that
// have graph neighbours, where CD keeps them (klGraphRow), and sets their
// logarithms, which the V half then keeps current. Done once, on the
// start, before its objective is taken.
func (it *klIter) floorGraphRows() {
	k, v := it.f.k, it.f.v
	for j, d := range it.p.reg.deg {
		if d > 0 {
			for q := j * k; q < (j+1)*k; q++ {
				v.Data[q] = max(v.Data[q], Eps)
			}
		}
	}
	it.logs()
}

// cdStep is one iteration of KL coordinate descent: V's rows against U,
// then U's rows against the new V, the sample weights on X's values (one
// weight per sample cancels in V's rows). The objective comes from the U
// half's final model values: no extra product.
//
// The start is not rescaled to the data first (alpha U V^T with the
// alpha that minimizes the objective, sum x / sum y): tried, it lowered
// the first objectives but, with one sweep a half, reached mu's
// 200-iteration objective later on TDT2 (tf-idf) and on la1 (counts)
// (docs/PERFORMANCE.md); from a start far above the data the first sweep
// sets many coordinates to zero, and the sparser factors converge faster.
//
// Each half needs only the other factor's column sums, so each is summed
// once, after the half that changed it (these sums run on one goroutine).
func (it *klIter) cdStep(eval bool) (float64, error) {
	f := it.f
	it.sumU()
	// LPNMF's V half is not measured (projGrad).
	it.measured = eval && !it.graph
	var su, sv *kktSums
	if it.measured {
		su, sv = &it.kktU, &it.kktV
	}
	if it.graph {
		it.cdGraphHalf(klSweepsV)
	} else {
		it.cdHalf(it.xt, it.xt.Val, f.v, f.a, it.colU, nil, sv, it.gamma, klSweepsV)
	}
	it.sumV()
	lin := it.wsumV
	if it.invariant {
		// For fixed V the graph term sum_c s_c rc[c] is linear in U,
		// with coefficients rc[c] on U's column sums.
		it.graphTerms(it.rc)
		for c := range lin {
			it.den[c] = it.wsumV[c] + it.rc[c]
		}
		lin = it.den
	}
	var logs []float64
	if eval {
		logs = it.rowLogs
	}
	it.cdHalf(it.x, it.xw, f.a, f.v, lin, logs, su, nil, klSweepsU)
	if !eval {
		return math.NaN(), nil
	}
	it.sumU()
	var xlogy float64
	for _, s := range it.rowLogs {
		xlogy += s
	}
	obj := it.xlogx - xlogy + asm.Dot(it.colU, it.wsumV)
	switch {
	case it.invariant:
		// rc is V's, which the U half left alone.
		obj += asm.Dot(it.colU, it.rc)
	case it.graph:
		it.graphTerms(it.rc)
		for _, r := range it.rc {
			obj += r
		}
	}
	return obj, nil
}
