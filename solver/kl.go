package solver

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/manifactor/manifactor/internal/nmfstep"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// klIter runs NMF under the KL divergence and LPNMF (paper 003). It
// minimizes
//
//	sum_j g_j sum_i (x_ij log(x_ij / y_ij) - x_ij + y_ij) + lambda R,  Y = U V^T,
//	R = 1/2 sum_{j,s} W_js sum_c (v_jc - v_sc)(log v_jc - log v_sc),
//
// with sample weights g (all 1, or 1/(x_j^T X e) scaled to average 1 for
// -ncw), V first:
//
//	V: each column v_c solves (s_c G + lambda L) v_c = G b_c,
//	   b_jc = v_jc sum_i x_ij u_ic / y_ij,  s_c = sum_i u_ic    (eq. 9)
//	   (with lambda = 0: v_jc <- b_jc / s_c, the NMF-KL update of eq. 2)
//	U: u_ic <- u_ic (sum_j g_j x_ij v_jc / y_ij) / (sum_j g_j v_jc)  (eq. 8)
//
// Under ScaleInvariant the graph term is lambda sum_c s_c R_c(V) with s_c
// the column sums of U (R_c is column c's part of R): R_c(V D) = d_c R_c(V),
// so the objective does not change when U's columns are multiplied by d_c
// and V's divided. U's column sums are brought to 1 at the start and after
// every iteration; with s_c = 1 the V update above is the paper's, and for
// fixed V the graph term is linear in U with coefficients lambda R_c >= 0,
// which adds lambda R_c to the denominator of U's step (a linear term is
// its own auxiliary function), so the objective does not increase.
//
// The ratio X ./ Y is needed only at X's non-zeros: each is one length-k
// dot (a sampled product), followed in the same pass by the gather of the
// ratio-weighted rows, so U V^T is never formed. sum(Y) comes from the
// column sums of U and V. y is floored at Eps so that an all-zero row or
// column gives zeros, never NaN.
type klIter struct {
	p       *problem
	f       *factors
	x, xt   *sparse.CSR // X (features as rows) and X^T (samples as rows)
	gamma   []float64   // per-sample weights, nil for all ones
	xlogx   float64     // sum g_j (x log x - x) over the non-zeros
	colU    []float64
	wsumV   []float64 // sum_j g_j v_jc
	b       blas64.General
	rxt     []float64 // x / y at each stored entry of X^T
	cg      cgStats
	vdots   []float64 // per sample: sum_i x_ij log y_ij
	scratch [][]float64
	// graph: LPNMF with a regularizer. invariant: its scale-invariant
	// graph term (ScaleInvariant); rc[c] is lambda R_c(V) for the current
	// V, den the U half's denominator (linear coefficients under CD),
	// logV the floored logarithms of V's entries, which CD keeps current
	// as it moves V (scaleStart, floorGraphRows, cdGraphHalf).
	graph, invariant bool
	rc, den          []float64
	logV             []float64
	// Under CD (NMF-KL and its NC-weighted form): cd set, the workers'
	// space, the U half's per-row shares of sum x log y, and X's values
	// times the sample weights (X's own without weights).
	cd      bool
	cdWork  []*klCDWork
	rowLogs []float64
	xw      []float64
	// kktU and kktV hold the measure of stationarity of the last U and V
	// halves (see projGrader), na and nv the squared column lengths.
	kktU, kktV kktSums
	na, nv     []float64
	measured   bool
}

func newKLIter(p *problem, f *factors) *klIter {
	k := f.k
	it := &klIter{p: p, f: f, x: p.klX, xt: p.klXT, gamma: p.gamma, colU: make([]float64, k), wsumV: make([]float64, k),
		vdots: make([]float64, p.d.n), rxt: make([]float64, p.klXT.NNZ()),
		na: make([]float64, k), nv: make([]float64, k)}
	it.cd = p.opts.Algorithm == CD
	if p.spec.Base() == LPNMF && p.reg != nil {
		it.graph, it.logV, it.rc = true, make([]float64, p.d.n*k), make([]float64, k)
		if !it.cd {
			it.b = general(p.d.n, k)
		}
		if p.opts.Formulation == ScaleInvariant {
			it.invariant, it.den = true, make([]float64, k)
		}
	}
	if it.cd {
		it.rowLogs, it.xw = make([]float64, it.x.Rows), weightedValues(it.x, it.gamma)
	}
	it.xlogx = xLogX(it.xt, it.gamma, p.opts.Threads)
	return it
}

func (it *klIter) weight(j int) float64 { return weightOf(it.gamma, j) }

// weightedValues returns x's values (features as rows, samples as
// columns) times their samples' weights; x's own without weights.
func weightedValues(x *sparse.CSR, gamma []float64) []float64 {
	if gamma == nil {
		return x.Val
	}
	w := make([]float64, len(x.Val))
	for q, j := range x.Ind {
		w[q] = gamma[j] * x.Val[q]
	}
	return w
}

// weightOf is sample j's weight: gamma[j], or 1 without weights.
func weightOf(gamma []float64, j int) float64 {
	if gamma == nil {
		return 1
	}
	return gamma[j]
}

// xLogX returns sum_j g_j sum (x log x - x) over the positive entries of
// xt (samples as rows), the data's constant part of the KL objective. In
// fixed chunks of samples, summed in order (fixedSum): a logarithm a
// stored entry, 70 million of them at 500,000 documents, would be one
// goroutine's work at every start.
func xLogX(xt *sparse.CSR, gamma []float64, threads int) float64 {
	return fixedSum(xt.Rows, threads, func(lo, hi int) float64 {
		var s float64
		for j := lo; j < hi; j++ {
			g := weightOf(gamma, j)
			for q := xt.Indptr[j]; q < xt.Indptr[j+1]; q++ {
				if x := xt.Val[q]; x > 0 {
					s += g * (x*math.Log(x) - x)
				}
			}
		}
		return s
	})
}

func (it *klIter) buffers(workers, k int) {
	for len(it.scratch) < workers {
		it.scratch = append(it.scratch, parallel.OwnRows(1, k)[0])
	}
}

// sampledRows runs, for each row r of a (X for the U half), the ratios
// x / max(f_r . h_c, Eps) over the row's non-zeros c, times colWeight[c]
// when given, and calls fn(r, num) with num = sum_c ratio * h_c: the
// sampled product (one DotGather call) and the gather run back to back on
// the row, while h's rows it touches are still in cache. Rows are independent and run in parallel; fn must only touch
// row r's data.
func (it *klIter) sampledRows(a *sparse.CSR, f, h blas64.General, colWeight []float64, fn func(r int, num []float64)) {
	k := f.Cols
	th := it.p.opts.Threads
	it.buffers(parallel.Workers(a.Rows, th, 64), k)
	tmp := make([][]float64, len(it.scratch))
	parallel.ForWorker(a.Rows, th, 64, func(worker, lo, hi int) {
		num := it.scratch[worker]
		for r := lo; r < hi; r++ {
			p0, p1 := a.Indptr[r], a.Indptr[r+1]
			fr := f.Data[r*k : (r+1)*k]
			if cap(tmp[worker]) < p1-p0 {
				tmp[worker] = make([]float64, 0, 2*(p1-p0))
			}
			rt := tmp[worker][:p1-p0]
			asm.DotGather(rt, fr, a.Ind[p0:p1], h.Data, k)
			for q := p0; q < p1; q++ {
				rt[q-p0] = a.Val[q] / max(rt[q-p0], Eps)
				if colWeight != nil {
					rt[q-p0] *= colWeight[a.Ind[q]]
				}
			}
			clear(num)
			if p1 > p0 {
				asm.AxpyGather(num, rt, a.Ind[p0:p1], h.Data, k)
			}
			fn(r, num)
		}
	})
}

// gatherRows calls fn(r, num) with num = sum_c ratios[c] h_c over row r's
// stored entries of a, for ratios computed by an earlier sampledRows.
func (it *klIter) gatherRows(a *sparse.CSR, ratios []float64, h blas64.General, fn func(r int, num []float64)) {
	k := h.Cols
	th := it.p.opts.Threads
	it.buffers(parallel.Workers(a.Rows, th, 64), k)
	parallel.ForWorker(a.Rows, th, 64, func(worker, lo, hi int) {
		num := it.scratch[worker]
		for r := lo; r < hi; r++ {
			p0, p1 := a.Indptr[r], a.Indptr[r+1]
			clear(num)
			if p1 > p0 {
				asm.AxpyGather(num, ratios[p0:p1], a.Ind[p0:p1], h.Data, k)
			}
			fn(r, num)
		}
	})
}

// sums sets colU and wsumV for the current factors.
func (it *klIter) sums() {
	it.sumU()
	it.sumV()
}

// sumU sets colU, the column sums of U (columnSumsBy).
func (it *klIter) sumU() {
	k, f := it.f.k, it.f
	columnSumsBy(it.colU, f.a.Rows, it.p.opts.Threads, func(i int, acc []float64) {
		asm.Axpy(1, f.a.Data[i*k:(i+1)*k], acc)
	})
}

// sumV sets wsumV, the sample-weighted column sums of V (columnSumsBy).
func (it *klIter) sumV() {
	k, f := it.f.k, it.f
	columnSumsBy(it.wsumV, f.v.Rows, it.p.opts.Threads, func(j int, acc []float64) {
		asm.Axpy(it.weight(j), f.v.Data[j*k:(j+1)*k], acc)
	})
}

// evaluate forms, for the current factors, the ratios at X^T's non-zeros
// (which the next V half reuses: same U and V) and the per-sample sums of
// x log y; then returns the objective. With eval unset it forms only the
// ratios: the logarithms serve the objective alone.
func (it *klIter) evaluate(eval bool) float64 {
	it.sums()
	// y at X^T's stored entries, then x / y and sum x log y per sample.
	it.xt.SampledTo(it.rxt, it.f.v, it.f.a, it.p.opts.Threads)
	parallel.For(it.xt.Rows, it.p.opts.Threads, 64, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			var logSum float64
			for q := it.xt.Indptr[j]; q < it.xt.Indptr[j+1]; q++ {
				y, x := max(it.rxt[q], Eps), it.xt.Val[q]
				it.rxt[q] = x / y
				if eval && x != 0 {
					logSum += x * math.Log(y)
				}
			}
			it.vdots[j] = logSum
		}
	})
	if !eval {
		return math.NaN()
	}
	return it.objective()
}

func (it *klIter) begin() float64 {
	if it.invariant {
		// The objective does not depend on the scale; the updates below
		// take U's column sums at 1.
		it.p.normalizeStart(it.f)
	}
	if it.cd && it.graph {
		it.scaleStart()
		it.floorGraphRows()
	}
	return it.evaluate(true)
}

func (it *klIter) step(eval bool) (float64, error) {
	if it.cd {
		return it.cdStep(eval)
	}
	k, f := it.f.k, it.f
	lpnmf := it.b.Data != nil
	// V half, from the stored ratios: num_j = sum_i x_ij u_i / y_ij.
	it.measured = eval
	if eval {
		it.kktV.reset(blocks(f.v.Rows, 64), k)
	}
	it.gatherRows(it.xt, it.rxt, f.a, func(j int, num []float64) {
		vj := f.v.Data[j*k : (j+1)*k]
		if lpnmf {
			g := it.weight(j)
			bj := it.b.Data[j*k : (j+1)*k]
			for c := range bj {
				bj[c] = g * vj[c] * num[c]
			}
			return
		}
		// One weight per sample cancels in v_j's own update, not in the
		// gradient.
		if eval {
			g := it.weight(j)
			pg, ref := it.kktV.block(j / 64)
			addProjGradDiff(pg, ref, vj, it.colU, num, g*g)
		}
		asm.MulUpdate(vj, num, it.colU, Eps)
	})
	if lpnmf {
		if err := it.solveV(); err != nil {
			return 0, err
		}
	}
	it.sums()
	den := it.wsumV
	if it.invariant {
		// For fixed V the graph term is sum_c (sum_i u_ic) rc[c], linear
		// in U with non-negative coefficients: it adds rc[c] to the
		// denominator of U's multiplicative step.
		it.graphTerms(it.rc)
		for c := range den {
			it.den[c] = it.wsumV[c] + it.rc[c]
		}
		den = it.den
	}
	// U half against the new V, the sample weights on the ratios.
	if eval {
		it.kktU.reset(blocks(f.a.Rows, 64), k)
	}
	it.sampledRows(it.x, f.a, f.v, it.gamma, func(i int, num []float64) {
		ui := f.a.Data[i*k : (i+1)*k]
		if eval {
			pg, ref := it.kktU.block(i / 64)
			addProjGradDiff(pg, ref, ui, den, num, 1)
		}
		asm.MulUpdate(ui, num, den, Eps)
	})
	if it.invariant {
		// U's column sums back to 1, V's columns scaled to match: U V^T
		// and the objective are unchanged.
		it.sums()
		norms := make([]float64, k)
		for c, x := range it.colU {
			norms[c] = x
			if !(x > 0) {
				norms[c] = 1
			}
		}
		nmfstep.ScaleColumns(f.a, norms, false, it.p.opts.Threads)
		nmfstep.ScaleColumns(f.v, norms, true, it.p.opts.Threads)
	}
	return it.evaluate(eval), nil
}

// projGrad gives the last iteration's measure, each half at the point its
// update started from (under cd, each coordinate's derivative as the
// first sweep reached it). LPNMF's V half is not measured: under MU it is
// a linear solve, not a step along the gradient, and under CD its graph
// term's data part is not defined here.
func (it *klIter) projGrad() (kktState, bool) {
	if it.graph || !it.measured {
		return kktState{}, false
	}
	// Nothing rescales the factors after the halves measured them.
	columnSquares(it.na, it.f.a.Data, it.p.opts.Threads)
	columnSquares(it.nv, it.f.v.Data, it.p.opts.Threads)
	return kktState{a: &it.kktU, v: &it.kktV, na: it.na, nv: it.nv}, true
}

// solveV solves LPNMF's k systems (s_c G + lambda L) v_c = b_c (b already
// weighted by G), warm-started from the current V, then sets round-off
// negatives to zero.
func (it *klIter) solveV() error {
	f, reg := it.f, it.p.reg
	a := &sparse.ShiftedLaplacian{W: reg.w, Degree: reg.deg, Lambda: 1, Weight: it.gamma, Shift: it.colU}
	o := it.p.opts
	ctx := it.p.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := sparse.SolveBlockCG(ctx, a, it.b, f.v, sparse.CGOptions{Tol: o.CGTol, MaxIter: o.CGMaxIter, Threads: o.Threads})
	st := &it.cg
	for _, r := range res {
		st.Solves++
		st.Iterations += r.Iterations
		st.MaxResidual = max(st.MaxResidual, r.Residual)
	}
	if err != nil {
		if errors.Is(err, sparse.ErrNotConverged) {
			return fmt.Errorf("solver: LPNMF's linear solve for V did not converge: %w (raise CGMaxIter or CGTol)", err)
		}
		return fmt.Errorf("solver: LPNMF's linear solve for V: %w", err)
	}
	for q, x := range f.v.Data {
		if x < 0 {
			f.v.Data[q] = 0
			st.Clamped++
		}
	}
	return nil
}

// objective adds the weighted divergence, from the per-sample sums of
// x log y and the column sums, and the graph term.
func (it *klIter) objective() float64 {
	k, f := it.f.k, it.f
	n := f.v.Rows
	th := it.p.opts.Threads
	div := it.xlogx - fixedSum(n, th, func(lo, hi int) float64 {
		var s float64
		for j := lo; j < hi; j++ {
			s += it.weight(j) * (it.vdots[j] - asm.Dot(it.colU, f.v.Data[j*k:(j+1)*k]))
		}
		return s
	})
	return div + it.symKL()
}

// symKL is lambda R: 1/2 sum_{j,s} lambda W_js sum_c (v_jc - v_sc)
// (log v_jc - log v_sc), with logs of entries floored at Eps.
func (it *klIter) symKL() float64 {
	if !it.graph {
		return 0
	}
	rc := make([]float64, it.f.k)
	it.graphTerms(rc)
	var s float64
	for _, x := range rc {
		s += x
	}
	return s
}

// graphTerms sets rc[c] to column c's part of lambda R for the current V:
// logarithms once per entry, then row chunks in parallel, each chunk's k
// sums added in chunk order so the result does not depend on threads.
func (it *klIter) graphTerms(rc []float64) {
	k, v, w := it.f.k, it.f.v, it.p.reg.w
	th := it.p.opts.Threads
	if !it.cd {
		it.logs()
	}
	columnSumsBy(rc, v.Rows, th, func(j int, acc []float64) {
		vj, lj := v.Data[j*k:(j+1)*k], it.logV[j*k:(j+1)*k]
		for q := w.Indptr[j]; q < w.Indptr[j+1]; q++ {
			s := w.Ind[q]
			vs, ls := v.Data[s*k:(s+1)*k], it.logV[s*k:(s+1)*k]
			h := 0.5 * w.Val[q]
			for col := range acc {
				acc[col] += h * (vj[col] - vs[col]) * (lj[col] - ls[col])
			}
		}
	})
}

// logs sets logV to the floored logarithms of V's entries.
func (it *klIter) logs() {
	v := it.f.v
	parallel.For(len(v.Data), it.p.opts.Threads, 4096, func(lo, hi int) {
		for q := lo; q < hi; q++ {
			it.logV[q] = math.Log(max(v.Data[q], Eps))
		}
	})
}

// blocks returns the number of blocks of size grain that cover n rows.
func blocks(n, grain int) int { return (n + grain - 1) / grain }
