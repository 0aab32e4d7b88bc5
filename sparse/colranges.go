package sparse

import (
	"sort"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
)

// ColRanges is ColPanels without the copy: a CSR matrix a (r x c) seen as
// panels of consecutive columns, each row's share of a panel found in
// place. a's rows hold their columns in increasing order (the CSR rule),
// so a panel's entries in a row are one run of it, found by binary
// search. It serves the product a^T b where a second orientation of a
// (its transpose, or ColPanels' copy) does not fit: it holds a panel's
// bounds only.
//
// The product's sums are ColPanels': each element of the result gets its
// terms in the order of a's rows, one fused multiply-add each
// (asm.AxpyScatter), whatever the number of goroutines or panels.
type ColRanges struct {
	a      *CSR
	bounds []int // panel q holds columns bounds[q]..bounds[q+1]-1
}

// ColRanges cuts a's columns into at most parts panels with about equal
// numbers of stored entries (parts >= 1), given each column's count
// (ColNNZ). a must keep its entries, which ColRanges reads, unchanged.
func (a *CSR) ColRanges(parts int, counts []int) *ColRanges {
	if parts < 1 || len(counts) != a.Cols {
		panic("sparse: ColRanges needs parts >= 1 and a count a column")
	}
	return &ColRanges{a: a, bounds: cutColumns(counts, len(a.Ind), parts)}
}

// Panels returns the number of panels.
func (p *ColRanges) Panels() int { return len(p.bounds) - 1 }

// run returns the positions in a.Ind of row i's entries in columns
// c0..c1-1.
func (p *ColRanges) run(i, c0, c1 int) (s, e int) {
	lo, hi := p.a.Indptr[i], p.a.Indptr[i+1]
	ind := p.a.Ind[lo:hi]
	s = sort.SearchInts(ind, c0)
	e = s + sort.SearchInts(ind[s:], c1)
	return lo + s, lo + e
}

// MulTransDenseTo computes dst = a^T b, where b is r x k and dst is c x k,
// using up to threads goroutines (threads <= 0 means GOMAXPROCS), each
// taking whole panels. dst must not overlap b.
func (p *ColRanges) MulTransDenseTo(dst, b blas64.General, threads int) {
	a := p.a
	if b.Rows != a.Rows || dst.Rows != a.Cols || dst.Cols != b.Cols {
		panic("sparse: ColRanges.MulTransDenseTo dimension mismatch")
	}
	k := b.Cols
	parallel.For(p.Panels(), threads, 1, func(lo, hi int) {
		for q := lo; q < hi; q++ {
			c0, c1 := p.bounds[q], p.bounds[q+1]
			for j := c0; j < c1; j++ {
				clear(dst.Data[j*dst.Stride : j*dst.Stride+k])
			}
			for i := range a.Rows {
				s, e := p.run(i, c0, c1)
				if s == e {
					continue
				}
				asm.AxpyScatter(dst.Data, dst.Stride, a.Val[s:e], a.Ind[s:e], b.Data[i*b.Stride:i*b.Stride+k])
			}
		}
	})
}

// EachCol calls fn once for each column j of a with the rows in which it
// has entries, in increasing order, and the values there: a's transpose
// row by row, formed a panel at a time, so that it holds one panel's
// entries per goroutine (up to threads; threads <= 0 means GOMAXPROCS).
// fn may be called from several goroutines at once, for different
// columns, and must not keep or change the slices.
func (p *ColRanges) EachCol(threads int, fn func(j int, rows []int, values []float64)) {
	a := p.a
	parallel.For(p.Panels(), threads, 1, func(lo, hi int) {
		var t CSR
		for q := lo; q < hi; q++ {
			c0, c1 := p.bounds[q], p.bounds[q+1]
			// The panel's entries, counted, then placed column by column:
			// rows visited in order keep each column's rows increasing.
			t.Indptr = reuse(t.Indptr, c1-c0+1)
			clear(t.Indptr)
			for i := range a.Rows {
				s, e := p.run(i, c0, c1)
				for _, j := range a.Ind[s:e] {
					t.Indptr[j-c0+1]++
				}
			}
			for j := range c1 - c0 {
				t.Indptr[j+1] += t.Indptr[j]
			}
			nnz := t.Indptr[c1-c0]
			t.Ind, t.Val = reuse(t.Ind, nnz), reuse(t.Val, nnz)
			next := append([]int(nil), t.Indptr[:c1-c0]...)
			for i := range a.Rows {
				s, e := p.run(i, c0, c1)
				for off, j := range a.Ind[s:e] {
					t.Ind[next[j-c0]], t.Val[next[j-c0]] = i, a.Val[s+off]
					next[j-c0]++
				}
			}
			for j := c0; j < c1; j++ {
				r0, r1 := t.Indptr[j-c0], t.Indptr[j-c0+1]
				fn(j, t.Ind[r0:r1], t.Val[r0:r1])
			}
		}
	})
}
