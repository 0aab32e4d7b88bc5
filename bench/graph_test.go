package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/manifactor/manifactor/graph"
)

// BenchmarkTDT2Graph times the 5-nearest-neighbour cosine graph of the
// whole of TDT2 (tf-idf, unit-length documents), the graph GNMF and LCCF
// use, per thread count; bench/graph_compare.py compares it with
// scikit-learn's kneighbors_graph.
func BenchmarkTDT2Graph(b *testing.B) {
	ds := loadTDT2(b)
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			b.ReportAllocs()
			b.ResetTimer()
			var g *graph.Graph
			for i := 0; i < b.N; i++ {
				var err error
				if g, err = graph.Sparse(context.Background(), ds.Sparse, graph.Options{Neighbors: 5, Threads: threads}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/graph")
			b.ReportMetric(float64(g.Edges()), "edges")
		})
	}
}
