// Package asm holds the hot inner loops of the sparse products and of the
// solvers' updates, and the choice of the path that runs them (package
// kernels exports the sparse-row primitives and the choice to users).
// Each kernel has a plain Go reference (the *Generic functions, which
// define its meaning) and, on amd64, an AVX2+FMA assembly version,
// written by the avo program in _gen (go generate). The widest path the
// CPU's features allow (github.com/klauspost/cpuid/v2) is in use from the
// start; Use("generic") forces the reference, and building with -tags
// noasm leaves the assembly out entirely. The package reads no
// environment.
//
// Kernels are leaf functions: they take slices, never allocate, and never
// start goroutines; the callers in sparse and solver parallelize around
// them. Different paths may round differently (FMA, reassociated sums), so
// tests compare them with relative tolerances (DotGatherT, whose paths
// agree bit for bit, exactly); a given path is deterministic.
//
// # The avx2 path
//
// Axpy, Dot and MulUpdate stream 16 doubles per iteration through four YMM
// registers, then 4, then finish with scalar code; Dot keeps four
// accumulators to hide the FMA latency, and MulUpdate performs the same
// IEEE operations as the reference, so it matches it bit for bit.
//
// AxpyGather, the inner step of a CSR x dense product, keeps dst in up to 12
// YMM accumulators (48 columns) across the whole sparse row, so dst is
// loaded and stored once per row rather than once per entry; the last
// accumulator uses masked loads and stores for the k%4 tail. Wider dst are
// split into nearly equal blocks of at most 48 columns; a dst of one block
// goes straight to the assembly, since on a graph's rows of 8 entries the
// Go calls around it took a large part of the time (go test -bench
// AxpyGatherGraphRow; docs/PERFORMANCE.md). Below 17 columns
// the loop takes two entries at a time into two sets of accumulators, since
// so few independent FMA chains would otherwise wait on each other. The
// assembly range-checks every ind[p] (a compare-and-branch the load-bound
// loop absorbs) and panics on a bad index instead of reading outside b.
// The loops also ask for ind and val 64 entries ahead with the
// non-temporal hint (PREFETCHNTA), which keeps these once-read streams from
// pushing the rows of b, read again and again, out of L2 and L3
// (docs/PERFORMANCE.md); AxpyScatter does the same.
// Software prefetch of rows a few entries ahead (it helped only when b
// came from L3) and 16-column blocks taking two entries per iteration
// (which reload ind and val once per block) were measured and dropped.
//
// AxpyScatter is AxpyGather transposed, for a^T b formed by a's rows
// (sparse.ColPanels): b's row stays where it was read (in L1) while its
// scaled copies are added into rows of dst, four columns a step, with one
// fused multiply-add an element as AxpyGather's single-accumulator loop
// (more than 16 columns) makes them, so the two products agree bit for bit
// there. A software prefetch of the dst row ahead measured no different
// and was left out.
//
// CDGather, the column step of the solver's coordinate-descent sweeps,
// forms each row's gradient from the block's current values (k loads and
// multiply-adds a row, 16 rows in eight accumulators split by even and odd
// columns) instead of keeping a stored gradient up to date, which cost k
// stores a row after every step and limited the sweeps to one store a
// cycle (go test -bench CDGather; docs/PERFORMANCE.md). Rows with
// a zero curvature are blended back to their value, so that no gradient,
// NaN included, moves them.
// CDGather2 takes two columns a pass, loading each value once for both
// sums (two multiply-adds a load) and correcting the second column's sum
// by the first column's change.
//
// DotGatherT, for the KL coordinate descent, computes a sparse row's model
// values and copies the rows it reads transposed (one contiguous column a
// coordinate) in one pass: four rows at a time, each 4 x 4 block
// transposed in registers and multiplied into four partial sums. Its sums
// run in one order on every path, the reference's math.FMA in the same
// order, so the paths agree bit for bit; one pass instead of DotGather
// and a separate copy (go test -bench DotGatherT).
//
// CGApply, CGResidual and CGDirection are the three passes of a block
// conjugate-gradient step over a chunk of rows (LPNMF's solves for V):
// four columns a step with the per-column scalars loaded as vectors, the
// reference's operations unfused and in its order, so the paths agree bit
// for bit and the solves give the same iterates on every path (in Go
// these loops were a large part of an LPNMF iteration:
// docs/PERFORMANCE.md).
//
// AVX-512 is not implemented yet. The gather would gain most from it
// (twice the columns per register, mask registers for the tail); it
// would be a new path name, "avx512", after "avx2" in Available, written
// by the same generator.
//
// This package must not import any other package of this module.
package asm
