package asm

import (
	"fmt"
	"testing"
)

// BenchmarkDotGather runs one sparse row of gatherNNZ entries per iteration
// against a gatherTerms x k b, as the sampled product of a TDT2-sized
// problem does, and reports the time per entry. "hot" repeats the same row,
// so its rows of b stay in L1; "sweep" cycles through 4096 different rows,
// so rows of b come from L2 and L3. "dot" is the same work done with one
// Dot call per entry, as SampledTo would do it without DotGather, for
// comparison. Recorded figures are in docs/PERFORMANCE.md.
func BenchmarkDotGather(b *testing.B) {
	benchPaths(b, func(b *testing.B) {
		for _, k := range []int{10, 30, 50, 100} {
			bm, xs, inds := gatherRows(5, k, k)
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
								r = (r + 1) % gatherRowCount
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

// BenchmarkDotGatherT is BenchmarkDotGather's "sweep" for the transposing
// form, per entry: "fused" is DotGatherT, "separate" DotGather followed by
// a transposing copy in Go, as the KL coordinate descent would make it
// without DotGatherT (four rows at a time, each column's four entries to
// one cache line).
//
// Recorded figures are in docs/PERFORMANCE.md. At k = 100 the two differ
// little: the rows' lines past the fourth are not prefetched, and at 800
// bytes a row the gather waits on memory either way.
func BenchmarkDotGatherT(b *testing.B) {
	benchPaths(b, func(b *testing.B) {
		for _, k := range []int{10, 30, 100} {
			bm, xs, inds := gatherRows(5, k, k)
			dst, ht := make([]float64, gatherNNZ), make([]float64, gatherNNZ*k)
			for _, kernel := range []string{"fused", "separate"} {
				b.Run(fmt.Sprintf("k=%d/nnz=%d/%s", k, gatherNNZ, kernel), func(b *testing.B) {
					r := 0
					for b.Loop() {
						if kernel == "fused" {
							DotGatherT(dst, ht, xs[r], inds[r], bm, k)
						} else {
							DotGather(dst, xs[r], inds[r], bm, k)
							transposeRows(ht, inds[r], bm, k)
						}
						r = (r + 1) % gatherRowCount
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*gatherNNZ), "ns/entry")
				})
			}
		}
	})
}

// transposeRows sets ht[c*nq+q] = h[ind[q]*k+c]: the copy in Go that
// DotGatherT makes in its own pass, the benchmark's baseline.
func transposeRows(ht []float64, ind []int, h []float64, k int) {
	nq := len(ind)
	q := 0
	for ; q+4 <= nq; q += 4 {
		h0 := h[ind[q]*k : ind[q]*k+k]
		h1 := h[ind[q+1]*k : ind[q+1]*k+k]
		h2 := h[ind[q+2]*k : ind[q+2]*k+k]
		h3 := h[ind[q+3]*k : ind[q+3]*k+k]
		for c := range h0 {
			d := ht[c*nq+q : c*nq+q+4]
			d[0], d[1], d[2], d[3] = h0[c], h1[c], h2[c], h3[c]
		}
	}
	for ; q < nq; q++ {
		for c, x := range h[ind[q]*k : ind[q]*k+k] {
			ht[c*nq+q] = x
		}
	}
}
