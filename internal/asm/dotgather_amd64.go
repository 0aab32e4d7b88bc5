//go:build amd64 && !noasm

package asm

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
	if k <= dotGatherMaxCols {
		// One block, called directly (as axpyGatherAVX2 does).
		if !dotGatherBlockAVX2(dst, x, ind, b, ldb, 0, maxRow, false) {
			panic("kernels: DotGather row index out of range")
		}
		return
	}
	eachBlock(k, dotGatherMaxCols, func(blk, col, w int) {
		if !dotGatherBlockAVX2(dst, x[col:col+w], ind, b, ldb, col, maxRow, blk > 0) {
			panic("kernels: DotGather row index out of range")
		}
	})
}

// dotGatherTBlockAVX2 is DotGatherT for the entries p < n4 (a multiple of
// 4, at least 4), four rows at a time: a 4 x 4 block of the rows is
// loaded, transposed in registers, stored as four columns of ht and
// multiplied into four accumulators of the rows' sums, one per coordinate
// c mod 4 (the last k - k4 coordinates, one column at a time, into the
// first). ldb8 is the row stride in bytes and last the offset of a row's
// last element, for the prefetch of the rows eight entries ahead. It
// returns false, having written part of dst and ht, if some ind[p] with
// p < n4 is negative or greater than maxRow.
//
//go:noescape
func dotGatherTBlockAVX2(dst, ht, x []float64, ind []int, b []float64, n4, ldb8, maxRow, k4, last int) bool

// dotGatherTAVX2 is DotGatherT's avx2 path: the assembly for the entries
// in whole groups of four, the reference (the same arithmetic) for the
// rest.
func dotGatherTAVX2(dst, ht, x []float64, ind []int, b []float64, ldb int) {
	n, k := len(ind), len(x)
	n4 := n &^ 3
	if n4 == 0 || k == 0 || ldb <= 0 || len(b) < k {
		dotGatherTGeneric(dst, ht, x, ind, b, ldb)
		return
	}
	if !dotGatherTBlockAVX2(dst, ht, x, ind, b, n4, ldb*8, (len(b)-k)/ldb, k&^3, (k-1)*8) {
		panic("kernels: DotGatherT row index out of range")
	}
	dotGatherTRows(dst, ht, x, ind, b, ldb, n4)
}
