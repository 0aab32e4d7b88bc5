package sparse

import (
	"sort"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
)

// rowsPerChunk is how many rows a goroutine takes at a time: large enough
// to amortize scheduling, small enough to balance rows of uneven length.
const rowsPerChunk = 64

// MulDenseTo computes dst = a * b, where a is r x c, b is c x k and dst is
// r x k, using up to threads goroutines (threads <= 0 means GOMAXPROCS).
// Each row of dst is computed by one goroutine in the order of a's stored
// entries, so the result does not depend on threads. dst must not overlap b.
func (a *CSR) MulDenseTo(dst, b blas64.General, threads int) {
	if b.Rows != a.Cols || dst.Rows != a.Rows || dst.Cols != b.Cols {
		panic("sparse: MulDenseTo dimension mismatch")
	}
	k := b.Cols
	parallel.For(a.Rows, threads, rowsPerChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out := dst.Data[i*dst.Stride : i*dst.Stride+k]
			clear(out)
			p0, p1 := a.Indptr[i], a.Indptr[i+1]
			asm.AxpyGather(out, a.Val[p0:p1], a.Ind[p0:p1], b.Data, b.Stride)
		}
	})
}

// MulTransDenseTo computes dst = a^T * b, where a is r x c, b is r x k and
// dst is c x k, without forming a^T. Each goroutine owns a range of dst's
// rows (a's columns) and scans a's rows in order, so every output element
// is summed in the same order whatever threads is, with no atomics. Each
// goroutine reads all of a's row pointers; when a^T is needed repeatedly,
// computing T() once and using MulDenseTo is faster.
func (a *CSR) MulTransDenseTo(dst, b blas64.General, threads int) {
	if b.Rows != a.Rows || dst.Rows != a.Cols || dst.Cols != b.Cols {
		panic("sparse: MulTransDenseTo dimension mismatch")
	}
	k := b.Cols
	threads = parallel.Threads(threads)
	// Split columns into about 4 ranges per thread for balance; the ranges
	// only decide who writes which output rows, never the summation order.
	parts := 4 * threads
	parallel.For(parts, threads, 1, func(lo, hi int) {
		for part := lo; part < hi; part++ {
			c0 := part * a.Cols / parts
			c1 := (part + 1) * a.Cols / parts
			if c0 == c1 {
				continue
			}
			for j := c0; j < c1; j++ {
				clear(dst.Data[j*dst.Stride : j*dst.Stride+k])
			}
			for i := 0; i < a.Rows; i++ {
				row := a.Ind[a.Indptr[i]:a.Indptr[i+1]]
				s := sort.SearchInts(row, c0)
				if s == len(row) || row[s] >= c1 {
					continue
				}
				bi := b.Data[i*b.Stride : i*b.Stride+k]
				base := a.Indptr[i]
				for p := s; p < len(row) && row[p] < c1; p++ {
					j := row[p]
					asm.Axpy(a.Val[base+p], bi, dst.Data[j*dst.Stride:j*dst.Stride+k])
				}
			}
		}
	})
}

// SampledTo sets dst[p] = a_i . b_j for every stored entry p = (i, j) of s
// (r x c): the product A B^T evaluated only at s's pattern, for a (r x k)
// and b (c x k) dense. It costs one length-k dot per stored entry, never
// the r x c product: each row of s is one asm.DotGather call, which
// keeps a_i in registers across the row's entries. Rows run in parallel and
// each entry is computed alone, so the result does not depend on threads.
func (s *CSR) SampledTo(dst []float64, a, b blas64.General, threads int) {
	if len(dst) != len(s.Val) || a.Rows != s.Rows || b.Rows != s.Cols || a.Cols != b.Cols {
		panic("sparse: SampledTo dimension mismatch")
	}
	k := a.Cols
	parallel.For(s.Rows, threads, rowsPerChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p0, p1 := s.Indptr[i], s.Indptr[i+1]
			asm.DotGather(dst[p0:p1], a.Data[i*a.Stride:i*a.Stride+k], s.Ind[p0:p1], b.Data, b.Stride)
		}
	})
}
