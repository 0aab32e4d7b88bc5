package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkDotGather runs one sparse row of gatherNNZ entries per iteration
// against a gatherTerms x k b, as the sampled product of a TDT2-sized
// problem does, and reports the time per entry. "hot" repeats the same row,
// so its rows of b stay in L1; "sweep" cycles through 4096 different rows,
// so rows of b come from L2 and L3. "dot" is the same work done with one
// Dot call per entry, as SampledTo did before DotGather, for comparison.
//
// Headline, AMD EPYC (Zen 3, 2 vCPU shared with other builds, Go 1.26),
// k = 30, in ns per entry: generic 24-43 hot, 60-165 sweep; avx2 3.8-5.5
// hot, 8-14 sweep; one avx2 Dot per entry 19-25 hot, 50-140 sweep.
func BenchmarkDotGather(b *testing.B) {
	benchPaths(b, func(b *testing.B) {
		for _, k := range []int{10, 30, 50, 100} {
			rnd := rand.New(rand.NewPCG(5, 5))
			bm := randSlice(rnd, gatherTerms*k)
			const rows = 4096
			xs := make([][]float64, rows)
			inds := make([][]int, rows)
			for r := range rows {
				xs[r] = randSlice(rnd, k)
				inds[r] = make([]int, gatherNNZ)
				for p := range inds[r] {
					inds[r][p] = rnd.IntN(gatherTerms)
				}
			}
			dst := make([]float64, gatherNNZ)
			for _, kernel := range []string{"gather", "dot"} {
				for _, mode := range []string{"hot", "sweep"} {
					b.Run(fmt.Sprintf("k=%d/nnz=%d/%s/%s", k, gatherNNZ, kernel, mode), func(b *testing.B) {
						b.ReportAllocs()
						r := 0
						for b.Loop() {
							if kernel == "gather" {
								DotGather(dst, xs[r], inds[r], bm, k)
							} else {
								x := xs[r]
								for p, j := range inds[r] {
									dst[p] = Dot(x, bm[j*k:j*k+k])
								}
							}
							if mode == "sweep" {
								r = (r + 1) % rows
							}
						}
						b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/gatherNNZ, "ns/entry")
						reportFlops(b, 2*k*gatherNNZ)
					})
				}
			}
		}
	})
}
