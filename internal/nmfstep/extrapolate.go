package nmfstep

import (
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
)

// Extrapolated drives the coordinate descent of the Frobenius methods,
// NMF's and GNMF's (Options.PlainCD turns it off), after Ang
// and Gillis, "Accelerating nonnegative matrix factorization algorithms
// using extrapolation" (Neural Computation 2019). Each iteration's cd
// half-steps run from extrapolated factors, and their results are
// extrapolated again before the next:
//
//	V_{k+1} = cd(V^_k; U^_k),   V^_{k+1} = max(0, V_{k+1} + beta (V_{k+1} - V_k))
//	U_{k+1} = cd(U^_k; V^_{k+1}),  U^_{k+1} = max(0, U_{k+1} + beta (U_{k+1} - U_k))
//
// The iteration's objective is that of the pair (U_{k+1}, V^_{k+1}), which
// the U half-step's products give for free. beta starts at 0.5; after a
// step that lowered the objective it grows by 5 % up to a cap that itself
// grows by 1 % up to 1. A step that would raise the objective is undone:
// the factors go back to the last accepted pair (U_k, V^_k), beta is
// divided by 1.5 (the cap set to the value that failed), and a plain cd
// iteration from that pair takes the step's place. cd's half-steps never
// increase the objective, so neither does an iteration: the trace stays
// monotone, at the price of a second iteration's work where a step is
// undone. These settings are the heuristic's, not tuned on any corpus
// here.
//
// It is exported for package dist, whose ranks each hold their own rows
// of U and V and take one process's steps: the momentum is element by
// element and the decisions are taken on the objective every rank holds.
type Extrapolated struct {
	// u and v are U_k and V_k, the last results of the half-steps before
	// their extrapolation: the base of the next momentum. u is also the
	// accepted pair's U.
	u, v []float64
	// acc is V^_k, the accepted pair's V, kept while a step may be undone.
	acc          []float64
	beta, cap    float64
	last         float64 // the accepted pair's objective
	kept, undone int
}

// Halves are the half-steps and Gram matrices Extrapolated drives, on
// the factors as they stand. V and U are cd's half-steps: U forms U's Gram
// matrix and returns the iteration's objective; V forms V's only when
// gram is set, since in a kept step the momentum moves V before anything
// reads its Gram matrix. VGram and UGram form a factor's Gram matrix,
// calling move(lo, hi) first, when move is not nil, on every range of the
// factor's entries (offsets into the flat row-major slice) whose rows
// they are about to read, so that the momentum's pass and the Gram
// matrix's share the rows while they are in cache. The ranges must cover
// the factor once.
type Halves struct {
	V            func(gram bool) error
	U            func() (float64, error)
	VGram, UGram func(move func(lo, hi int)) error
}

// NewExtrapolated starts the iterations from the factors u and v (their
// values are copied) whose objective is objective.
func NewExtrapolated(u, v []float64, objective float64) *Extrapolated {
	return &Extrapolated{u: append([]float64(nil), u...), v: append([]float64(nil), v...), acc: make([]float64, len(v)),
		beta: 0.5, cap: 1, last: objective}
}

// Step makes one iteration on the factors u and v (the slices the half-steps
// work on) and returns its objective, never above the last one.
func (e *Extrapolated) Step(u, v []float64, h Halves, threads int) (float64, error) {
	copyFactor(e.acc, v, threads)
	if err := h.V(false); err != nil {
		return 0, err
	}
	if err := h.VGram(e.Mover(v, e.v)); err != nil {
		return 0, err
	}
	obj, err := h.U()
	if err != nil {
		return 0, err
	}
	if obj <= e.last {
		e.kept++
		e.last = obj
		e.beta = min(e.cap, 1.05*e.beta)
		e.cap = min(1, 1.01*e.cap)
		return obj, h.UGram(e.Mover(u, e.u))
	}
	// Undo: back to the accepted pair (U_k, V^_k), from which a plain
	// iteration cannot raise the objective; its results are the next
	// momentum's base.
	e.undone++
	e.cap = e.beta
	e.beta /= 1.5
	copyFactor(u, e.u, threads)
	copyFactor(v, e.acc, threads)
	if err := h.UGram(nil); err != nil {
		return 0, err
	}
	if err := h.V(true); err != nil {
		return 0, err
	}
	copyFactor(e.v, v, threads)
	if obj, err = h.U(); err != nil {
		return 0, err
	}
	copyFactor(e.u, u, threads)
	e.last = obj
	return obj, nil
}

// Rescale scales column c of the stored U factors by 1/s[c] and of the
// stored V factors by s[c] (row-major, len(s) columns), as a formulation
// that fixes the factors' scale does to the factors in use (with the same
// operation on each entry, scaleColumns): every stored pair keeps its
// objective and the momentum its direction.
func (e *Extrapolated) Rescale(s []float64, threads int) {
	k := len(s)
	view := func(f []float64) blas64.General { return blas64.General{Rows: len(f) / k, Cols: k, Stride: k, Data: f} }
	ScaleColumns(view(e.u), s, false, threads)
	ScaleColumns(view(e.v), s, true, threads)
	ScaleColumns(view(e.acc), s, true, threads)
}

// Accepted copies the accepted pair's U, which the last objective belongs
// to (the factor in use between iterations is the extrapolated one), into
// u.
func (e *Extrapolated) Accepted(u []float64) { copy(u, e.u) }

// Counts returns the steps kept and the steps undone so far.
func (e *Extrapolated) Counts() (kept, undone int) { return e.kept, e.undone }

// copyFactor copies src to dst (of equal length) in parallel. Step's copy
// of V on one goroutine is serial work that, on large data and many
// threads, would be a noticeable part of a cd iteration (a profile;
// docs/PERFORMANCE.md).
func copyFactor(dst, src []float64, threads int) {
	if len(dst) != len(src) {
		panic("solver: copyFactor: lengths differ")
	}
	parallel.For(len(src), threads, 1<<15, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}

// Mover returns the move of the factor cur, for VGram and UGram:
// move(lo, hi) sets cur[lo:hi] to max(0, cur + beta (cur - base)) and
// base[lo:hi] to cur's values before, element by element
// (asm.Extrapolate), so the result does not depend on how the ranges
// are cut or on threads. The loop in Go was a noticeable part of an
// extrapolated NMF iteration (Go's float max is a dozen instructions an
// entry); as a pass of its own before the Gram matrix's it read and wrote
// both factors' entries once more from memory (docs/PERFORMANCE.md).
func (e *Extrapolated) Mover(cur, base []float64) func(lo, hi int) {
	if len(base) != len(cur) {
		panic("solver: Extrapolated: a factor changed size")
	}
	beta := e.beta
	return func(lo, hi int) { asm.Extrapolate(cur[lo:hi], base[lo:hi], beta) }
}

// ScaleColumns multiplies (mul) or divides column c of f by s[c], rows
// in parallel. A division is a multiplication by the reciprocal (a
// division per entry was a noticeable part of a scale-invariant
// iteration); each entry gets the same operation whatever the thread
// count.
func ScaleColumns(f blas64.General, s []float64, mul bool, threads int) {
	k := f.Cols
	r := s
	if !mul {
		r = make([]float64, len(s))
		for c, x := range s {
			r[c] = 1 / x
		}
	}
	parallel.For(f.Rows, threads, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := f.Data[i*f.Stride : i*f.Stride+k]
			for c := range row {
				row[c] *= r[c]
			}
		}
	})
}
