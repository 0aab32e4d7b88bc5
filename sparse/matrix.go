package sparse

import (
	"gonum.org/v1/gonum/mat"
)

// Matrix is a CSR seen as a gonum mat.Matrix, for the functions of gonum
// and of this module that take one: Dims, At (a binary search in the
// row) and T (gonum's lazy transpose), with the non-zero iterators gonum
// uses to skip zeros. It shares the CSR's storage; a CSR's own T builds
// the transpose instead, which is why CSR is not a mat.Matrix itself.
type Matrix struct{ A *CSR }

// Matrix returns a as a mat.Matrix sharing its storage.
func (a *CSR) Matrix() Matrix { return Matrix{a} }

// Dims returns the rows and columns.
func (m Matrix) Dims() (r, c int) { return m.A.Rows, m.A.Cols }

// At returns the element at row i, column j; it panics out of range.
func (m Matrix) At(i, j int) float64 { return m.A.At(i, j) }

// T returns the transpose, without copying.
func (m Matrix) T() mat.Matrix { return mat.Transpose{Matrix: m} }

// DoNonZero calls fn for every stored entry, row by row (mat.NonZeroDoer).
func (m Matrix) DoNonZero(fn func(i, j int, v float64)) {
	for i := 0; i < m.A.Rows; i++ {
		m.DoRowNonZero(i, fn)
	}
}

// DoRowNonZero calls fn for every stored entry of row i
// (mat.RowNonZeroDoer).
func (m Matrix) DoRowNonZero(i int, fn func(i, j int, v float64)) {
	a := m.A
	for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
		fn(i, a.Ind[p], a.Val[p])
	}
}

// ToDense returns a as a new dense matrix. A matrix without rows or
// columns has no dense form in gonum; ToDense panics on one.
func (a *CSR) ToDense() *mat.Dense {
	d := mat.NewDense(a.Rows, a.Cols, nil)
	raw := d.RawMatrix()
	for i := 0; i < a.Rows; i++ {
		row := raw.Data[i*raw.Stride:]
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			row[a.Ind[p]] = a.Val[p]
		}
	}
	return d
}

// FromMatrix returns the non-zeros of m as a new CSR: a copy of the CSR
// behind a Matrix, the rows of a *mat.Dense scanned in place, any other
// mat.Matrix read through its non-zero iterator or At. Values are copied
// as they are (NaN included: Validate reports them).
func FromMatrix(m mat.Matrix) *CSR {
	if s, ok := m.(Matrix); ok {
		return s.A.Clone()
	}
	r, c := m.Dims()
	out := &CSR{Rows: r, Cols: c, Indptr: make([]int, r+1)}
	add := func(i, j int, v float64) {
		if v != 0 {
			out.Ind, out.Val = append(out.Ind, j), append(out.Val, v)
		}
	}
	switch d := m.(type) {
	case mat.RawMatrixer:
		raw := d.RawMatrix()
		for i := 0; i < r; i++ {
			for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
				add(i, j, v)
			}
			out.Indptr[i+1] = len(out.Ind)
		}
	case mat.RowNonZeroDoer:
		for i := 0; i < r; i++ {
			// Gonum's iterators give a row's entries in column order
			// for its own sparse-backed types; sort to be sure.
			start := len(out.Ind)
			d.DoRowNonZero(i, add)
			sortRow(out.Ind[start:], out.Val[start:])
			out.Indptr[i+1] = len(out.Ind)
		}
	default:
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				add(i, j, m.At(i, j))
			}
			out.Indptr[i+1] = len(out.Ind)
		}
	}
	return out
}

// sortRow sorts one row's entries by column (insertion sort: rows from
// iterators come nearly sorted).
func sortRow(ind []int, val []float64) {
	for p := 1; p < len(ind); p++ {
		for q := p; q > 0 && ind[q-1] > ind[q]; q-- {
			ind[q-1], ind[q] = ind[q], ind[q-1]
			val[q-1], val[q] = val[q], val[q-1]
		}
	}
}

// DenseOf returns m as a *mat.Dense: m itself when it is one, a dense
// copy otherwise (of a Matrix, from its non-zeros).
func DenseOf(m mat.Matrix) *mat.Dense {
	switch d := m.(type) {
	case *mat.Dense:
		return d
	case Matrix:
		return d.A.ToDense()
	}
	return mat.DenseCopyOf(m)
}
