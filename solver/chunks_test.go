package solver

import (
	"slices"
	"testing"
)

// TestChunkBounds checks the passes' chunks: they cover the rows in
// order, none has more than rowChunk rows, rows of equal cost keep chunks
// of rowChunk rows (as without indptr), and rows of falling cost, as
// frequency-ordered features have, are cut so that no chunk costs much
// more than chunkBounds' target.
func TestChunkBounds(t *testing.T) {
	const k = 10
	check := func(name string, rows int, indptr []int) []int {
		t.Helper()
		b := chunkBounds(rows, k, indptr)
		if b[0] != 0 || b[len(b)-1] != rows {
			t.Fatalf("%s: bounds %d..%d, want 0..%d", name, b[0], b[len(b)-1], rows)
		}
		for c := 1; c < len(b); c++ {
			if b[c] <= b[c-1] || b[c]-b[c-1] > rowChunk {
				t.Fatalf("%s: chunk %d is rows %d..%d", name, c-1, b[c-1], b[c])
			}
		}
		return b
	}
	ptr := func(rows int, length func(i int) int) []int {
		p := make([]int, rows+1)
		for i := 0; i < rows; i++ {
			p[i+1] = p[i] + length(i)
		}
		return p
	}
	for _, rows := range []int{1, 1000, 1024, 5000} {
		plain := check("plain", rows, nil)
		even := check("even", rows, ptr(rows, func(int) int { return 7 }))
		if !slices.Equal(plain, even) {
			t.Fatalf("%d rows of equal cost: chunks %v, want %v", rows, even, plain)
		}
	}
	if b := check("empty", 0, []int{0}); len(b) != 1 {
		t.Fatalf("no rows: %d chunks", len(b)-1)
	}
	// Zipf-like lengths: row i has about 20000/(i+1) entries.
	const rows = 40000
	indptr := ptr(rows, func(i int) int { return 20000/(i+1) + 1 })
	b := check("skewed", rows, indptr)
	total := indptr[rows] + rows*k
	worst := 0
	for c := 1; c < len(b); c++ {
		cost := indptr[b[c]] - indptr[b[c-1]] + (b[c]-b[c-1])*k
		// A chunk ends once it reaches the target, so it exceeds it by
		// less than its last row, at most 20001 + k here.
		worst = max(worst, cost)
	}
	if limit := max(total/chunkTarget, total/rows*rowChunk) + 20001 + k; worst > limit {
		t.Fatalf("skewed rows: a chunk costs %d of %d, more than %d", worst, total, limit)
	}
	if len(b)-1 <= (rows+rowChunk-1)/rowChunk {
		t.Fatalf("skewed rows: %d chunks, no more than fixed ones", len(b)-1)
	}
}
