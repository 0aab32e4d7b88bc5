package sparse

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
)

// CGOptions configures SolveCG and SolveBlockCG; the zero value is sensible.
type CGOptions struct {
	// Tol is the relative residual ||b - A x|| / ||b|| at which a system
	// counts as solved; 0 means 1e-10.
	Tol float64
	// MaxIter caps the conjugate-gradient steps of each system; 0 means
	// 1000.
	MaxIter int
	// Threads is the number of goroutines; 0 means GOMAXPROCS. Results are
	// bit-for-bit the same for any value.
	Threads int
}

// CGResult reports the solve of one system.
type CGResult struct {
	// Iterations is the number of conjugate-gradient steps taken.
	Iterations int
	// Residual is the final relative residual ||b - A x|| / ||b||,
	// recomputed from the returned x rather than taken from the
	// recurrence. It is 0 when b = 0 (x is then set to 0).
	Residual float64
	// Converged reports whether Residual <= Tol.
	Converged bool
}

// ErrNotConverged is wrapped by the error SolveCG and SolveBlockCG return
// when some system stays above the tolerance: after MaxIter steps, when
// the residual stops decreasing, or at a breakdown (p'Ap <= 0, so the
// matrix is not symmetric positive definite). The message names the first
// such column and its residual; the results hold every column's.
var ErrNotConverged = errors.New("sparse: conjugate gradients did not reach the tolerance")

// ShiftedLaplacian is the family of k sparse matrices
//
//	A_c = Shift[c] * diag(Weight) + Lambda * (diag(Degree) - W),  c = 0..k-1,
//
// a shifted graph Laplacian, as in LPNMF's update for V. With W symmetric
// and non-negative, Degree >= W's row sums, Weight > 0 and Shift > 0, each
// A_c is a symmetric positive definite M-matrix. All k matrices share W, so
// SolveBlockCG solves their systems with one W product per step.
type ShiftedLaplacian struct {
	W      *CSR      // n x n, symmetric, non-negative; its diagonal, if stored, is honoured
	Degree []float64 // length n: the diagonal D, taken as given (not recomputed from W)
	Lambda float64   // >= 0
	Weight []float64 // length n, positive: per-row weights of the shift term; nil means all ones
	Shift  []float64 // length k, positive: one shift per system
}

// SolveBlockCG solves A_c x_c = b_c, with A_c from a, for every column c of
// the n x k row-major matrices b and x, by the conjugate-gradient method
// with the Jacobi (diagonal) preconditioner M_c = diag(A_c):
//
//	r = b - A x,  z = M^-1 r,  p = z
//	repeat: alpha = r'z / p'Ap,  x += alpha p,  r -= alpha Ap,
//	        beta = r'z (new) / r'z (old),  p = z + beta p
//
// x holds the starting guess on entry (a warm start) and the solution on
// return. All columns advance together, so a step costs one sparse product
// W P for the n x k block of search directions; a column whose recurrence
// residual falls to opt.Tol is frozen (its x no longer changes) and dropped
// from the block. A frozen column's true residual ||b - A x|| / ||b|| is
// then recomputed; if it is still above the tolerance the column restarts
// from its x. A column with b_c = 0 gets x_c = 0.
//
// Every sum over rows is taken in fixed chunks of rows added in chunk
// order, so x is the same, bit for bit, for any opt.Threads.
//
// SolveBlockCG panics if the shapes of a, b and x do not fit. It returns an
// error, and no results, for data it cannot use: Lambda negative or not
// finite, a shift or weight not positive and finite, a degree not finite,
// a non-positive diagonal of A_c, a non-finite entry of b or x. If a column
// does not converge, the results and x are filled in and the error wraps
// ErrNotConverged; x is the last iterate, the one with the smallest error
// in the A-norm (CG's residual norm need not decrease monotonically). If
// ctx is cancelled, the results for the iterate reached are returned with
// ctx's error.
func SolveBlockCG(ctx context.Context, a *ShiftedLaplacian, b, x blas64.General, opt CGOptions) ([]CGResult, error) {
	n, k := a.W.Rows, len(a.Shift)
	if a.W.Cols != n {
		panic("sparse: SolveBlockCG needs a square W")
	}
	if len(a.Degree) != n || (a.Weight != nil && len(a.Weight) != n) {
		panic("sparse: SolveBlockCG needs one degree and one weight per row of W")
	}
	if b.Rows != n || b.Cols != k || x.Rows != n || x.Cols != k {
		panic("sparse: SolveBlockCG dimension mismatch")
	}
	tol, maxIter, err := opt.settings()
	if err != nil {
		return nil, err
	}
	if a.Lambda < 0 || math.IsNaN(a.Lambda) || math.IsInf(a.Lambda, 0) {
		return nil, fmt.Errorf("sparse: SolveBlockCG: lambda is %v, want finite and >= 0", a.Lambda)
	}
	minShift := math.Inf(1)
	for c, s := range a.Shift {
		if !(s > 0) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("sparse: SolveBlockCG: shift of column %d (1-based) is %v, want positive and finite", c+1, s)
		}
		minShift = min(minShift, s)
	}
	wdiag := csrDiagonal(a.W)
	for i, d := range a.Degree {
		g := 1.0
		if a.Weight != nil {
			g = a.Weight[i]
			if !(g > 0) || math.IsInf(g, 0) {
				return nil, fmt.Errorf("sparse: SolveBlockCG: weight of row %d (1-based) is %v, want positive and finite", i+1, g)
			}
		}
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return nil, fmt.Errorf("sparse: SolveBlockCG: degree of row %d (1-based) is %v, want finite", i+1, d)
		}
		if k > 0 {
			if ad := g*minShift + a.Lambda*(d-wdiag[i]); !(ad > 0) || math.IsInf(ad, 0) {
				return nil, fmt.Errorf("sparse: SolveBlockCG: row %d (1-based): diagonal of A at the smallest shift is %v, want positive and finite (degree %v, W's diagonal %v)", i+1, ad, d, wdiag[i])
			}
		}
	}
	if err := checkFiniteGeneral(b, "b"); err != nil {
		return nil, err
	}
	if err := checkFiniteGeneral(x, "x"); err != nil {
		return nil, err
	}
	base := make([]float64, n)
	for i, d := range a.Degree {
		base[i] = a.Lambda * d
	}
	sys := &cgSystem{mat: a.W, matScale: -a.Lambda, matDiag: wdiag, base: base, weight: a.Weight, shift: a.Shift}
	return newBlockCG(sys, b, x, tol, maxIter, opt.Threads, false).run(ctx)
}

// SolveCG solves a x = b for a symmetric positive definite a by the
// conjugate-gradient method with the Jacobi (diagonal) preconditioner; the
// iteration is the one SolveBlockCG documents, for a single column. x holds
// the starting guess on entry and the solution on return. The result is
// the same for any opt.Threads.
//
// SolveCG panics if a is not square or b and x do not have a.Rows entries.
// It returns an error for a diagonal entry of a that is not positive (or
// missing) and for non-finite entries of b or x; it does not check that a
// is symmetric (a breakdown or a failure to converge reports that). If the
// tolerance is not reached, x holds the last iterate and the error wraps
// ErrNotConverged.
func SolveCG(ctx context.Context, a *CSR, b, x []float64, opt CGOptions) (CGResult, error) {
	n := a.Rows
	if a.Cols != n {
		panic("sparse: SolveCG needs a square matrix")
	}
	if len(b) != n || len(x) != n {
		panic("sparse: SolveCG dimension mismatch")
	}
	tol, maxIter, err := opt.settings()
	if err != nil {
		return CGResult{}, err
	}
	diag := csrDiagonal(a)
	for i, d := range diag {
		if !(d > 0) {
			return CGResult{}, fmt.Errorf("sparse: SolveCG: row %d (1-based): diagonal entry %v is not positive", i+1, d)
		}
	}
	bg := blas64.General{Rows: n, Cols: 1, Stride: 1, Data: b}
	xg := blas64.General{Rows: n, Cols: 1, Stride: 1, Data: x}
	if err := checkFiniteGeneral(bg, "b"); err != nil {
		return CGResult{}, err
	}
	if err := checkFiniteGeneral(xg, "x"); err != nil {
		return CGResult{}, err
	}
	sys := &cgSystem{mat: a, matScale: 1, matDiag: diag}
	res, err := newBlockCG(sys, bg, xg, tol, maxIter, opt.Threads, true).run(ctx)
	return res[0], err
}

func (o CGOptions) settings() (tol float64, maxIter int, err error) {
	tol, maxIter = o.Tol, o.MaxIter
	if tol < 0 || math.IsNaN(tol) {
		return 0, 0, fmt.Errorf("sparse: CG tolerance %v is negative", tol)
	}
	if maxIter < 0 {
		return 0, 0, fmt.Errorf("sparse: CG iteration limit %d is negative", maxIter)
	}
	if tol == 0 {
		tol = 1e-10
	}
	if maxIter == 0 {
		maxIter = 1000
	}
	return tol, maxIter, nil
}

// csrDiagonal returns a's stored diagonal, zero where none is stored.
func csrDiagonal(a *CSR) []float64 {
	d := make([]float64, min(a.Rows, a.Cols))
	for i := range d {
		lo, hi := a.Indptr[i], a.Indptr[i+1]
		if p := lo + sort.SearchInts(a.Ind[lo:hi], i); p < hi && a.Ind[p] == i {
			d[i] = a.Val[p]
		}
	}
	return d
}

func checkFiniteGeneral(g blas64.General, name string) error {
	for i := 0; i < g.Rows; i++ {
		for c, v := range g.Data[i*g.Stride : i*g.Stride+g.Cols] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("sparse: CG: %s at row %d, column %d (1-based) is %v", name, i+1, c+1, v)
			}
		}
	}
	return nil
}

// cgSystem is the operator of the block solver: column c of A P is
//
//	(base + weight*shift[c]) .* p_c + matScale * mat p_c
//
// with nil base meaning zeros, nil weight ones and nil shift zeros
// (newBlockCG fills base and weight in, as the kernels take them).
type cgSystem struct {
	mat      *CSR
	matScale float64
	matDiag  []float64
	base     []float64
	weight   []float64
	shift    []float64
}

// blockCG holds the state of one block solve. The working matrices are
// n x m, row-major with stride m, over the m active columns cols; they are
// allocated for all k columns and shrink in place as columns freeze.
type blockCG struct {
	sys     *cgSystem
	b, x    blas64.General
	n       int
	tol     float64
	maxIter int
	threads int
	chunks  int
	single  bool // SolveCG: error messages name no column

	cols  []int     // original column of each slot
	shift []float64 // shift of each slot

	p, q, r, invD  []float64
	spareR, spareD []float64

	part        [3][]float64 // per-chunk partial sums, chunk c's m at c*ps
	ps          int          // the chunks' stride in part, a cache line more than k
	sum         [3][]float64
	alpha, beta []float64
	rz          []float64
}

func newBlockCG(sys *cgSystem, b, x blas64.General, tol float64, maxIter, threads int, single bool) *blockCG {
	n, k := b.Rows, b.Cols
	s := &blockCG{sys: sys, b: b, x: x, n: n, tol: tol, maxIter: maxIter, threads: threads, single: single,
		chunks: (n + rowsPerChunk - 1) / rowsPerChunk}
	s.cols = make([]int, 0, k)
	s.shift = make([]float64, 0, k)
	if sys.base == nil {
		sys.base = make([]float64, n)
	}
	if sys.weight == nil {
		sys.weight = make([]float64, n)
		for i := range sys.weight {
			sys.weight[i] = 1
		}
	}
	for _, buf := range []*[]float64{&s.p, &s.q, &s.r, &s.invD, &s.spareR, &s.spareD} {
		*buf = make([]float64, n*k)
	}
	// Neighbouring chunks run on different goroutines at once and add
	// into their partials on every row (at k = 10, end to end, a residual
	// step took far longer an entry than at k = 30).
	s.ps = parallel.Apart(k)
	for t := range s.part {
		s.part[t] = make([]float64, s.chunks*s.ps)
		s.sum[t] = make([]float64, k)
	}
	s.alpha, s.beta, s.rz = make([]float64, k), make([]float64, k), make([]float64, k)
	return s
}

// forRows runs body over fixed chunks of rowsPerChunk rows; chunk is the
// chunk's index, the same for any thread count.
func (s *blockCG) forRows(body func(chunk, lo, hi int)) {
	// Each goroutine keeps the same chunks at every pass (parallel.Split),
	// so a step's rows of x, r, p and q stay in one core's caches: handed
	// out first come, first served they moved between the cores at every
	// pass, and two threads ran LPNMF's solves hardly faster than one.
	parallel.Split(s.chunks, s.threads, func(_, c0, c1 int) {
		for c := c0; c < c1; c++ {
			body(c, c*rowsPerChunk, min((c+1)*rowsPerChunk, s.n))
		}
	})
}

// partial returns chunk's partial sums t for the m active columns.
func (s *blockCG) partial(t, chunk int) []float64 {
	o := chunk * s.ps
	return s.part[t][o : o+len(s.cols)]
}

// reduce adds the per-chunk partials t in chunk order.
func (s *blockCG) reduce(t int) []float64 {
	m := len(s.cols)
	out := s.sum[t][:m]
	clear(out)
	for c := 0; c < s.chunks; c++ {
		for j, v := range s.partial(t, c) {
			out[j] += v
		}
	}
	return out
}

// apply sets dst = A src over the active columns and, if dot is set, the
// partials of src'dst in part[0]: per row the off-diagonal product, then
// the chunk's diagonal terms and sums in one pass (asm.CGApply).
func (s *blockCG) apply(dst, src []float64, dot bool) {
	m, sys := len(s.cols), s.sys
	s.forRows(func(chunk, lo, hi int) {
		var part []float64
		if dot {
			part = s.partial(0, chunk)
			clear(part)
		}
		for i := lo; i < hi; i++ {
			out := dst[i*m : (i+1)*m]
			clear(out)
			if sys.matScale != 0 {
				p0, p1 := sys.mat.Indptr[i], sys.mat.Indptr[i+1]
				asm.AxpyGather(out, sys.mat.Val[p0:p1], sys.mat.Ind[p0:p1], src, m)
			}
		}
		asm.CGApply(dst[lo*m:hi*m], src[lo*m:hi*m], m, s.shift, sys.matScale, sys.base[lo:hi], sys.weight[lo:hi], part)
	})
}

// setColumns makes cols the active set and loads their x into p.
func (s *blockCG) setColumns(cols []int) {
	s.cols = append(s.cols[:0], cols...)
	s.shift = s.shift[:0]
	for _, c := range cols {
		sh := 0.0
		if s.sys.shift != nil {
			sh = s.sys.shift[c]
		}
		s.shift = append(s.shift, sh)
	}
	m := len(cols)
	s.forRows(func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			xi := s.x.Data[i*s.x.Stride:]
			for j, c := range s.cols {
				s.p[i*m+j] = xi[c]
			}
		}
	})
}

// trueResidual sets r = b - A x for the active columns (x loaded in p by
// setColumns) and returns ||r||^2 per column.
func (s *blockCG) trueResidual() []float64 {
	s.apply(s.q, s.p, false)
	m := len(s.cols)
	s.forRows(func(chunk, lo, hi int) {
		part := s.partial(0, chunk)
		clear(part)
		for i := lo; i < hi; i++ {
			bi := s.b.Data[i*s.b.Stride:]
			for j, c := range s.cols {
				v := bi[c] - s.q[i*m+j]
				s.r[i*m+j] = v
				part[j] += v * v
			}
		}
	})
	return s.reduce(0)
}

// keepColumns shrinks the active set to the slots in keep (increasing),
// moving r's columns; p and q are rebuilt before use.
func (s *blockCG) keepColumns(keep []int) {
	m, m2 := len(s.cols), len(keep)
	if m2 == m {
		return
	}
	s.forRows(func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			for t, j := range keep {
				s.spareR[i*m2+t] = s.r[i*m+j]
			}
		}
	})
	s.r, s.spareR = s.spareR, s.r
	s.compactSlots(keep)
}

// compactSlots moves the per-slot scalars to the slots in keep.
func (s *blockCG) compactSlots(keep []int) {
	for t, j := range keep {
		s.cols[t], s.shift[t], s.rz[t] = s.cols[j], s.shift[j], s.rz[j]
	}
	s.cols, s.shift = s.cols[:len(keep)], s.shift[:len(keep)]
}

// start sets the preconditioner, z = M^-1 r, p = z and r'z for the
// active columns.
func (s *blockCG) start() {
	m, sys := len(s.cols), s.sys
	s.forRows(func(chunk, lo, hi int) {
		part := s.partial(0, chunk)
		clear(part)
		for i := lo; i < hi; i++ {
			base, g := sys.base[i], sys.weight[i]
			md := sys.matScale * sys.matDiag[i]
			for j := 0; j < m; j++ {
				d := 1 / (base + g*s.shift[j] + md)
				r := s.r[i*m+j]
				s.invD[i*m+j] = d
				s.p[i*m+j] = r * d
				part[j] += r * (r * d)
			}
		}
	})
	copy(s.rz, s.reduce(0))
}

// residualStep sets r -= alpha q and returns r'r and r'z with z = M^-1 r.
func (s *blockCG) residualStep() (rr, rz []float64) {
	m := len(s.cols)
	s.forRows(func(chunk, lo, hi int) {
		prr := s.partial(1, chunk)
		prz := s.partial(2, chunk)
		clear(prr)
		clear(prz)
		prr, prz = prr[:m], prz[:m]
		asm.CGResidual(s.r[lo*m:hi*m], s.q[lo*m:hi*m], s.invD[lo*m:hi*m], m, s.alpha[:m], prr, prz)
	})
	return s.reduce(1), s.reduce(2)
}

// directionStep sets x += alpha p for every active column and
// p = M^-1 r + beta p for the slots in keep, dropping the other slots.
func (s *blockCG) directionStep(keep []int) {
	m, m2 := len(s.cols), len(keep)
	if m2 == m {
		// All of x's columns active, in order, is the common case: then
		// x's row is a plain slice.
		contiguous := s.cols[m-1] == m-1
		alpha, beta := s.alpha[:m], s.beta[:m]
		s.forRows(func(_, lo, hi int) {
			if contiguous {
				asm.CGDirection(s.x.Data[lo*s.x.Stride:], s.x.Stride, s.p[lo*m:hi*m], s.r[lo*m:hi*m], s.invD[lo*m:hi*m], m, alpha, beta)
				return
			}
			for i := lo; i < hi; i++ {
				p := s.p[i*m : (i+1)*m]
				r, d := s.r[i*m:][:len(p)], s.invD[i*m:][:len(p)]
				xi := s.x.Data[i*s.x.Stride:]
				for j, c := range s.cols {
					xi[c] += alpha[j] * p[j]
				}
				for j, v := range p {
					p[j] = r[j]*d[j] + beta[j]*v
				}
			}
		})
		return
	}
	// Write the kept columns into the spare buffers (q is free until the
	// next product), then swap them in.
	s.forRows(func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			xi := s.x.Data[i*s.x.Stride:]
			p, r, d := s.p[i*m:(i+1)*m], s.r[i*m:(i+1)*m], s.invD[i*m:(i+1)*m]
			for j, c := range s.cols {
				if a := s.alpha[j]; a != 0 { // 0 at a breakdown, where p may not be finite
					xi[c] += a * p[j]
				}
			}
			np, nr, nd := s.q[i*m2:(i+1)*m2], s.spareR[i*m2:(i+1)*m2], s.spareD[i*m2:(i+1)*m2]
			for t, j := range keep {
				np[t] = r[j]*d[j] + s.beta[j]*p[j]
				nr[t] = r[j]
				nd[t] = d[j]
			}
		}
	})
	s.p, s.q = s.q, s.p
	s.r, s.spareR = s.spareR, s.r
	s.invD, s.spareD = s.spareD, s.invD
	s.compactSlots(keep)
}

// colState is the per-column bookkeeping of run.
type colState struct {
	bnorm     float64
	prev      float64 // true relative residual at the previous check
	breakdown bool
	pAp       float64
	stalled   bool
}

func (s *blockCG) run(ctx context.Context) ([]CGResult, error) {
	k := s.b.Cols
	res := make([]CGResult, k)
	st := make([]colState, k)
	for i := 0; i < s.n; i++ {
		for c, v := range s.b.Data[i*s.b.Stride : i*s.b.Stride+k] {
			st[c].bnorm += v * v
		}
	}
	var pending []int
	for c := range st {
		st[c].bnorm = math.Sqrt(st[c].bnorm)
		st[c].prev = math.Inf(1)
		if st[c].bnorm == 0 {
			for i := 0; i < s.n; i++ {
				s.x.Data[i*s.x.Stride+c] = 0
			}
			res[c].Converged = true
			continue
		}
		pending = append(pending, c)
	}
	var ctxErr error
	keep := make([]int, 0, k)
	// Each round checks the true residuals of the pending columns, then
	// runs CG on those that need more until each freezes.
	for len(pending) > 0 {
		if ctxErr == nil {
			ctxErr = ctx.Err()
		}
		s.setColumns(pending)
		rr := s.trueResidual()
		keep = keep[:0]
		for j, c := range s.cols {
			t := math.Sqrt(rr[j]) / st[c].bnorm
			res[c].Residual = t
			switch {
			case t <= s.tol:
				res[c].Converged = true
			case ctxErr != nil || res[c].Iterations >= s.maxIter || st[c].breakdown:
				// Final, not converged.
			case !(t < st[c].prev):
				st[c].stalled = true
			default:
				keep = append(keep, j)
			}
			st[c].prev = t
		}
		if len(keep) == 0 {
			break
		}
		s.keepColumns(keep)
		s.start()
		pending = s.iterate(ctx, res, st, &ctxErr)
		sort.Ints(pending)
	}
	err := s.convergenceError(res, st)
	if err != nil && ctxErr != nil {
		return res, fmt.Errorf("sparse: conjugate gradients interrupted: %w", ctxErr)
	}
	return res, err
}

// iterate runs CG steps on the active columns until every one is frozen
// and returns the frozen columns.
func (s *blockCG) iterate(ctx context.Context, res []CGResult, st []colState, ctxErr *error) []int {
	var frozen []int
	keep := make([]int, 0, len(s.cols))
	for len(s.cols) > 0 {
		if err := ctx.Err(); err != nil {
			*ctxErr = err
			return append(frozen, s.cols...)
		}
		s.apply(s.q, s.p, true)
		pq := s.reduce(0)
		for j, c := range s.cols {
			if pq[j] > 0 && !math.IsInf(pq[j], 0) {
				s.alpha[j] = s.rz[j] / pq[j]
			} else {
				s.alpha[j] = 0
				st[c].breakdown, st[c].pAp = true, pq[j]
			}
		}
		rr, rz := s.residualStep()
		keep = keep[:0]
		for j, c := range s.cols {
			if !st[c].breakdown {
				res[c].Iterations++
			}
			if st[c].breakdown || math.Sqrt(rr[j]) <= s.tol*st[c].bnorm || res[c].Iterations >= s.maxIter {
				frozen = append(frozen, c)
				continue
			}
			s.beta[j] = rz[j] / s.rz[j]
			s.rz[j] = rz[j]
			keep = append(keep, j)
		}
		s.directionStep(keep)
	}
	return frozen
}

// convergenceError returns nil if every column converged, otherwise an
// error wrapping ErrNotConverged that names the first column that did not.
func (s *blockCG) convergenceError(res []CGResult, st []colState) error {
	failed, first := 0, -1
	for c := range res {
		if !res[c].Converged {
			if first < 0 {
				first = c
			}
			failed++
		}
	}
	if failed == 0 {
		return nil
	}
	r, why := res[first], ""
	switch {
	case st[first].breakdown:
		why = fmt.Sprintf(" (breakdown: p'Ap = %v, the matrix is not symmetric positive definite)", st[first].pAp)
	case st[first].stalled:
		why = " (the residual stopped decreasing)"
	}
	msg := fmt.Sprintf("relative residual %.3g after %d iterations, tolerance %.3g%s", r.Residual, r.Iterations, s.tol, why)
	if s.single {
		return fmt.Errorf("sparse: SolveCG: %s: %w", msg, ErrNotConverged)
	}
	return fmt.Errorf("sparse: SolveBlockCG: column %d (1-based): %s; %d of %d columns not converged: %w", first+1, msg, failed, len(res), ErrNotConverged)
}
