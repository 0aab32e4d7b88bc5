package corpus

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// LowRank returns n samples x m features of planted rank r, V U^T with
// factors drawn uniform in [0, 1), each entry non-zero with probability
// density. With additive unset, each non-zero entry is then multiplied by
// 1 + 5 % Gaussian noise (sparse data keep their zeros); with it set,
// Gaussian noise of a fifth of the entries' standard deviation is added
// and the result clipped at 0 (dense data). The same seed gives the same
// matrix.
func LowRank(seed uint64, n, m, r int, density float64, additive bool) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	u, v := mat.NewDense(m, r, nil), mat.NewDense(n, r, nil)
	for _, a := range []*mat.Dense{u, v} {
		rows, cols := a.Dims()
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				if density >= 1 || rng.Float64() < density {
					a.Set(i, j, rng.Float64())
				}
			}
		}
	}
	var x mat.Dense
	x.Mul(v, u.T())
	raw := x.RawMatrix().Data
	if !additive {
		for i, y := range raw {
			if y != 0 {
				raw[i] = y * (1 + 0.05*rng.NormFloat64())
			}
		}
		return &x
	}
	var mean, sd float64
	for _, y := range raw {
		mean += y
	}
	mean /= float64(len(raw))
	for _, y := range raw {
		sd += (y - mean) * (y - mean)
	}
	sd = math.Sqrt(sd / float64(len(raw)))
	for i := range raw {
		raw[i] = max(0, raw[i]+sd/5*rng.NormFloat64())
	}
	return &x
}
