package solver

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/nmfstep"
)

// Package dist's ranks update the rows they own with Fit's own pass.
func init() { nmfstep.MUUpdate = muUpdate }

// muUpdate is nmfstep.MUUpdate: Fit's multiplicative half-step on the
// rows of f. Rows go in fixed chunks whose dots add in chunk order, so
// the result does not depend on threads.
func muUpdate(f blas64.General, num, s, add, deg []float64, threads int) float64 {
	k := f.Cols
	if f.Stride != k || len(num) != f.Rows*k || s != nil && len(s) != k*k || add != nil && len(add) != f.Rows*k || deg != nil && len(deg) != f.Rows {
		panic(fmt.Sprintf("solver: muUpdate: %d x %d rows (stride %d), %d products, %d-value S, %d added, %d degrees", f.Rows, k, f.Stride, len(num), len(s), len(add), len(deg)))
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
