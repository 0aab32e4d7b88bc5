package blas

import (
	"runtime"
	"sync"
	"sync/atomic"

	gblas "gonum.org/v1/gonum/blas"
)

// rowBlocked runs the matrix products of a single-threaded BLAS in
// parallel, over blocks of the rows of C whose bounds depend only on the
// product's shape: every entry of C is computed by one call of the
// underlying BLAS, on the same block whatever the number of goroutines,
// so the result is the same for any thread count. Every other routine is
// the underlying one's.
type rowBlocked struct {
	gblas.Float64
}

func newRowBlocked(impl gblas.Float64) gblas.Float64 { return rowBlocked{impl} }

// rowBlockedThreads is how many goroutines a product may use; 0 means
// GOMAXPROCS.
var rowBlockedThreads atomic.Int64

func setRowBlockedThreads(n int) { rowBlockedThreads.Store(int64(n)) }

// minBlockWork is the least work (m n k) worth a block of its own.
const minBlockWork = 1 << 20

// blocks returns the row blocks of an m x n x k product: at most 64, of at
// least minBlockWork each, a function of the shape alone.
func blocks(m, n, k int) int {
	work := m * n * k
	return max(1, min(64, m/8, work/minBlockWork))
}

func (r rowBlocked) Dgemm(tA, tB gblas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	nb := blocks(m, n, k)
	threads := int(rowBlockedThreads.Load())
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if nb == 1 {
		r.Float64.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	block := func(i int) {
		i0, i1 := i*m/nb, (i+1)*m/nb
		if i0 == i1 {
			return
		}
		// Rows i0..i1 of op(A): rows of A, or columns of A^T.
		off := i0 * lda
		if tA != gblas.NoTrans {
			off = i0
		}
		r.Float64.Dgemm(tA, tB, i1-i0, n, k, alpha, a[off:], lda, b, ldb, beta, c[i0*ldc:], ldc)
	}
	if threads == 1 {
		for i := 0; i < nb; i++ {
			block(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(threads, nb); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < nb; i = int(next.Add(1) - 1) {
				block(i)
			}
		}()
	}
	wg.Wait()
}
