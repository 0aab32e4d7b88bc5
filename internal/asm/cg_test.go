package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// cgWidth is the CG kernels' vector width; rule 8's lengths 0..2w+1 are
// taken for m, the entries a row, with 0 to 3 rows and a row stride of x
// past m.
const cgWidth = 4

// sameBits reports whether got and want hold the same bits (any NaN
// matching any NaN).
func sameBits(got, want []float64) int {
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			return i
		}
	}
	return -1
}

// cgValue draws mostly ordinary values of both signs, some zeros of both
// signs, and rarely an infinity or a NaN.
func cgValue(rnd *rand.Rand) func(int) float64 {
	specials := []float64{0, math.Copysign(0, -1), 1e-310, math.Inf(1), math.NaN(), 1e300}
	return func(int) float64 {
		if rnd.IntN(40) == 0 {
			return specials[rnd.IntN(len(specials))]
		}
		return 4*rnd.Float64() - 2
	}
}

// TestCGKernels checks CGApply, CGResidual and CGDirection on every path
// against the references bit for bit, with guards around every slice they
// write.
func TestCGKernels(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(11, 5))
		val := cgValue(rnd)
		for m := 1; m <= 2*cgWidth+1; m++ {
			for rows := 0; rows <= 3; rows++ {
				n := rows * m
				name := fmt.Sprintf("m=%d rows=%d", m, rows)
				// CGApply, with and without the sums.
				for _, dot := range []bool{false, true} {
					out, ob := guarded(n, 1, val)
					in, _ := guarded(n, 2, val)
					shift, _ := guarded(m, 0, val)
					base, _ := guarded(rows, 3, val)
					g, _ := guarded(rows, 1, val)
					var part, pb []float64
					if dot {
						part, pb = guarded(m, 2, val)
					}
					scale := val(0)
					wantOut, wantPart := slices.Clone(out), slices.Clone(part)
					cgApplyGeneric(wantOut, in, m, shift, scale, base, g, wantPart)
					CGApply(out, in, m, shift, scale, base, g, part)
					checkGuards(t, name+" apply out", out, ob, 1)
					if i := sameBits(out, wantOut); i >= 0 {
						t.Fatalf("%s: apply out[%d] = %v, want %v", name, i, out[i], wantOut[i])
					}
					if dot {
						checkGuards(t, name+" apply part", part, pb, 2)
						if i := sameBits(part, wantPart); i >= 0 {
							t.Fatalf("%s: apply part[%d] = %v, want %v", name, i, part[i], wantPart[i])
						}
					}
				}
				// CGResidual.
				r, rb := guarded(n, 3, val)
				q, _ := guarded(n, 0, val)
				d, _ := guarded(n, 1, val)
				alpha, _ := guarded(m, 2, val)
				rr, rrb := guarded(m, 1, val)
				rz, rzb := guarded(m, 0, val)
				wr, wrr, wrz := slices.Clone(r), slices.Clone(rr), slices.Clone(rz)
				cgResidualGeneric(wr, q, d, m, alpha, wrr, wrz)
				CGResidual(r, q, d, m, alpha, rr, rz)
				checkGuards(t, name+" residual r", r, rb, 3)
				checkGuards(t, name+" residual rr", rr, rrb, 1)
				checkGuards(t, name+" residual rz", rz, rzb, 0)
				for what, pair := range map[string][2][]float64{"r": {r, wr}, "rr": {rr, wrr}, "rz": {rz, wrz}} {
					if i := sameBits(pair[0], pair[1]); i >= 0 {
						t.Fatalf("%s: residual %s[%d] = %v, want %v", name, what, i, pair[0][i], pair[1][i])
					}
				}
				// CGDirection, x with a stride past m.
				for _, ldx := range []int{m, m + 3} {
					xn := 0
					if rows > 0 {
						xn = (rows-1)*ldx + m
					}
					x, xb := guarded(xn, 2, val)
					p, pb := guarded(n, 1, val)
					alpha, _ := guarded(m, 0, val)
					beta, _ := guarded(m, 3, val)
					wx, wp := slices.Clone(x), slices.Clone(p)
					cgDirectionGeneric(wx, ldx, wp, r, d, m, alpha, beta)
					CGDirection(x, ldx, p, r, d, m, alpha, beta)
					checkGuards(t, name+" direction x", x, xb, 2)
					checkGuards(t, name+" direction p", p, pb, 1)
					if i := sameBits(x, wx); i >= 0 {
						t.Fatalf("%s ldx=%d: direction x[%d] = %v, want %v", name, ldx, i, x[i], wx[i])
					}
					if i := sameBits(p, wp); i >= 0 {
						t.Fatalf("%s ldx=%d: direction p[%d] = %v, want %v", name, ldx, i, p[i], wp[i])
					}
				}
			}
		}
	})
}

// TestCGKernelsReference pins the references to the formulas on a small
// case, so that the paths' agreement is agreement with the meaning.
func TestCGKernelsReference(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		// Two rows, two columns.
		out := []float64{1, 2, 3, 4}
		in := []float64{5, 6, 7, 8}
		part := []float64{0.5, 0}
		CGApply(out, in, 2, []float64{1, 2}, -1, []float64{10, 20}, []float64{1, 3}, part)
		// Row 0: -1 + (10+1)*5 = 54, -2 + (10+2)*6 = 70; row 1: -3 +
		// (20+3)*7 = 158, -4 + (20+6)*8 = 204.
		if want := []float64{54, 70, 158, 204}; !slices.Equal(out, want) {
			t.Errorf("CGApply out = %v, want %v", out, want)
		}
		if want := []float64{0.5 + 5*54 + 7*158, 6*70 + 8*204}; !slices.Equal(part, want) {
			t.Errorf("CGApply part = %v, want %v", part, want)
		}
		r := []float64{1, 2, 3, 4}
		rr, rz := []float64{0, 1}, []float64{0, 0}
		CGResidual(r, []float64{1, 1, 2, 2}, []float64{2, 2, 0.5, 0.5}, 2, []float64{0.5, 1}, rr, rz)
		// r - alpha q: 0.5, 1, 2, 2.
		if want := []float64{0.5, 1, 2, 2}; !slices.Equal(r, want) {
			t.Errorf("CGResidual r = %v, want %v", r, want)
		}
		if want := []float64{0.25 + 4, 1 + 1 + 4}; !slices.Equal(rr, want) {
			t.Errorf("CGResidual rr = %v, want %v", rr, want)
		}
		if want := []float64{0.5 + 2, 2 + 2}; !slices.Equal(rz, want) {
			t.Errorf("CGResidual rz = %v, want %v", rz, want)
		}
		x := []float64{1, 1, 99, 2, 2}
		p := []float64{1, 2, 3, 4}
		CGDirection(x, 3, p, []float64{1, 1, 1, 1}, []float64{2, 3, 4, 5}, 2, []float64{1, 0.5}, []float64{0, 1})
		if want := []float64{2, 2, 99, 5, 4}; !slices.Equal(x, want) {
			t.Errorf("CGDirection x = %v, want %v", x, want)
		}
		if want := []float64{2, 5, 4, 9}; !slices.Equal(p, want) {
			t.Errorf("CGDirection p = %v, want %v", p, want)
		}
	})
}

// TestCGKernelsPanic checks that a bad shape panics on every path
// instead of reading or writing past a slice.
func TestCGKernelsPanic(t *testing.T) {
	cases := map[string]func(){
		"apply ragged": func() {
			CGApply(make([]float64, 5), make([]float64, 5), 2, make([]float64, 2), 1, make([]float64, 3), make([]float64, 3), nil)
		},
		"apply short in": func() {
			CGApply(make([]float64, 4), make([]float64, 3), 2, make([]float64, 2), 1, make([]float64, 2), make([]float64, 2), nil)
		},
		"apply short g": func() {
			CGApply(make([]float64, 4), make([]float64, 4), 2, make([]float64, 2), 1, make([]float64, 2), make([]float64, 1), nil)
		},
		"apply short part": func() {
			CGApply(make([]float64, 4), make([]float64, 4), 2, make([]float64, 2), 1, make([]float64, 2), make([]float64, 2), make([]float64, 1))
		},
		"residual zero m": func() { CGResidual(make([]float64, 4), make([]float64, 4), make([]float64, 4), 0, nil, nil, nil) },
		"residual short d": func() {
			CGResidual(make([]float64, 4), make([]float64, 4), make([]float64, 3), 2, make([]float64, 2), make([]float64, 2), make([]float64, 2))
		},
		"residual short rz": func() {
			CGResidual(make([]float64, 4), make([]float64, 4), make([]float64, 4), 2, make([]float64, 2), make([]float64, 2), make([]float64, 1))
		},
		"direction small ldx": func() {
			CGDirection(make([]float64, 8), 1, make([]float64, 4), make([]float64, 4), make([]float64, 4), 2, make([]float64, 2), make([]float64, 2))
		},
		"direction short x": func() {
			CGDirection(make([]float64, 4), 3, make([]float64, 4), make([]float64, 4), make([]float64, 4), 2, make([]float64, 2), make([]float64, 2))
		},
		"direction short beta": func() {
			CGDirection(make([]float64, 4), 2, make([]float64, 4), make([]float64, 4), make([]float64, 4), 2, make([]float64, 2), make([]float64, 1))
		},
	}
	forEachPath(t, func(t *testing.T) {
		for name, f := range cases {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: no panic", name)
					}
				}()
				f()
			}()
		}
	})
}
