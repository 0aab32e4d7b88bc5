package nmfstep

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCDRowsMatchRow: the blocked, column-by-column path (Rows) makes
// the same coordinate steps as cdRow, the plain reference, row by row:
// with no diagonal term (the U half), and with a diagonal term per row
// (GNMF's V half: the weighted degrees, some rows without neighbours).
func TestCDRowsMatchRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 1))
	for _, diag := range []bool{false, true} {
		for _, k := range []int{1, 3, 8, 17} {
			for _, r := range []int{1, 5, Block} {
				s := make([]float64, k*k)
				a := make([]float64, k*k)
				for i := range a {
					a[i] = rng.Float64()
				}
				for i := range k {
					for j := range k {
						for l := range k {
							s[i*k+j] += a[i*k+l] * a[j*k+l]
						}
					}
				}
				s[0] = 0 // an all-zero factor column: h = 0, left alone
				for c := 1; c < k; c++ {
					s[c] = 0
					s[c*k] = 0
				}
				invH := make([]float64, k)
				Inverse(invH, s, 0)
				rule := &Rule{Sweeps: 3}
				w := NewWork(k)
				rows := make([][]float64, r)
				bs := make([][]float64, r)
				for i := range r {
					rows[i], bs[i] = make([]float64, k), make([]float64, k)
					for c := range k {
						rows[i][c] = max(0, rng.Float64()-0.3)
						bs[i][c] = 2*rng.Float64() - 0.5
						w.u[c*Stride+i], w.p[c*Stride+i] = rows[i][c], bs[i][c]
					}
				}
				var d []float64
				if diag {
					d = w.D[:r]
					for i := range d {
						if i%3 != 0 {
							d[i] = 2 * rng.Float64()
						}
					}
				}
				Rows(w, s, invH, k, r, rule, nil, nil, d)
				grad := make([]float64, k)
				for i := range r {
					var di float64
					if diag {
						di = d[i]
						Inverse(invH, s, di)
					}
					cdStart(grad, rows[i], bs[i], s, di)
					cdRow(rows[i], grad, s, di, rule, invH)
					for c := range k {
						if got := w.u[c*Stride+i]; math.Abs(got-rows[i][c]) > 1e-12*(1+math.Abs(got)) {
							t.Fatalf("diagonal %v, k=%d r=%d: row %d col %d: blocked %v, reference %v", diag, k, r, i, c, got, rows[i][c])
						}
					}
				}
			}
		}
	}
}

// cdRow is Rows' plain reference for one row f: sweeps of cyclic
// coordinate descent on f^T S f - 2 b^T f + d |f|^2, grad = S f + d f - b
// on entry (cdStart) and kept equal to it, invH = 1 / (S_cc + d)
// (Inverse), stopping by r as Rows does but on this row's own gains.
func cdRow(f, grad, s []float64, d float64, r *Rule, invH []float64) {
	k := len(f)
	var first float64
	for sweep := 1; ; sweep++ {
		var gain float64
		for c := range f {
			if invH[c] == 0 {
				continue
			}
			x := max(0, f[c]-grad[c]*invH[c])
			delta := x - f[c]
			if delta == 0 {
				continue
			}
			f[c] = x
			for t := range f {
				grad[t] += delta * s[c*k+t]
			}
			grad[c] += d * delta
			gain += delta * delta * (s[c*k+c] + d)
		}
		if sweep == 1 {
			first = gain
		}
		if sweep >= r.Sweeps || gain <= r.Tol2*first {
			return
		}
	}
}

// cdStart sets grad = S f + d f - b for cdRow.
func cdStart(grad, f, b, s []float64, d float64) {
	k := len(f)
	for t := range grad {
		grad[t] = d*f[t] - b[t]
		for c := range f {
			grad[t] += f[c] * s[c*k+t]
		}
	}
}
