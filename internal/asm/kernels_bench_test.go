package asm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchPaths runs f as a sub-benchmark under every available path,
// restoring the path in use when done.
func benchPaths(b *testing.B, f func(b *testing.B)) {
	saved := Path()
	defer func() { _ = Use(saved) }()
	for _, p := range Available() {
		b.Run(p, func(b *testing.B) {
			if err := Use(p); err != nil {
				b.Fatal(err)
			}
			f(b)
		})
	}
}

// reportFlops reports GFLOP/s for flops floating-point operations per
// iteration of a finished b.Loop.
func reportFlops(b *testing.B, flops int) {
	b.ReportMetric(float64(flops)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func randSlice(rnd *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rnd.Float64()
	}
	return s
}

// streamSizes are a factor row (k = 30), an L1-resident vector and an
// L2-resident one.
var streamSizes = []int{30, 1000, 20000}

// benchStream runs a streaming kernel at every path and size. setup builds
// the inputs for length n and returns one call of the kernel; bytes and
// flops are per element.
func benchStream(b *testing.B, bytes, flops int, setup func(rnd *rand.Rand, n int) func()) {
	benchPaths(b, func(b *testing.B) {
		for _, n := range streamSizes {
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				call := setup(rand.New(rand.NewPCG(uint64(n), 1)), n)
				b.SetBytes(int64(bytes * n))
				b.ReportAllocs()
				for b.Loop() {
					call()
				}
				reportFlops(b, flops*n)
			})
		}
	})
}

func BenchmarkAxpy(b *testing.B) {
	benchStream(b, 24, 2, func(rnd *rand.Rand, n int) func() {
		x, y := randSlice(rnd, n), randSlice(rnd, n)
		// A tiny a keeps y from growing without bound.
		return func() { Axpy(1e-9, x, y) }
	})
}

var sink float64

func BenchmarkDot(b *testing.B) {
	benchStream(b, 16, 2, func(rnd *rand.Rand, n int) func() {
		x, y := randSlice(rnd, n), randSlice(rnd, n)
		return func() { sink += Dot(x, y) }
	})
}

func BenchmarkMulUpdate(b *testing.B) {
	// max, divide, multiply per element.
	benchStream(b, 32, 3, func(rnd *rand.Rand, n int) func() {
		x, num := randSlice(rnd, n), randSlice(rnd, n)
		// den == num keeps x fixed, so that the timing does not drift into
		// denormals or infinities.
		den := num
		return func() { MulUpdate(x, num, den, 1e-9) }
	})
}

// The AxpyGather benchmark models one document row of TDT2 (36771 terms, on
// average 130 non-zeros per document) times a 36771 x k factor.
const (
	gatherTerms = 36771
	gatherNNZ   = 130
)

// gatherRowCount is the number of sparse rows a gather benchmark cycles
// through.
const gatherRowCount = 4096

// gatherRows returns, drawn with seed, a gatherTerms x k matrix and
// gatherRowCount sparse rows over its rows: each a random vector of
// length per and gatherNNZ random row indices.
func gatherRows(seed uint64, k, per int) (bm []float64, vecs [][]float64, inds [][]int) {
	rnd := rand.New(rand.NewPCG(seed, seed))
	bm = randSlice(rnd, gatherTerms*k)
	vecs, inds = make([][]float64, gatherRowCount), make([][]int, gatherRowCount)
	for r := range gatherRowCount {
		vecs[r] = randSlice(rnd, per)
		inds[r] = make([]int, gatherNNZ)
		for p := range inds[r] {
			inds[r][p] = rnd.IntN(gatherTerms)
		}
	}
	return bm, vecs, inds
}

// BenchmarkAxpyGather runs one sparse row per iteration. "hot" repeats the
// same row, so its rows of b stay in L1 and the kernel's own speed shows;
// "sweep" cycles through 4096 different rows, as a CSR x dense product does,
// so rows of b come from L2 and L3.
func BenchmarkAxpyGather(b *testing.B) {
	benchPaths(b, func(b *testing.B) {
		for _, k := range []int{10, 30, 50, 100} {
			bm, vals, inds := gatherRows(4, k, gatherNNZ)
			dst := make([]float64, k)
			for _, mode := range []string{"hot", "sweep"} {
				b.Run(fmt.Sprintf("k=%d/nnz=%d/%s", k, gatherNNZ, mode), func(b *testing.B) {
					b.ReportAllocs()
					r := 0
					for b.Loop() {
						AxpyGather(dst, vals[r], inds[r], bm, k)
						if mode == "sweep" {
							r = (r + 1) % gatherRowCount
						}
					}
					reportFlops(b, 2*k*gatherNNZ)
				})
			}
		}
	})
}

// BenchmarkAxpyGatherGraphRow runs the rows of a sample graph: 8 entries
// (a symmetrized 5-NN graph averages 7 to 10) over a 2,048-row b in L2,
// cycling through 4,096 rows, where the call's fixed cost is a large part
// of the row's.
func BenchmarkAxpyGatherGraphRow(b *testing.B) {
	const rows, per, n = 4096, 8, 2048
	benchPaths(b, func(b *testing.B) {
		for _, k := range []int{10, 30} {
			rnd := rand.New(rand.NewPCG(7, 7))
			bm := randSlice(rnd, n*k)
			val := randSlice(rnd, rows*per)
			ind := make([]int, rows*per)
			for p := range ind {
				ind[p] = rnd.IntN(n)
			}
			dst := make([]float64, k)
			b.Run(fmt.Sprintf("k=%d/nnz=%d", k, per), func(b *testing.B) {
				r := 0
				for b.Loop() {
					AxpyGather(dst, val[r*per:(r+1)*per], ind[r*per:(r+1)*per], bm, k)
					r = (r + 1) % rows
				}
				reportFlops(b, 2*k*per)
			})
		}
	})
}

// BenchmarkCDGather runs a block of 256 rows held column-major with
// stride 260 and k = 30 columns (60 KiB, the solver's block at TDT2's k),
// cycling through the columns as a sweep does: "1" one column a call
// (CDGather), "2" two (CDGather2, each value loaded once for both). Each
// row's gradient is k multiply-adds a column.
func BenchmarkCDGather(b *testing.B) {
	const r, ld, k = 256, 260, 30
	benchPaths(b, func(b *testing.B) {
		rnd := rand.New(rand.NewPCG(5, 6))
		u, s := randSlice(rnd, k*ld), randSlice(rnd, 2*k)
		p, d, den, g := randSlice(rnd, k*ld), make([]float64, r), make([]float64, r), make([]float64, k*ld)
		ih := make([]float64, k*ld)
		for i := range s {
			// A small curvature row keeps the steps from running away.
			s[i] *= 0.01
		}
		for i := range ih {
			ih[i] = 1
		}
		b.Run("1", func(b *testing.B) {
			c := 0
			b.ReportAllocs()
			for b.Loop() {
				CDGather(u, ld, c, s[:k], p[c*ld:c*ld+r], d, ih[:r], den)
				c = (c + 1) % k
			}
			reportFlops(b, 2*r*k)
		})
		b.Run("2", func(b *testing.B) {
			c := 0
			b.ReportAllocs()
			for b.Loop() {
				CDGather2(u, ld, c, s, p, ih, d, g)
				c = (c + 2) % (k - 1)
			}
			reportFlops(b, 2*2*r*k)
		})
	})
}

// BenchmarkKLStep runs one step over a row of 126 stored entries (a TDT2
// document's mean), as KL coordinate descent calls it once per
// coordinate step that moves; zero is KLDeriv, which replaces the steps
// that move nothing.
func BenchmarkKLStep(b *testing.B) {
	const n = 126
	benchPaths(b, func(b *testing.B) {
		rnd := rand.New(rand.NewPCG(7, 8))
		y, x, ho, hn := randSlice(rnd, n), randSlice(rnd, n), randSlice(rnd, n), randSlice(rnd, n)
		xr, r := make([]float64, n), make([]float64, n)
		for i := range y {
			y[i] += 0.5
		}
		b.Run("step", func(b *testing.B) {
			b.ReportAllocs()
			t := 1e-12
			for b.Loop() {
				KLStep(y, x, ho, hn, xr, r, t, 1e-10)
				t = -t
			}
		})
		b.Run("zero", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				KLDeriv(xr, r, hn)
			}
		})
	})
}
