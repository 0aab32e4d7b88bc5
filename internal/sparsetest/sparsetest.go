package sparsetest

import (
	"math"
	"math/rand/v2"

	"github.com/manifactor/manifactor/sparse"
)

// RandomCSR returns a seeded random rows x cols CSR with awkward values.
func RandomCSR(rng *rand.Rand, rows, cols int, density float64) *sparse.CSR {
	var ri, ci []int
	var v []float64
	special := []float64{math.MaxFloat64, -math.SmallestNonzeroFloat64, 1.0 / 3, -0.1, 1e-300, 123456789.123456789, 0}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if rng.Float64() < density {
				x := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
				if rng.IntN(5) == 0 {
					x = special[rng.IntN(len(special))]
				}
				ri, ci, v = append(ri, i), append(ci, j), append(v, x)
			}
		}
	}
	a, err := sparse.FromTriplets(rows, cols, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return a
}
