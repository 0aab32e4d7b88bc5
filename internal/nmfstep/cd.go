package nmfstep

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/parallel"
)

// CD is the coordinate-descent half-step of NMF (Fit with Algorithm
// CD): for each row f_i of a factor, cyclic coordinate descent on
// f_i^T S f_i - 2 N_i . f_i over f_i >= 0, S the other factor's Gram
// matrix and N_i the row of the data product, with Fit's inner loop
// (Gillis and Glineur's rule, sized by the product's cost against a
// sweep's).
type CD struct {
	k    int
	rule *Rule
}

// NewCD returns the half-step of a factor of rows rows (all of them,
// across processes) with k columns, whose data product touches nnz stored
// entries: Fit's rule for that half.
func NewCD(nnz, rows, k int) *CD {
	return &CD{k: k, rule: NewRule(nnz, rows, k)}
}

// Update runs the half-step on the rows of f (r x k, stride k), which
// must begin at a multiple of Block of the whole factor's rows, with
// num the rows of the data product (r x k, row-major) and s the k x k
// Gram matrix (row-major). It returns sum_i f_i . num_i after the update.
// Blocks of Block rows go in parallel; their dots add in block order,
// so the result does not depend on threads.
func (c *CD) Update(f blas64.General, num, s []float64, threads int) float64 {
	k := c.k
	if f.Cols != k || f.Stride != k || len(num) != f.Rows*k || len(s) != k*k {
		panic(fmt.Sprintf("solver: CD.Update: %d x %d rows (stride %d), %d products, a %d-value Gram matrix for k = %d", f.Rows, f.Cols, f.Stride, len(num), len(s), k))
	}
	invH := make([]float64, k)
	Inverse(invH, s, 0)
	blocks := (f.Rows + Block - 1) / Block
	dots := make([]float64, blocks)
	works := make([]*Work, parallel.Workers(blocks, threads, 1))
	parallel.ForWorker(blocks, threads, 1, func(worker, lo, hi int) {
		if works[worker] == nil {
			works[worker] = NewWork(k)
		}
		cw := works[worker]
		for b := lo; b < hi; b++ {
			r0 := b * Block
			r := min(Block, f.Rows-r0)
			row := func(i int) []float64 { return f.Data[(r0+i)*k : (r0+i+1)*k] }
			cw.PutRows(r, k, row, func(i int, _ []float64) []float64 { return num[(r0+i)*k : (r0+i+1)*k] }, nil)
			Rows(cw, s, invH, k, r, c.rule, nil, nil, nil)
			cw.GetRows(r, row)
			dots[b] = cw.Dot(k, r)
		}
	})
	var dot float64
	for _, d := range dots {
		dot += d
	}
	return dot
}
