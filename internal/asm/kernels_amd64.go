//go:build amd64 && !noasm

package asm

import "github.com/klauspost/cpuid/v2"

// hasAVX2 records, once, whether the CPU (and the OS, which must save the
// YMM registers) supports AVX2 and FMA3; the avx2 path needs both.
var hasAVX2 = cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3)

func asmPaths() []string {
	if hasAVX2 {
		return []string{"avx2"}
	}
	return nil
}

func useAsm(name string) {
	switch name {
	case "avx2":
		axpyImpl, dotImpl, mulUpdateImpl, axpyGatherImpl = axpyAVX2, dotAVX2, mulUpdateAVX2, axpyGatherAVX2
		dotGatherImpl, dotGatherTImpl, klStepImpl, klDerivImpl = dotGatherAVX2, dotGatherTAVX2, klStepAVX2, klDerivAVX2
		projGradImpl, cdGatherImpl, cdGather2Impl = projGradAVX2, cdGatherAVX2, cdGather2AVX2
		extrapolateImpl, axpyScatterImpl = extrapolateAVX2, axpyScatterAVX2Checked
		cgApplyImpl, cgResidualImpl, cgDirectionImpl = cgApplyAVX2, cgResidualAVX2, cgDirectionAVX2
	default:
		panic("kernels: unknown assembly path " + name)
	}
}

// The assembly kernels handle every length themselves (16-wide unrolled
// bulk, then 4-wide, then scalar), so they can be installed in the
// dispatch variables directly, without a Go wrapper.

// axpyAVX2 computes y[i] += a*x[i] for i < len(x), with len(y) >= len(x).
//
//	for i, v := range x { y[i] += a * v }
//
//go:noescape
func axpyAVX2(a float64, x, y []float64)

// dotAVX2 returns sum x[i]*y[i] for i < len(x), with len(y) >= len(x). It
// keeps four vector accumulators, so it sums in a different order than the
// reference.
//
//	for i, v := range x { s += v * y[i] }
//
//go:noescape
func dotAVX2(x, y []float64) float64

// mulUpdateAVX2 computes x[i] *= num[i] / max(den[i], eps), with num and den
// at least as long as x. It performs the same IEEE operations as the
// reference, so the results are identical.
//
//	for i := range x {
//		d := den[i]
//		if d < eps { d = eps }
//		x[i] *= num[i] / d
//	}
//
//go:noescape
func mulUpdateAVX2(x, num, den []float64, eps float64)

// extrapolateAVX2 is Extrapolate eight, four, then one entry a step,
// with the reference's operations (subtract, multiply, add, then the
// maximum with zero taken so that a NaN passes and +0 added, which turns
// -0 into +0 and changes nothing else), so the results are identical.
//
//go:noescape
func extrapolateAVX2(cur, base []float64, beta float64)

// cgApplyAVX2, cgResidualAVX2 and cgDirectionAVX2 are CGApply,
// CGResidual and CGDirection, four columns a step then one, row by row,
// with the reference's operations unfused and in its order, so the
// results are identical. The wrappers have checked the lengths and that
// there is at least one row.
//
//go:noescape
func cgApplyAVX2(out, in []float64, m int, shift []float64, scale float64, base, g, part []float64)

//go:noescape
func cgResidualAVX2(r, q, d []float64, m int, alpha, rr, rz []float64)

//go:noescape
func cgDirectionAVX2(x []float64, ldx int, p, r, d []float64, m int, alpha, beta []float64)

// projGradAVX2 is ProjGrad four entries a step. Each sum is one fused
// multiply-add, rounded once where the reference rounds the product and
// the sum, so the two may differ in the last bit.
//
//go:noescape
func projGradAVX2(pg, ref, f, den, num []float64)

// gatherMaxCols is the widest block of dst that gatherBlockAVX2 holds in
// registers: 12 YMM accumulators of 4 doubles.
const gatherMaxCols = 48

// gatherBlockAVX2 adds the sparse row (val, ind) times columns
// [col, col+len(dst)) of b into dst, keeping dst in YMM registers across the
// whole row so that it is loaded and stored once. len(dst) must be in
// 1..gatherMaxCols, len(val) >= 1 and len(ind) >= len(val). It returns false,
// without storing dst, if some ind[p] is negative or greater than maxRow;
// rows 0..maxRow must be in range of b.
//
//	for p, a := range val {
//		row := b[ind[p]*ldb+col:]
//		for t := range dst { dst[t] += a * row[t] }
//	}
//
//go:noescape
func gatherBlockAVX2(dst, val []float64, ind []int, b []float64, ldb, col, maxRow int) bool

// axpyGatherAVX2 is axpyGatherGeneric for the avx2 path. It splits dst into
// as few register blocks as possible, of nearly equal width so that no block
// is left with a lone accumulator whose FMA latency would dominate, and
// checks in the assembly that every row index is in range.
func axpyGatherAVX2(dst, val []float64, ind []int, b []float64, ldb int) {
	k := len(dst)
	if k == 0 || len(val) == 0 {
		return
	}
	if ldb <= 0 || len(b) < k {
		// Degenerate strides or a b too short for any row: leave them to
		// the reference, which defines (and panics on) them.
		axpyGatherGeneric(dst, val, ind, b, ldb)
		return
	}
	maxRow := (len(b) - k) / ldb
	if k <= gatherMaxCols {
		// One block: no closure to call per row (graph rows of a few
		// entries spent as long in the calls as in the sums).
		if !gatherBlockAVX2(dst, val, ind, b, ldb, 0, maxRow) {
			panic("kernels: AxpyGather row index out of range")
		}
		return
	}
	eachBlock(k, gatherMaxCols, func(_, col, w int) {
		if !gatherBlockAVX2(dst[col:col+w], val, ind, b, ldb, col, maxRow) {
			panic("kernels: AxpyGather row index out of range")
		}
	})
}

// eachBlock splits k columns into as few blocks of at most maxCols as
// possible, of nearly equal widths in whole 4-column registers (so no block
// is left with a lone accumulator whose FMA latency would dominate), and
// calls fn with each block's index, first column and width.
func eachBlock(k, maxCols int, fn func(blk, col, w int)) {
	regs := (k + 3) / 4
	blocks := (regs + maxCols/4 - 1) / (maxCols / 4)
	col := 0
	for blk := range blocks {
		w := 4 * (regs / blocks)
		if blk < regs%blocks {
			w += 4
		}
		w = min(w, k-col)
		fn(blk, col, w)
		col += w
	}
}

// cdGatherAVX2 is cdGatherGeneric sixteen rows at a time (then four, then
// one), each row's sum over the k columns split into the even and the odd
// columns' FMA chains (so that two chains hide the FMA's latency), with
// an FMA for x - g*ih and the squares summed in four lanes: its rounding
// and the order of its sums differ from the reference's.
//
//go:noescape
func cdGatherAVX2(u []float64, ld, c int, s, p, d, ih, den []float64) (sq, sqd float64)

// cdGather2AVX2 is cdGather2Generic sixteen rows at a time (then four,
// then one), each value of the block loaded once into both columns' sums:
// eight FMA chains, two vector multiply-adds per load. Its rounding and
// the order of its sums differ from the reference's.
//
//go:noescape
func cdGather2AVX2(u []float64, ld, c, k int, s, p, ih, d []float64, s1c float64, den []float64) (sq0, sq1, sqd float64)

// klStepAVX2 is klStepGeneric four entries at a time, the move of y by an
// FMA and the three sums in four lanes each (its rounding and the order of
// the sums differ from the reference's); it stores the ratios as the
// reference does.
//
//go:noescape
func klStepAVX2(y, x, hOld, hNew, xr, r []float64, t, eps float64) (gOld, gNew, hess float64)

// klDerivAVX2 is klStepAVX2's gNew and hess from its stored ratios, in the
// same lanes and order, so equal to a step's with t = 0 bit for bit.
//
//go:noescape
func klDerivAVX2(xr, r, h []float64) (gNew, hess float64)

// axpyScatterAVX2 is axpyScatterGeneric for the avx2 path with rows
// 0..maxRow of dst in range; it returns false at the first index outside
// them, the rows of the entries before it already updated.
//
//go:noescape
func axpyScatterAVX2(dst []float64, ldd int, val []float64, ind []int, x []float64, maxRow int) bool

// axpyScatterAVX2Checked calls axpyScatterAVX2 with the rows that fit in
// dst, leaving degenerate strides to the reference, which defines (and
// panics on) them, as axpyGatherAVX2 does.
func axpyScatterAVX2Checked(dst []float64, ldd int, val []float64, ind []int, x []float64) {
	k := len(x)
	if ldd <= 0 || len(dst) < k {
		axpyScatterGeneric(dst, ldd, val, ind, x)
		return
	}
	if !axpyScatterAVX2(dst, ldd, val, ind, x, (len(dst)-k)/ldd) {
		panic("kernels: AxpyScatter row index out of range")
	}
}
