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

func TestForWorkerChunksAndWorkers(t *testing.T) {
	for _, n := range []int{1, 5, 1000, 1025} {
		for _, threads := range []int{1, 2, 4} {
			for _, grain := range []int{0, 1, 64, 4096} {
				workers := Workers(n, threads, grain)
				var bad atomic.Int32
				ForWorker(n, threads, grain, func(w, lo, hi int) {
					if w < 0 || w >= workers {
						bad.Add(1)
					}
					if grain > 0 && (lo%grain != 0 || (hi != n && hi-lo != grain)) {
						bad.Add(1)
					}
				})
				if bad.Load() != 0 {
					t.Fatalf("n=%d threads=%d grain=%d: worker index or chunk bounds wrong", n, threads, grain)
				}
			}
		}
	}
	if Workers(0, 2, 1) != 0 {
		t.Fatal("Workers(0, ...) != 0")
	}
}

func TestSplit(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100, 1001} {
		for _, threads := range []int{-1, 0, 1, 2, 3, 16} {
			hits := make([]atomic.Int32, n)
			var ranges [2][][2]int
			for call := range ranges {
				got := make([][2]int, Threads(threads))
				var calls atomic.Int32
				Split(n, threads, func(w, lo, hi int) {
					calls.Add(1)
					if w < 0 || w >= len(got) || lo > hi || lo < 0 || hi > n {
						t.Errorf("n=%d threads=%d: worker %d range [%d,%d)", n, threads, w, lo, hi)
						return
					}
					got[w] = [2]int{lo, hi}
					for i := lo; i < hi; i++ {
						hits[i].Add(1)
					}
				})
				if n > 0 && int(calls.Load()) != min(Threads(threads), n) {
					t.Errorf("n=%d threads=%d: %d calls", n, threads, calls.Load())
				}
				ranges[call] = got
			}
			for i := range hits {
				if h := hits[i].Load(); h != 2 {
					t.Fatalf("n=%d threads=%d: index %d visited %d times in two calls", n, threads, i, h)
				}
			}
			for w := range ranges[0] {
				if ranges[0][w] != ranges[1][w] {
					t.Errorf("n=%d threads=%d: worker %d got %v then %v", n, threads, w, ranges[0][w], ranges[1][w])
				}
			}
		}
	}
}

func TestOwnRows(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 30} {
		rows := OwnRows(3, n)
		if len(rows) != 3 || Apart(n) < n+8 || Apart(n)%8 != 0 {
			t.Fatalf("n=%d: %d rows, stride %d", n, len(rows), Apart(n))
		}
		for i, r := range rows {
			if len(r) != n || cap(r) != n {
				t.Fatalf("n=%d: row %d has length %d, capacity %d", n, i, len(r), cap(r))
			}
			for j := range r {
				r[j] = float64(i + 1)
			}
		}
		// Writing a row leaves the others alone.
		for i, r := range rows {
			for _, v := range r {
				if v != float64(i+1) {
					t.Fatalf("n=%d: row %d holds %v", n, i, v)
				}
			}
		}
	}
}
