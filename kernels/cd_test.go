package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCDColumn(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(7, 8))
		for _, n := range lengths(streamWidth) {
			for off := range 4 {
				ih := 0.5 + rnd.Float64()
				// A third of u at zero and gradients of both signs: some
				// entries clamp, some move, some stay.
				u, ub := guarded(n, off, func(int) float64 { return max(0, 1.5*rnd.Float64()-0.5) })
				g, gb := guarded(n+1, 3-off, uniform(rnd))
				delta, db := guarded(n, (off+2)%4, func(int) float64 { return 0 })
				u0, g0 := slices.Clone(u), slices.Clone(g)
				wantU, wantD := slices.Clone(u), make([]float64, n)
				want := cdColumnGeneric(wantU, g0, wantD, ih)

				got := CDColumn(u, g, delta, ih)

				name := fmt.Sprintf("n=%d off=%d", n, off)
				checkSame(t, name+" g", g, g0)
				checkGuards(t, name+" u", u, ub, off)
				checkGuards(t, name+" g", g, gb, 3-off)
				checkGuards(t, name+" delta", delta, db, (off+2)%4)
				var scale float64
				for i := range n {
					s := math.Abs(u0[i]) + math.Abs(g0[i]*ih)
					if !near(u[i], wantU[i], s) || !near(delta[i], wantD[i], s) {
						t.Errorf("%s: [%d] u %v delta %v, want %v %v", name, i, u[i], delta[i], wantU[i], wantD[i])
					}
					scale += s * s
				}
				if !near(got, want, 4*scale) {
					t.Errorf("%s: sum of squares %v, want %v", name, got, want)
				}
			}
		}
	})
}

func TestCDColumnNaN(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		for _, n := range []int{1, 4, 5} {
			u := make([]float64, n)
			g := make([]float64, n)
			for i := range u {
				u[i], g[i] = 1, math.NaN()
			}
			d := make([]float64, n)
			CDColumn(u, g, d, 1)
			for i, x := range u {
				if x != 0 || d[i] != -1 {
					t.Errorf("n=%d: NaN gradient gave u[%d] = %v, delta %v; want 0 and -1 as the reference", n, i, x, d[i])
				}
			}
		}
	})
}

// spd returns a random symmetric positive definite k x k matrix.
func spd(rnd *rand.Rand, k int) []float64 {
	a := make([]float64, k*k)
	for i := range a {
		a[i] = rnd.Float64()
	}
	s := make([]float64, k*k)
	for i := range k {
		for j := range k {
			for l := range k {
				s[i*k+j] += a[i*k+l] * a[j*k+l]
			}
		}
		s[i*k+i] += 0.1
	}
	return s
}

func TestCDSweep(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(9, 10))
		for k := 0; k <= 2*streamWidth+1; k++ {
			for _, d := range []float64{0, 0.7} {
				for off := range 4 {
					s := spd(rnd, k)
					sb := slices.Clone(s)
					f, fb := guarded(k, off, func(int) float64 { return max(0, 1.5*rnd.Float64()-0.5) })
					b := make([]float64, k)
					for i := range b {
						b[i] = 2*rnd.Float64() - 0.5
					}
					grad, gb := guarded(k, 3-off, func(int) float64 { return 0 })
					for c := range k {
						grad[c] = d*f[c] - b[c]
						for l := range k {
							grad[c] += s[c*k+l] * f[l]
						}
					}
					invH := make([]float64, k)
					for c := range invH {
						invH[c] = 1 / (s[c*k+c] + d)
					}
					if k > 2 {
						invH[1] = 0 // a skipped coordinate
					}
					wantF, wantG := slices.Clone(f), slices.Clone(grad)
					want := cdSweepGeneric(wantF, wantG, s, invH, d)

					got := CDSweep(f, grad, s, invH, d)

					name := fmt.Sprintf("k=%d d=%v off=%d", k, d, off)
					checkSame(t, name+" s", s, sb)
					checkGuards(t, name+" f", f, fb, off)
					checkGuards(t, name+" grad", grad, gb, 3-off)
					// Each step reads the gradient the earlier ones wrote,
					// so rounding differences compound over the sweep.
					for c := range k {
						if math.Abs(f[c]-wantF[c]) > 1e-9*(1+math.Abs(wantF[c])) || math.Abs(grad[c]-wantG[c]) > 1e-9*(1+math.Abs(wantG[c])) {
							t.Errorf("%s: [%d] f %v grad %v, want %v %v", name, c, f[c], grad[c], wantF[c], wantG[c])
						}
					}
					if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
						t.Errorf("%s: gain %v, want %v", name, got, want)
					}
					// The sweep keeps grad = S f + d f - b.
					for c := range k {
						g := d*f[c] - b[c]
						for l := range k {
							g += s[c*k+l] * f[l]
						}
						if math.Abs(g-grad[c]) > 1e-9*(1+math.Abs(g)) {
							t.Errorf("%s: grad[%d] = %v, S f + d f - b = %v", name, c, grad[c], g)
						}
					}
				}
			}
		}
	})
}

func TestCDLengthPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"CDColumn": func() { CDColumn(make([]float64, 3), make([]float64, 2), make([]float64, 3), 1) },
		"CDSweep":  func() { CDSweep(make([]float64, 3), make([]float64, 3), make([]float64, 8), make([]float64, 3), 0) },
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
