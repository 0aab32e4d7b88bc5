package nmfstep

import (
	"math"
	"slices"
	"testing"
)

// TestPutRows checks the four-row block transposes (putRows, getRows:
// put4 and get4 with put and get for the rest) against put and get row by
// row, for every remainder of four rows and k from 1 to 30, with the
// products from scratch and from elsewhere.
func TestPutRows(t *testing.T) {
	for _, k := range []int{1, 3, 4, 30} {
		for _, r := range []int{0, 1, 3, 4, 5, 8, 11, Block - 1, Block} {
			f := make([]float64, r*k)
			num := make([]float64, r*k)
			for q := range f {
				f[q], num[q] = float64(q)+0.5, -float64(q)-0.25
			}
			want := NewWork(k)
			for _, w := range [][]float64{want.u, want.p} {
				for q := range w {
					w[q] = math.NaN() // unwritten places stay NaN in both
				}
			}
			for i := 0; i < r; i++ {
				want.Put(i, f[i*k:(i+1)*k], num[i*k:(i+1)*k])
			}
			row := func(i int) []float64 { return f[i*k : (i+1)*k] }
			for _, scratch := range [][]float64{make([]float64, 4*k), nil} {
				got := NewWork(k)
				for _, w := range [][]float64{got.u, got.p} {
					for q := range w {
						w[q] = math.NaN()
					}
				}
				got.PutRows(r, k, row, func(i int, buf []float64) []float64 {
					if buf == nil {
						return num[i*k : (i+1)*k]
					}
					copy(buf, num[i*k:(i+1)*k])
					return buf
				}, scratch)
				same := func(a, b []float64) bool {
					return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
				}
				if !same(got.u, want.u) || !same(got.p, want.p) {
					t.Fatalf("k %d, %d rows, scratch %v: putRows differs from put", k, r, scratch != nil)
				}
				// getRows after changing the block: the rows read back.
				for q := range got.u {
					got.u[q] *= 3
				}
				back := make([]float64, r*k)
				got.GetRows(r, func(i int) []float64 { return back[i*k : (i+1)*k] })
				for i := 0; i < r; i++ {
					for c := 0; c < k; c++ {
						if back[i*k+c] != 3*f[i*k+c] {
							t.Fatalf("k %d, %d rows: getRows row %d column %d: %v, want %v", k, r, i, c, back[i*k+c], 3*f[i*k+c])
						}
					}
				}
			}
		}
	}
}
