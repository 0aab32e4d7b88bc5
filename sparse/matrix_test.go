package sparse

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMatrixAdapter: a CSR seen as a mat.Matrix is the same matrix as its
// dense form to gonum (At, T, a product through gonum's Mul), and the
// conversions CSR -> dense -> CSR and mat.Matrix -> CSR give back the
// same non-zeros.
func TestMatrixAdapter(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, shape := range [][2]int{{1, 1}, {7, 5}, {20, 33}} {
		r, c := shape[0], shape[1]
		var ri, ci []int
		var v []float64
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if rng.Float64() < 0.3 {
					ri, ci, v = append(ri, i), append(ci, j), append(v, rng.NormFloat64())
				}
			}
		}
		a, err := FromTriplets(r, c, ri, ci, v)
		if err != nil {
			t.Fatal(err)
		}
		d := a.ToDense()
		m := a.Matrix()
		if !mat.Equal(m, d) || !mat.Equal(m.T(), d.T()) {
			t.Fatalf("%dx%d: the adapter and the dense copy differ", r, c)
		}
		b := mat.NewDense(c, 3, nil)
		for i := range c {
			for j := range 3 {
				b.Set(i, j, rng.Float64())
			}
		}
		var got, want mat.Dense
		got.Mul(m, b)
		want.Mul(d, b)
		if !mat.EqualApprox(&got, &want, 1e-12) {
			t.Errorf("%dx%d: gonum's Mul through the adapter differs", r, c)
		}
		for _, src := range []mat.Matrix{d, m, mat.DenseCopyOf(d.T()).T()} {
			back := FromMatrix(src)
			if err := back.Validate(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(back.Indptr, a.Indptr) || !slices.Equal(back.Ind, a.Ind) || !slices.Equal(back.Val, a.Val) {
				t.Errorf("%dx%d: FromMatrix(%T) differs from the CSR", r, c, src)
			}
		}
		var nz int
		m.DoNonZero(func(i, j int, x float64) {
			if d.At(i, j) != x {
				t.Errorf("DoNonZero gave %v at %d,%d", x, i, j)
			}
			nz++
		})
		if nz != a.NNZ() {
			t.Errorf("DoNonZero visited %d of %d entries", nz, a.NNZ())
		}
		if DenseOf(d) != d || !mat.Equal(DenseOf(m), d) || !mat.Equal(DenseOf(d.T()), d.T()) {
			t.Errorf("%dx%d: DenseOf", r, c)
		}
	}
	// A view with a stride wider than its columns.
	big := mat.NewDense(4, 6, []float64{
		1, 0, 2, 9, 9, 9,
		0, 0, 0, 9, 9, 9,
		3, 4, 0, 9, 9, 9,
		0, 5, 0, 9, 9, 9,
	})
	view := big.Slice(0, 4, 0, 3)
	got := FromMatrix(view)
	if !slices.Equal(got.Indptr, []int{0, 2, 2, 4, 5}) || !slices.Equal(got.Ind, []int{0, 2, 0, 1, 1}) || !slices.Equal(got.Val, []float64{1, 2, 3, 4, 5}) {
		t.Errorf("FromMatrix of a strided view: %+v", got)
	}
}
