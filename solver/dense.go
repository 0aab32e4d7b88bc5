package solver

import (
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/kernels"
	"github.com/manifactor/manifactor/sparse"
)

// The dense work of an iteration involves matrices with one long side (m or
// n rows) and k, typically 10 to 100, columns: F S with S k x k, and the
// Gram matrix F^T F. It runs on the kernels package rather than BLAS:
// gonum's BLAS does both shapes as one short axpy call per element row
// (15-20 ms an iteration on TDT2 at k = 30), and OpenBLAS's own threads spin
// against the goroutines of the sparse products on a small machine. Each
// half-iteration is one pass over fixed chunks of rows that does the data
// product's row, F S's row, the multiplicative step, the objective's dot and
// the chunk's partial Gram matrix while the rows are in cache. Chunks are
// fixed, so every sum runs in the same order whatever the thread count.

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
	kernels.AxpyGather(dst, p.a.Val[p0:p1], p.a.Ind[p0:p1], p.b.Data, p.b.Stride)
}

// passWork holds the scratch space of the fused passes, reused across
// iterations of one start.
type passWork struct {
	k       int
	idx     []int
	partial []float64   // one k x k upper triangle per chunk
	dots    []float64   // one objective term per chunk
	scratch [][]float64 // per worker: num, den, and the transposed chunk
}

func newPassWork(rows, k int) *passWork {
	chunks := (rows + rowChunk - 1) / rowChunk
	return &passWork{k: k, idx: identity(k), partial: make([]float64, chunks*k*k), dots: make([]float64, chunks)}
}

// transStride pads the transposed chunk's row length so its k rows do not
// fall on the same cache sets (a 1024-double stride is 8 KiB).
const transStride = rowChunk + 8

func (w *passWork) buffers(workers int) {
	for len(w.scratch) < workers {
		w.scratch = append(w.scratch, make([]float64, 2*w.k+w.k*transStride))
	}
}

// update runs one multiplicative half-step on f (r x k, stride k):
//
//	f <- f .* N ./ max(f s, Eps),  N = the rows of prod,
//
// then writes the Gram matrix of the new f to gram (k x k) and returns
// sum_i f_i . N_i (the trace term of the objective) when wantDot is set.
// With update false it leaves f as it is and only forms the Gram matrix
// and the dot, which is how the objective of a starting point is computed.
func (w *passWork) update(f, s blas64.General, prod rowProduct, gram blas64.General, doUpdate, wantDot bool, threads int) float64 {
	r, k := f.Rows, w.k
	chunks := (r + rowChunk - 1) / rowChunk
	w.buffers(parallel.Workers(r, threads, rowChunk))
	parallel.ForWorker(r, threads, rowChunk, func(worker, lo, hi int) {
		buf := w.scratch[worker]
		num, den, trans := buf[:k], buf[k:2*k], buf[2*k:]
		var dot float64
		for i := lo; i < hi; i++ {
			fi := f.Data[i*k : (i+1)*k]
			if doUpdate || wantDot {
				prod.row(i, num)
			}
			if doUpdate {
				clear(den)
				kernels.AxpyGather(den, fi, w.idx, s.Data, s.Stride)
				kernels.MulUpdate(fi, num, den, Eps)
			}
			if wantDot {
				dot += kernels.Dot(fi, num)
			}
		}
		transpose(trans, f.Data[lo*k:hi*k], hi-lo, k)
		c := lo / rowChunk
		w.dots[c] = dot
		g := w.partial[c*k*k : (c+1)*k*k]
		n := hi - lo
		for a := 0; a < k; a++ {
			ca := trans[a*transStride : a*transStride+n]
			for b := a; b < k; b++ {
				g[a*k+b] = kernels.Dot(ca, trans[b*transStride:b*transStride+n])
			}
		}
	})
	for a := 0; a < k; a++ {
		for b := a; b < k; b++ {
			var sum float64
			for c := 0; c < chunks; c++ {
				sum += w.partial[c*k*k+a*k+b]
			}
			gram.Data[a*gram.Stride+b] = sum
			gram.Data[b*gram.Stride+a] = sum
		}
	}
	var dot float64
	for c := 0; c < chunks; c++ {
		dot += w.dots[c]
	}
	return dot
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
