package solver

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// Data is the matrix X (m features x n samples) in the forms the products
// need: for sparse X both X (one row per feature) and X^T (one row per
// sample) in CSR, so that X V and X^T U are both row-parallel products
// (X^T's rows keep the caller's order of entries, see renumberSamples); for
// dense X one row-major copy of X^T, used through BLAS. A Data is read-only
// once built and may be shared by concurrent fits.
type Data struct {
	m, n   int
	x, xt  *sparse.CSR    // sparse form, nil when dense
	dense  blas64.General // X^T, n x m, when dense
	sqNorm float64        // ||X||_F^2
	nnz    int
	// order[r] is the caller's feature index of internal feature r (nil:
	// the identity). Sparse features are renumbered by falling document
	// frequency, so the rows of U that most samples touch sit together in
	// memory; the X^T U gather then misses cache and TLB less (about 13 %
	// faster an iteration on TDT2). Results are mapped back.
	order []int
	// neg is the first negative entry, nil when X is non-negative: nmf and
	// gnmf refuse such data, concept factorization accepts it.
	neg *entry
	// panels holds xt prepared for X V by column panels, one per panel
	// count, built on first use; blocked holds x prepared for X V by
	// column blocks, one per block width (a width depends on k), for a
	// large V whose panels do not fit.
	panels  *panelCache
	blocked *blockCache
}

// blockCache is Data's set of sparse.ColBlocks, shared by concurrent fits.
type blockCache struct {
	mu    sync.Mutex
	width map[int]*sparse.ColBlocks
}

// Column blocking of X V (sparse.ColBlocks), where the panels (below) do
// not fit under the memory limit: it holds no copy of the data. Measured
// on generated corpora of 100,000 terms (k = 30, 2 threads, an earlier
// 2-core AMD EPYC VM), X V took 500 ms plain and 354 ms blocked at
// 500,000 samples (V of 120 MB), 160-200 against 137-152 ms at 200,000
// (48 MB), and gained nothing at 50,000 (12 MB, which the caches mostly
// hold). Blocks of 2 MB of V and rows with 32 entries a block
// measured best of widths 2,048-16,384 and 8-64 entries.
// They are variables so that a test can force blocking on small data.
var (
	blockMinFactorBytes = 32 << 20
	blockBytes          = 2 << 20
	blockMinPerBlock    = 32
)

// blockWidth returns the column-block width of X V's product for V of n
// rows and k columns, 0 when V is small enough for the plain product.
// Widths are powers of two, so nearby k share one prepared copy.
func blockWidth(n, k int) int {
	if n*k*8 <= blockMinFactorBytes {
		return 0
	}
	return 1 << (bits.Len(uint(max(1, blockBytes/(8*k)))) - 1)
}

// BlockedProduct returns x prepared for products x b, b of x.Cols rows
// and k columns, by column blocks under the rule Fit uses for X V where
// the panels do not fit (see blockMinFactorBytes), or nil when b is small
// enough for x.MulDenseTo.
func BlockedProduct(x *sparse.CSR, k int) *sparse.ColBlocks {
	w := blockWidth(x.Cols, k)
	if w == 0 {
		return nil
	}
	return x.ColBlocks(w, blockMinPerBlock)
}

// xBlocks returns x prepared for X V with V of k columns, or nil when V
// is small enough for the plain product.
func (d *Data) xBlocks(k int) *sparse.ColBlocks {
	w := blockWidth(d.n, k)
	if d.blocked == nil || w == 0 {
		return nil
	}
	d.blocked.mu.Lock()
	defer d.blocked.mu.Unlock()
	if d.blocked.width == nil {
		d.blocked.width = map[int]*sparse.ColBlocks{}
	}
	c := d.blocked.width[w]
	if c == nil {
		c = d.x.ColBlocks(w, blockMinPerBlock)
		d.blocked.width[w] = c
	}
	return c
}

// panelCache is Data's set of sparse.ColPanels, shared by concurrent fits:
// by panel count, nil where they did not fit.
type panelCache struct {
	mu    sync.Mutex
	parts map[int]*sparse.ColPanels
}

// X V by column panels of X^T (sparse.ColPanels: V's rows read in order
// and scattered into a panel's rows of X V, which stay in cache) once V
// outgrows the caches, where they fit under the memory limit. On 500,000
// generated documents (V of 120 MB, k = 30, 2 threads, the Zen 4 VM of
// bench/RESULTS.md) X V took 330-490 ms by 16 panels against 770-980 ms
// by the column blocks of X's rows (the fallback) and 1.15-1.26 s row by
// row; 8, 32 and 64 panels took 400-520, 420-430 and 670-720 ms (each
// panel reads all of V's rows that it needs, so many panels read V many
// times; few leave a panel's rows of X V too large for the caches). At
// 100,000 documents (V of 24 MB) 16 panels took 99-168 ms against 165-273
// row by row; at 40,000 (9.6 MB), at 100,000 with k = 10 (8 MB) and on
// TDT2 they were no faster or slower, hence the threshold of 16 MB.
// It is a variable so that a test can force panels on small data.
var panelMinFactorBytes = 16 << 20

// panelParts is the number of panels for threads goroutines: 16, or two a
// goroutine where there are more than 8, since panels hold equal entries
// but not equal work (a goroutine takes whole panels). The product does
// not depend on it.
func panelParts(threads int) int { return max(16, 2*parallel.Threads(threads)) }

// XVPanels returns samples (X^T, n x m, a row per sample, in the
// numbering of X) prepared for X V = samples^T V with V of k columns under
// the rule Fit uses (V larger than panelMinFactorBytes and room under the
// memory limit), for threads goroutines, or nil.
func XVPanels(samples *sparse.CSR, k, threads int) *sparse.ColPanels {
	b := XVPanelBytes(samples.Rows, samples.NNZ(), k, threads)
	if b == 0 || !panelsFit(b) {
		return nil
	}
	return samples.ColPanels(panelParts(threads))
}

// XVPanelBytes is what XVPanels holds for n samples with nnz stored
// entries, V of k columns and threads goroutines (0 where V is below the
// threshold): model.Memory's Panels.
func XVPanelBytes(n, nnz, k, threads int) int64 {
	if n*k*8 <= panelMinFactorBytes {
		return 0
	}
	return 16*int64(nnz) + 8*int64(n+1)*int64(panelParts(threads))
}

// xPanels returns xt prepared for X V with V of k columns, or nil when V
// is small enough for the row-by-row product or the panels do not fit
// beside what the program holds under the Go runtime's memory limit
// (panelsFit). Either answer is kept for the Data's life, so that a fit
// does not change products midway.
func (d *Data) xPanels(k, threads int) *sparse.ColPanels {
	if d.panels == nil || XVPanelBytes(d.n, d.nnz, k, threads) == 0 {
		return nil
	}
	parts := panelParts(threads)
	d.panels.mu.Lock()
	defer d.panels.mu.Unlock()
	if d.panels.parts == nil {
		d.panels.parts = map[int]*sparse.ColPanels{}
	}
	c, decided := d.panels.parts[parts]
	if !decided {
		c = XVPanels(d.xt, k, threads)
		d.panels.parts[parts] = c
	}
	return c
}

// panelsFit reports whether bytes more fit under nine tenths of the Go
// runtime's memory limit (debug.SetMemoryLimit, which the command line
// sets from --memory) beside the memory the runtime holds now. The panels are a
// speed-up, not a need: a corpus that fits without them must not be
// refused or pushed past the limit for them, so without room X V is
// formed by column blocks of X (the same bits for k > 16; within rounding
// below).
func panelsFit(bytes int64) bool {
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

// entry is one element of X^T: sample i, caller's feature j, value v.
type entry struct {
	i, j int
	v    float64
}

// NewSparseData builds Data from a sparse n x m matrix whose rows are the
// samples (X^T, the layout of the field's files). It must be valid and have
// at least one row and one column. Negative entries are allowed here, but
// only concept factorization accepts them (Fit says where the first one
// is). The matrix is copied.
func NewSparseData(samples *sparse.CSR) (*Data, error) {
	d, err := checkSparse(samples)
	if err != nil {
		return nil, err
	}
	d.x, d.order = samples.TByFrequency()
	d.xt = samples.Clone()
	d.renumberSamples()
	return d, nil
}

// NewSparseDataInPlace is NewSparseData without the copy of samples: the
// Data's X^T (samples as rows, features renumbered) is written over
// samples' arrays, which belong to the Data afterwards, and samples is
// left with none (nil Indptr, Ind and Val), so that a later use of it
// fails rather than reading renumbered entries. It saves one copy of the
// data and its first touch of fresh memory: 16 bytes a stored entry, 1.1
// GB and 0.7-2 s at 70 million entries on the machine of
// bench/RESULTS.md. The results are NewSparseData's, bit for bit. On an
// error samples is unchanged.
func NewSparseDataInPlace(samples *sparse.CSR) (*Data, error) {
	d, err := checkSparse(samples)
	if err != nil {
		return nil, err
	}
	d.x, d.order = samples.TByFrequency()
	d.xt = &sparse.CSR{Rows: samples.Rows, Cols: samples.Cols, Indptr: samples.Indptr, Ind: samples.Ind, Val: samples.Val}
	samples.Indptr, samples.Ind, samples.Val = nil, nil, nil
	d.renumberSamples()
	return d, nil
}

// renumberSamples gives d.xt's column indices the internal feature
// numbers in place (RenumberFeatures).
func (d *Data) renumberSamples() { RenumberFeatures(d.xt, d.order) }

// RenumberFeatures renames feature order[r] of samples (a matrix of one
// row per sample) to r in place, order being the permutation that
// sparse.CSR.TByFrequency returns, so that samples becomes X^T in the
// numbering of TByFrequency's X. Each row keeps its entries in their
// order, which is therefore no longer increasing: the result breaks
// sparse.CSR's rule of sorted columns, and is meant for products, sampled
// products and sums, which visit a row's entries in any order (Data's
// X^T; dist's blocks). Sorting them was what a second transpose (X^T
// from X) did, and it was most of the solver's set-up: 0.85 s at 63
// million entries on 2 threads against under 0.1 s for the renumbering
// (bench/RESULTS.md). It uses up to GOMAXPROCS goroutines. order must
// be a permutation of 0..samples.Cols-1 (TByFrequency's is); it panics if
// its length is not samples.Cols.
func RenumberFeatures(samples *sparse.CSR, order []int) {
	if len(order) != samples.Cols {
		panic("solver: RenumberFeatures needs one number per feature")
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

// checkSparse checks samples for NewSparseData and returns the Data's
// fields that do not depend on the copies.
func checkSparse(samples *sparse.CSR) (*Data, error) {
	if samples == nil {
		return nil, errors.New("solver: nil data")
	}
	st, err := samples.Scan()
	if err != nil {
		return nil, fmt.Errorf("solver: invalid data: %w", err)
	}
	n, m := samples.Dims()
	if n == 0 || m == 0 {
		return nil, fmt.Errorf("solver: empty data (%d samples x %d features)", n, m)
	}
	d := &Data{m: m, n: n, sqNorm: st.SumSquares, nnz: samples.NNZ()}
	if p := st.FirstNegative; p >= 0 {
		d.neg = &entry{samples.RowOf(p), samples.Ind[p], samples.Val[p]}
	}
	d.panels, d.blocked = &panelCache{}, &blockCache{}
	return d, nil
}

// EachFeature calls fn once for each feature j (the caller's index, in no
// fixed order) with the samples in which it is stored, in increasing
// order, and their values there: X's rows. For dense data every sample
// is listed. fn is called from up to threads goroutines at once (threads
// <= 0 means GOMAXPROCS), so it may write only what belongs to its own
// feature; anything it sums over a feature's samples is then the same for
// any thread count. fn must not keep or change the slices.
func (d *Data) EachFeature(threads int, fn func(j int, samples []int, values []float64)) {
	threads = parallel.Threads(threads)
	if d.x != nil {
		// Chunks of about equal stored entries: features are numbered by
		// falling frequency, so equal counts of rows would leave the
		// first chunk with most of the work.
		chunks := min(d.m, 8*threads)
		bound := func(c int) int {
			if c == chunks {
				return d.m
			}
			return sort.SearchInts(d.x.Indptr[:d.m], c*d.nnz/chunks)
		}
		parallel.For(chunks, threads, 1, func(lo, hi int) {
			for c := lo; c < hi; c++ {
				for r := bound(c); r < bound(c+1); r++ {
					p0, p1 := d.x.Indptr[r], d.x.Indptr[r+1]
					fn(d.feature(r), d.x.Ind[p0:p1], d.x.Val[p0:p1])
				}
			}
		})
		return
	}
	all := make([]int, d.n)
	for i := range all {
		all[i] = i
	}
	cols := parallel.OwnRows(parallel.Workers(d.m, threads, 0), d.n)
	parallel.ForWorker(d.m, threads, 0, func(w, lo, hi int) {
		col := cols[w]
		for j := lo; j < hi; j++ {
			for i := range col {
				col[i] = d.dense.Data[i*d.m+j]
			}
			fn(j, all, col)
		}
	})
}

// feature returns the caller's index of internal feature r.
func (d *Data) feature(r int) int {
	if d.order == nil {
		return r
	}
	return d.order[r]
}

// NewDenseData builds Data from a dense n x m matrix whose rows are the
// samples. The matrix is copied. It must have at least one row and one
// column and be finite; negative entries are treated as in NewSparseData.
func NewDenseData(samples mat.Matrix) (*Data, error) {
	if samples == nil {
		return nil, errors.New("solver: nil data")
	}
	n, m := samples.Dims()
	if n == 0 || m == 0 {
		return nil, fmt.Errorf("solver: empty data (%d samples x %d features)", n, m)
	}
	d := &Data{m: m, n: n, dense: blas64.General{Rows: n, Cols: m, Stride: m, Data: make([]float64, n*m)}}
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			v := samples.At(i, j)
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0):
				return nil, fmt.Errorf("solver: value %v at sample %d, feature %d (1-based) is not finite", v, i+1, j+1)
			case v < 0 && d.neg == nil:
				d.neg = &entry{i, j, v}
			}
			if v != 0 {
				d.nnz++
			}
			d.dense.Data[i*m+j] = v
			d.sqNorm += v * v
		}
	}
	return d, nil
}

// Dims returns the number of samples and features, in the order of the
// matrix given to NewSparseData or NewDenseData (one row per sample), as
// dataset.Dataset.Dims and every Dims of the module do; the papers' X is
// the transpose, features x samples.
func (d *Data) Dims() (samples, features int) { return d.n, d.m }

// NNZ returns the number of non-zero entries of X.
func (d *Data) NNZ() int { return d.nnz }

// IsSparse reports whether X is held in sparse form.
func (d *Data) IsSparse() bool { return d.x != nil }

// SquaredNorm returns ||X||_F^2.
func (d *Data) SquaredNorm() float64 { return d.sqNorm }

// mulV computes dst (m x k) = X V for V (n x k).
func (d *Data) mulV(dst, v blas64.General, threads int) {
	if d.x != nil {
		if c := d.xPanels(v.Cols, threads); c != nil {
			c.MulTransDenseTo(dst, v, threads)
			return
		}
		if c := d.xBlocks(v.Cols); c != nil {
			c.MulDenseTo(dst, v, threads)
			return
		}
		d.x.MulDenseTo(dst, v, threads)
		return
	}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, d.dense, v, 0, dst)
}

// mulTU computes dst (n x k) = X^T U for U (m x k).
func (d *Data) mulTU(dst, u blas64.General, threads int) {
	if d.xt != nil {
		d.xt.MulDenseTo(dst, u, threads)
		return
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, d.dense, u, 0, dst)
}

// scaledSamples returns a Data whose sample j is sample j of d times f[j]:
// X' = X diag(f).
func (d *Data) scaledSamples(f []float64) *Data {
	e := *d
	e.sqNorm = 0
	if d.xt != nil {
		// Both orientations are scaled where they are: xt's rows are not
		// sorted (renumberSamples), so it is not transposed.
		e.xt = d.xt.Clone()
		e.xt.ScaleRows(f)
		e.x = d.x.Clone()
		e.x.ScaleCols(f)
		e.panels, e.blocked = &panelCache{}, &blockCache{}
		e.sqNorm = e.xt.SquaredFrobenius()
		return &e
	}
	e.dense = general(d.n, d.m)
	for i := 0; i < d.n; i++ {
		src := d.dense.Data[i*d.m : (i+1)*d.m]
		dst := e.dense.Data[i*d.m : (i+1)*d.m]
		for j, x := range src {
			dst[j] = x * f[i]
			e.sqNorm += dst[j] * dst[j]
		}
	}
	return &e
}

// ncwDegrees returns d = X^T X e, each sample's inner product with the sum
// of all samples: the degrees of the normalized-cut weighting.
func (d *Data) ncwDegrees() []float64 {
	deg := make([]float64, d.n)
	if d.xt != nil {
		s := d.xt.ColSums() // X e: one entry per (internal) feature
		for j := 0; j < d.n; j++ {
			for q := d.xt.Indptr[j]; q < d.xt.Indptr[j+1]; q++ {
				deg[j] += d.xt.Val[q] * s[d.xt.Ind[q]]
			}
		}
		return deg
	}
	s := make([]float64, d.m)
	for j := 0; j < d.n; j++ {
		for t, x := range d.dense.Data[j*d.m : (j+1)*d.m] {
			s[t] += x
		}
	}
	for j := 0; j < d.n; j++ {
		var dj float64
		for t, x := range d.dense.Data[j*d.m : (j+1)*d.m] {
			dj += x * s[t]
		}
		deg[j] = dj
	}
	return deg
}

// sparseForms returns X (features as rows) and X^T (samples as rows) in
// CSR; for dense data, of its non-zero entries.
func (d *Data) sparseForms() (x, xt *sparse.CSR) {
	if d.xt != nil {
		return d.x, d.xt
	}
	xt = &sparse.CSR{Rows: d.n, Cols: d.m, Indptr: make([]int, d.n+1)}
	for j := 0; j < d.n; j++ {
		for t, v := range d.dense.Data[j*d.m : (j+1)*d.m] {
			if v != 0 {
				xt.Ind = append(xt.Ind, t)
				xt.Val = append(xt.Val, v)
			}
		}
		xt.Indptr[j+1] = len(xt.Ind)
	}
	return xt.T(), xt
}
