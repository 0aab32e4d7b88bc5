package solver

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/parallel"
)

// CDBlock is the number of rows Fit's coordinate-descent half-steps
// update together (their inner loop's stopping rule is taken over such a
// block): blocks start at multiples of CDBlock of the factor's rows. A
// process holding some rows of a factor takes the same steps as Fit when
// its rows start at a multiple of CDBlock (package dist aligns its
// blocks so).
const CDBlock = cdBlock

// CDStep is the coordinate-descent half-step of NMF (Fit with Algorithm
// CD): for each row f_i of a factor, cyclic coordinate descent on
// f_i^T S f_i - 2 N_i . f_i over f_i >= 0, S the other factor's Gram
// matrix and N_i the row of the data product, with Fit's inner loop
// (Gillis and Glineur's rule, sized by the product's cost against a
// sweep's).
type CDStep struct {
	k    int
	rule *cdRule
}

// NewCDStep returns the half-step of a factor of rows rows (all of them,
// across processes) with k columns, whose data product touches nnz stored
// entries: Fit's rule for that half.
func NewCDStep(nnz, rows, k int) *CDStep {
	return &CDStep{k: k, rule: newCDRule(nnz, rows, k)}
}

// Update runs the half-step on the rows of f (r x k, stride k), which
// must begin at a multiple of CDBlock of the whole factor's rows, with
// num the rows of the data product (r x k, row-major) and s the k x k
// Gram matrix (row-major). It returns sum_i f_i . num_i after the update.
// Blocks of CDBlock rows go in parallel; their dots add in block order,
// so the result does not depend on threads.
func (c *CDStep) Update(f blas64.General, num, s []float64, threads int) float64 {
	k := c.k
	if f.Cols != k || f.Stride != k || len(num) != f.Rows*k || len(s) != k*k {
		panic(fmt.Sprintf("solver: CDStep.Update: %d x %d rows (stride %d), %d products, a %d-value Gram matrix for k = %d", f.Rows, f.Cols, f.Stride, len(num), len(s), k))
	}
	invH := make([]float64, k)
	cdInverse(invH, s, 0)
	blocks := (f.Rows + cdBlock - 1) / cdBlock
	dots := make([]float64, blocks)
	works := make([]*cdWork, parallel.Workers(blocks, threads, 1))
	parallel.ForWorker(blocks, threads, 1, func(worker, lo, hi int) {
		if works[worker] == nil {
			works[worker] = newCDWork(k)
		}
		cw := works[worker]
		for b := lo; b < hi; b++ {
			r0 := b * cdBlock
			r := min(cdBlock, f.Rows-r0)
			row := func(i int) []float64 { return f.Data[(r0+i)*k : (r0+i+1)*k] }
			cw.putRows(r, k, row, func(i int, _ []float64) []float64 { return num[(r0+i)*k : (r0+i+1)*k] }, nil)
			cdRows(cw, s, invH, k, r, c.rule, nil, nil, nil)
			cw.getRows(r, row)
			dots[b] = cw.dot(k, r)
		}
	})
	var dot float64
	for _, d := range dots {
		dot += d
	}
	return dot
}

// MUUpdate runs Fit's multiplicative half-step on the rows of f (r x k,
// stride k), the pass Fit runs (paper 004's update, denominators floored
// at Eps):
//
//	f <- f .* (N + A) ./ max(f S + deg .* f, Eps)
//
// with num the rows of N (r x k, row-major), s the k x k S (row-major),
// add the rows of A and deg a per-row scalar (both optional: GNMF's
// lambda W V and lambda D). With s nil f is left as it is. It returns
// sum_i f_i . (N_i + A_i) after the update. Rows go in fixed chunks whose
// dots add in chunk order, so the result does not depend on threads. A
// process holding some rows of a factor (package dist) updates them so.
func MUUpdate(f blas64.General, num, s, add, deg []float64, threads int) float64 {
	k := f.Cols
	if f.Stride != k || len(num) != f.Rows*k || s != nil && len(s) != k*k || add != nil && len(add) != f.Rows*k || deg != nil && len(deg) != f.Rows {
		panic(fmt.Sprintf("solver: MUUpdate: %d x %d rows (stride %d), %d products, %d-value S, %d added, %d degrees", f.Rows, k, f.Stride, len(num), len(s), len(add), len(deg)))
	}
	h := half{f: f, num: rowProduct{full: blas64.General{Rows: f.Rows, Cols: k, Stride: k, Data: num}}, update: s != nil, wantDot: true, deg: deg}
	if s != nil {
		h.s = blas64.General{Rows: k, Cols: k, Stride: k, Data: s}
	}
	if add != nil {
		h.addNum = blas64.General{Rows: f.Rows, Cols: k, Stride: k, Data: add}
	}
	return newPassWork(f.Rows, k).run(h, threads)
}
