package solver

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestColumnPanelsXV forces X V by column panels of X^T (Data.xPanels)
// on a small corpus and requires the fits of every method that multiplies
// by X V to equal the row-by-row ones bit for bit: with k = 20 the gather
// kernel adds each entry into one accumulator in stored order, and the
// panels' scatter adds the same terms in the same order. Threads 1 and 3
// (16 panels) and 9 (18 panels) must agree too.
func TestColumnPanelsXV(t *testing.T) {
	sp, _ := randomSamples(21, 400, 120, 0.3)
	d, err := NewSparseData(sp)
	if err != nil {
		t.Fatal(err)
	}
	saved := panelMinFactorBytes
	defer func() { panelMinFactorBytes = saved }()
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
		panelMinFactorBytes = saved
		if d.xPanels(k, 2) != nil {
			t.Fatal("a 400-sample V is cut into panels at the default size")
		}
		plain := fit(c.m, c.alg, 2)
		panelMinFactorBytes = 0
		if p := d.xPanels(k, 2); p == nil || p.Panels() < 8 {
			t.Fatalf("forced panels: %v", p)
		}
		for _, threads := range []int{1, 3, 9} {
			got := fit(c.m, c.alg, threads)
			if !mat.Equal(got.U, plain.U) || !mat.Equal(got.V, plain.V) || got.Final() != plain.Final() {
				t.Fatalf("%v %v threads %d: X V by panels changed the fit", c.m, c.alg, threads)
			}
		}
	}
}
