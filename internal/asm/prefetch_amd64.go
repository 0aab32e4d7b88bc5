//go:build amd64 && !noasm

package asm

// The prefetches use PREFETCHT0, which every amd64 processor has, so they
// do not depend on the selected path. The callers check that i is in
// range and that 0 <= lo < hi <= len(ind), len(val): the loops count a
// row's lines down to zero and would not stop for an empty row.

//go:noescape
func prefetchRow32(ind []int32, val []float32, lo, hi int)

//go:noescape
func prefetchInt(s []int, i int)
