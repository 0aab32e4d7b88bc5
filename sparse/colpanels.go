package sparse

import (
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
)

// ColPanels is a copy of a CSR matrix a (r x c) cut into panels of
// consecutive columns, each panel a CSR matrix over all r rows, prepared
// for the product a^T b (MulTransDenseTo) when b (r x k) is too large for
// the caches.
//
// The product c x k = a^T b is, row by row of a, a scatter: row i of b
// times each entry (i, j) is added to row j of the result. Forming it as
// the gathers of a^T's rows (CSR.MulDenseTo on a.T()) fetches a row of b
// from anywhere in b for every stored entry; when b has hundreds of
// thousands of rows, nearly every fetch waits for memory. A panel's scatter
// instead reads b's rows in order, once each (the hardware's prefetchers
// follow that), holds each row in the first level of cache while it is
// added to the panel's rows of the result, and those rows, a panel's share
// of c x k, stay in cache across the pass. Panels hold about equal numbers
// of entries, so that the frequent columns of a term-document matrix
// ordered by frequency (sparse.TByFrequency) fall into narrow panels and
// the rare ones into wide panels, and one goroutine owns a panel's rows of
// the result: no sums cross goroutines.
//
// Each element of the result gets its terms in the order of a's rows,
// one fused multiply-add each (asm.AxpyScatter), which is the order
// and the rounding of the gathers of a.T()'s rows whenever the gather
// kernel uses one accumulator a column (more than 16 columns on the avx2
// path, every width on the generic one): there the product equals
// a.T().MulDenseTo bit for bit. It never depends on the number of
// goroutines or of panels.
type ColPanels struct {
	rows, cols int
	panels     []colPanel
}

// colPanel holds a's entries in columns c0..c1-1 as a CSR matrix over a's
// rows, with a's column indices.
type colPanel struct {
	c0, c1 int
	indptr []int
	ind    []int
	val    []float64
}

// ColPanels copies a into at most parts panels of consecutive columns with
// about equal numbers of stored entries (parts >= 1); a column holding more
// than its share makes a panel alone, so there may be fewer. The copy
// holds a's entries once more (16 bytes each) and a row pointer a row of a
// for each panel; a itself is not kept. a's rows may hold their entries in
// any order (each panel keeps them in a's order): the product does not
// depend on it.
func (a *CSR) ColPanels(parts int) *ColPanels {
	if parts < 1 {
		panic("sparse: ColPanels parts must be positive")
	}
	counts := make([]int, a.Cols)
	for _, j := range a.Ind {
		counts[j]++
	}
	p := &ColPanels{rows: a.Rows, cols: a.Cols}
	bounds := cutColumns(counts, len(a.Ind), parts)
	for q := range len(bounds) - 1 {
		p.panels = append(p.panels, colPanel{c0: bounds[q], c1: bounds[q+1]})
	}
	// The panel of each column, then each row's entries per panel, then
	// the entries copied, each row's entries of a panel in a's order (a
	// row's columns need not increase: nmfstep.RenumberFeatures leaves
	// them unsorted). Both passes split rows among goroutines, each
	// writing its own rows.
	panelOf := make([]int32, a.Cols)
	for q, pn := range p.panels {
		for j := pn.c0; j < pn.c1; j++ {
			panelOf[j] = int32(q)
		}
		p.panels[q].indptr = make([]int, a.Rows+1)
	}
	parallel.For(a.Rows, 0, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for _, j := range a.Ind[a.Indptr[i]:a.Indptr[i+1]] {
				p.panels[panelOf[j]].indptr[i+1]++
			}
		}
	})
	for q := range p.panels {
		pn := &p.panels[q]
		for i := 0; i < a.Rows; i++ {
			pn.indptr[i+1] += pn.indptr[i]
		}
		pn.ind = make([]int, pn.indptr[a.Rows])
		pn.val = make([]float64, pn.indptr[a.Rows])
	}
	parallel.For(a.Rows, 0, 1024, func(lo, hi int) {
		next := make([]int, len(p.panels))
		for i := lo; i < hi; i++ {
			for q := range p.panels {
				next[q] = p.panels[q].indptr[i]
			}
			for e := a.Indptr[i]; e < a.Indptr[i+1]; e++ {
				j := a.Ind[e]
				q := panelOf[j]
				pn := &p.panels[q]
				pn.ind[next[q]], pn.val[next[q]] = j, a.Val[e]
				next[q]++
			}
		}
	})
	return p
}

// cutColumns returns the bounds of at most parts panels of consecutive
// columns with about equal numbers of the nnz entries, given each
// column's count: panel q holds columns bounds[q]..bounds[q+1]-1. It cuts
// after column j when the entries so far reach the next multiple of
// nnz/parts that the last cut had not reached (a heavy column may pass
// several), and only after some entries: the bounds depend on the counts
// and parts only, and no panel is empty but a lone one.
func cutColumns(counts []int, nnz, parts int) []int {
	cols := len(counts)
	bounds := []int{0}
	sum, cut, next := 0, 0, 1
	for j, n := range counts {
		sum += n
		switch {
		case n > 0 && sum*parts >= nnz*next:
		case j < cols-1:
			continue
		case sum == cut && len(bounds) > 1:
			// Trailing empty columns join the last panel.
			bounds[len(bounds)-1] = cols
			continue
		}
		bounds = append(bounds, j+1)
		cut = sum
		next = sum*parts/max(nnz, 1) + 1
	}
	return bounds
}

// Panels returns the number of panels.
func (p *ColPanels) Panels() int { return len(p.panels) }

// Dims returns the dimensions of the matrix the panels hold.
func (p *ColPanels) Dims() (r, c int) { return p.rows, p.cols }

// MulTransDenseTo computes dst = a^T b, where a is the r x c matrix the
// panels hold, b is r x k and dst is c x k, using up to threads goroutines
// (threads <= 0 means GOMAXPROCS), each taking whole panels. dst must not
// overlap b.
func (p *ColPanels) MulTransDenseTo(dst, b blas64.General, threads int) {
	if b.Rows != p.rows || dst.Rows != p.cols || dst.Cols != b.Cols {
		panic("sparse: ColPanels.MulTransDenseTo dimension mismatch")
	}
	k := b.Cols
	parallel.For(len(p.panels), threads, 1, func(lo, hi int) {
		for q := lo; q < hi; q++ {
			pn := &p.panels[q]
			for j := pn.c0; j < pn.c1; j++ {
				clear(dst.Data[j*dst.Stride : j*dst.Stride+k])
			}
			for i := range p.rows {
				s, e := pn.indptr[i], pn.indptr[i+1]
				if s == e {
					continue
				}
				asm.AxpyScatter(dst.Data, dst.Stride, pn.val[s:e], pn.ind[s:e], b.Data[i*b.Stride:i*b.Stride+k])
			}
		}
	})
}
