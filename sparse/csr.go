package sparse

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/internal/sysmem"
)

// CSR is a sparse matrix in compressed sparse row form. Row i holds the
// column indices Ind[Indptr[i]:Indptr[i+1]] with the values in Val at the
// same positions.
type CSR struct {
	Rows, Cols int
	Indptr     []int
	Ind        []int
	Val        []float64
}

// NewCSR returns a CSR that takes ownership of the given slices after
// checking them with Validate.
func NewCSR(rows, cols int, indptr, ind []int, val []float64) (*CSR, error) {
	a := &CSR{Rows: rows, Cols: cols, Indptr: indptr, Ind: ind, Val: val}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	return a, nil
}

// Validate reports the first way in which a breaks the CSR invariants: row
// pointers monotone from 0 to len(Val), then, row by row, column indices in
// range and strictly increasing within each row, values finite. The rows'
// entries are checked in parallel; the error is the first in row order
// whatever the number of threads.
func (a *CSR) Validate() error {
	_, err := a.Scan()
	return err
}

// Stats is what Scan learns of a valid CSR's stored values on the way.
type Stats struct {
	// SumSquares is the sum of the squared values: in fixed chunks of
	// rows, the chunks' sums added in row order, so the same for any
	// number of threads.
	SumSquares float64
	// FirstNegative is the position in Ind and Val of the first negative
	// value in row order, -1 when there is none.
	FirstNegative int
	// Fraction reports some value that is not a whole number, and
	// NonCount some non-zero value below 1: what tells term counts from
	// weighted data (model.Prepare's weighting), at no pass of its own.
	Fraction, NonCount bool
}

// Scan is Validate, which also returns the Stats of the values: one pass
// over the entries where a caller that needs both would make three (on a
// large corpus Scan made the solver's set-up noticeably shorter:
// docs/PERFORMANCE.md). Stats is zero when err is not nil.
func (a *CSR) Scan() (Stats, error) {
	if a.Rows < 0 || a.Cols < 0 {
		return Stats{}, fmt.Errorf("sparse: negative dimensions %d x %d", a.Rows, a.Cols)
	}
	if len(a.Indptr) != a.Rows+1 {
		return Stats{}, fmt.Errorf("sparse: %d row pointers for %d rows, want %d", len(a.Indptr), a.Rows, a.Rows+1)
	}
	if len(a.Ind) != len(a.Val) {
		return Stats{}, fmt.Errorf("sparse: %d column indices but %d values", len(a.Ind), len(a.Val))
	}
	if a.Indptr[0] != 0 {
		return Stats{}, fmt.Errorf("sparse: first row pointer is %d, want 0", a.Indptr[0])
	}
	if a.Indptr[a.Rows] != len(a.Val) {
		return Stats{}, fmt.Errorf("sparse: last row pointer is %d, want %d (number of values)", a.Indptr[a.Rows], len(a.Val))
	}
	for i := 0; i < a.Rows; i++ {
		lo, hi := a.Indptr[i], a.Indptr[i+1]
		if hi < lo {
			return Stats{}, fmt.Errorf("sparse: row pointer decreases at row %d (1-based; %d then %d)", i+1, lo, hi)
		}
		if hi > len(a.Val) {
			return Stats{}, fmt.Errorf("sparse: row pointer %d of row %d (1-based) exceeds the %d stored values", hi, i+1, len(a.Val))
		}
	}
	// The entries in fixed chunks of rows, in parallel; the earliest
	// chunk's error is the first in row order, whatever the threads.
	chunks := make([]scanChunk, (a.Rows+validateRows-1)/validateRows)
	parallel.For(a.Rows, 0, validateRows, func(lo, hi int) {
		chunks[lo/validateRows] = a.scanRows(lo, hi)
	})
	st := Stats{FirstNegative: -1}
	for _, c := range chunks {
		if c.err != nil {
			return Stats{}, c.err
		}
		st.SumSquares += c.sq
		if st.FirstNegative < 0 {
			st.FirstNegative = c.neg
		}
		st.Fraction = st.Fraction || c.frac
		st.NonCount = st.NonCount || c.nonCount
	}
	return st, nil
}

// validateRows is how many rows a goroutine of Scan checks at a time.
const validateRows = 4096

// scanChunk is scanRows' result for one chunk of rows.
type scanChunk struct {
	sq             float64 // sum of squares
	neg            int     // first negative entry, -1 if none
	frac, nonCount bool    // Stats' Fraction and NonCount
	err            error
}

// finiteMask selects a float64's exponent bits, which are all set only
// for the infinities and NaN.
const finiteMask = 0x7ff0000000000000

// scanRows checks the entries of rows i0..i1-1, whose pointers Scan has
// checked, and sums their squares. The loop tests each entry with one
// unsigned compare for the column's range, one for its order and a mask
// for finiteness; the message is built only for a bad entry.
func (a *CSR) scanRows(i0, i1 int) scanChunk {
	c := scanChunk{neg: -1}
	cols := uint(a.Cols)
	for i := i0; i < i1; i++ {
		lo, hi := a.Indptr[i], a.Indptr[i+1]
		ind := a.Ind[lo:hi]
		val := a.Val[lo:hi]
		val = val[:len(ind)]
		prev := -1
		for p, j := range ind {
			v := val[p]
			if uint(j) >= cols || j <= prev || math.Float64bits(v)&finiteMask == finiteMask {
				c.err = a.entryError(i, j, prev, v)
				return c
			}
			prev = j
			c.sq += v * v
			if v < 0 && c.neg < 0 {
				c.neg = lo + p
			}
			c.frac = c.frac || v != math.Trunc(v)
			c.nonCount = c.nonCount || (v != 0 && v < 1)
		}
	}
	return c
}

// entryError describes the bad entry (column j after prev, value v) of
// row i that scanRows found.
func (a *CSR) entryError(i, j, prev int, v float64) error {
	switch {
	case j < 0 || j >= a.Cols:
		return fmt.Errorf("sparse: row %d: column %d out of range [1, %d] (1-based)", i+1, j+1, a.Cols)
	case j <= prev:
		return fmt.Errorf("sparse: row %d: columns not strictly increasing (%d after %d, 1-based)", i+1, j+1, prev+1)
	default:
		return fmt.Errorf("sparse: row %d, column %d (1-based): value %v is not finite", i+1, j+1, v)
	}
}

// First returns the position in Ind and Val of the first stored entry, in
// row order, whose value satisfies bad, and whether there is one. Fixed
// chunks of entries are searched in parallel, each for its own first; the
// earliest chunk's is the first of all, whatever the threads.
func (a *CSR) First(bad func(float64) bool) (p int, found bool) {
	at := make([]int, (len(a.Val)+firstEntries-1)/firstEntries) // each chunk's first bad entry, or -1
	parallel.For(len(a.Val), 0, firstEntries, func(lo, hi int) {
		c := lo / firstEntries
		at[c] = -1
		for q, v := range a.Val[lo:hi] {
			if bad(v) {
				at[c] = lo + q
				break
			}
		}
	})
	for _, q := range at {
		if q >= 0 {
			return q, true
		}
	}
	return 0, false
}

// firstEntries is how many entries a goroutine of First searches at a
// time.
const firstEntries = 1 << 16

// RowOf returns the row holding stored entry p (0 <= p < NNZ).
func (a *CSR) RowOf(p int) int {
	// The last row starting at or before p (empty rows start where the
	// next one does).
	return sort.Search(a.Rows, func(r int) bool { return a.Indptr[r+1] > p })
}

// FromTriplets builds a rows x cols CSR from coordinate triplets
// (ri[p], ci[p], v[p]). Entries at the same position are summed; explicit
// zeros are kept. The inputs are not modified.
func FromTriplets(rows, cols int, ri, ci []int, v []float64) (*CSR, error) {
	if len(ri) != len(ci) || len(ri) != len(v) {
		return nil, fmt.Errorf("sparse: triplet slices differ in length (%d, %d, %d)", len(ri), len(ci), len(v))
	}
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("sparse: negative dimensions %d x %d", rows, cols)
	}
	for p := range ri {
		if ri[p] < 0 || ri[p] >= rows || ci[p] < 0 || ci[p] >= cols {
			return nil, fmt.Errorf("sparse: triplet %d at (%d,%d) outside %d x %d", p, ri[p], ci[p], rows, cols)
		}
		if math.IsNaN(v[p]) || math.IsInf(v[p], 0) {
			return nil, fmt.Errorf("sparse: triplet %d at (%d,%d): value %v is not finite", p, ri[p], ci[p], v[p])
		}
	}
	// Counting sort by row, then sort each row by column and merge duplicates.
	indptr := make([]int, rows+1)
	for _, r := range ri {
		indptr[r+1]++
	}
	for i := 0; i < rows; i++ {
		indptr[i+1] += indptr[i]
	}
	ind := make([]int, len(ri))
	val := make([]float64, len(ri))
	next := append([]int(nil), indptr[:rows]...)
	for p, r := range ri {
		q := next[r]
		ind[q], val[q] = ci[p], v[p]
		next[r]++
	}
	out := 0
	for i := 0; i < rows; i++ {
		lo, hi := indptr[i], indptr[i+1]
		sort.Sort(byIndex{ind[lo:hi], val[lo:hi]})
		indptr[i] = out
		for p := lo; p < hi; p++ {
			if out > indptr[i] && ind[out-1] == ind[p] {
				val[out-1] += val[p]
				continue
			}
			ind[out], val[out] = ind[p], val[p]
			out++
		}
	}
	indptr[rows] = out
	return &CSR{Rows: rows, Cols: cols, Indptr: indptr, Ind: ind[:out:out], Val: val[:out:out]}, nil
}

type byIndex struct {
	ind []int
	val []float64
}

func (s byIndex) Len() int           { return len(s.ind) }
func (s byIndex) Less(i, j int) bool { return s.ind[i] < s.ind[j] }
func (s byIndex) Swap(i, j int) {
	s.ind[i], s.ind[j] = s.ind[j], s.ind[i]
	s.val[i], s.val[j] = s.val[j], s.val[i]
}

// Dims returns the number of rows and columns.
func (a *CSR) Dims() (r, c int) { return a.Rows, a.Cols }

// NNZ returns the number of stored entries.
func (a *CSR) NNZ() int { return len(a.Val) }

// At returns the element at row i, column j.
func (a *CSR) At(i, j int) float64 {
	if i < 0 || i >= a.Rows || j < 0 || j >= a.Cols {
		panic("sparse: index out of range")
	}
	lo, hi := a.Indptr[i], a.Indptr[i+1]
	p := lo + sort.SearchInts(a.Ind[lo:hi], j)
	if p < hi && a.Ind[p] == j {
		return a.Val[p]
	}
	return 0
}

// T returns the transpose of a as a new CSR (equivalently, a in CSC form).
// Column indices of the result come out sorted because rows are scanned in
// order. It uses up to GOMAXPROCS goroutines; the result does not depend
// on their number.
func (a *CSR) T() *CSR { return a.TPermuted(nil) }

// TPermuted returns the transpose of a with its rows reordered: row j of
// a^T (column j of a) becomes row newRow[j], newRow being a permutation of
// 0..Cols-1, or nil for none. It is T and SelectRows in one pass over the
// entries.
func (a *CSR) TPermuted(newRow []int) *CSR {
	if newRow != nil && len(newRow) != a.Cols {
		panic("sparse: TPermuted needs one new row per column")
	}
	t := a.newT()
	a.transposeTo(t, newRow, nil)
	return t
}

// newT returns the arrays of a's transpose, not yet filled.
func (a *CSR) newT() *CSR {
	t := &CSR{Indptr: make([]int, a.Cols+1), Ind: make([]int, len(a.Ind)), Val: make([]float64, len(a.Val))}
	// A large transpose is usually written into fresh memory, where
	// 4 KiB pages cost a fault each (see sysmem.HugePages).
	sysmem.HugePages(t.Ind)
	sysmem.HugePages(t.Val)
	return t
}

// TTo stores the transpose of a in dst (T's result), in dst's own arrays
// where they have the capacity, so that a transpose can go into memory
// already in use rather than fresh memory: a matrix of the same entries
// (a of 500,000 x 100,000 with 70 million entries into the arrays of its
// own transpose's transpose) takes no new memory at all. dst must not
// share storage with a.
func (a *CSR) TTo(dst *CSR) {
	if len(a.Ind) > 0 && cap(dst.Ind) > 0 && cap(dst.Val) > 0 &&
		(&a.Ind[0] == &dst.Ind[:1][0] || &a.Val[0] == &dst.Val[:1][0]) {
		panic("sparse: TTo into a's own storage")
	}
	dst.Indptr = reuse(dst.Indptr, a.Cols+1)
	dst.Ind = reuse(dst.Ind, len(a.Ind))
	dst.Val = reuse(dst.Val, len(a.Val))
	a.transposeTo(dst, nil, nil)
}

// reuse returns s resliced to n elements when its capacity allows, a new
// slice otherwise.
func reuse[E any](s []E, n int) []E {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]E, n)
}

// transposeTo fills t, whose Indptr, Ind and Val have the lengths of the
// result, with the transpose of a, its rows permuted by newRow (nil: none)
// or, when order is not nil, by the permutation it returns for the number
// of entries in each column of a.
func (a *CSR) transposeTo(t *CSR, newRow []int, order func(count []int) []int) {
	t.Rows, t.Cols = a.Cols, a.Rows
	t.Indptr[0] = 0
	// The rows are cut into blocks at fixed places; each block counts its
	// entries per column, so that it knows where its part of each column
	// of t starts, and then fills its part in row order: the result is
	// the serial counting transpose's, whatever the number of blocks. The
	// counts take blocks x columns words, kept under a quarter of the
	// entries.
	m := a.Cols
	blocks := min(parallel.Threads(0), a.Rows/256+1)
	if m > 0 {
		blocks = max(1, min(blocks, len(a.Ind)/(4*m)))
	}
	// Blocks hold equal numbers of entries, not of rows: rows ordered by
	// falling length (TByFrequency's result, a Zipf corpus's terms) put
	// most entries in the first rows, and cuts by rows left one thread
	// with most of the work.
	cuts := make([]int, blocks+1)
	for b := 1; b < blocks; b++ {
		e := b * len(a.Ind) / blocks
		cuts[b] = sort.Search(a.Rows, func(r int) bool { return a.Indptr[r] >= e })
	}
	cuts[blocks] = a.Rows
	cut := func(b int) int { return cuts[b] }
	next := make([][]int, blocks)
	parallel.For(blocks, blocks, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			c := make([]int, m)
			for _, j := range a.Ind[a.Indptr[cut(b)]:a.Indptr[cut(b+1)]] {
				c[j]++
			}
			next[b] = c
		}
	})
	if order != nil {
		count := make([]int, m)
		parallel.For(m, blocks, 4096, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				for b := range next {
					count[j] += next[b][j]
				}
			}
		})
		newRow = order(count)
	}
	dest := func(j int) int { return j }
	if newRow != nil {
		dest = func(j int) int { return newRow[j] }
	}
	parallel.For(m, blocks, 4096, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			var s int
			for b := range next {
				c := next[b][j]
				next[b][j] = s
				s += c
			}
			t.Indptr[dest(j)+1] = s
		}
	})
	for r := 0; r < m; r++ {
		t.Indptr[r+1] += t.Indptr[r]
	}
	// start[j] is where column j of a begins in t.
	start := t.Indptr[:m]
	if newRow != nil {
		start = make([]int, m)
		for j, r := range newRow {
			start[j] = t.Indptr[r]
		}
	}
	parallel.For(blocks, blocks, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			// Block b's next place in each column of a, absolute: one
			// array read an entry in the fill rather than two.
			pos := next[b]
			for j, s := range start {
				pos[j] += s
			}
			a.fillT(t, pos, cut(b), cut(b+1))
		}
	})
}

// transposeBand is how many columns of a the fill of TPermuted writes at
// a time. Each column of a is a row of t being written at its own place;
// with one pass over 500,000 of them the places being written missed the
// caches on nearly every entry, and a large transpose took far longer in
// one pass than in bands of 32,768, the best of widths 8,192-65,536
// (measured: docs/PERFORMANCE.md).
const transposeBand = 32768

// fillT writes rows r0..r1-1 of a into t: pos[j] is where these rows'
// next entry of column j goes in t. It goes in bands of transposeBand
// columns, each band scanning the rows in order, each row from where the
// previous band left it (a row's entries are sorted by column), so every
// column receives its entries in row order, as in one pass. next[i-r0]
// holds row i's next column, so that a band skips the rows with no entry
// in it without touching their entries.
func (a *CSR) fillT(t *CSR, pos []int, r0, r1 int) {
	cur := make([]int, r1-r0)
	next := make([]int, r1-r0)
	for i := r0; i < r1; i++ {
		cur[i-r0] = a.Indptr[i]
		next[i-r0] = math.MaxInt
		if a.Indptr[i] < a.Indptr[i+1] {
			next[i-r0] = a.Ind[a.Indptr[i]]
		}
	}
	for j1 := transposeBand; j1-transposeBand < a.Cols; j1 += transposeBand {
		for r := range cur {
			if next[r] >= j1 {
				continue
			}
			i := r0 + r
			p, end := cur[r], a.Indptr[i+1]
			for ; p < end; p++ {
				j := a.Ind[p]
				if j >= j1 {
					break
				}
				q := pos[j]
				t.Ind[q], t.Val[q] = i, a.Val[p]
				pos[j]++
			}
			cur[r] = p
			next[r] = math.MaxInt
			if p < end {
				next[r] = a.Ind[p]
			}
		}
	}
}

// TByFrequency returns a^T with its rows (a's columns) in order of falling
// number of stored entries, ties keeping their order, and that order:
// row r of the result is column order[r] of a. The rows most products
// gather then sit together in memory. Transposing the result back gives a
// with its columns renumbered the same way, both with sorted indices and
// no sort of the entries.
func (a *CSR) TByFrequency() (*CSR, []int) {
	var order []int
	t := a.newT()
	// The order comes from the transpose's own count of each column's
	// entries, not from a pass of its own.
	a.transposeTo(t, nil, func(count []int) []int {
		order = make([]int, a.Cols)
		for j := range order {
			order[j] = j
		}
		sort.SliceStable(order, func(p, q int) bool { return count[order[p]] > count[order[q]] })
		newRow := make([]int, a.Cols)
		for r, j := range order {
			newRow[j] = r
		}
		return newRow
	})
	return t, order
}

// Clone returns a deep copy of a.
func (a *CSR) Clone() *CSR {
	return &CSR{
		Rows: a.Rows, Cols: a.Cols,
		Indptr: append([]int(nil), a.Indptr...),
		Ind:    append([]int(nil), a.Ind...),
		Val:    append([]float64(nil), a.Val...),
	}
}

// SquaredFrobenius returns the sum of squares of the stored values.
func (a *CSR) SquaredFrobenius() float64 {
	var s float64
	for _, v := range a.Val {
		s += v * v
	}
	return s
}

// RowSums returns the sum of each row.
func (a *CSR) RowSums() []float64 {
	s := make([]float64, a.Rows)
	for i := range s {
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			s[i] += a.Val[p]
		}
	}
	return s
}

// ColSums returns the sum of each column.
func (a *CSR) ColSums() []float64 {
	s := make([]float64, a.Cols)
	for p, j := range a.Ind {
		s[j] += a.Val[p]
	}
	return s
}

// ScaleRows multiplies row i by f[i] in place, rows in parallel (each
// entry alone: the same result for any number of goroutines).
func (a *CSR) ScaleRows(f []float64) {
	if len(f) != a.Rows {
		panic("sparse: ScaleRows length mismatch")
	}
	parallel.For(a.Rows, 0, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
				a.Val[p] *= f[i]
			}
		}
	})
}

// ScaleCols multiplies column j by f[j] in place, entries in parallel
// (each alone: the same result for any number of goroutines).
func (a *CSR) ScaleCols(f []float64) {
	if len(f) != a.Cols {
		panic("sparse: ScaleCols length mismatch")
	}
	parallel.For(len(a.Ind), 0, 1<<16, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			a.Val[p] *= f[a.Ind[p]]
		}
	})
}

// ColNNZ returns the number of stored entries in each column (for a
// term-document matrix with documents as rows: the document frequency).
func (a *CSR) ColNNZ() []int {
	// Per goroutine over fixed parts of the entries, then added: counts
	// are exact, so the parts change nothing but the time.
	const minPart = 1 << 20
	parts := min(parallel.Threads(0), max(1, len(a.Ind)/minPart))
	counts := make([][]int, parts)
	parallel.For(parts, parts, 1, func(t, _ int) {
		c := make([]int, a.Cols)
		for _, j := range a.Ind[t*len(a.Ind)/parts : (t+1)*len(a.Ind)/parts] {
			c[j]++
		}
		counts[t] = c
	})
	c := counts[0]
	parallel.For(a.Cols, 0, 4096, func(lo, hi int) {
		for _, o := range counts[1:] {
			for j := lo; j < hi; j++ {
				c[j] += o[j]
			}
		}
	})
	return c
}

// SelectCols returns a new CSR with only the columns in keep, in that order
// of appearance; keep must be strictly increasing.
func (a *CSR) SelectCols(keep []int) *CSR {
	newIdx := make([]int, a.Cols)
	for j := range newIdx {
		newIdx[j] = -1
	}
	prev := -1
	for q, j := range keep {
		if j <= prev || j >= a.Cols {
			panic("sparse: SelectCols indices must be strictly increasing and in range")
		}
		newIdx[j] = q
		prev = j
	}
	b := &CSR{Rows: a.Rows, Cols: len(keep), Indptr: make([]int, a.Rows+1)}
	for i := 0; i < a.Rows; i++ {
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			if q := newIdx[a.Ind[p]]; q >= 0 {
				b.Ind = append(b.Ind, q)
				b.Val = append(b.Val, a.Val[p])
			}
		}
		b.Indptr[i+1] = len(b.Ind)
	}
	return b
}

// Equal reports whether a and b store the same matrix the same way: the
// same shape, row pointers, indices and values (an empty slice and nil
// alike).
func (a *CSR) Equal(b *CSR) bool {
	return a.Rows == b.Rows && a.Cols == b.Cols && slices.Equal(a.Indptr, b.Indptr) && slices.Equal(a.Ind, b.Ind) && slices.Equal(a.Val, b.Val)
}

// RowSlice returns rows lo..hi-1 of a as a CSR of their own: new row
// pointers from 0, the indices and values shared with a.
func (a *CSR) RowSlice(lo, hi int) *CSR {
	if lo < 0 || hi < lo || hi > a.Rows {
		panic(fmt.Sprintf("sparse: RowSlice: rows %d..%d of %d", lo, hi, a.Rows))
	}
	ptr := make([]int, hi-lo+1)
	for q := range ptr {
		ptr[q] = a.Indptr[lo+q] - a.Indptr[lo]
	}
	p0, p1 := a.Indptr[lo], a.Indptr[hi]
	return &CSR{Rows: hi - lo, Cols: a.Cols, Indptr: ptr, Ind: a.Ind[p0:p1:p1], Val: a.Val[p0:p1:p1]}
}

// SelectRows returns a new CSR with only the rows in keep, in that order.
func (a *CSR) SelectRows(keep []int) *CSR {
	b := &CSR{Rows: len(keep), Cols: a.Cols, Indptr: make([]int, len(keep)+1)}
	for q, i := range keep {
		if i < 0 || i >= a.Rows {
			panic("sparse: SelectRows index out of range")
		}
		b.Indptr[q+1] = b.Indptr[q] + a.Indptr[i+1] - a.Indptr[i]
	}
	b.Ind, b.Val = make([]int, b.Indptr[len(keep)]), make([]float64, b.Indptr[len(keep)])
	parallel.For(len(keep), 0, 1024, func(lo, hi int) {
		for q := lo; q < hi; q++ {
			i := keep[q]
			copy(b.Ind[b.Indptr[q]:], a.Ind[a.Indptr[i]:a.Indptr[i+1]])
			copy(b.Val[b.Indptr[q]:], a.Val[a.Indptr[i]:a.Indptr[i+1]])
		}
	})
	return b
}
