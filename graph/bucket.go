package graph

import "github.com/manifactor/manifactor/internal/parallel"

// bucketRows is the fewest rows a goroutine of bucketFill counts, so that
// small inputs do not pay for a count array per goroutine.
const bucketRows = 4096

// bucketFill distributes entries among buckets in parallel, the way a
// counting sort does: the entries are those of rows 0..n-1, row i holding
// entries span(i) = lo..hi-1, and entry r goes to bucket(r) (negative:
// nowhere). It returns start, of length buckets+1, and calls put(slot, i,
// r) once for each placed entry r of row i, the slots of bucket b being
// start[b] .. start[b+1]-1 and its entries in them in increasing order of
// row and, within a row, of r. So the result is that of one serial pass
// whatever the number of goroutines; only which goroutine calls put
// differs. Each goroutine counts into an array of buckets ints of its
// own (64 MB for NN-descent's reverse lists at 500,000 samples and 16
// threads).
//
// The inverted lists of the neighbour searches and NN-descent's reverse
// lists are built this way because a serial pass, with the start's index,
// took a large part of NN-descent's time on large corpora at many
// threads (measured: docs/PERFORMANCE.md).
func bucketFill(n, buckets int, span func(i int) (lo, hi int), bucket func(r int) int, put func(slot, i, r int), threads int) []int {
	parts := min(parallel.Threads(threads), max(1, n/bucketRows))
	// each calls fn(b, i, r) for the placed entries of part t, in order.
	each := func(t int, fn func(b, i, r int)) {
		for i := t * n / parts; i < (t+1)*n/parts; i++ {
			lo, hi := span(i)
			for r := lo; r < hi; r++ {
				if b := bucket(r); b >= 0 {
					fn(b, i, r)
				}
			}
		}
	}
	// count[t*buckets+b]: the entries of part t in bucket b, then the slot
	// where part t's first one goes.
	count := make([]int, parts*buckets)
	parallel.For(parts, parts, 1, func(t, _ int) {
		c := count[t*buckets : (t+1)*buckets]
		each(t, func(b, _, _ int) { c[b]++ })
	})
	start := make([]int, buckets+1)
	parallel.For(buckets, threads, 4096, func(b0, b1 int) {
		for b := b0; b < b1; b++ {
			s := 0
			for t := 0; t < parts; t++ {
				c := count[t*buckets+b]
				count[t*buckets+b] = s
				s += c
			}
			start[b+1] = s
		}
	})
	for b := 0; b < buckets; b++ {
		start[b+1] += start[b]
	}
	parallel.For(parts, parts, 1, func(t, _ int) {
		c := count[t*buckets : (t+1)*buckets]
		each(t, func(b, i, r int) {
			put(start[b]+c[b], i, r)
			c[b]++
		})
	})
	return start
}
