package sparse

import (
	"sort"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
)

// ColBlocks is a CSR matrix prepared for products a*b whose dense factor b
// is too large for the caches. A plain row-by-row product gathers, for each
// stored entry, a row of b from anywhere in it; when b has hundreds of
// thousands of rows, nearly every gather waits for memory. ColBlocks cuts
// a's columns (b's rows) into blocks of Width and runs each long row of a
// block by block, so that a goroutine works through a group of long rows
// within one block of b, which stays in cache, before it moves on to the
// next block. Rows with few entries per block gain nothing from that (each
// segment would reload its row of the result) and are multiplied as they
// are.
//
// Each row of the result is summed in a's stored order whatever threads
// is, so the product does not depend on the number of goroutines. The
// row's sum is split at block edges, which may change its rounding against
// CSR.MulDenseTo where the kernel pairs entries (k <= 16).
type ColBlocks struct {
	a      *CSR
	width  int
	blocks int
	// long lists the blocked rows in increasing order; start[r*(blocks+1)+c]
	// is the first entry of row long[r] in column block c, and
	// start[r*(blocks+1)+blocks] is the row's end.
	long  []int
	start []int
	// cum[r] is the number of entries in long[:r], for splitting the long
	// rows among goroutines by work instead of by count.
	cum []int
	// short lists the remaining rows in increasing order.
	short []int
}

// ColBlocks prepares a for MulDenseTo by column blocks of width columns
// (width >= 1). A row is blocked when it has at least minPerBlock stored
// entries per block on average: the gather kernel prefetches the rows of b
// a few dozen entries ahead, so shorter segments lose the prefetch at every
// block edge. a must not be changed while the result is in use.
func (a *CSR) ColBlocks(width, minPerBlock int) *ColBlocks {
	if width < 1 {
		panic("sparse: ColBlocks width must be positive")
	}
	blocks := max(1, (a.Cols+width-1)/width)
	c := &ColBlocks{a: a, width: width, blocks: blocks}
	for i := 0; i < a.Rows; i++ {
		if a.Indptr[i+1]-a.Indptr[i] >= minPerBlock*blocks {
			c.long = append(c.long, i)
		} else {
			c.short = append(c.short, i)
		}
	}
	stride := blocks + 1
	c.start = make([]int, len(c.long)*stride)
	c.cum = make([]int, len(c.long)+1)
	parallel.For(len(c.long), 0, 64, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			i := c.long[r]
			p, end := a.Indptr[i], a.Indptr[i+1]
			s := c.start[r*stride : (r+1)*stride]
			for b := 0; b < blocks; b++ {
				// Entries are sorted by column, so each block's first
				// entry follows the previous block's.
				lim := b * width
				for p < end && a.Ind[p] < lim {
					p++
				}
				s[b] = p
			}
			s[blocks] = end
		}
	})
	for r, i := range c.long {
		c.cum[r+1] = c.cum[r] + a.Indptr[i+1] - a.Indptr[i]
	}
	return c
}

// Width returns the number of columns per block.
func (c *ColBlocks) Width() int { return c.width }

// Blocked returns how many rows are multiplied by blocks.
func (c *ColBlocks) Blocked() int { return len(c.long) }

// MulDenseTo computes dst = a * b as CSR.MulDenseTo does, with the same
// dimensions, using up to threads goroutines (threads <= 0 means
// GOMAXPROCS). dst must not overlap b.
func (c *ColBlocks) MulDenseTo(dst, b blas64.General, threads int) {
	a := c.a
	if b.Rows != a.Cols || dst.Rows != a.Rows || dst.Cols != b.Cols {
		panic("sparse: ColBlocks.MulDenseTo dimension mismatch")
	}
	k := b.Cols
	threads = parallel.Threads(threads)
	stride := c.blocks + 1
	// Groups of long rows with about equal entries, a few per goroutine so
	// that an uneven finish evens out. A group walks the blocks in order
	// and, within a block, its rows; so each row of dst still sums its
	// entries in stored order.
	total := c.cum[len(c.long)]
	groups := min(len(c.long), 4*threads)
	cut := func(g int) int {
		if g == groups {
			return len(c.long) // trailing empty rows too
		}
		return sort.SearchInts(c.cum, (total*g+groups-1)/groups)
	}
	parallel.For(groups, threads, 1, func(lo, hi int) {
		for g := lo; g < hi; g++ {
			r0, r1 := cut(g), cut(g+1)
			for _, i := range c.long[r0:r1] {
				clear(dst.Data[i*dst.Stride : i*dst.Stride+k])
			}
			for blk := 0; blk < c.blocks; blk++ {
				for r := r0; r < r1; r++ {
					p0, p1 := c.start[r*stride+blk], c.start[r*stride+blk+1]
					if p0 == p1 {
						continue
					}
					i := c.long[r]
					asm.AxpyGather(dst.Data[i*dst.Stride:i*dst.Stride+k], a.Val[p0:p1], a.Ind[p0:p1], b.Data, b.Stride)
				}
			}
		}
	})
	parallel.For(len(c.short), threads, rowsPerChunk, func(lo, hi int) {
		for _, i := range c.short[lo:hi] {
			out := dst.Data[i*dst.Stride : i*dst.Stride+k]
			clear(out)
			p0, p1 := a.Indptr[i], a.Indptr[i+1]
			asm.AxpyGather(out, a.Val[p0:p1], a.Ind[p0:p1], b.Data, b.Stride)
		}
	})
}
