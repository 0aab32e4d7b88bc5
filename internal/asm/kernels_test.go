package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// Widths of the widest unrolled block of any path: 16 doubles for the
// streaming kernels and 48 (gatherMaxCols on amd64: 12 YMM accumulators) for
// the gather. Rule 8 asks for every length 0..2*width+1; the extra lengths
// cross several blocks and the gather's split into register blocks.
const (
	streamWidth = 16
	gatherWidth = 48
)

var extraLengths = []int{100, 127, 128, 129, 1000, 1003}

// tol is the relative tolerance between a path and the reference, applied to
// the sum of the magnitudes of the terms that make up each result: FMA and
// reassociation change only the rounding.
const tol = 1e-12

// guard is the sentinel written around every slice under test. It is finite
// and of the inputs' magnitude: a kernel that reads it into a result is off
// by far more than tol, and one that adds into it changes it (a NaN would
// survive "+=" bit for bit, a huge value would absorb the addend).
const guard = 0.6180339887498949

const guardLen = 8

// guarded returns a slice of length n starting at offset off of a backing
// array whose elements outside the slice hold guard, filled by fill.
func guarded(n, off int, fill func(i int) float64) (s, backing []float64) {
	backing = make([]float64, off+n+guardLen)
	for i := range backing {
		backing[i] = guard
	}
	s = backing[off : off+n]
	for i := range s {
		s[i] = fill(i)
	}
	return s, backing
}

// checkGuards reports writes outside s in its backing array.
func checkGuards(t *testing.T, name string, s, backing []float64, off int) {
	t.Helper()
	for i, v := range backing {
		if i >= off && i < off+len(s) {
			continue
		}
		if math.Float64bits(v) != math.Float64bits(guard) {
			t.Errorf("%s: guard at backing[%d] (slice [%d:%d]) overwritten with %v", name, i, off, off+len(s), v)
			return
		}
	}
}

// checkSame reports any change to an input that a kernel must only read.
func checkSame(t *testing.T, name string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Errorf("%s modified: [%d] = %v, was %v", name, i, got[i], want[i])
			return
		}
	}
}

// near reports whether got equals want within tol relative to scale;
// non-finite values must match exactly.
func near(got, want, scale float64) bool {
	if math.IsNaN(want) || math.IsInf(want, 0) {
		return math.IsNaN(want) && math.IsNaN(got) || got == want
	}
	return math.Abs(got-want) <= tol*scale
}

func uniform(rnd *rand.Rand) func(int) float64 {
	return func(int) float64 { return 2*rnd.Float64() - 1 }
}

func lengths(width int) []int {
	var ns []int
	for n := 0; n <= 2*width+1; n++ {
		ns = append(ns, n)
	}
	return append(ns, extraLengths...)
}

// forEachPath runs f under every path of Available(), restoring the path in
// use before the test when done.
func forEachPath(t *testing.T, f func(t *testing.T)) {
	saved := Path()
	t.Cleanup(func() {
		if err := Use(saved); err != nil {
			t.Fatal(err)
		}
	})
	for _, p := range Available() {
		t.Run(p, func(t *testing.T) {
			if err := Use(p); err != nil {
				t.Fatal(err)
			}
			if Path() != p {
				t.Fatalf("Path() = %q after Use(%q)", Path(), p)
			}
			f(t)
		})
	}
}

func TestAxpy(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(1, 2))
		for _, n := range lengths(streamWidth) {
			for off := range 4 {
				a := 2*rnd.Float64() - 1
				x, xb := guarded(n, off, uniform(rnd))
				// y is longer than x, as the API allows; its tail must stay.
				y, yb := guarded(n+2, 3-off, uniform(rnd))
				x0, y0 := slices.Clone(x), slices.Clone(y)
				want := slices.Clone(y)
				axpyGeneric(a, x0, want)

				Axpy(a, x, y)

				name := fmt.Sprintf("n=%d off=%d", n, off)
				checkSame(t, name+" x", x, x0)
				checkSame(t, name+" y tail", y[n:], y0[n:])
				checkGuards(t, name+" x", x, xb, off)
				checkGuards(t, name+" y", y, yb, 3-off)
				for i := range n {
					if !near(y[i], want[i], math.Abs(y0[i])+math.Abs(a*x0[i])) {
						t.Errorf("%s: y[%d] = %v, want %v", name, i, y[i], want[i])
					}
				}
			}
		}
	})
}

func TestDot(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(3, 4))
		for _, n := range lengths(streamWidth) {
			for off := range 4 {
				x, xb := guarded(n, off, uniform(rnd))
				y, yb := guarded(n+1, 3-off, uniform(rnd))
				x0, y0 := slices.Clone(x), slices.Clone(y)
				want := dotGeneric(x0, y0)
				var scale float64
				for i := range n {
					scale += math.Abs(x0[i] * y0[i])
				}

				got := Dot(x, y)

				name := fmt.Sprintf("n=%d off=%d", n, off)
				checkSame(t, name+" x", x, x0)
				checkSame(t, name+" y", y, y0)
				checkGuards(t, name+" x", x, xb, off)
				checkGuards(t, name+" y", y, yb, 3-off)
				if !near(got, want, scale) {
					t.Errorf("%s: Dot = %v, want %v", name, got, want)
				}
			}
		}
	})
}

func TestMulUpdate(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(5, 6))
		const eps = 1e-9
		// Denominators straddle eps: zeros, negatives, values just below
		// and above eps, and ordinary values.
		den := func(int) float64 {
			switch rnd.IntN(6) {
			case 0:
				return 0
			case 1:
				return -rnd.Float64()
			case 2:
				return eps * rnd.Float64()
			case 3:
				return eps
			case 4:
				return eps * (1 + rnd.Float64())
			}
			return rnd.Float64()
		}
		for _, n := range lengths(streamWidth) {
			for off := range 4 {
				x, xb := guarded(n, off, func(int) float64 { return rnd.Float64() })
				num, nb := guarded(n+1, (off+1)%4, func(int) float64 { return rnd.Float64() })
				d, db := guarded(n+2, (off+2)%4, den)
				num0, d0 := slices.Clone(num), slices.Clone(d)
				want := slices.Clone(x)
				mulUpdateGeneric(want, num0, d0, eps)

				MulUpdate(x, num, d, eps)

				name := fmt.Sprintf("n=%d off=%d", n, off)
				checkSame(t, name+" num", num, num0)
				checkSame(t, name+" den", d, d0)
				checkGuards(t, name+" x", x, xb, off)
				checkGuards(t, name+" num", num, nb, (off+1)%4)
				checkGuards(t, name+" den", d, db, (off+2)%4)
				for i := range n {
					if !near(x[i], want[i], math.Abs(want[i])) {
						t.Errorf("%s: x[%d] = %v, want %v (num %v, den %v)", name, i, x[i], want[i], num0[i], d0[i])
					}
				}
			}
		}
	})
}

// TestMulUpdateSpecial checks the max(den, eps) corner cases bit for bit:
// the paths perform the same operations as the reference.
func TestMulUpdateSpecial(t *testing.T) {
	dens := []float64{0, math.Copysign(0, -1), -1, 1e-300, 1e-9, 2e-9, 1, math.Inf(1), math.Inf(-1), math.NaN()}
	for _, eps := range []float64{0, 1e-9, math.Copysign(0, -1)} {
		n := len(dens)
		x, num := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], num[i] = 3, float64(i+1)
		}
		want := slices.Clone(x)
		mulUpdateGeneric(want, num, dens, eps)
		forEachPath(t, func(t *testing.T) {
			got := slices.Clone(x)
			MulUpdate(got, num, dens, eps)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
					t.Errorf("eps=%v den=%v: x = %v, want %v", eps, dens[i], got[i], want[i])
				}
			}
		})
	}
}

// gatherCase is one AxpyGather input: a sparse row (val, ind) over the
// rows of b, laid out with stride ldb and ending exactly after the k-th
// element of its last row, so that any over-read runs into the guard.
type gatherCase struct {
	dst, val, b    []float64
	ind            []int
	ldb            int
	dstB, valB, bB []float64
	dstOff, bOff   int
}

func newGatherCase(rnd *rand.Rand, k, nnz, off, pad int) gatherCase {
	const rows = 23
	ldb := k + pad
	var c gatherCase
	c.ldb = ldb
	c.dstOff, c.bOff = off, 3-off
	c.dst, c.dstB = guarded(k, off, uniform(rnd))
	c.val, c.valB = guarded(nnz, (off+1)%4, uniform(rnd))
	c.b, c.bB = guarded((rows-1)*ldb+k, c.bOff, uniform(rnd))
	// Rows out of order, with repeats, and the first and last rows so that
	// the reads reach both ends of b.
	c.ind = make([]int, nnz, nnz+1)
	for p := range c.ind {
		c.ind[p] = rnd.IntN(rows)
	}
	if nnz >= 3 {
		c.ind[0], c.ind[1], c.ind[2] = rows-1, 0, c.ind[nnz-1]
	}
	return c
}

func TestAxpyGather(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(7, 8))
		for _, k := range append(lengths(gatherWidth)[:2*gatherWidth+2], 100, 150, 193) {
			for _, nnz := range []int{0, 1, 2, 3, 7, 24} {
				for off := range 4 {
					pad := off % 3 // ldb == k and ldb > k
					c := newGatherCase(rnd, k, nnz, off, pad)
					dst0, val0, b0 := slices.Clone(c.dst), slices.Clone(c.val), slices.Clone(c.b)
					ind0 := slices.Clone(c.ind)
					want := slices.Clone(dst0)
					axpyGatherGeneric(want, val0, ind0, b0, c.ldb)

					AxpyGather(c.dst, c.val, c.ind, c.b, c.ldb)

					name := fmt.Sprintf("k=%d nnz=%d off=%d ldb=%d", k, nnz, off, c.ldb)
					checkSame(t, name+" val", c.val, val0)
					checkSame(t, name+" b", c.b, b0)
					if !slices.Equal(c.ind, ind0) {
						t.Errorf("%s: ind modified", name)
					}
					checkGuards(t, name+" dst", c.dst, c.dstB, c.dstOff)
					checkGuards(t, name+" val", c.val, c.valB, (off+1)%4)
					checkGuards(t, name+" b", c.b, c.bB, c.bOff)
					for j := range k {
						scale := math.Abs(dst0[j])
						for p, a := range val0 {
							scale += math.Abs(a * b0[ind0[p]*c.ldb+j])
						}
						if !near(c.dst[j], want[j], scale) {
							t.Errorf("%s: dst[%d] = %v, want %v", name, j, c.dst[j], want[j])
						}
					}
				}
			}
		}
	})
}

// TestAxpyGatherRange checks that every path panics, rather than reading
// outside b, on a row index that is negative or past the last row.
func TestAxpyGatherRange(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(9, 10))
		for _, k := range []int{1, 4, 30, 48, 49, 100} {
			for _, bad := range []int{-1, 23, math.MaxInt / 2} {
				c := newGatherCase(rnd, k, 5, 0, 2)
				b := c.b[:len(c.b):len(c.b)] // the reference slices up to cap
				ind := slices.Clone(c.ind)
				ind[3] = bad
				func() {
					defer func() {
						if recover() == nil {
							t.Errorf("k=%d ind=%d: no panic", k, bad)
						}
					}()
					AxpyGather(c.dst, c.val, ind, b, c.ldb)
				}()
			}
		}
	})
}

func TestLengthPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"Axpy":        func() { Axpy(1, make([]float64, 3), make([]float64, 2)) },
		"Dot":         func() { Dot(make([]float64, 3), make([]float64, 2)) },
		"MulUpdate":   func() { MulUpdate(make([]float64, 3), make([]float64, 3), make([]float64, 2), 1) },
		"AxpyGather":  func() { AxpyGather(make([]float64, 3), make([]float64, 2), make([]int, 1), make([]float64, 9), 3) },
		"AxpyScatter": func() { AxpyScatter(make([]float64, 9), 3, make([]float64, 2), make([]int, 1), make([]float64, 3)) },
		"ProjGrad pg": func() {
			ProjGrad(make([]float64, 2), make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 3))
		},
		"ProjGrad ref": func() {
			ProjGrad(make([]float64, 3), make([]float64, 2), make([]float64, 3), make([]float64, 3), make([]float64, 3))
		},
		"ProjGrad den": func() {
			ProjGrad(make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 2), make([]float64, 3))
		},
		"ProjGrad num": func() {
			ProjGrad(make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 2))
		},
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

func TestUse(t *testing.T) {
	saved := Path()
	defer func() { _ = Use(saved) }()
	avail := Available()
	if avail[0] != "generic" {
		t.Fatalf("Available() = %v, want generic first", avail)
	}
	for _, p := range append(avail, "auto", "") {
		if err := Use(p); err != nil {
			t.Fatalf("Use(%q): %v", p, err)
		}
		want := p
		if p == "auto" || p == "" {
			want = avail[len(avail)-1]
		}
		if Path() != want {
			t.Errorf("Use(%q): Path() = %q, want %q", p, Path(), want)
		}
	}
	if err := Use("generic"); err != nil {
		t.Fatal(err)
	}
	if err := Use("bogus"); err == nil {
		t.Error(`Use("bogus") succeeded`)
	}
	if Path() != "generic" {
		t.Errorf(`failed Use("bogus") changed Path() to %q`, Path())
	}
}

// TestNoEnv: the package starts on the widest path whatever
// MANIFACTOR_KERNELS says; TestMain, like the command line, applies it.
func TestNoEnv(t *testing.T) {
	avail := Available()
	if best := avail[len(avail)-1]; pathAtStart != best {
		t.Errorf("path at start-up %q, want %q (MANIFACTOR_KERNELS=%q)", pathAtStart, best, os.Getenv("MANIFACTOR_KERNELS"))
	}
}

// TestProjGrad checks every path against the reference at every length
// around the vector widths, with guard bands, for factors with zeros and
// negative zeros, gradients of both signs and exactly zero, and NaN.
func TestProjGrad(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(7, 8))
		fval := func(int) float64 {
			switch rnd.IntN(5) {
			case 0:
				return 0
			case 1:
				return math.Copysign(0, -1)
			case 2:
				if rnd.IntN(8) == 0 {
					return math.NaN()
				}
			}
			return rnd.Float64()
		}
		for _, n := range lengths(4) {
			for off := range 4 {
				f, fb := guarded(n, off, fval)
				den, db := guarded(n, (off+1)%4, func(int) float64 { return rnd.Float64() })
				// Equal to den at some entries: a gradient of exactly 0.
				num, nb := guarded(n+1, (off+2)%4, func(i int) float64 {
					if i < n && rnd.IntN(4) == 0 {
						return den[i]
					}
					return rnd.Float64()
				})
				pg, pb := guarded(n, (off+3)%4, func(int) float64 { return rnd.Float64() })
				ref, rb := guarded(n+2, off, func(int) float64 { return rnd.Float64() })
				f0, d0, n0 := slices.Clone(f), slices.Clone(den), slices.Clone(num)
				wantPG, wantRef := slices.Clone(pg), slices.Clone(ref)
				projGradGeneric(wantPG, wantRef, f0, d0, n0)

				ProjGrad(pg, ref, f, den, num)

				name := fmt.Sprintf("n=%d off=%d", n, off)
				checkSame(t, name+" f", f, f0)
				checkSame(t, name+" den", den, d0)
				checkSame(t, name+" num", num, n0)
				checkGuards(t, name+" f", f, fb, off)
				checkGuards(t, name+" den", den, db, (off+1)%4)
				checkGuards(t, name+" num", num, nb, (off+2)%4)
				checkGuards(t, name+" pg", pg, pb, (off+3)%4)
				checkGuards(t, name+" ref", ref, rb, off)
				for i := range n {
					if !near(pg[i], wantPG[i], math.Abs(wantPG[i])) || !near(ref[i], wantRef[i], math.Abs(wantRef[i])) {
						t.Errorf("%s: [%d] pg %v ref %v, want %v %v (f %v den %v num %v)", name, i, pg[i], ref[i], wantPG[i], wantRef[i], f0[i], d0[i], n0[i])
					}
				}
				if n > 0 && ref[n] != wantRef[n] {
					t.Errorf("%s: ref[%d] past len(f) changed", name, n)
				}
			}
		}
	})
}

// TestExtrapolate checks every path against the reference bit for bit, at
// every length to two blocks and past, with guards around both slices:
// values of both signs and zeros of both signs (so that the maximum meets
// negatives, -0 and exact zeros), infinities and NaNs, and momenta from 0
// to 1.
func TestExtrapolate(t *testing.T) {
	specials := []float64{0, math.Copysign(0, -1), 1, -1, 1e-310, -1e-310, math.Inf(1), math.Inf(-1), math.NaN(), 1e300}
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(8, 8))
		val := func(int) float64 {
			switch rnd.IntN(8) {
			case 0:
				return specials[rnd.IntN(len(specials))]
			case 1:
				return 0
			case 2:
				return -rnd.Float64()
			}
			return rnd.Float64()
		}
		for _, beta := range []float64{0, 0.5, 0.97, 1} {
			for _, n := range lengths(streamWidth) {
				for off := range 4 {
					cur, cb := guarded(n, off, val)
					base, bb := guarded(n+1, (off+1)%4, val)
					wantCur, wantBase := slices.Clone(cur), slices.Clone(base)
					extrapolateGeneric(wantCur, wantBase, beta)

					Extrapolate(cur, base, beta)

					name := fmt.Sprintf("beta=%v n=%d off=%d", beta, n, off)
					checkGuards(t, name+" cur", cur, cb, off)
					checkGuards(t, name+" base", base, bb, (off+1)%4)
					for i := range n {
						if math.Float64bits(cur[i]) != math.Float64bits(wantCur[i]) && !(math.IsNaN(cur[i]) && math.IsNaN(wantCur[i])) {
							t.Fatalf("%s: cur[%d] = %v (%#x), want %v (%#x)", name, i, cur[i], math.Float64bits(cur[i]), wantCur[i], math.Float64bits(wantCur[i]))
						}
					}
					for i := range n {
						if math.Float64bits(base[i]) != math.Float64bits(wantBase[i]) && !(math.IsNaN(base[i]) && math.IsNaN(wantBase[i])) {
							t.Fatalf("%s: base[%d] = %v, want %v", name, i, base[i], wantBase[i])
						}
					}
				}
			}
		}
	})
}

// TestExtrapolateMax pins the maximum's corner cases against Go's max:
// -0 gives +0, a NaN stays NaN, negatives give +0.
func TestExtrapolateMax(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		// beta 0 and finite values: cur[i] = max(cur[i], 0) (an infinity
		// would meet 0 * Inf = NaN in the momentum first).
		in := []float64{math.Copysign(0, -1), 0, -2, 3, math.NaN(), -1e-310, 1e-310}
		for n := range len(in) + 1 {
			cur := slices.Clone(in[:n])
			base := make([]float64, n)
			Extrapolate(cur, base, 0)
			for i, x := range in[:n] {
				want := max(x, 0)
				if math.Float64bits(cur[i]) != math.Float64bits(want) && !(math.IsNaN(want) && math.IsNaN(cur[i])) {
					t.Errorf("n %d: max(%v, 0) = %v (%#x), want %v", n, x, cur[i], math.Float64bits(cur[i]), want)
				}
				if math.Float64bits(base[i]) != math.Float64bits(x) && !(math.IsNaN(x) && math.IsNaN(base[i])) {
					t.Errorf("n %d: base[%d] = %v, want the old cur %v", n, i, base[i], x)
				}
			}
		}
	})
}
