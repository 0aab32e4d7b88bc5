package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/solver"
)

var tdt2Path = filepath.Join("..", "..", "shared", "data", "tdt2", "TDT2.mat")

// loadTDT2 reads TDT2 prepared as the papers do: all-zero terms dropped,
// tf-idf, unit-length documents.
func loadTDT2(b *testing.B) *dataset.Dataset {
	b.Helper()
	if _, err := os.Stat(tdt2Path); err != nil {
		b.Skipf("%s not found: the real data sets live in ../shared/data beside the project", tdt2Path)
	}
	ds, err := dataset.Load(context.Background(), tdt2Path, dataset.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ds.DropZeroFeatures()
	if err := ds.TFIDF(); err != nil {
		b.Fatal(err)
	}
	ds.NormalizeL2()
	return ds
}

func filled(r, c int) blas64.General {
	g := blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
	for i := range g.Data {
		g.Data[i] = float64(i%97) / 97
	}
	return g
}

// BenchmarkTDT2SparseProducts times the two data products of an NMF
// iteration, X V and X^T U, on the whole of TDT2 with k = 30, per kernel
// path, and reports GFLOP/s (2 flops per stored entry and factor column).
func BenchmarkTDT2SparseProducts(b *testing.B) {
	ds := loadTDT2(b)
	xt := ds.Sparse // n x m
	x := xt.T()
	n, m := xt.Dims()
	const k = 30
	u, v := filled(m, k), filled(n, k)
	xv, xtu := filled(m, k), filled(n, k)
	defer asm.Use("auto")
	for _, path := range asm.Available() {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("kernels=%s/threads=%d", path, threads), func(b *testing.B) {
				if err := asm.Use(path); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					x.MulDenseTo(xv, v, threads)
					xt.MulDenseTo(xtu, u, threads)
				}
				flops := 2 * 2 * float64(xt.NNZ()) * k
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkTDT2NMFIteration times one NMF iteration on the whole of TDT2
// (k = 30) per BLAS backend and kernel path, reporting ms/iter.
func BenchmarkTDT2NMFIteration(b *testing.B) {
	ds := loadTDT2(b)
	d, err := solver.NewSparseData(ds.Sparse)
	if err != nil {
		b.Fatal(err)
	}
	backends := []string{blas.Gonum}
	if blas.HasOpenBLAS() {
		backends = append(backends, blas.OpenBLAS)
	}
	defer blas.Use("")
	defer asm.Use("auto")
	for _, be := range backends {
		for _, path := range asm.Available() {
			b.Run(fmt.Sprintf("blas=%s/kernels=%s", be, path), func(b *testing.B) {
				if err := blas.Use(be); err != nil {
					b.Fatal(err)
				}
				if err := asm.Use(path); err != nil {
					b.Fatal(err)
				}
				const iters = 10
				var total float64
				for i := 0; i < b.N; i++ {
					res, err := solver.Fit(context.Background(), d, solver.Options{K: 30, Seed: 1, Control: solver.Control{MaxIter: iters, Tol: -1}})
					if err != nil {
						b.Fatal(err)
					}
					total += res.IterTime.Seconds()
				}
				b.ReportMetric(1000*total/float64(b.N*iters), "ms/iter")
			})
		}
	}
}

// BenchmarkDgemmPeak measures the BLAS backends on a large square DGEMM,
// the practical floating-point peak the sparse products are compared with.
func BenchmarkDgemmPeak(b *testing.B) {
	const n = 1500
	a, c := filled(n, n), filled(n, n)
	backends := []string{blas.Gonum}
	if blas.HasOpenBLAS() {
		backends = append(backends, blas.OpenBLAS)
	}
	defer blas.Use("")
	for _, be := range backends {
		b.Run("blas="+be, func(b *testing.B) {
			if err := blas.Use(be); err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, a, a, 0, c)
			}
			b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
