package solver

import (
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/nmfstep"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// The dense work of an iteration involves matrices with one long side (m or
// n rows) and k, typically 10 to 100, columns: F S with S k x k, and the
// Gram matrix F^T F. It runs on the kernels package rather than BLAS:
// gonum's BLAS does both shapes as one short axpy call per element row
// (slow on TDT2 at k = 30: docs/PERFORMANCE.md), and OpenBLAS's own
// threads spin against the goroutines of the sparse products on a small
// machine. Each half-iteration is one pass over fixed chunks of rows that
// does the data product's row, F S's row, the multiplicative step, the
// objective's dot and the chunk's partial Gram matrix while the rows are
// in cache. Chunks are fixed, so every sum runs in the same order
// whatever the thread count.

// rowChunk is the number of rows one pass handles as a unit and whose
// partial Gram matrix is summed as one term.
const rowChunk = 1024

// identity returns 0, 1, ..., k-1, the column indices that turn AxpyGather
// into a dense row times a dense matrix.
func identity(k int) []int {
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// rowProduct yields rows of a data product: row i of a * b for sparse a,
// or row i of a precomputed dense product.
type rowProduct struct {
	a    *sparse.CSR
	b    blas64.General
	full blas64.General // used when a is nil
}

func (p rowProduct) row(i int, dst []float64) {
	if p.a == nil {
		copy(dst, p.full.Data[i*p.full.Stride:i*p.full.Stride+len(dst)])
		return
	}
	clear(dst)
	p0, p1 := p.a.Indptr[i], p.a.Indptr[i+1]
	asm.AxpyGather(dst, p.a.Val[p0:p1], p.a.Ind[p0:p1], p.b.Data, p.b.Stride)
}

// passWork holds the scratch space of the fused passes, reused across
// iterations of one start.
type passWork struct {
	k       int
	cd      []*nmfstep.Work // per worker, for cd half steps
	idx     []int
	bounds  []int       // chunk c is rows bounds[c] .. bounds[c+1]-1
	partial []float64   // one k x k upper triangle per chunk
	dots    []float64   // one objective term per chunk
	kkt     kktSums     // per chunk, of the last run that updated f
	scratch [][]float64 // per worker: num, den, and the transposed chunk
}

func newPassWork(rows, k int) *passWork { return newPassWorkCost(rows, k, nil) }

// newPassWorkCost is newPassWork for passes that gather row i of a sparse
// product from the stored entries indptr[i] .. indptr[i+1]-1 (nil: rows of
// equal cost). See chunkBounds.
func newPassWorkCost(rows, k int, indptr []int) *passWork {
	b := chunkBounds(rows, k, indptr)
	chunks := len(b) - 1
	return &passWork{k: k, idx: identity(k), bounds: b, partial: make([]float64, chunks*k*k), dots: make([]float64, chunks)}
}

// chunkTarget is how many chunks of about equal cost chunkBounds aims at
// where rows differ in cost: 4 a goroutine at 16 threads.
const chunkTarget = 64

// chunkBounds cuts rows into the chunks of a pass: at most rowChunk rows
// each and, when indptr is given, also ending where the chunk's cost (its
// stored entries plus k for each row's dense work) reaches the larger of
// 1/chunkTarget of the total and rowChunk rows of average cost. Rows of
// fixed count were not enough where rows differ in length: features are
// numbered by falling document frequency, so the first 1,024 of TDT2's
// terms hold 46 % of its entries, and the goroutine with that chunk of the
// X V pass finished long after the others (TDT2's NMF iteration gained
// nothing from 8 to 16 threads: docs/PERFORMANCE.md). Rows of about equal
// cost keep chunks of rowChunk rows: more, smaller chunks cost each pass a
// partial Gram matrix apiece (a noticeable part of a one-thread iteration
// on TDT2 with chunks of 1/128 of the cost). The bounds depend on the
// data and k only, not on the thread count, so every chunk sum is the
// same for any number of goroutines.
func chunkBounds(rows, k int, indptr []int) []int {
	if indptr == nil || rows == 0 {
		chunks := (rows + rowChunk - 1) / rowChunk
		b := make([]int, chunks+1)
		for c := range b {
			b[c] = min(c*rowChunk, rows)
		}
		return b
	}
	total := indptr[rows] - indptr[0] + rows*k
	target := max(total/chunkTarget, (total/rows)*rowChunk)
	b := []int{0}
	lo, cost := 0, 0
	for i := 0; i < rows; i++ {
		cost += indptr[i+1] - indptr[i] + k
		if cost >= target || i+1-lo == rowChunk {
			b = append(b, i+1)
			lo, cost = i+1, 0
		}
	}
	if lo < rows {
		b = append(b, rows)
	}
	return b
}

// transStride pads the transposed chunk's row length so its k rows do not
// fall on the same cache sets (a 1024-double stride is 8 KiB).
const transStride = rowChunk + 8

func (w *passWork) buffers(workers int) {
	for len(w.scratch) < workers {
		w.scratch = append(w.scratch, make([]float64, 2*w.k+w.k*transStride))
	}
}

// half describes one multiplicative half-step on the factor f (r x k,
// stride k):
//
//	f <- f .* (N + A) ./ max(D + deg .* f, Eps)
//
// where N is given by rows (num), D either as f s for a small k x k matrix
// s or by rows (den), A (addNum, optional) is a full r x k matrix and deg
// (optional) a per-row scalar: the graph terms lambda W V and lambda D V.
type half struct {
	f       blas64.General
	num     rowProduct
	s       blas64.General // den = f s when s.Data is set
	den     rowProduct     // den rows otherwise
	addNum  blas64.General // optional
	deg     []float64      // optional
	gram    blas64.General // receives f^T f of the new f when Data is set
	update  bool           // false: leave f, only form gram and the dot
	wantDot bool           // return sum_i f_i . N_i (after the update)
	measure bool           // with update: fill the passWork's kkt
	// pre, when set on a pass that does not update f, is called with the
	// entries lo*k .. hi*k-1 of each chunk of rows lo..hi-1 before the
	// chunk's Gram matrix is formed from them (nmfstep.Extrapolated's move).
	pre func(lo, hi int)
	// cd, when set, replaces the multiplicative step by coordinate
	// descent on f_i^T s f_i - 2 N_i . f_i (nmfstep.Rows); it needs s, and
	// addNum and deg unset.
	cd *nmfstep.Rule
}

// run applies the half-step and returns the dot when h.wantDot is set.
// Each chunk of rows is handled by one goroutine while its rows are in
// cache; chunk results are summed in chunk order. When h.update and
// h.measure are set, w.kkt receives the measure of the gradient
// D + deg .* f - N - A (half the gradient of the half's objective) at the
// f the step started from (under cd, each coordinate's as the first sweep
// meets it: nmfstep.Rows).
func (w *passWork) run(h half, threads int) float64 {
	k := w.k
	chunks := len(w.bounds) - 1
	workers := parallel.Workers(chunks, threads, 1)
	w.buffers(workers)
	if h.update && h.measure {
		w.kkt.reset(chunks, k)
	}
	if h.pre != nil && h.update {
		panic("solver: a pass that updates f has no pre step")
	}
	var invH []float64
	if h.update && h.cd != nil {
		for len(w.cd) < workers {
			w.cd = append(w.cd, nmfstep.NewWork(k))
		}
		// The reciprocals of s's diagonal, the same for every row.
		invH = make([]float64, k)
		nmfstep.Inverse(invH, h.s.Data, 0)
	}
	parallel.ForWorker(chunks, threads, 1, func(worker, c, _ int) {
		lo, hi := w.bounds[c], w.bounds[c+1]
		if h.pre != nil {
			h.pre(lo*k, hi*k)
		}
		buf := w.scratch[worker]
		num, den, trans := buf[:k], buf[k:2*k], buf[2*k:]
		var dot float64
		var pg, ref []float64
		if h.update && h.measure {
			pg, ref = w.kkt.block(c)
		}
		first := lo
		if h.update && h.cd != nil {
			dot = w.cdChunk(h, w.cd[worker], invH, lo, hi, buf[:4*k], pg, ref)
			first = hi
		}
		for i := first; i < hi; i++ {
			fi := h.f.Data[i*k : (i+1)*k]
			if h.update || h.wantDot {
				h.num.row(i, num)
				if h.addNum.Data != nil {
					asm.Axpy(1, h.addNum.Data[i*k:(i+1)*k], num)
				}
			}
			if h.update {
				if h.s.Data != nil {
					clear(den)
					asm.AxpyGather(den, fi, w.idx, h.s.Data, h.s.Stride)
				} else {
					h.den.row(i, den)
				}
				if h.deg != nil {
					asm.Axpy(h.deg[i], fi, den)
				}
				if pg != nil {
					addProjGradDiff(pg, ref, fi, den, num, 1)
				}
				asm.MulUpdate(fi, num, den, Eps)
			}
			if h.wantDot {
				dot += asm.Dot(fi, num)
			}
		}
		w.dots[c] = dot
		if h.gram.Data == nil {
			return
		}
		transpose(trans, h.f.Data[lo*k:hi*k], hi-lo, k)
		g := w.partial[c*k*k : (c+1)*k*k]
		n := hi - lo
		for a := 0; a < k; a++ {
			ca := trans[a*transStride : a*transStride+n]
			for b := a; b < k; b++ {
				g[a*k+b] = asm.Dot(ca, trans[b*transStride:b*transStride+n])
			}
		}
	})
	if h.gram.Data != nil {
		// Chunk by chunk in chunk order: each entry's sum adds the same
		// terms in the same order as a loop over chunks per entry, but
		// reads the partial triangles contiguously.
		sum := w.partial[:k*k]
		for c := 1; c < chunks; c++ {
			p := w.partial[c*k*k : (c+1)*k*k]
			for a := 0; a < k; a++ {
				asm.Axpy(1, p[a*k+a:(a+1)*k], sum[a*k+a:(a+1)*k])
			}
		}
		for a := 0; a < k; a++ {
			for b := a; b < k; b++ {
				h.gram.Data[a*h.gram.Stride+b] = sum[a*k+b]
				h.gram.Data[b*h.gram.Stride+a] = sum[a*k+b]
			}
		}
	}
	var dot float64
	for c := 0; c < chunks; c++ {
		dot += w.dots[c]
	}
	return dot
}

// mulSmall computes dst = a s for a (r x k) and s (k x k), row-parallel,
// each row with one AxpyGather call.
func mulSmall(dst, a, s blas64.General, idx []int, threads int) {
	k := a.Cols
	parallel.For(a.Rows, threads, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out := dst.Data[i*k : (i+1)*k]
			clear(out)
			asm.AxpyGather(out, a.Data[i*k:(i+1)*k], idx, s.Data, s.Stride)
		}
	})
}

// fixedSum adds term(lo, hi) over fixed chunks of [0, n) in parallel and
// returns the chunk sums added in chunk order, so the result does not
// depend on threads.
func fixedSum(n, threads int, term func(lo, hi int) float64) float64 {
	chunks := (n + rowChunk - 1) / rowChunk
	part := make([]float64, chunks)
	parallel.For(chunks, threads, 1, func(c, _ int) {
		part[c] = term(c*rowChunk, min((c+1)*rowChunk, n))
	})
	var s float64
	for _, x := range part {
		s += x
	}
	return s
}

// columnSumsBy sets out (length k) to the sum over rows i in [0, n) of
// what row(i, acc) adds into acc (k values): over fixed chunks of rowChunk
// rows in parallel, each chunk's sums on cache lines of its own, the
// chunks' sums added in chunk order, so the result does not depend on
// threads. Taken row by row on one goroutine, the KL methods' column sums
// would read a whole factor (15 million values at 500,000 samples and
// k = 30) on one core two or three times an iteration, whatever the
// thread count.
func columnSumsBy(out []float64, n, threads int, row func(i int, acc []float64)) {
	k := len(out)
	chunks, ps := (n+rowChunk-1)/rowChunk, parallel.Apart(k)
	part := make([]float64, chunks*ps)
	parallel.For(chunks, threads, 1, func(c0, c1 int) {
		for ch := c0; ch < c1; ch++ {
			acc := part[ch*ps : ch*ps+k]
			for i := ch * rowChunk; i < min((ch+1)*rowChunk, n); i++ {
				row(i, acc)
			}
		}
	})
	clear(out)
	for ch := 0; ch < chunks; ch++ {
		asm.Axpy(1, part[ch*ps:ch*ps+k], out)
	}
}

// frob returns sum a .* b over equal-shaped contiguous matrices, in fixed
// chunks.
func frob(a, b blas64.General, threads int) float64 {
	k := a.Cols
	return fixedSum(a.Rows, threads, func(lo, hi int) float64 {
		return asm.Dot(a.Data[lo*k:hi*k], b.Data[lo*k:hi*k])
	})
}

// transpose writes the rows x k row-major block a into t column by column:
// column j of a becomes t[j*transStride : j*transStride+rows]. Four rows go
// at a time so each column receives four neighbouring values per step.
func transpose(t, a []float64, rows, k int) {
	i := 0
	for ; i+4 <= rows; i += 4 {
		r0 := a[i*k : (i+1)*k]
		r1 := a[(i+1)*k : (i+2)*k]
		r2 := a[(i+2)*k : (i+3)*k]
		r3 := a[(i+3)*k : (i+4)*k]
		for j := range r0 {
			c := t[j*transStride+i : j*transStride+i+4]
			c[0], c[1], c[2], c[3] = r0[j], r1[j], r2[j], r3[j]
		}
	}
	for ; i < rows; i++ {
		for j, x := range a[i*k : (i+1)*k] {
			t[j*transStride+i] = x
		}
	}
}

// cdChunk runs a cd half step on rows lo..hi-1 of h.f, nmfstep.Block rows at a
// time (nmfstep.Rows), and returns sum_i f_i . N_i for the updated rows; pg and
// ref receive the measure as the first sweep meets the gradient (nmfstep.Rows).
// num is scratch for
// four rows of k, invH the reciprocals of h.s's diagonal.
func (w *passWork) cdChunk(h half, cw *nmfstep.Work, invH []float64, lo, hi int, num, pg, ref []float64) (dot float64) {
	k := w.k
	for b := lo; b < hi; b += nmfstep.Block {
		r := min(nmfstep.Block, hi-b)
		row := func(i int) []float64 { return h.f.Data[(b+i)*k : (b+i+1)*k] }
		cw.PutRows(r, k, row, func(i int, dst []float64) []float64 { h.num.row(b+i, dst); return dst }, num)
		nmfstep.Rows(cw, h.s.Data, invH, k, r, h.cd, pg, ref, nil)
		cw.GetRows(r, row)
		dot += cw.Dot(k, r)
	}
	return dot
}
