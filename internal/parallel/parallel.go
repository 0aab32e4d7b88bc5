// Package parallel runs loops over index ranges on a fixed number of
// goroutines. For and ForWorker hand out work in chunks through a shared
// counter, so which goroutine runs a chunk may differ between runs; Split
// gives each goroutine the same contiguous range at every call, for loops
// of passes over the same data. Either way callers must make each index's
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
	ForWorker(n, threads, grain, func(_, lo, hi int) { body(lo, hi) })
}

// Workers returns how many goroutines ForWorker starts for the same
// arguments, so callers can size per-worker buffers.
func Workers(n, threads, grain int) int {
	if n <= 0 {
		return 0
	}
	threads = Threads(threads)
	grain = grainFor(n, threads, grain)
	return min(threads, (n+grain-1)/grain)
}

func grainFor(n, threads, grain int) int {
	if grain > 0 {
		return grain
	}
	return max(1, (n+8*threads-1)/(8*threads))
}

// ForWorker is For with the index of the calling goroutine, in
// [0, Workers(n, threads, grain)), passed to body so it can use per-worker
// scratch buffers. With a positive grain, chunk c is always
// [c*grain, min((c+1)*grain, n)), whatever threads is.
func ForWorker(n, threads, grain int, body func(worker, lo, hi int)) {
	if n <= 0 {
		return
	}
	threads = Threads(threads)
	grain = grainFor(n, threads, grain)
	chunks := (n + grain - 1) / grain
	threads = min(threads, chunks)
	if threads <= 1 {
		for c := 0; c < chunks; c++ {
			body(0, c*grain, min((c+1)*grain, n))
		}
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
				body(w, c*grain, min((c+1)*grain, n))
			}
		}()
	}
	wg.Wait()
}

// Split calls body(worker, lo, hi) once for each of up to threads
// goroutines (threads <= 0 means GOMAXPROCS) with contiguous ranges that
// cover [0, n): range w is [w n / t, (w+1) n / t) for t goroutines, the
// same for every call with the same n and threads. Where For hands out
// chunks to whichever goroutine asks first, Split keeps each goroutine on
// the same indices from one call to the next, so that a loop of passes
// over the same rows (an iterative solver's vectors) finds each
// goroutine's rows in its own core's caches instead of moving them
// between cores every pass. There is no balancing: the indices should
// cost about the same.
func Split(n, threads int, body func(worker, lo, hi int)) {
	if n <= 0 {
		return
	}
	t := min(Threads(threads), n)
	if t <= 1 {
		body(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Add(t)
	for w := 0; w < t; w++ {
		go func() {
			defer wg.Done()
			body(w, w*n/t, (w+1)*n/t)
		}()
	}
	wg.Wait()
}

// Apart returns the stride, in float64s, at which runs of n values that
// different goroutines write lie a cache line apart at least: per-chunk
// partial sums, per-worker scratch rows. Runs that share a line bounce it
// between the cores on every write (two threads ran a k-means pass and
// LPNMF's conjugate gradients slower than one at 10 values a run).
func Apart(n int) int { return (n+7)/8*8 + 8 }

// OwnRows returns count rows of n float64s, zero, Apart(n) apart in one
// array, each with capacity n: one per worker, each on cache lines of its
// own.
func OwnRows(count, n int) [][]float64 {
	stride := Apart(n)
	back := make([]float64, count*stride)
	rows := make([][]float64, count)
	for i := range rows {
		rows[i] = back[i*stride : i*stride+n : i*stride+n]
	}
	return rows
}
