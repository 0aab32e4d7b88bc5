package solver

import (
	"context"
	"math"
	"runtime/debug"
	"testing"

	"github.com/manifactor/manifactor/internal/nmfstep"

	"gonum.org/v1/gonum/mat"
)

// xvCases are the methods and solvers that multiply by X V whole.
var xvCases = []struct {
	m   Method
	alg Algorithm
}{{NMF, MU}, {NMF, CD}, {CF, MU}}

// fitXV is the fit that the X V tests compare: 12 iterations from seed 5.
func fitXV(t *testing.T, d *Data, m Method, alg Algorithm, k, threads int) *Result {
	t.Helper()
	res, err := Fit(context.Background(), d, Options{Method: m, K: k, Seed: 5, Threads: threads, Control: Control{Algorithm: alg, MaxIter: 12, Tol: -1}})
	if err != nil {
		t.Fatalf("%v %v: %v", m, alg, err)
	}
	return res
}

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
	saved := nmfstep.PanelMinFactorBytes
	defer func() { nmfstep.PanelMinFactorBytes = saved }()
	const k = 20
	fit := func(m Method, alg Algorithm, threads int) *Result { return fitXV(t, d, m, alg, k, threads) }
	for _, c := range xvCases {
		nmfstep.PanelMinFactorBytes = saved
		if d.xPanels(k, 2) != nil {
			t.Fatal("a 400-sample V is cut into panels at the default size")
		}
		plain := fit(c.m, c.alg, 2)
		nmfstep.PanelMinFactorBytes = 0
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

// TestColumnPanelsOnlyWhereTheyFit: under a memory limit that leaves no
// room the panels are not built, the fit runs row by row with the same
// result, and the decision holds for the Data's life (no change of
// product midway when memory frees up).
func TestColumnPanelsOnlyWhereTheyFit(t *testing.T) {
	sp, _ := randomSamples(22, 300, 90, 0.3)
	d, err := NewSparseData(sp)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := NewSparseData(sp)
	if err != nil {
		t.Fatal(err)
	}
	saved := nmfstep.PanelMinFactorBytes
	defer func() { nmfstep.PanelMinFactorBytes = saved }()
	const k = 20
	opts := Options{Method: NMF, K: k, Seed: 3, Threads: 2, Control: Control{MaxIter: 8, Tol: -1}}
	plain, err := Fit(context.Background(), ref, opts)
	if err != nil {
		t.Fatal(err)
	}
	nmfstep.PanelMinFactorBytes = 0
	limit := debug.SetMemoryLimit(1)
	got, err := Fit(context.Background(), d, opts)
	debug.SetMemoryLimit(limit)
	if err != nil {
		t.Fatal(err)
	}
	if p := d.xPanels(k, 2); p != nil {
		t.Fatal("panels built under a limit of one byte, or after it was lifted")
	}
	if !mat.Equal(got.U, plain.U) || !mat.Equal(got.V, plain.V) {
		t.Fatal("the fit without room for panels differs from the plain one")
	}
	if p := ref.xPanels(k, 2); p == nil {
		t.Fatal("no panels without a memory limit")
	}
}

// TestColumnBlockedXV forces the column-blocked X V (Data.xBlocks, where
// the panels do not fit) on a small corpus and requires the fits of every method that multiplies by
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
	saved := [3]int{nmfstep.BlockMinFactorBytes, nmfstep.BlockBytes, nmfstep.BlockMinPerBlock}
	defer func() {
		nmfstep.BlockMinFactorBytes, nmfstep.BlockBytes, nmfstep.BlockMinPerBlock = saved[0], saved[1], saved[2]
	}()
	// No panels: the blocks are their fallback.
	savedPanels := nmfstep.PanelMinFactorBytes
	defer func() { nmfstep.PanelMinFactorBytes = savedPanels }()
	nmfstep.PanelMinFactorBytes = math.MaxInt
	const k = 20
	fit := func(m Method, alg Algorithm, threads int) *Result { return fitXV(t, d, m, alg, k, threads) }
	for _, c := range xvCases {
		nmfstep.BlockMinFactorBytes, nmfstep.BlockBytes, nmfstep.BlockMinPerBlock = saved[0], saved[1], saved[2]
		if d.xBlocks(k) != nil {
			t.Fatal("a 400-sample V is blocked at the default sizes")
		}
		plain := fit(c.m, c.alg, 2)
		// 32 samples a block (13 blocks); rows of 117 entries and more
		// (about 120 on average) are blocked, the others not.
		nmfstep.BlockMinFactorBytes, nmfstep.BlockBytes, nmfstep.BlockMinPerBlock = 0, 32*8*k, 9
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
