package nmfstep

import (
	"fmt"
	"math/rand/v2"
)

// Random returns the random start of Fit's start number start
// (0-based) for seed: the first factor (rows x k, row-major, in the
// caller's order) then V (n x k), uniform in [0, 1), drawn in that order
// from one generator.
func Random(rows, n, k int, seed, start uint64) (a, v []float64) {
	return RandomRows(rows, n, k, seed, start, 0, rows, 0, n)
}

// RandomRows returns rows a0..a1-1 of Random' first factor
// and rows v0..v1-1 of its V, the same values, keeping only those: a
// rank of package dist holds its own rows of the start that one process
// would draw, in memory for its rows (the draws before them are made and
// dropped).
func RandomRows(rows, n, k int, seed, start uint64, a0, a1, v0, v1 int) (a, v []float64) {
	if a0 < 0 || a1 < a0 || a1 > rows {
		panic(fmt.Sprintf("nmfstep: RandomRows: rows %d-%d of %d", a0, a1, rows))
	}
	sel := make([]int, a1-a0)
	for q := range sel {
		sel[q] = a0 + q
	}
	return RandomSelect(rows, n, k, seed, start, sel, v0, v1)
}

// RandomSelect is RandomRows for the first factor's rows
// listed in sel (any order, no repeats): row q of a is the start's row
// sel[q]. A rank of package dist that holds features in another order
// than the data's draws its rows this way.
func RandomSelect(rows, n, k int, seed, start uint64, sel []int, v0, v1 int) (a, v []float64) {
	if v0 < 0 || v1 < v0 || v1 > n {
		panic(fmt.Sprintf("nmfstep: RandomSelect: rows %d-%d of %d", v0, v1, n))
	}
	at := make(map[int]int, len(sel))
	for q, r := range sel {
		if _, dup := at[r]; dup || r < 0 || r >= rows {
			panic(fmt.Sprintf("nmfstep: RandomSelect: row %d of %d repeated or out of range", r, rows))
		}
		at[r] = q
	}
	rng := rand.New(rand.NewPCG(seed, start))
	skip := func(draws int) {
		for ; draws > 0; draws-- {
			rng.Uint64() // Float64 is one Uint64 draw
		}
	}
	a, v = make([]float64, len(sel)*k), make([]float64, (v1-v0)*k)
	for r := 0; r < rows; r++ {
		q, ok := at[r]
		if !ok {
			skip(k)
			continue
		}
		for c := 0; c < k; c++ {
			a[q*k+c] = rng.Float64()
		}
	}
	skip(v0 * k)
	for i := range v {
		v[i] = rng.Float64()
	}
	return a, v
}
