package nmfstep

import (
	"math"
	"math/bits"
	"runtime/debug"
	"runtime/metrics"

	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// Column blocking of X V (sparse.ColBlocks), where the panels (below) do
// not fit under the memory limit: it holds no copy of the data. On
// generated corpora blocking made X V faster where V was far larger than
// the caches and gained nothing where they mostly held it. Blocks of 2 MB
// of V and rows with 32 entries a block measured best of widths
// 2,048-16,384 and 8-64 entries (docs/PERFORMANCE.md).
// They are variables so that a test can force blocking on small data.
var (
	BlockMinFactorBytes = 32 << 20
	BlockBytes          = 2 << 20
	BlockMinPerBlock    = 32
)

// BlockWidth returns the column-block width of X V's product for V of n
// rows and k columns, 0 when V is small enough for the plain product.
// Widths are powers of two, so nearby k share one prepared copy.
func BlockWidth(n, k int) int {
	if n*k*8 <= BlockMinFactorBytes {
		return 0
	}
	return 1 << (bits.Len(uint(max(1, BlockBytes/(8*k)))) - 1)
}

// X V by column panels of X^T (sparse.ColPanels: V's rows read in order
// and scattered into a panel's rows of X V, which stay in cache) once V
// outgrows the caches, where they fit under the memory limit. On large
// generated corpora X V by 16 panels was faster than by the column blocks
// of X's rows (the fallback), and those faster than row by row; 8, 32
// and 64 panels were slower than 16 (each panel reads all of V's rows
// that it needs, so many panels read V many times; few leave a panel's
// rows of X V too large for the caches). With V of 24 MB panels were
// still faster; with V of 8 or 9.6 MB and on TDT2 they were no faster or
// slower, hence the threshold of 16 MB (measured: docs/PERFORMANCE.md).
// It is a variable so that a test can force panels on small data.
var PanelMinFactorBytes = 16 << 20

// PanelParts is the number of panels for threads goroutines: 16, or two a
// goroutine where there are more than 8, since panels hold equal entries
// but not equal work (a goroutine takes whole panels). The product does
// not depend on it.
func PanelParts(threads int) int { return max(16, 2*parallel.Threads(threads)) }

// PanelsFit reports whether bytes more fit under nine tenths of the Go
// runtime's memory limit (debug.SetMemoryLimit, which the command line
// sets from --memory) beside the memory the runtime holds now. The panels are a
// speed-up, not a need: a corpus that fits without them must not be
// refused or pushed past the limit for them, so without room X V is
// formed by column blocks of X (the same bits for k > 16; within rounding
// below).
func PanelsFit(bytes int64) bool {
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 {
		return true
	}
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	held := int64(s[0].Value.Uint64() - s[1].Value.Uint64())
	// A tenth of the limit stays free for what comes after the panels
	// (the assignment's k-means on V, the collector's slack).
	return held+bytes <= limit-limit/10
}

// BlockedProduct returns x prepared for products x b, b of x.Cols rows
// and k columns, by column blocks under the rule Fit uses for X V where
// the panels do not fit (see BlockMinFactorBytes), or nil when b is small
// enough for x.MulDenseTo.
func BlockedProduct(x *sparse.CSR, k int) *sparse.ColBlocks {
	w := BlockWidth(x.Cols, k)
	if w == 0 {
		return nil
	}
	return x.ColBlocks(w, BlockMinPerBlock)
}

// XVPanels returns samples (X^T, n x m, a row per sample, in the
// numbering of X) prepared for X V = samples^T V with V of k columns under
// the rule Fit uses (V larger than PanelMinFactorBytes and room under the
// memory limit), for threads goroutines, or nil.
func XVPanels(samples *sparse.CSR, k, threads int) *sparse.ColPanels {
	b := XVPanelBytes(samples.Rows, samples.NNZ(), k, threads)
	if b == 0 || !PanelsFit(b) {
		return nil
	}
	return samples.ColPanels(PanelParts(threads))
}

// XVPanelBytes is what XVPanels holds for n samples with nnz stored
// entries, V of k columns and threads goroutines (0 where V is below the
// threshold): memory.Estimate's Panels.
func XVPanelBytes(n, nnz, k, threads int) int64 {
	if n*k*8 <= PanelMinFactorBytes {
		return 0
	}
	return 16*int64(nnz) + 8*int64(n+1)*int64(PanelParts(threads))
}

// RenumberFeatures renames feature order[r] of samples (a matrix of one
// row per sample) to r in place, order being the permutation that
// sparse.CSR.TByFrequency returns, so that samples becomes X^T in the
// numbering of TByFrequency's X. Each row keeps its entries in their
// order, which is therefore no longer increasing: the result breaks
// sparse.CSR's rule of sorted columns, and is meant for products, sampled
// products and sums, which visit a row's entries in any order (Data's
// X^T; dist's blocks). Sorting them would take a second transpose (X^T
// from X), which was most of the solver's set-up where the renumbering is
// a small part of it (measured: docs/PERFORMANCE.md). It uses up to
// GOMAXPROCS goroutines. order must be a permutation of
// 0..samples.Cols-1 (TByFrequency's is); it panics if its length is not
// samples.Cols.
func RenumberFeatures(samples *sparse.CSR, order []int) {
	if len(order) != samples.Cols {
		panic("nmfstep: RenumberFeatures needs one number per feature")
	}
	newCol := make([]int, len(order))
	for r, j := range order {
		newCol[j] = r
	}
	ind := samples.Ind
	parallel.For(len(ind), parallel.Threads(0), 1<<16, func(lo, hi int) {
		for q, j := range ind[lo:hi] {
			ind[lo+q] = newCol[j]
		}
	})
}
