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

func TestCDLengthPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"CDColumn": func() { CDColumn(make([]float64, 3), make([]float64, 2), make([]float64, 3), 1) },
		"KLStep y": func() { KLStep(make([]float64, 2), make([]float64, 3), make([]float64, 3), make([]float64, 3), 1, 0) },
		"KLStep h": func() { KLStep(make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 2), 1, 0) },
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
					x0, o0, n0 := slices.Clone(x), slices.Clone(hOld), slices.Clone(hNew)
					wantY := slices.Clone(y)
					wo, wn, wh := klStepGeneric(wantY, x0, o0, n0, step, 1e-10)

					go_, gn, gh := KLStep(y, x, hOld, hNew, step, 1e-10)

					name := fmt.Sprintf("n=%d off=%d t=%v", n, off, step)
					checkSame(t, name+" x", x, x0)
					checkSame(t, name+" hOld", hOld, o0)
					checkSame(t, name+" hNew", hNew, n0)
					checkGuards(t, name+" x", x, xb, off)
					checkGuards(t, name+" hOld", hOld, ob, 3-off)
					checkGuards(t, name+" hNew", hNew, nb, (off+1)%4)
					checkGuards(t, name+" y", y, yb, (off+2)%4)
					var so, sn, sh float64
					for q := range n {
						if !near(y[q], wantY[q], 2) {
							t.Errorf("%s: y[%d] = %v, want %v", name, q, y[q], wantY[q])
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
			if _, g, hs := KLStep(y, x, h, h, 0, 1e-10); !math.IsNaN(g) || !math.IsNaN(hs) {
				t.Errorf("n=%d: NaN model value gave sums %v %v, want NaN as the reference", n, g, hs)
			}
		}
	})
}
