// Package kernels holds the hot inner loops of the sparse products and the
// multiplicative updates. Each kernel has a plain Go reference (the *Generic
// functions, which define its meaning) and, on amd64, an AVX2+FMA assembly
// version, written by the avo program in _gen (go generate). The path is
// chosen once at start-up from the CPU's features
// (github.com/klauspost/cpuid/v2); MANIFACTOR_KERNELS=generic or
// Use("generic") forces the reference, and building with -tags noasm leaves
// the assembly out entirely.
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
// goes straight to the assembly, since a graph's rows of 8 entries spent
// a third of their time in the Go calls around it (go test -bench
// AxpyGatherGraphRow). Below 17 columns
// the loop takes two entries at a time into two sets of accumulators, since
// so few independent FMA chains would otherwise wait on each other. The
// assembly range-checks every ind[p] (a compare-and-branch the load-bound
// loop absorbs) and panics on a bad index instead of reading outside b.
// The loops also ask for ind and val 64 entries ahead with the
// non-temporal hint (PREFETCHNTA), which keeps these once-read streams from
// pushing the rows of b, read again and again, out of L2 and L3: X^T U
// at 500,000 documents 15-25 % faster, TDT2's NMF iteration 10-20 %, graph
// rows unchanged (bench/RESULTS.md, 2026-11-27); AxpyScatter does the same.
// Alternatives measured and dropped: software prefetch of rows a few
// entries ahead (about 10% faster when b comes from L3, slower when it is in
// L1 or L2, within this machine's noise) and 16-column blocks taking two
// entries per iteration, which reload ind and val and recompute the row
// address once per block (10-25% slower at k = 30..100 with b in cache).
//
// AxpyScatter is AxpyGather transposed, for a^T b formed by a's rows
// (sparse.ColPanels): b's row stays where it was read (in L1) while its
// scaled copies are added into rows of dst, four columns a step, with one
// fused multiply-add an element as AxpyGather's single-accumulator loop
// (more than 16 columns) makes them, so the two products agree bit for bit
// there. A software prefetch of the dst row 16 entries ahead measured no
// different on X V at 500,000 documents (334-369 ms either way) and was
// left out.
//
// CDGather, the column step of the solver's coordinate-descent sweeps,
// forms each row's gradient from the block's current values (k loads and
// multiply-adds a row, 16 rows in eight accumulators split by even and odd
// columns) instead of keeping a stored gradient up to date, which cost k
// stores a row after every step and limited the sweeps to one store a
// cycle: about 24 GFLOP/s on one core of the machine of bench/RESULTS.md
// (go test -bench CDGather), and GNMF's cd iteration on TDT2 a quarter
// faster (bench/RESULTS.md, 2026-11-25). Rows with
// a zero curvature are blended back to their value, so that no gradient,
// NaN included, moves them.
// CDGather2 takes two columns a pass, loading each value once for both
// sums (two multiply-adds a load) and correcting the second column's sum
// by the first column's change: 1.3x a column.
//
// DotGatherT, for the KL coordinate descent, computes a sparse row's model
// values and copies the rows it reads transposed (one contiguous column a
// coordinate) in one pass: four rows at a time, each 4 x 4 block
// transposed in registers and multiplied into four partial sums. Its sums
// run in one order on every path, the reference's math.FMA in the same
// order, so the paths agree bit for bit. 1.7x DotGather and a separate
// copy at k = 30 (go test -bench DotGatherT).
//
// CGApply, CGResidual and CGDirection are the three passes of a block
// conjugate-gradient step over a chunk of rows (LPNMF's solves for V):
// four columns a step with the per-column scalars loaded as vectors, the
// reference's operations unfused and in its order, so the paths agree bit
// for bit and the solves give the same iterates on every path. In Go
// these loops ran at about a cycle an entry and were a third of an LPNMF
// iteration on TDT2 (bench/RESULTS.md, 2026-11-27).
//
// Headline, AMD EPYC (Zen 3, 2 vCPU, Go 1.26), one row of 130 entries
// times a 36771 x 30 b (TDT2 size), go test -bench AxpyGather: generic about
// 4.3 us, avx2 about 0.6 us (13 GFLOP/s) when the rows of b are in cache,
// and 10.7 us against 1.6 us when every row comes from L3.
//
// AVX-512 is not implemented: the machine this was written on had no
// avx512f, so a path could be neither measured nor tested. (The 2-core
// machine of bench/RESULTS.md reports avx512f on 2026-11-25, and is
// a Zen 4 by its flags, which executes 512-bit operations as two 256-bit
// halves; no path has been written or measured for it yet.) The gather would
// gain most from it (twice the columns per register, mask registers for
// the tail); it would be a new path name, "avx512", after "avx2" in
// Available.
//
// This package must not import any other package of this module.
package kernels
