package asm

// PrefetchRow32 asks the processor to start loading the cache lines of
// ind[lo:hi] and of val[lo:hi] (at most 16 of each, a kilobyte of a long
// row), a sparse row about to be read, and returns at once. It changes
// nothing and computes nothing: a caller that knows its next rows (the
// neighbour search's next candidates) hides their memory latency behind
// the current one's work. It asks for all of them: the first two lines
// only, leaving the rest to the hardware's prefetcher, which starts after
// a row's first misses, made the search on large corpora slower
// (docs/PERFORMANCE.md). hi past the end of ind or val is taken as that
// end; lo outside them, or a range left empty, does nothing.
func PrefetchRow32(ind []int32, val []float32, lo, hi int) {
	hi = min(hi, len(ind), len(val))
	if lo < 0 || lo >= hi {
		return
	}
	prefetchRow32(ind, val, lo, hi)
}

// PrefetchInt asks the processor to start loading the cache line holding
// s[i], as PrefetchRow32 does; i outside s does nothing.
func PrefetchInt(s []int, i int) {
	if i < 0 || i >= len(s) {
		return
	}
	prefetchInt(s, i)
}
