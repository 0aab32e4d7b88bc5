package bench

import (
	"context"
	"testing"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/experiment"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
)

// BenchmarkProtocolTDT2 splits the cost of one run of the papers' protocol
// on TDT2 at k = 10 (about 3,100 documents), the largest cell of the
// k = 2..10 table: drawing and selecting the subset, building its 5-NN
// graph, and the methods of the papers' TDT2 table as the experiment
// command runs them (one thread each, since runs go in parallel). The
// subset's share should be small against the factorizations'.
func BenchmarkProtocolTDT2(b *testing.B) {
	ds := loadTDT2(b)
	p := experiment.Protocol{Classes: []int{10}, Runs: 1, Seed: 1,
		Prepare: func(d *dataset.Dataset) (*dataset.Dataset, error) { d.DropZeroFeatures(); return d, nil }}
	sub, seed, err := p.Subset(ds, 10, 0)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("subset", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := p.Subset(ds, 10, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("graph", func(b *testing.B) {
		for b.Loop() {
			if _, err := graph.Sparse(ctx, sub.Sparse, graph.Options{Neighbors: 5, Threads: 1}); err != nil {
				b.Fatal(err)
			}
		}
	})
	methods := map[string]experiment.Method{
		"kmeans":     experiment.Baseline{Algorithm: "kmeans", Threads: 1},
		"lsi-kmeans": experiment.Baseline{Algorithm: "lsi-kmeans", Threads: 1},
		"nmf-ncw":    experiment.Factorization{Options: papers(solver.NMFNCW)},
		"gnmf":       experiment.Factorization{Options: papers(solver.GNMF)},
	}
	for _, name := range []string{"kmeans", "lsi-kmeans", "nmf-ncw", "gnmf"} {
		// The papers' settings: what the TDT2 table ran.
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := methods[name].Cluster(ctx, sub, 10, seed); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// papers returns the papers' settings for method on text, one thread.
func papers(method solver.Method) model.Options {
	o := model.PapersOptions(method, true)
	o.Threads = 1
	return o
}
