package solver

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/klstep"
	"github.com/manifactor/manifactor/internal/nmfstep"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// maskedIter runs NMF and GNMF on data with hidden entries (Data.Hide).
// With H the hidden set and X_o the data with H's entries zero, it
// minimizes
//
//	sum over the entries not in H of (x_ij - u_i . v_j)^2 + lambda Tr(V^T L V)
//
// in the formulation of Options.Formulation, V first. Both solvers work
// from the unhidden products X_o V and X_o^T U and the Gram matrices, and
// correct them by the model's values y_ij = u_i . v_j at the hidden
// entries only, so a hidden share costs O(|H| k) an iteration, never an
// n x m array:
//
//	mu: v_j <- v_j .* (X_o^T U + lambda W V)_j ./
//	           max(v_j U^T U - sum_{i in H_j} y_ij u_i + lambda D_jj v_j, eps)
//
// and U's half alike with V^T V (plus the scale-invariant graph term's
// diagonal), the weighted multiplicative updates whose auxiliary function
// (Lee and Seung's, with the observed entries' Hessian) keeps the
// objective from increasing. cd sets one entry at a time to the exact
// minimizer of the objective along it, with the row's curvature
// G_cc - sum_{i in H_j} u_ic^2 (+ lambda D_jj) and the hidden entries'
// model values kept current as the row moves; the graph's rows go one
// colour at a time, as GNMF's cd does. Neither extrapolates. Both measure
// the projected gradient (Result.ProjGrad) of the masked objective as the
// unmasked methods do, so that PGTol stops a masked fit too: each row's
// gradient at the point its update starts from under mu, each
// coordinate's derivative as the sweep reaches it under cd, with the
// numerator (X_o V, X_o^T U and the graph's W V) as the data part.
type maskedIter struct {
	p         *problem
	f         *factors
	h         *mask
	cd        bool
	invariant bool // the scale-invariant graph term
	utu, vtv  blas64.General
	sv        blas64.General // V^T V + diag(gk)
	xtu, xv   blas64.General // X_o^T U, X_o V
	wv        blas64.General // lambda W V, with a graph term
	gk        []float64
	// The last evaluated iteration's stationarity sums, and the
	// factors' squared column lengths when they were taken.
	kktU, kktV kktSums
	na, nv     []float64
	measured   bool
}

func newMaskedIter(p *problem, f *factors) *maskedIter {
	d, k := p.d, f.k
	it := &maskedIter{p: p, f: f, h: d.hidden, cd: p.opts.Algorithm == CD,
		utu: general(k, k), vtv: general(k, k), sv: general(k, k), xtu: general(d.n, k), xv: general(d.m, k),
		na: make([]float64, k), nv: make([]float64, k)}
	if p.reg != nil {
		it.wv = general(d.n, k)
		if p.opts.Formulation == ScaleInvariant {
			it.invariant, it.gk = true, make([]float64, k)
		}
	}
	return it
}

func (it *maskedIter) begin() float64 {
	if it.invariant {
		it.p.normalizeStart(it.f)
	}
	it.prepareU()
	gramOf(it.utu, it.f.a, it.p.opts.Threads)
	return it.objective()
}

func (it *maskedIter) step(eval bool) (float64, error) {
	th := it.p.opts.Threads
	// U^T U and lambda W V are current: from begin, or from the previous
	// step's end, rescaled with the factors.
	it.p.d.mulTU(it.xtu, it.f.a, th)
	k := it.f.k
	var sumsV, sumsU *kktSums
	if it.measured = eval; eval {
		it.kktV.reset(blocks(it.f.v.Rows, 64)+it.colourBlocks(), k)
		it.kktU.reset(blocks(it.f.a.Rows, 64), k)
		sumsV, sumsU = &it.kktV, &it.kktU
	}
	switch {
	case it.cd && it.p.reg != nil:
		it.cdGraphV(sumsV)
	case it.cd:
		it.cdRows(it.f.v, it.f.a, it.xtu, it.utu, it.h.bySample, sumsV)
	default:
		it.muHalf(it.f.v, it.f.a, it.xtu, it.utu, it.h.bySample, true, sumsV)
	}
	it.prepareU()
	if it.cd {
		it.cdRows(it.f.a, it.f.v, it.xv, it.sv, it.h.byFeature, sumsU)
	} else {
		it.muHalf(it.f.a, it.f.v, it.xv, it.sv, it.h.byFeature, false, sumsU)
	}
	gramOf(it.utu, it.f.a, th)
	obj := math.NaN()
	if eval {
		obj = it.objective()
		// At the scaling the sums were taken at, before the
		// scale-invariant form's rescaling below.
		columnSquares(it.na, it.f.a.Data, th)
		columnSquares(it.nv, it.f.v.Data, th)
	}
	if it.invariant {
		// The objective does not change; the next V half takes U's
		// columns at unit length.
		s := unitScales(it.utu)
		nmfstep.ScaleColumns(it.f.a, s, false, th)
		nmfstep.ScaleColumns(it.f.v, s, true, th)
		nmfstep.ScaleColumns(it.wv, s, true, th)
		scaleGram(it.utu, s, false)
	}
	return obj, nil
}

// projGrad gives the last evaluated iteration's measure (see maskedIter).
func (it *maskedIter) projGrad() (kktState, bool) {
	return kktState{a: &it.kktU, v: &it.kktV, na: it.na, nv: it.nv}, it.measured
}

// colourBlocks is how many more blocks of 64 rows cdGraphV's colours
// can take than V's rows in one run (each colour starts a block).
func (it *maskedIter) colourBlocks() int {
	if !it.cd || it.p.reg == nil {
		return 0
	}
	return len(it.p.colors.start) - 1
}

// prepareU forms what U's half and the objective need of the current V:
// X_o V, V^T V, and with a graph term lambda W V and, scale-invariant,
// gk (V^T V + diag(gk) in sv; sv is V^T V otherwise).
func (it *maskedIter) prepareU() {
	th := it.p.opts.Threads
	it.p.d.mulV(it.xv, it.f.v, th)
	gramOf(it.vtv, it.f.v, th)
	copy(it.sv.Data, it.vtv.Data)
	if it.p.reg == nil {
		return
	}
	it.p.reg.w.MulDenseTo(it.wv, it.f.v, th)
	if it.invariant {
		columnGraphTerms(it.gk, it.f.v, it.wv, it.p.reg.deg, th)
		withDiagonal(it.sv, it.vtv, it.gk)
	}
}

// objective is the masked objective for the current factors, given
// prepareU's products for the current V and U^T U for the current U:
// ||X_o||^2 - 2 tr(U^T X_o V) + tr(U^T U V^T V) - sum_H y^2, plus the
// graph term.
func (it *maskedIter) objective() float64 {
	th, k := it.p.opts.Threads, it.f.k
	obj := it.p.d.sqNorm - 2*frob(it.f.a, it.xv, th) + frob(it.utu, it.vtv, 1) - it.hiddenSquares()
	if it.p.reg == nil {
		return obj
	}
	if it.invariant {
		return obj + diagDot(it.utu, it.gk)
	}
	deg, v := it.p.reg.deg, it.f.v
	return obj + fixedSum(v.Rows, th, func(lo, hi int) float64 {
		var s float64
		for j := lo; j < hi; j++ {
			vj, wj := v.Data[j*k:(j+1)*k], it.wv.Data[j*k:(j+1)*k]
			for c, x := range vj {
				s += deg[j]*x*x - x*wj[c]
			}
		}
		return s
	})
}

// hiddenSquares returns sum over H of y_ij^2, the part of ||X_o - U V^T||^2
// at the hidden entries, which the objective leaves out.
func (it *maskedIter) hiddenSquares() float64 {
	k, hs := it.f.k, it.h.bySample
	a, v := it.f.a.Data, it.f.v.Data
	return fixedSum(hs.Rows, it.p.opts.Threads, func(lo, hi int) float64 {
		var s float64
		var y []float64
		for j := lo; j < hi; j++ {
			rows := hiddenRow(hs, j)
			if len(rows) == 0 {
				continue
			}
			y = slices.Grow(y[:0], len(rows))[:len(rows)]
			asm.DotGather(y, v[j*k:(j+1)*k], rows, a, k)
			s += asm.Dot(y, y)
		}
		return s
	})
}

// maskWork is a worker's room for one row's hidden entries: the model's
// values there (y) and the other factor's rows at them, transposed (ht,
// column c contiguous), as asm.DotGatherT writes them.
type maskWork struct {
	y, ht, g, den []float64
}

func newMaskWork(k int) *maskWork {
	return &maskWork{g: make([]float64, k), den: make([]float64, k)}
}

// gather sets y and ht for f's row fr against h's rows at the hidden
// columns rows, and returns them.
func (w *maskWork) gather(fr []float64, rows []int, h blas64.General) (y, ht []float64) {
	nq, k := len(rows), len(fr)
	w.y = slices.Grow(w.y[:0], nq)[:nq]
	w.ht = slices.Grow(w.ht[:0], nq*k)[:nq*k]
	if nq > 0 {
		asm.DotGatherT(w.y, w.ht, fr, rows, h.Data, k)
	}
	return w.y, w.ht
}

// muHalf is the multiplicative step of f's rows against h (the other
// factor): row r's numerator num_r (+ lambda W V's row for V with a
// graph term), its denominator f_r s - sum_{t in hid_r} y_rt h_t (+
// lambda D_rr f_r). Each row is computed from the row as it was, so the
// rows are independent. With sums, each row's projected gradient, den -
// num, is added to its block of 64 rows.
func (it *maskedIter) muHalf(f, h, num, s blas64.General, hid *sparse.CSR, isV bool, sums *kktSums) {
	k := it.f.k
	reg := it.p.reg
	parallel.ForWorker(f.Rows, it.p.opts.Threads, 64, func(_, lo, hi int) {
		w := newMaskWork(k)
		for r := lo; r < hi; r++ {
			fr := f.Data[r*k : (r+1)*k]
			rows := hiddenRow(hid, r)
			y, ht := w.gather(fr, rows, h)
			matVec(w.den, fr, s)
			nr := num.Data[r*k : (r+1)*k]
			var pg, ref []float64
			if sums != nil {
				pg, ref = sums.block(r / 64)
			}
			for c := range fr {
				dn, nm := w.den[c], nr[c]
				if nq := len(rows); nq > 0 {
					dn -= asm.Dot(y, ht[c*nq:(c+1)*nq])
				}
				if isV && reg != nil {
					dn += reg.deg[r] * fr[c]
					nm += it.wv.Data[r*k+c]
				}
				if pg != nil {
					g := projected(fr[c], dn-nm)
					pg[c] += g * g
					ref[c] += nm * nm
				}
				fr[c] *= nm / max(dn, Eps)
			}
		}
	})
}

// cdRow sets each entry of f's row r in turn to the minimizer of the
// objective along it, against h (the other factor), the row's data
// product num_r and s (h^T h, with the scale-invariant ridge for U). deg
// and nb are the graph term's for a row of V (deg 0 and nb nil
// otherwise): lambda D_rr and lambda (W V)_r for the neighbours' current
// rows. With pg and ref, each coordinate's projected derivative as the
// sweep reaches it, and its data part, are added to them.
func (it *maskedIter) cdRow(w *maskWork, r int, f, h, num, s blas64.General, hid *sparse.CSR, deg float64, nb, pg, ref []float64) {
	k := it.f.k
	fr := f.Data[r*k : (r+1)*k]
	nr := num.Data[r*k : (r+1)*k]
	rows := hiddenRow(hid, r)
	nq := len(rows)
	y, ht := w.gather(fr, rows, h) // kept current as fr moves
	g := w.g
	matVec(g, fr, s)
	for c := 0; c < k; c++ {
		grad, curv := g[c]-nr[c]+deg*fr[c], s.Data[c*k+c]+deg
		if nb != nil {
			grad -= nb[c]
		}
		hc := ht[c*nq : (c+1)*nq]
		if nq > 0 {
			grad -= asm.Dot(y, hc)
			curv -= asm.Dot(hc, hc)
		}
		if pg != nil {
			g, data := projected(fr[c], grad), nr[c]
			if nb != nil {
				data += nb[c]
			}
			pg[c] += g * g
			ref[c] += data * data
		}
		if !(curv > 0) {
			continue // the objective does not depend on this entry
		}
		nv := max(0, fr[c]-grad/curv)
		delta := nv - fr[c]
		if delta == 0 {
			continue
		}
		fr[c] = nv
		asm.Axpy(delta, s.Data[c*k:(c+1)*k], g)
		if nq > 0 {
			asm.Axpy(delta, hc, y)
		}
	}
}

// cdRows runs cdRow on every row of f (no graph term): rows are
// independent. With sums, the measure goes to each row's block of 64.
func (it *maskedIter) cdRows(f, h, num, s blas64.General, hid *sparse.CSR, sums *kktSums) {
	parallel.ForWorker(f.Rows, it.p.opts.Threads, 64, func(_, lo, hi int) {
		w := newMaskWork(it.f.k)
		for r := lo; r < hi; r++ {
			var pg, ref []float64
			if sums != nil {
				pg, ref = sums.block(r / 64)
			}
			it.cdRow(w, r, f, h, num, s, hid, 0, nil, pg, ref)
		}
	})
}

// cdGraphV is V's cd half with a graph term: rows of one colour share no
// edge, so they run in parallel, colour after colour, each against its
// neighbours' latest rows. With sums, the measure goes to blocks of 64
// rows of a colour, the colours' blocks one after another.
func (it *maskedIter) cdGraphV(sums *kktSums) {
	k, reg, col := it.f.k, it.p.reg, it.p.colors
	v := it.f.v
	first := 0 // the colour's first block
	for c := 0; c+1 < len(col.start); c++ {
		rows := col.order[col.start[c]:col.start[c+1]]
		parallel.For(len(rows), it.p.opts.Threads, 64, func(lo, hi int) {
			nb, work := make([]float64, k), newMaskWork(k)
			var pg, ref []float64
			if sums != nil {
				pg, ref = sums.block(first + lo/64)
			}
			for _, j := range rows[lo:hi] {
				clear(nb)
				for q := reg.w.Indptr[j]; q < reg.w.Indptr[j+1]; q++ {
					l := reg.w.Ind[q]
					asm.Axpy(reg.w.Val[q], v.Data[l*k:(l+1)*k], nb)
				}
				it.cdRow(work, j, v, it.f.a, it.xtu, it.utu, it.h.bySample, reg.deg[j], nb, pg, ref)
			}
		})
		first += (len(rows) + 63) / 64
	}
}

// hiddenRow returns the hidden entries' columns in row r of the mask's
// orientation m.
func hiddenRow(m *sparse.CSR, r int) []int { return m.Ind[m.Indptr[r]:m.Indptr[r+1]] }

// matVec sets dst = x s for the k-vector x and the k x k s.
func matVec(dst, x []float64, s blas64.General) {
	k := len(x)
	clear(dst)
	for a, xa := range x {
		if xa == 0 {
			continue
		}
		for b, sb := range s.Data[a*k : (a+1)*k] {
			dst[b] += xa * sb
		}
	}
}

// gramOf sets dst (k x k) = a^T a in fixed chunks of rows, added in order,
// so that it does not depend on threads.
func gramOf(dst, a blas64.General, threads int) {
	k := a.Cols
	columnSumsBy(dst.Data, a.Rows, threads, func(i int, acc []float64) {
		ai := a.Data[i*k : (i+1)*k]
		for x, ax := range ai {
			if ax == 0 {
				continue
			}
			for y, ay := range ai {
				acc[x*k+y] += ax * ay
			}
		}
	})
}

// maskedKLIter runs NMF-KL on data with hidden entries: it minimizes
//
//	sum_j g_j sum over the i with (i, j) not in H of
//	    (x_ij log(x_ij / y_ij) - x_ij + y_ij),  Y = U V^T,
//
// V first. The divergence's linear part, the sum of y over a row's
// observed entries, is the other factor's column sums less its rows at
// the row's hidden entries, and the ratios x / y are needed at X_o's
// non-zeros only:
//
//	mu: v_jc <- v_jc (sum_i u_ic x_ij / y_ij) / max(sum_i u_ic - sum_{i in H_j} u_ic, eps)
//
// (U's half alike, each sample's terms weighted by g_j): Lee and Seung's
// KL updates over the observed entries, which keep the objective from
// increasing. cd runs klstep.Row on each row with those linear coefficients.
type maskedKLIter struct {
	p     *problem
	f     *factors
	h     *mask
	x, xt *sparse.CSR // X_o (features as rows) and X_o^T
	gamma []float64   // per-sample weights, nil for all ones
	xw    []float64   // X_o's values times the sample weights
	cd    bool
	colU  []float64 // U's column sums
	wsumV []float64 // sum_j g_j v_j
	xlogx float64   // sum g_j (x log x - x) over X_o's non-zeros
}

func newMaskedKLIter(p *problem, f *factors) *maskedKLIter {
	k := f.k
	it := &maskedKLIter{p: p, f: f, h: p.d.hidden, x: p.klX, xt: p.klXT, gamma: p.gamma, xw: weightedValues(p.klX, p.gamma),
		cd: p.opts.Algorithm == CD, colU: make([]float64, k), wsumV: make([]float64, k)}
	it.xlogx = xLogX(it.xt, it.gamma, p.opts.Threads)
	return it
}

func (it *maskedKLIter) weight(j int) float64 { return weightOf(it.gamma, j) }

func (it *maskedKLIter) begin() float64 { return it.objective() }

func (it *maskedKLIter) step(eval bool) (float64, error) {
	k, th := it.f.k, it.p.opts.Threads
	f := it.f
	columnSumsBy(it.colU, f.a.Rows, th, func(i int, acc []float64) {
		for c, x := range f.a.Data[i*k : (i+1)*k] {
			acc[c] += x
		}
	})
	it.half(it.xt, it.xt.Val, f.v, f.a, it.colU, it.h.bySample, nil, klSweepsV)
	columnSumsBy(it.wsumV, f.v.Rows, th, func(j int, acc []float64) {
		w := it.weight(j)
		for c, x := range f.v.Data[j*k : (j+1)*k] {
			acc[c] += w * x
		}
	})
	it.half(it.x, it.xw, f.a, f.v, it.wsumV, it.h.byFeature, it.gamma, klSweepsU)
	if !eval {
		return math.NaN(), nil
	}
	return it.objective(), nil
}

// half updates every row r of f (a's rows, vals a's values, weighted or
// not) against h, sweeps cd sweeps a row: the row's linear coefficients are lin less the hidden
// entries' rows of h (times gamma where given), its ratios x / y at a's
// stored entries. Rows are independent.
func (it *maskedKLIter) half(a *sparse.CSR, vals []float64, f, h blas64.General, lin []float64, hid *sparse.CSR, gamma []float64, sweeps int) {
	k := it.f.k
	parallel.ForWorker(a.Rows, it.p.opts.Threads, 16, func(_, lo, hi int) {
		own, num := make([]float64, k), make([]float64, k)
		var ht, y, ratios []float64
		for r := lo; r < hi; r++ {
			fr := f.Data[r*k : (r+1)*k]
			copy(own, lin)
			for _, t := range hiddenRow(hid, r) {
				w := 1.0
				if gamma != nil {
					w = gamma[t]
				}
				asm.Axpy(-w, h.Data[t*k:(t+1)*k], own)
			}
			p0, p1 := a.Indptr[r], a.Indptr[r+1]
			nq := p1 - p0
			if it.cd {
				if nq == 0 {
					clear(fr) // the row's objective is own . fr: zero is its minimum
					continue
				}
				if cap(ht) < nq*k {
					ht, y, ratios = make([]float64, 2*nq*k), make([]float64, 2*nq), make([]float64, 4*nq)
				}
				asm.DotGatherT(y[:nq], ht[:nq*k], fr, a.Ind[p0:p1], h.Data, k)
				for c := range own {
					own[c] = max(own[c], 0) // round-off below the true, non-negative sum
				}
				klstep.Row(fr, own, vals[p0:p1], ht[:nq*k], y[:nq], ratios, sweeps, nil, nil, 1, nil, Eps)
				continue
			}
			clear(num)
			for q := p0; q < p1; q++ {
				hq := h.Data[a.Ind[q]*k : (a.Ind[q]+1)*k]
				asm.Axpy(vals[q]/max(asm.Dot(fr, hq), Eps), hq, num)
			}
			for c := range fr {
				fr[c] *= num[c] / max(own[c], Eps)
			}
		}
	})
}

// objective is the masked divergence for the current factors.
func (it *maskedKLIter) objective() float64 {
	k, f, hs := it.f.k, it.f, it.h.bySample
	colU := make([]float64, k)
	for i := 0; i < f.a.Rows; i++ {
		for c, x := range f.a.Data[i*k : (i+1)*k] {
			colU[c] += x
		}
	}
	return it.xlogx + fixedSum(it.xt.Rows, it.p.opts.Threads, func(lo, hi int) float64 {
		var s float64
		for j := lo; j < hi; j++ {
			vj := f.v.Data[j*k : (j+1)*k]
			t := asm.Dot(colU, vj)
			for q := hs.Indptr[j]; q < hs.Indptr[j+1]; q++ {
				t -= asm.Dot(f.a.Data[hs.Ind[q]*k:(hs.Ind[q]+1)*k], vj)
			}
			for q := it.xt.Indptr[j]; q < it.xt.Indptr[j+1]; q++ {
				if x := it.xt.Val[q]; x != 0 {
					t -= x * math.Log(max(asm.Dot(f.a.Data[it.xt.Ind[q]*k:(it.xt.Ind[q]+1)*k], vj), Eps))
				}
			}
			s += it.weight(j) * t
		}
		return s
	})
}
