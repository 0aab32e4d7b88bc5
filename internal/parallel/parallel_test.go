package parallel

import (
	"sync/atomic"
	"testing"
)

func TestForCoversEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100, 1001} {
		for _, threads := range []int{-1, 0, 1, 2, 3, 16} {
			for _, grain := range []int{0, 1, 3, 64, 5000} {
				hits := make([]atomic.Int32, n)
				For(n, threads, grain, func(lo, hi int) {
					if lo >= hi || lo < 0 || hi > n {
						t.Errorf("n=%d: bad range [%d,%d)", n, lo, hi)
						return
					}
					for i := lo; i < hi; i++ {
						hits[i].Add(1)
					}
				})
				for i := range hits {
					if h := hits[i].Load(); h != 1 {
						t.Fatalf("n=%d threads=%d grain=%d: index %d visited %d times", n, threads, grain, i, h)
					}
				}
			}
		}
	}
}

func TestThreads(t *testing.T) {
	if Threads(3) != 3 {
		t.Fatal("Threads(3) != 3")
	}
	if Threads(0) < 1 {
		t.Fatal("Threads(0) < 1")
	}
}
