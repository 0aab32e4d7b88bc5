package solver

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
)

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
