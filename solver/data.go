package solver

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/nmfstep"
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
	// memory; the X^T U gather then misses cache and TLB less (measured
	// on TDT2: docs/PERFORMANCE.md). Results are mapped back.
	order []int
	// neg is the first negative entry, nil when X is non-negative: nmf and
	// gnmf refuse such data, concept factorization accepts it.
	neg *entry
	// hidden lists the entries a fit leaves out of its objective (Hide);
	// nil when every entry counts.
	hidden *mask
	// panels holds xt prepared for X V by column panels, one per panel
	// count, built on first use; blocked holds x prepared for X V by
	// column blocks, one per block width (a width depends on k), for a
	// large V whose panels do not fit.
	panels  *memo[*sparse.ColPanels]
	blocked *memo[*sparse.ColBlocks]
	// ranges is set for compact Data (NewCompactData), which holds X^T
	// alone: X V is formed by column ranges of X^T in place.
	ranges *rangeCache
}

// rangeCache is compact Data's column counts (X's row lengths), their
// prefix sums and its sparse.ColRanges by panel count.
type rangeCache struct {
	counts, ptr []int
	parts       memo[*sparse.ColRanges]
}

// memo is a set of values built on first use, by key, shared by
// concurrent fits; a value once built (nil too) is kept for the Data's
// life, so that a fit does not change products midway.
type memo[V any] struct {
	mu sync.Mutex
	m  map[int]V
}

// get returns the value of key, built by build the first time.
func (c *memo[V]) get(key int, build func() V) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[key]; ok {
		return v
	}
	if c.m == nil {
		c.m = map[int]V{}
	}
	v := build()
	c.m[key] = v
	return v
}

// xRanges returns compact Data's X^T cut into column ranges for X V with
// threads goroutines.
func (d *Data) xRanges(threads int) *sparse.ColRanges {
	// Two panels a goroutine: each panel reads all of V and searches
	// every row for its run, so fewer panels cost less, down to where a
	// panel's rows of X V no longer stay in cache (docs/PERFORMANCE.md).
	parts := 2 * parallel.Threads(threads)
	return d.ranges.parts.get(parts, func() *sparse.ColRanges { return d.xt.ColRanges(parts, d.ranges.counts) })
}

// featurePtr returns X's row pointers (a feature's entries), for the
// cost of the U half's chunks.
func (d *Data) featurePtr() []int {
	if d.x != nil {
		return d.x.Indptr
	}
	return d.ranges.ptr
}

// xBlocks returns x prepared for X V with V of k columns, or nil when V
// is small enough for the plain product.
func (d *Data) xBlocks(k int) *sparse.ColBlocks {
	w := nmfstep.BlockWidth(d.n, k)
	if d.blocked == nil || w == 0 {
		return nil
	}
	return d.blocked.get(w, func() *sparse.ColBlocks { return d.x.ColBlocks(w, nmfstep.BlockMinPerBlock) })
}

// xPanels returns xt prepared for X V with V of k columns, or nil when V
// is small enough for the row-by-row product or the panels do not fit
// beside what the program holds under the Go runtime's memory limit
// (PanelsFit). Either answer is kept for the Data's life, so that a fit
// does not change products midway.
func (d *Data) xPanels(k, threads int) *sparse.ColPanels {
	if d.panels == nil || nmfstep.XVPanelBytes(d.n, d.nnz, k, threads) == 0 {
		return nil
	}
	// By panel count, nil where they did not fit.
	return d.panels.get(nmfstep.PanelParts(threads), func() *sparse.ColPanels { return nmfstep.XVPanels(d.xt, k, threads) })
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
// GB at 70 million entries (measured: docs/PERFORMANCE.md). The results
// are NewSparseData's, bit for bit. On an error samples is unchanged.
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

// NewCompactData is NewSparseDataInPlace holding X^T alone: half the
// memory (16 bytes a stored entry, where the others hold 32), for data
// whose two orientations do not fit. Samples' arrays become the Data's
// X^T as they are, features not renumbered, and samples is left with
// none. X V is then formed whole by column ranges of X^T
// (sparse.ColRanges), reading V's rows in order; the methods that walk
// X's rows (nmf-kl, lpnmf, cf, lccf) transpose it when they start, so
// they gain nothing from it. Results agree with NewSparseData's within
// rounding (the sums over features run in another order) and, like
// them, do not depend on the number of threads.
func NewCompactData(samples *sparse.CSR) (*Data, error) {
	d, err := checkSparse(samples)
	if err != nil {
		return nil, err
	}
	d.xt = &sparse.CSR{Rows: samples.Rows, Cols: samples.Cols, Indptr: samples.Indptr, Ind: samples.Ind, Val: samples.Val}
	samples.Indptr, samples.Ind, samples.Val = nil, nil, nil
	counts := d.xt.ColNNZ()
	ptr := make([]int, d.m+1)
	for j, c := range counts {
		ptr[j+1] = ptr[j] + c
	}
	d.panels, d.blocked = nil, nil
	d.ranges = &rangeCache{counts: counts, ptr: ptr}
	return d, nil
}

// compact reports whether d holds X^T alone (NewCompactData).
func (d *Data) compact() bool { return d.ranges != nil }

// renumberSamples gives d.xt's column indices the internal feature
// numbers in place (RenumberFeatures).
func (d *Data) renumberSamples() { nmfstep.RenumberFeatures(d.xt, d.order) }

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
	d.panels, d.blocked = &memo[*sparse.ColPanels]{}, &memo[*sparse.ColBlocks]{}
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
	if d.ranges != nil {
		// X's rows a range of features at a time, each range about an
		// equal share of the entries.
		d.xt.ColRanges(8*threads, d.ranges.counts).EachCol(threads, fn)
		return
	}
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
func (d *Data) IsSparse() bool { return d.xt != nil }

// SquaredNorm returns ||X||_F^2.
func (d *Data) SquaredNorm() float64 { return d.sqNorm }

// mulV computes dst (m x k) = X V for V (n x k).
func (d *Data) mulV(dst, v blas64.General, threads int) {
	if d.ranges != nil {
		d.xRanges(threads).MulTransDenseTo(dst, v, threads)
		return
	}
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
		if d.ranges != nil {
			e.ranges = &rangeCache{counts: d.ranges.counts, ptr: d.ranges.ptr}
		} else {
			e.x = d.x.Clone()
			e.x.ScaleCols(f)
			e.panels, e.blocked = &memo[*sparse.ColPanels]{}, &memo[*sparse.ColBlocks]{}
		}
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

// samplesCSR returns X^T (samples as rows) in CSR, without sparseForms'
// transpose; for dense data, of its non-zero entries.
func (d *Data) samplesCSR() *sparse.CSR {
	if d.xt != nil {
		return d.xt
	}
	_, xt := d.sparseForms()
	return xt
}

// sparseForms returns X (features as rows) and X^T (samples as rows) in
// CSR; for dense data, of its non-zero entries.
func (d *Data) sparseForms() (x, xt *sparse.CSR) {
	if d.xt != nil && d.x == nil {
		return d.xt.T(), d.xt
	}
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
