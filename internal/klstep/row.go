package klstep

import (
	"math"

	"github.com/manifactor/manifactor/internal/asm"
)

// Term is a row's objective term beside the data's, seen one coordinate
// at a time: its first and second derivatives along coordinate c at
// value v. Row needs a term that keeps the row's derivative along each
// coordinate increasing and concave.
type Term interface {
	Derivatives(c int, v float64) (d1, d2 float64)
}

// derivative returns gr's first derivative, 0 without a term.
func derivative(gr Term, c int, v float64) float64 {
	if gr == nil {
		return 0
	}
	d1, _ := gr.Derivatives(c, v)
	return d1
}

// Projected is the projected gradient of a coordinate f >= 0 with
// derivative g: g, or 0 where f sits at its bound and g points out of
// the feasible set.
func Projected(f, g float64) float64 {
	if f <= 0 && g >= 0 {
		return 0
	}
	return g
}

// backtracks bounds the halvings of one rejected Newton step before the
// coordinate is left where it was.
const backtracks = 40

// Row minimizes, over f >= 0, one row's part of the KL objective with
// the other factor fixed,
//
//	phi(f) = lin . f - sum_q x_q log y_q,  y_q = sum_c f_c ht[c*nq+q],
//
// by cyclic coordinate descent (Hsieh and Dhillon, KDD 2011): each step
// moves one coordinate by a one-variable Newton step, projected onto
// f_c >= 0. ht holds the other factor's rows at the row's stored entries,
// transposed (column c contiguous), and y the model values on entry,
// which the steps keep current; ratios is scratch for 2 len(x) values,
// the last step's ratios (asm.KLStep's xr and r), from which a step
// that moves nothing takes the next coordinate's derivatives
// (asm.KLDeriv: the same values as a pass at t = 0, without its
// divisions).
//
// Along coordinate c, phi(f + t e_c) has the derivative
// p(t) = lin_c - sum x h / (y + t h), which is increasing and concave
// (p” = -2 sum x h^3 / (y + t h)^3 <= 0). A Newton step with p(0) < 0
// lands at or before the root of p (the tangent of a concave function lies
// above it), so phi decreases along the whole step. A step with p(0) > 0
// may overshoot the root; concavity puts p above the chord on [t, 0], so
//
//	phi(t) - phi(0) = -int_t^0 p <= -|t| (p(0) + p(t)) / 2,
//
// and the step is kept when p(0) + p(t) >= 0, else halved until it is.
// p(t) comes free with the pass that moves y (asm.KLStep), so every
// step is certified not to increase the objective at no extra pass.
//
// pg and ref, when not nil, receive w times the measure of stationarity
// (the projected gradient, Projected) met in the first sweep: each coordinate's derivative when
// the sweep reaches it, which a sweep measures for free, as
// scikit-learn's cd does; the data part is sum x h / y.
//
// gr, when not nil, adds a term such as LPNMF's graph term for a row of
// V, which must keep p increasing and concave: each coordinate is then
// held at or above eps, where the term is smooth. Model values are
// floored at eps (asm.KLStep).
func Row(f, lin, x, ht, y, ratios []float64, sweeps int, pg, ref []float64, w float64, gr Term, eps float64) {
	k, nq := len(f), len(x)
	lo := 0.0 // the coordinates' lower bound
	if gr != nil {
		lo = eps
	}
	// The ratios of the last step: a coordinate that does not move leaves
	// y as it is, and the next one's derivatives come from them.
	xr, r := ratios[:nq], ratios[nq:2*nq]
	_, g, hs := asm.KLStep(y, x, ht[:nq], ht[:nq], xr, r, 0, eps)
	for sweep := 1; sweep <= sweeps; sweep++ {
		for c := 0; c < k; c++ {
			hc := ht[c*nq : (c+1)*nq]
			next := ht[:nq] // the next coordinate's column: c+1, or 0
			if c+1 < k {
				next = ht[(c+1)*nq : (c+2)*nq]
			}
			grad, curv := lin[c]-g, hs
			if gr != nil {
				d1, d2 := gr.Derivatives(c, f[c])
				grad, curv = grad+d1, curv+d2
			}
			if sweep == 1 && pg != nil {
				d := Projected(f[c], grad)
				pg[c] += w * d * d
				ref[c] += w * g * g
			}
			var t float64
			switch {
			case grad < 0 && curv > 0:
				t = -grad / curv
			case grad > 0 && curv > 0:
				t = max(lo-f[c], -grad/curv)
			case grad > 0:
				// phi is linear along c: its minimum is at f_c = 0.
				t = lo - f[c]
			}
			if !(t != 0) || math.IsInf(t, 0) {
				if sweep < sweeps || c+1 < k {
					g, hs = asm.KLDeriv(xr, r, next)
				}
				continue
			}
			old := f[c]
			f[c] = old + t
			gOld, gn, hn := asm.KLStep(y, x, hc, next, xr, r, t, eps)
			if t < 0 && curv > 0 {
				// p(t) = lin_c - gOld (+ the graph's part); keep the step
				// once p(0) + p(t) >= 0.
				for try := 0; grad+lin[c]-gOld+derivative(gr, c, old+t) < 0; try++ {
					back := -t / 2
					if try == backtracks {
						back = -t
					}
					t += back
					f[c] = old + t
					gOld, gn, hn = asm.KLStep(y, x, hc, next, xr, r, back, eps)
					if try == backtracks {
						f[c] = old
						break
					}
				}
			}
			g, hs = gn, hn
		}
	}
}
