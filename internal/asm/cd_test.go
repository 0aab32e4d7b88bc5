package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCDLengthPanics(t *testing.T) {
	five := make([]float64, 5)
	for name, f := range map[string]func(){
		"CDGather d":      func() { CDGather(make([]float64, 10), 5, 0, five[:2], five, five[:4], five, five) },
		"CDGather ih":     func() { CDGather(make([]float64, 10), 5, 0, five[:2], five, five, five[:4], five) },
		"CDGather den":    func() { CDGather(make([]float64, 10), 5, 0, five[:2], five, five, five, five[:4]) },
		"CDGather column": func() { CDGather(make([]float64, 10), 5, 2, five[:2], five, five, five, five) },
		"CDGather stride": func() { CDGather(make([]float64, 10), 4, 0, five[:2], five, five, five, five) },
		"CDGather u":      func() { CDGather(make([]float64, 9), 5, 0, five[:2], five, five, five, five) },
		"CDGather2 den": func() {
			CDGather2(make([]float64, 10), 5, 0, five[:4], make([]float64, 10), make([]float64, 10), five, make([]float64, 9))
		},
		"CDGather2 p": func() {
			CDGather2(make([]float64, 10), 5, 0, five[:4], make([]float64, 9), make([]float64, 10), five, make([]float64, 10))
		},
		"KLStep y": func() {
			KLStep(make([]float64, 2), make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 3), 1, 0)
		},
		"KLStep h": func() {
			KLStep(make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 2), make([]float64, 3), make([]float64, 3), 1, 0)
		},
		"KLStep xr": func() {
			KLStep(make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 2), make([]float64, 3), 1, 0)
		},
		"KLStep r": func() {
			KLStep(make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 2), 1, 0)
		},
		"KLDeriv r": func() { KLDeriv(make([]float64, 3), make([]float64, 2), make([]float64, 3)) },
		"KLDeriv h": func() { KLDeriv(make([]float64, 3), make([]float64, 3), make([]float64, 2)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on short slice", name)
				}
			}()
			f()
		}()
	}
}

func TestKLStep(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(11, 12))
		for _, n := range lengths(streamWidth) {
			for off := range 4 {
				for _, step := range []float64{0, 0.3, -0.2} {
					// Some x zero (the data's zeros never stored, but the
					// weighted values may be), some y below eps.
					x, xb := guarded(n, off, func(i int) float64 { return float64(i%5) * rnd.Float64() })
					hOld, ob := guarded(n, 3-off, func(int) float64 { return rnd.Float64() })
					hNew, nb := guarded(n+1, (off+1)%4, func(int) float64 { return rnd.Float64() })
					y, yb := guarded(n, (off+2)%4, func(i int) float64 {
						if i%7 == 3 {
							return 1e-14
						}
						return 0.5 + rnd.Float64()
					})
					xr, xrb := guarded(n, (off+3)%4, func(int) float64 { return -7 })
					r, rb := guarded(n, off, func(int) float64 { return -7 })
					x0, o0, n0 := slices.Clone(x), slices.Clone(hOld), slices.Clone(hNew)
					wantY, wantXR, wantR := slices.Clone(y), make([]float64, n), make([]float64, n)
					wo, wn, wh := klStepGeneric(wantY, x0, o0, n0, wantXR, wantR, step, 1e-10)

					go_, gn, gh := KLStep(y, x, hOld, hNew, xr, r, step, 1e-10)

					name := fmt.Sprintf("n=%d off=%d t=%v", n, off, step)
					checkSame(t, name+" x", x, x0)
					checkSame(t, name+" hOld", hOld, o0)
					checkSame(t, name+" hNew", hNew, n0)
					checkGuards(t, name+" x", x, xb, off)
					checkGuards(t, name+" hOld", hOld, ob, 3-off)
					checkGuards(t, name+" hNew", hNew, nb, (off+1)%4)
					checkGuards(t, name+" y", y, yb, (off+2)%4)
					checkGuards(t, name+" xr", xr, xrb, (off+3)%4)
					checkGuards(t, name+" r", r, rb, off)
					var so, sn, sh float64
					for q := range n {
						if !near(y[q], wantY[q], 2) {
							t.Errorf("%s: y[%d] = %v, want %v", name, q, y[q], wantY[q])
						}
						if !near(xr[q], wantXR[q], 2*math.Abs(wantXR[q])) || !near(r[q], wantR[q], 2*math.Abs(wantR[q])) {
							t.Errorf("%s: ratios [%d] = %v, %v, want %v, %v", name, q, xr[q], r[q], wantXR[q], wantR[q])
						}
						r := 1 / max(wantY[q], 1e-10)
						so += math.Abs(x0[q] * o0[q] * r)
						sn += math.Abs(x0[q] * n0[q] * r)
						sh += math.Abs(x0[q] * n0[q] * n0[q] * r * r)
					}
					if !near(go_, wo, 4*so) || !near(gn, wn, 4*sn) || !near(gh, wh, 4*sh) {
						t.Errorf("%s: sums %v %v %v, want %v %v %v", name, go_, gn, gh, wo, wn, wh)
					}
				}
			}
		}
	})
}

func TestKLStepNaN(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		for _, n := range []int{1, 4, 5} {
			y := make([]float64, n)
			x, h := make([]float64, n), make([]float64, n)
			for q := range y {
				y[q], x[q], h[q] = 1, 1, 1
			}
			y[n-1] = math.NaN()
			xr, r := make([]float64, n), make([]float64, n)
			if _, g, hs := KLStep(y, x, h, h, xr, r, 0, 1e-10); !math.IsNaN(g) || !math.IsNaN(hs) {
				t.Errorf("n=%d: NaN model value gave sums %v %v, want NaN as the reference", n, g, hs)
			}
			if g, hs := KLDeriv(xr, r, h); !math.IsNaN(g) || !math.IsNaN(hs) {
				t.Errorf("n=%d: KLDeriv after a NaN model value gave sums %v %v, want NaN", n, g, hs)
			}
		}
	})
}

// TestKLDerivIsStepAtZero: on every path, KLDeriv on the ratios a KLStep
// stored gives, bit for bit, the gNew and hess of a KLStep with t = 0
// from the y that step left (the zero step it replaces in coordinate
// descent), at every length to 2w+1 and beyond, with y below the floor in
// places and guard bands around every slice (KLDeriv writes nothing).
func TestKLDerivIsStepAtZero(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(19, 20))
		same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
		for _, n := range lengths(streamWidth) {
			for off := range 4 {
				x := make([]float64, n)
				y, hOld := make([]float64, n), make([]float64, n)
				for q := range n {
					x[q], hOld[q] = float64(q%5)*rnd.Float64(), rnd.Float64()
					y[q] = 0.5 + rnd.Float64()
					if q%7 == 3 {
						y[q] = 1e-14
					}
				}
				h, hb := guarded(n, off, func(int) float64 { return rnd.Float64() })
				xr, xrb := guarded(n, (off+1)%4, func(int) float64 { return -7 })
				r, rb := guarded(n, (off+2)%4, func(int) float64 { return -7 })
				KLStep(y, x, hOld, hOld, xr, r, 0.3, 1e-10)
				xr0, r0, h0 := slices.Clone(xr), slices.Clone(r), slices.Clone(h)
				g, hs := KLDeriv(xr, r, h)
				scratch := make([]float64, 2*n)
				_, wg, wh := KLStep(slices.Clone(y), x, h, h, scratch[:n], scratch[n:], 0, 1e-10)
				name := fmt.Sprintf("n=%d off=%d", n, off)
				if !same(g, wg) || !same(hs, wh) {
					t.Errorf("%s: KLDeriv %v %v, a zero step %v %v", name, g, hs, wg, wh)
				}
				checkSame(t, name+" xr", xr, xr0)
				checkSame(t, name+" r", r, r0)
				checkSame(t, name+" h", h, h0)
				checkGuards(t, name+" h", h, hb, off)
				checkGuards(t, name+" xr", xr, xrb, (off+1)%4)
				checkGuards(t, name+" r", r, rb, (off+2)%4)
			}
		}
	})
}

// TestCDGather runs every path against the reference on blocks of every
// row count to 2*16+1 and beyond, for column counts that exercise the
// pairs of columns and the odd one, each column of the block in turn, with
// rows whose curvature is zero (left alone), rows without a diagonal
// term, and a stride larger than the row count (the values between rows
// and columns must not be touched).
func TestCDGather(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(13, 14))
		for _, k := range []int{1, 2, 3, 8, 17, 30} {
			for _, r := range lengths(streamWidth) {
				ld := r + 3
				for _, c := range []int{0, k / 2, k - 1} {
					off := (r + c) % 4
					u, ub := guarded((k-1)*ld+r, off, func(int) float64 { return max(0, 1.5*rnd.Float64()-0.5) })
					s, sb := guarded(k, 3-off, func(int) float64 { return rnd.Float64() })
					p, pb := guarded(r, (off+1)%4, uniform(rnd))
					d, db := guarded(r, (off+2)%4, func(i int) float64 {
						if i%3 == 0 {
							return 0
						}
						return rnd.Float64()
					})
					ih, ib := guarded(r, (off+3)%4, func(i int) float64 {
						if i%5 == 2 {
							return 0
						}
						return 0.5 + rnd.Float64()
					})
					den, nb := guarded(r, off, func(int) float64 { return -7 })
					u0, s0, p0, d0, ih0 := slices.Clone(u), slices.Clone(s), slices.Clone(p), slices.Clone(d), slices.Clone(ih)
					wantU, wantDen := slices.Clone(u), make([]float64, r)
					wsq, wsqd := cdGatherGeneric(wantU, ld, c, s0, p0, d0, ih0, wantDen)

					sq, sqd := CDGather(u, ld, c, s, p, d, ih, den)

					name := fmt.Sprintf("k=%d r=%d c=%d", k, r, c)
					checkSame(t, name+" s", s, s0)
					checkSame(t, name+" p", p, p0)
					checkSame(t, name+" d", d, d0)
					checkSame(t, name+" ih", ih, ih0)
					checkGuards(t, name+" u", u, ub, off)
					checkGuards(t, name+" s", s, sb, 3-off)
					checkGuards(t, name+" p", p, pb, (off+1)%4)
					checkGuards(t, name+" d", d, db, (off+2)%4)
					checkGuards(t, name+" ih", ih, ib, (off+3)%4)
					checkGuards(t, name+" den", den, nb, off)
					var sumSq, sumSqd float64
					for i := range u {
						col, row := i/ld, i%ld
						if col != c || row >= r {
							if math.Float64bits(u[i]) != math.Float64bits(u0[i]) {
								t.Fatalf("%s: u[%d] (row %d of column %d) changed from %v to %v", name, i, row, col, u0[i], u[i])
							}
							continue
						}
						// The scale of the terms that make up the step.
						var a float64
						for l := range k {
							a += s0[l] * u0[l*ld+row]
						}
						a += d0[row]*u0[i] + math.Abs(p0[row])
						if !near(den[row], wantDen[row], a) {
							t.Errorf("%s: den[%d] = %v, want %v", name, row, den[row], wantDen[row])
						}
						step := u0[i] + a*ih0[row]
						if !near(u[i], wantU[i], step) {
							t.Errorf("%s: row %d: u %v, want %v", name, row, u[i], wantU[i])
						}
						if ih0[row] == 0 && u[i] != u0[i] {
							t.Errorf("%s: row %d with ih = 0 moved from %v to %v", name, row, u0[i], u[i])
						}
						sumSq += step * step
						sumSqd += step * step * d0[row]
					}
					if !near(sq, wsq, 4*sumSq) || !near(sqd, wsqd, 4*sumSqd) {
						t.Errorf("%s: sums %v %v, want %v %v", name, sq, sqd, wsq, wsqd)
					}
				}
			}
		}
	})
}

// TestCDGatherNaN: a NaN gradient clamps the coordinate to zero, as the
// reference's !(y > 0) does, except on rows with ih = 0, which no value
// moves.
func TestCDGatherNaN(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		for _, r := range []int{1, 4, 5, 16, 21} {
			u := make([]float64, 2*r)
			p, d, ih, den := make([]float64, r), make([]float64, r), make([]float64, r), make([]float64, r)
			for i := range p {
				u[i], u[r+i], p[i], ih[i] = 1, 1, math.NaN(), 1
				if i%2 == 1 {
					ih[i] = 0
				}
			}
			CDGather(u, r, 1, []float64{1, 1}, p, d, ih, den)
			for i := range p {
				want := 0.0
				if ih[i] == 0 {
					want = 1
				}
				if u[r+i] != want || u[i] != 1 {
					t.Errorf("r=%d: NaN gradient gave row %d = %v, %v; want 1, %v", r, i, u[i], u[r+i], want)
				}
			}
		}
	})
}

// TestCDGather2 runs every path of CDGather2 against two CDGather steps,
// column c then column c+1 (the reference's meaning), on the same blocks
// as TestCDGather: rows 0..33 and beyond, column pairs at both ends, rows
// with zero curvature, rows without a diagonal term, a stride larger than
// the rows; the values outside the two columns must not change.
func TestCDGather2(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(15, 16))
		for _, k := range []int{2, 3, 8, 17, 30} {
			for _, r := range lengths(streamWidth) {
				ld := r + 3
				for _, c := range []int{0, k - 2} {
					off := (r + c) % 4
					n := (k-1)*ld + r
					u, ub := guarded(n, off, func(int) float64 { return max(0, 1.5*rnd.Float64()-0.5) })
					s, sb := guarded(2*k, 3-off, func(int) float64 { return rnd.Float64() })
					p, pb := guarded(n, (off+1)%4, uniform(rnd))
					ih, ib := guarded(n, (off+3)%4, func(i int) float64 {
						if i%5 == 2 {
							return 0
						}
						return 0.5 + rnd.Float64()
					})
					d, db := guarded(r, (off+2)%4, func(i int) float64 {
						if i%3 == 0 {
							return 0
						}
						return rnd.Float64()
					})
					u0, s0, p0, ih0, d0 := slices.Clone(u), slices.Clone(s), slices.Clone(p), slices.Clone(ih), slices.Clone(d)
					// The meaning: column c's step, then column c+1's, each
					// by the reference with its own row of S.
					want, wantDen := slices.Clone(u), make([][]float64, 2)
					wantDen[0], wantDen[1] = make([]float64, r), make([]float64, r)
					w0, wd0 := cdGatherGeneric(want, ld, c, s0[:k], p0[c*ld:c*ld+r], d0, ih0[c*ld:c*ld+r], wantDen[0])
					w1, wd1 := cdGatherGeneric(want, ld, c+1, s0[k:], p0[(c+1)*ld:(c+1)*ld+r], d0, ih0[(c+1)*ld:(c+1)*ld+r], wantDen[1])
					den, denb := guarded(n, (off+2)%4, func(int) float64 { return guard })

					sq0, sq1, sqd := CDGather2(u, ld, c, s, p, ih, d, den)

					name := fmt.Sprintf("k=%d r=%d c=%d", k, r, c)
					checkSame(t, name+" s", s, s0)
					checkSame(t, name+" p", p, p0)
					checkSame(t, name+" ih", ih, ih0)
					checkSame(t, name+" d", d, d0)
					checkGuards(t, name+" u", u, ub, off)
					checkGuards(t, name+" s", s, sb, 3-off)
					checkGuards(t, name+" p", p, pb, (off+1)%4)
					checkGuards(t, name+" ih", ih, ib, (off+3)%4)
					checkGuards(t, name+" d", d, db, (off+2)%4)
					checkGuards(t, name+" den", den, denb, (off+2)%4)
					var scale float64
					for i := range u {
						col, row := i/ld, i%ld
						if (col != c && col != c+1) || row >= r {
							if math.Float64bits(u[i]) != math.Float64bits(u0[i]) {
								t.Fatalf("%s: u[%d] (row %d of column %d) changed from %v to %v", name, i, row, col, u0[i], u[i])
							}
							continue
						}
						// The scale of the terms that make up the steps.
						var a float64
						for l := range k {
							a += (s0[l] + s0[k+l]) * (u0[l*ld+row] + want[l*ld+row])
						}
						sc := (a + 2*d0[row]*u0[i] + math.Abs(p0[c*ld+row]) + math.Abs(p0[(c+1)*ld+row])) * (1 + ih0[i]) * (1 + s0[k+c])
						if !near(u[i], want[i], sc) {
							t.Errorf("%s: row %d of column %d: %v, want %v", name, row, col, u[i], want[i])
						}
						// den: the sum each step met, at the values it
						// started from (column c+1's after column c's step).
						wd := wantDen[col-c][row]
						if !near(den[i], wd, sc) {
							t.Errorf("%s: den at row %d of column %d: %v, want %v", name, row, col, den[i], wd)
						}
						if ih0[i] == 0 && u[i] != u0[i] {
							t.Errorf("%s: row %d of column %d with ih = 0 moved from %v to %v", name, row, col, u0[i], u[i])
						}
						scale += sc * sc * (1 + d0[row])
					}
					if !near(sq0, w0, 4*scale) || !near(sq1, w1, 4*scale) || !near(sqd, wd0+wd1, 4*scale) {
						t.Errorf("%s: sums %v %v %v, want %v %v %v", name, sq0, sq1, sqd, w0, w1, wd0+wd1)
					}
				}
			}
		}
	})
}

// TestKLStepRange runs every path on model values across the range a fit
// can meet, from below eps to 1e290, and on +Inf (an overflowed model
// value, whose reciprocal the reference takes as 0): each sum within the
// rounding of its n terms summed in another order, plus a few units, of
// the reference's (the terms taken in absolute value), so that a path
// with a cheaper reciprocal than a division must be as accurate (an
// AVX-512 estimate with one Newton step fails it; with two it passed,
// but ran slower than the AVX2 division and was dropped:
// docs/PERFORMANCE.md).
func TestKLStepRange(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(17, 18))
		for _, n := range []int{1, 7, 8, 9, 16, 127} {
			for _, top := range []float64{1e-12, 1, 1e8, 1e150, 1e290} {
				x, hOld, hNew, y := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
				for q := range y {
					// y spread over ten decades below top; x of y's size,
					// so that x/y stays near 1.
					y[q] = top * math.Pow(10, -10*rnd.Float64())
					x[q] = y[q] * (0.5 + rnd.Float64())
					hOld[q], hNew[q] = rnd.Float64(), rnd.Float64()
				}
				if n > 2 {
					y[n/2] = math.Inf(1)
				}
				wantY, ratios := slices.Clone(y), make([]float64, 4*n)
				wo, wn, wh := klStepGeneric(wantY, x, hOld, hNew, ratios[:n], ratios[n:2*n], 0, 1e-10)
				g0, g1, g2 := KLStep(y, x, hOld, hNew, ratios[2*n:3*n], ratios[3*n:], 0, 1e-10)
				var so, sn, sh float64
				for q := range n {
					r := 1 / max(wantY[q], 1e-10)
					xr := x[q] * r
					if math.IsInf(wantY[q], 1) {
						xr = 0
					}
					so += math.Abs(hOld[q] * xr)
					sn += math.Abs(hNew[q] * xr)
					sh += math.Abs(hNew[q] * hNew[q] * xr * r)
				}
				// The sums' order differs by path: the bound of a sum of
				// n terms reordered, plus a few units for the reciprocal.
				ulps := float64(n+8) * 0x1p-53
				if math.Abs(g0-wo) > ulps*so || math.Abs(g1-wn) > ulps*sn || math.Abs(g2-wh) > ulps*sh {
					t.Errorf("n=%d y up to %g: sums %v %v %v, want %v %v %v", n, top, g0, g1, g2, wo, wn, wh)
				}
			}
		}
	})
}
