package sparse

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// TestColRangesMatchColPanels: a^T b by ranges equals the product by
// ColPanels' copy bit for bit, for any goroutines and panels, on matrices
// with heavy, empty and trailing empty columns, empty rows and no
// entries; and EachCol gives a's transpose row by row.
func TestColRangesMatchColPanels(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	empty, err := FromTriplets(6, 5, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, a := range map[string]*CSR{"heavy": heavyCSR(rng, 70, 40), "wide": heavyCSR(rng, 9, 300), "empty": empty} {
		counts := a.ColNNZ()
		for _, k := range []int{1, 5, 24} {
			b := blas64.General{Rows: a.Rows, Cols: k, Stride: k, Data: make([]float64, a.Rows*k)}
			for i := range b.Data {
				b.Data[i] = rng.Float64()
			}
			want := blas64.General{Rows: a.Cols, Cols: k, Stride: k, Data: make([]float64, a.Cols*k)}
			a.ColPanels(3).MulTransDenseTo(want, b, 1)
			for _, parts := range []int{1, 3, 16, 1000} {
				r := a.ColRanges(parts, counts)
				for _, threads := range []int{1, 2, 7} {
					got := blas64.General{Rows: a.Cols, Cols: k, Stride: k, Data: make([]float64, a.Cols*k)}
					for i := range got.Data {
						got.Data[i] = 99 // every element must be written
					}
					r.MulTransDenseTo(got, b, threads)
					if !slices.Equal(got.Data, want.Data) {
						t.Fatalf("%s, k = %d, %d parts, %d goroutines: the product differs from ColPanels'", name, k, parts, threads)
					}
				}
				at := a.T()
				var mu sync.Mutex
				seen := make([]bool, a.Cols)
				r.EachCol(3, func(j int, rows []int, values []float64) {
					mu.Lock()
					defer mu.Unlock()
					p0, p1 := at.Indptr[j], at.Indptr[j+1]
					if seen[j] || !slices.Equal(rows, at.Ind[p0:p1]) || !slices.Equal(values, at.Val[p0:p1]) {
						t.Errorf("%s, %d parts: column %d gives rows %v, the transpose %v", name, parts, j, rows, at.Ind[p0:p1])
					}
					seen[j] = true
				})
				if i := slices.Index(seen, false); i >= 0 {
					t.Errorf("%s, %d parts: EachCol left out column %d", name, parts, i)
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("ColRanges with a count missing did not panic")
		}
	}()
	empty.ColRanges(2, make([]int, 4))
}
