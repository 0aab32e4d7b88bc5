package blas

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// TestRowBlockedDgemm: the row-blocked product (how OpenBLAS runs, on one
// thread per block) gives the same bits at 1, 2 and 7 goroutines for
// every transpose, equals the plain product to rounding, and leaves the
// rows of C outside the product and the padding of its stride alone.
func TestRowBlockedDgemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	impl := newRowBlocked(gonum.Implementation{})
	defer setRowBlockedThreads(0)
	for _, shape := range [][3]int{{3, 2, 4}, {700, 40, 60}, {1025, 33, 129}} {
		m, n, k := shape[0], shape[1], shape[2]
		for _, tA := range []gblas.Transpose{gblas.NoTrans, gblas.Trans} {
			for _, tB := range []gblas.Transpose{gblas.NoTrans, gblas.Trans} {
				ar, ac := m, k
				if tA == gblas.Trans {
					ar, ac = k, m
				}
				br, bc := k, n
				if tB == gblas.Trans {
					br, bc = n, k
				}
				lda, ldb, ldc := ac+3, bc+1, n+2
				a := make([]float64, ar*lda)
				b := make([]float64, br*ldb)
				for i := range a {
					a[i] = rng.NormFloat64()
				}
				for i := range b {
					b[i] = rng.NormFloat64()
				}
				c0 := make([]float64, m*ldc)
				for i := range c0 {
					c0[i] = rng.NormFloat64()
				}
				want := slices.Clone(c0)
				gonum.Implementation{}.Dgemm(tA, tB, m, n, k, 1.5, a, lda, b, ldb, 0.5, want, ldc)
				var first []float64
				for _, threads := range []int{1, 2, 7} {
					setRowBlockedThreads(threads)
					c := slices.Clone(c0)
					impl.Dgemm(tA, tB, m, n, k, 1.5, a, lda, b, ldb, 0.5, c, ldc)
					for i := 0; i < m; i++ {
						for j := 0; j < ldc; j++ {
							got, w := c[i*ldc+j], want[i*ldc+j]
							if j >= n {
								w = c0[i*ldc+j] // the stride's padding
							}
							if math.Abs(got-w) > 1e-12*(1+math.Abs(w)) {
								t.Fatalf("%v %v %dx%dx%d, %d threads: C[%d,%d] = %v, want %v", tA, tB, m, n, k, threads, i, j, got, w)
							}
						}
					}
					if first == nil {
						first = c
					} else if !slices.Equal(first, c) {
						t.Errorf("%v %v %dx%dx%d: %d threads differ from 1", tA, tB, m, n, k, threads)
					}
				}
			}
		}
	}
	if blocks(1025, 33, 129) < 2 {
		t.Error("the largest shape was not split into blocks")
	}
}
