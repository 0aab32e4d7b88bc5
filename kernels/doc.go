// Package kernels holds the sparse-row primitives under the module's
// products, for a program that builds its own on them, and the choice of
// the path that runs them.
//
// Each primitive has a plain Go reference (its meaning, given with its
// documentation) and, on amd64 CPUs with AVX2 and FMA, an assembly
// version. The widest path the CPU supports is in use from the start;
// Use("generic") forces the reference (the command line's --simd and
// MANIFACTOR_KERNELS call it; the package reads no environment), and
// building with -tags noasm leaves the assembly out. Paths may round
// differently (fused multiply-adds, reassociated sums); a given path is
// deterministic.
//
// The primitives are leaf functions: they take slices, never allocate,
// and never start goroutines. The solvers' own kernels (coordinate
// descent, KL steps, conjugate gradients) share the dispatch but are the
// module's internals.
//
// This package must not import anything of this module except
// internal/asm.
package kernels
