package solver

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestColumnBlockedXV forces the column-blocked X V (Data.xBlocks) on a
// small corpus and requires the fits of every method that multiplies by
// X V to equal the row-by-row ones bit for bit: with k = 20 the gather
// kernel adds each entry into the same accumulator in stored order, so
// splitting a row at block edges changes no rounding. Threads 1 and 3
// must agree too.
func TestColumnBlockedXV(t *testing.T) {
	sp, _ := randomSamples(21, 400, 120, 0.3)
	d, err := NewSparseData(sp)
	if err != nil {
		t.Fatal(err)
	}
	saved := [3]int{blockMinFactorBytes, blockBytes, blockMinPerBlock}
	defer func() { blockMinFactorBytes, blockBytes, blockMinPerBlock = saved[0], saved[1], saved[2] }()
	const k = 20
	fit := func(m Method, alg Algorithm, threads int) *Result {
		t.Helper()
		res, err := Fit(context.Background(), d, Options{Method: m, Algorithm: alg, K: k, MaxIter: 12, Tol: -1, Seed: 5, Threads: threads})
		if err != nil {
			t.Fatalf("%v %v: %v", m, alg, err)
		}
		return res
	}
	for _, c := range []struct {
		m   Method
		alg Algorithm
	}{{NMF, MU}, {NMF, CD}, {CF, MU}} {
		blockMinFactorBytes, blockBytes, blockMinPerBlock = saved[0], saved[1], saved[2]
		if d.xBlocks(k) != nil {
			t.Fatal("a 400-sample V is blocked at the default sizes")
		}
		plain := fit(c.m, c.alg, 2)
		// 32 samples a block (13 blocks); rows of 117 entries and more
		// (about 120 on average) are blocked, the others not.
		blockMinFactorBytes, blockBytes, blockMinPerBlock = 0, 32*8*k, 9
		cb := d.xBlocks(k)
		if cb == nil || cb.Blocked() == 0 || cb.Blocked() == d.m || cb.Width() != 32 {
			t.Fatalf("forced blocking did not block some rows and not others")
		}
		for _, threads := range []int{1, 3} {
			got := fit(c.m, c.alg, threads)
			if !mat.Equal(got.U, plain.U) || !mat.Equal(got.V, plain.V) || got.Final() != plain.Final() {
				t.Fatalf("%v %v threads %d: blocked X V changed the fit", c.m, c.alg, threads)
			}
		}
	}
}
