//go:build amd64 && !noasm

package kernels

// dotGatherMaxCols is the widest block of x that dotGatherBlockAVX2 holds in
// registers: 12 YMM registers of 4 doubles.
const dotGatherMaxCols = 48

// dotGatherBlockAVX2 computes the dot products of x with columns
// [col, col+len(x)) of the rows ind of b, keeping x in YMM registers across
// the whole sparse row. If add is false it stores them in dst, otherwise it
// adds them to dst. len(x) must be in 1..dotGatherMaxCols, len(ind) >= 1 and
// len(dst) >= len(ind). It returns false, having written only part of dst,
// if some ind[p] is negative or greater than maxRow; rows 0..maxRow must be
// in range of b.
//
//	for p, j := range ind {
//		row := b[j*ldb+col:]
//		var s float64
//		for t, v := range x { s += v * row[t] }
//		if add { dst[p] += s } else { dst[p] = s }
//	}
//
//go:noescape
func dotGatherBlockAVX2(dst, x []float64, ind []int, b []float64, ldb, col, maxRow int, add bool) bool

// dotGatherAVX2 is dotGatherGeneric for the avx2 path. It splits x into as
// few register blocks as possible, of nearly equal width as axpyGatherAVX2
// does; the first block stores dst and the others add to it, so a wide x
// costs one pass over ind and dst per block. The assembly checks that every
// row index is in range.
func dotGatherAVX2(dst, x []float64, ind []int, b []float64, ldb int) {
	k, n := len(x), len(ind)
	if n == 0 {
		return
	}
	if k == 0 || ldb <= 0 || len(b) < k {
		// Empty rows, degenerate strides or a b too short for any row:
		// leave them to the reference, which defines (and panics on) them.
		dotGatherGeneric(dst, x, ind, b, ldb)
		return
	}
	dst = dst[:n]
	maxRow := (len(b) - k) / ldb
	eachBlock(k, dotGatherMaxCols, func(blk, col, w int) {
		if !dotGatherBlockAVX2(dst, x[col:col+w], ind, b, ldb, col, maxRow, blk > 0) {
			panic("kernels: DotGather row index out of range")
		}
	})
}
