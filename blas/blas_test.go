package blas

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

func TestUse(t *testing.T) {
	defer func() {
		if err := Use(""); err != nil {
			t.Fatal(err)
		}
	}()
	if err := Use(Gonum); err != nil || Name() != Gonum {
		t.Fatalf("Use(gonum): %v, Name %q", err, Name())
	}
	err := Use(OpenBLAS)
	if HasOpenBLAS() {
		if err != nil || Name() != OpenBLAS {
			t.Fatalf("Use(openblas) in an openblas build: %v, Name %q", err, Name())
		}
	} else if err == nil || !strings.Contains(err.Error(), "not compiled") {
		t.Fatalf("Use(openblas) without it: %v", err)
	}
	if err := Use("mkl"); err == nil || !strings.Contains(err.Error(), "unknown backend") {
		t.Fatalf("Use(mkl): %v", err)
	}
	if err := Use("auto"); err != nil {
		t.Fatal(err)
	}
	want := Gonum
	if HasOpenBLAS() {
		want = OpenBLAS
	}
	if Name() != want {
		t.Fatalf("default backend %q, want %q", Name(), want)
	}
}

func random(rng *rand.Rand, r, c int) blas64.General {
	g := blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
	for i := range g.Data {
		g.Data[i] = rng.Float64()
	}
	return g
}

// TestBackendsAgree runs the products the solvers use (GEMM in the shapes
// of V (U^T U) and X^T U for dense X, SYRK for Gram matrices) on every
// backend of this build and compares them with a plain loop.
func TestBackendsAgree(t *testing.T) {
	defer Use("")
	backends := []string{Gonum}
	if HasOpenBLAS() {
		backends = append(backends, OpenBLAS)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range [][3]int{{1, 1, 1}, {7, 5, 3}, {64, 65, 30}, {300, 200, 17}} {
		m, n, k := s[0], s[1], s[2]
		a, b := random(rng, m, n), random(rng, n, k)
		want := make([]float64, m*k)
		for i := 0; i < m; i++ {
			for j := 0; j < k; j++ {
				for p := 0; p < n; p++ {
					want[i*k+j] += a.Data[i*n+p] * b.Data[p*k+j]
				}
			}
		}
		gram := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				for p := 0; p < m; p++ {
					gram[i*n+j] += a.Data[p*n+i] * a.Data[p*n+j]
				}
			}
		}
		for _, be := range backends {
			if err := Use(be); err != nil {
				t.Fatal(err)
			}
			c := blas64.General{Rows: m, Cols: k, Stride: k, Data: make([]float64, m*k)}
			blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, a, b, 0, c)
			for i := range want {
				if math.Abs(c.Data[i]-want[i]) > 1e-12*float64(n) {
					t.Fatalf("%s %v: Gemm element %d = %v, want %v", be, s, i, c.Data[i], want[i])
				}
			}
			sy := blas64.Symmetric{Uplo: gblas.Upper, N: n, Stride: n, Data: make([]float64, n*n)}
			blas64.Syrk(gblas.Trans, 1, a, 0, sy)
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					if got := sy.Data[i*n+j]; math.Abs(got-gram[i*n+j]) > 1e-12*float64(m) {
						t.Fatalf("%s %v: Syrk (%d,%d) = %v, want %v", be, s, i, j, got, gram[i*n+j])
					}
				}
			}
		}
	}
}
