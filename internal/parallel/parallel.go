// Package parallel runs loops over index ranges on a fixed number of
// goroutines. Work is handed out in chunks through a shared counter, so the
// split into chunks may differ between runs; callers must make each index's
// result independent of which goroutine computes it (no cross-index sums),
// which is what keeps the module's results identical for any thread count.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Threads returns n when positive, otherwise runtime.GOMAXPROCS(0).
func Threads(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// For calls body(lo, hi) on disjoint ranges covering [0, n), using up to
// threads goroutines (threads <= 0 means GOMAXPROCS) and chunks of at most
// grain indices (grain <= 0 picks one). It returns when all calls are done.
func For(n, threads, grain int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	threads = Threads(threads)
	if grain <= 0 {
		grain = (n + 8*threads - 1) / (8 * threads)
		if grain < 1 {
			grain = 1
		}
	}
	chunks := (n + grain - 1) / grain
	if threads > chunks {
		threads = chunks
	}
	if threads <= 1 {
		body(0, n)
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(threads)
	for w := 0; w < threads; w++ {
		go func() {
			defer wg.Done()
			for {
				c := int(next.Add(1)) - 1
				if c >= chunks {
					return
				}
				lo := c * grain
				hi := min(lo+grain, n)
				body(lo, hi)
			}
		}()
	}
	wg.Wait()
}
