package asm

import (
	"slices"
	"testing"
)

// TestPrefetch: a prefetch anywhere in or beside a slice, empty slices
// included, neither panics nor changes anything.
func TestPrefetch(t *testing.T) {
	ind := []int32{3, 1, 4, 1, 5, 9, 2, 6}
	val := []float32{2, 7, 1, 8, 2, 8, 1, 8}
	s := []int{1, 2, 3}
	wantInd, wantVal, wantS := slices.Clone(ind), slices.Clone(val), slices.Clone(s)
	for _, lo := range []int{-1, 0, 1, 7, 8, 100} {
		for _, hi := range []int{-1, 0, lo, lo + 1, 3, 8, 9, 1000} {
			PrefetchRow32(ind, val, lo, hi)
			PrefetchRow32(ind[:3], val, lo, hi)
			PrefetchRow32(nil, nil, lo, hi)
		}
		PrefetchInt(s, lo)
		PrefetchInt(nil, lo)
	}
	if !slices.Equal(ind, wantInd) || !slices.Equal(val, wantVal) || !slices.Equal(s, wantS) {
		t.Error("a prefetch changed its slices")
	}
	// Long rows: every start within a line and across lines, lengths past
	// the 16-line cap, rows reaching the end (a wrong line count would
	// loop for ever here, or fault past the cap's reach; a prefetch itself
	// never faults).
	long := make([]int32, 2048)
	longVal := make([]float32, 2048)
	for lo := 0; lo <= 33; lo++ {
		for _, n := range []int{1, 2, 15, 16, 17, 31, 33, 255, 256, 257, 2048} {
			PrefetchRow32(long, longVal, lo, lo+n)
			PrefetchRow32(long[:lo+1], longVal, lo, lo+n)
		}
	}
	for _, x := range long {
		if x != 0 {
			t.Fatal("a prefetch changed a long row")
		}
	}
}
