package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBucketFill requires bucketFill's slots and their entries to be
// those of a serial counting pass, for inputs of one part and of several
// (bucketRows rows a part), entries skipped, empty rows and buckets, and
// any thread count.
func TestBucketFill(t *testing.T) {
	for _, n := range []int{0, 1, 50, 3*bucketRows + 17} {
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		const buckets = 97
		ptr := []int{0}
		var to []int
		for i := 0; i < n; i++ {
			for c := rng.IntN(6); c > 0; c-- {
				b := rng.IntN(buckets+10) - 10 // some negative: left out
				if b == 40 {
					b = 41 // bucket 40 stays empty
				}
				to = append(to, b)
			}
			ptr = append(ptr, len(to))
		}
		// The serial pass.
		wantStart := make([]int, buckets+1)
		for _, b := range to {
			if b >= 0 {
				wantStart[b+1]++
			}
		}
		for b := 0; b < buckets; b++ {
			wantStart[b+1] += wantStart[b]
		}
		want := make([][2]int, wantStart[buckets])
		next := slices.Clone(wantStart[:buckets])
		for i := 0; i < n; i++ {
			for r := ptr[i]; r < ptr[i+1]; r++ {
				if b := to[r]; b >= 0 {
					want[next[b]] = [2]int{i, r}
					next[b]++
				}
			}
		}
		for _, threads := range []int{1, 2, 7} {
			got := make([][2]int, len(to))
			start := bucketFill(n, buckets, func(i int) (int, int) { return ptr[i], ptr[i+1] },
				func(r int) int { return to[r] }, func(q, i, r int) { got[q] = [2]int{i, r} }, threads)
			if !slices.Equal(start, wantStart) {
				t.Fatalf("n %d threads %d: bucket starts differ from the serial pass", n, threads)
			}
			if !slices.Equal(got[:start[buckets]], want) {
				t.Fatalf("n %d threads %d: entries differ from the serial pass", n, threads)
			}
		}
	}
}
