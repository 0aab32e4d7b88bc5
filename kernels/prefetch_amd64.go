//go:build amd64 && !noasm

package kernels

// The prefetches use PREFETCHT0, which every amd64 processor has, so they
// do not depend on the selected path. lo and i are in range (checked by
// the callers).

//go:noescape
func prefetchRow32(ind []int32, val []float32, lo, hi int)

//go:noescape
func prefetchInt(s []int, i int)
