package kernels

// PrefetchRow32 asks the processor to start loading the first two cache
// lines of ind[lo:] and of val[lo:], a sparse row about to be read, and
// returns at once; the hardware's own prefetcher follows the rest of the
// row once it is being read in order. It changes nothing and computes
// nothing: a caller that knows its next rows (the neighbour search's next
// candidates) hides their memory latency behind the current one's work.
// lo outside ind or val does nothing.
func PrefetchRow32(ind []int32, val []float32, lo int) {
	if lo < 0 || lo >= len(ind) || lo >= len(val) {
		return
	}
	prefetchRow32(ind, val, lo)
}

// PrefetchInt asks the processor to start loading the cache line holding
// s[i], as PrefetchRow32 does; i outside s does nothing.
func PrefetchInt(s []int, i int) {
	if i < 0 || i >= len(s) {
		return
	}
	prefetchInt(s, i)
}
