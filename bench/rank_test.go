package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/corpus"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/model/rank"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

// BenchmarkPlantedRank runs rank's cross-validation (ranks 2 to 40, the
// defaults: 5 % hidden, 3 replicates, nmf with cd) on 1,500 x 600 data of
// planted rank r in {5, 12, 25}: sparse (factors 15 % non-zero, 5 %
// multiplicative noise on the stored entries) and dense (Gaussian noise
// of a fifth of the data's spread, clipped at 0). Metrics: the chosen
// and the lowest rank, each against the planted one.
//
//	go test -run '^$' -bench PlantedRank -benchtime 1x ./bench/
func BenchmarkPlantedRank(b *testing.B) {
	for _, sp := range []bool{true, false} {
		for _, r := range []int{5, 12, 25} {
			b.Run(fmt.Sprintf("sparse=%v/r=%d", sp, r), func(b *testing.B) {
				density := 0.15
				if !sp {
					density = 1
				}
				x := corpus.LowRank(uint64(r), 1500, 600, r, density, !sp)
				ds := &dataset.Dataset{Source: "planted", Dense: x}
				if sp {
					ds = &dataset.Dataset{Source: "planted", Sparse: sparse.FromMatrix(x)}
				}
				var ks []int
				for k := 2; k <= 40; k++ {
					ks = append(ks, k)
				}
				for i := 0; i < b.N; i++ {
					res, err := rank.CrossValidate(context.Background(), ds, rank.Options{Fit: model.Options{Method: solver.NMF, Seed: 1, Solver: solver.Control{Algorithm: solver.CD}}, Ks: ks})
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(res.Chosen), "chosen")
					b.ReportMetric(float64(res.Best), "best")
					b.ReportMetric(float64(r), "planted")
				}
			})
		}
	}
}

// BenchmarkCOIL20Missing hides a seeded 20 % of COIL20's pixels and fits
// NMF (k = 20) three ways: leaving them out of the objective
// (solver.Data.Hide), reading them as zeros, and seeing them (the
// floor a rank-20 fit reaches there). Metrics: the mean squared error at
// the hidden pixels of each, and the masked one over the zeros one.
//
//	go test -run '^$' -bench COIL20Missing -benchtime 1x ./bench/
func BenchmarkCOIL20Missing(b *testing.B) {
	path := filepath.Join("..", "..", "shared", "data", "coil20", "COIL20.mat")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s not found: the real data sets live in ../shared/data beside the project", path)
	}
	ds, err := dataset.Load(context.Background(), path, dataset.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	n, m := ds.Dims()
	for _, alg := range []solver.Algorithm{solver.CD, solver.MU} {
		b.Run(alg.String(), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				rng := rand.New(rand.NewPCG(1, 20))
				var ri, ci []int
				var one []float64
				zeroed := mat.DenseCopyOf(ds.Dense)
				for s := 0; s < n; s++ {
					for f := 0; f < m; f++ {
						if rng.Float64() < 0.2 {
							ri, ci, one = append(ri, s), append(ci, f), append(one, 1)
							zeroed.Set(s, f, 0)
						}
					}
				}
				hidden, err := sparse.FromTriplets(n, m, ri, ci, one)
				if err != nil {
					b.Fatal(err)
				}
				o := solver.Options{K: 20, Seed: 1, Control: solver.Control{Algorithm: alg}}
				fit := func(x mat.Matrix, hide bool) float64 {
					d, err := solver.NewDenseData(x)
					if err == nil && hide {
						d, err = d.Hide(hidden)
					}
					if err != nil {
						b.Fatal(err)
					}
					res, err := solver.Fit(context.Background(), d, o)
					if err != nil {
						b.Fatal(err)
					}
					var s float64
					for q := range ri {
						var y float64
						for c := 0; c < 20; c++ {
							y += res.U.At(ci[q], c) * res.V.At(ri[q], c)
						}
						e := ds.Dense.At(ri[q], ci[q]) - y
						s += e * e
					}
					return s / float64(len(ri))
				}
				masked, zeros, seen := fit(ds.Dense, true), fit(zeroed, false), fit(ds.Dense, false)
				b.ReportMetric(masked, "mse-masked")
				b.ReportMetric(zeros, "mse-zeros")
				b.ReportMetric(seen, "mse-seen")
				b.ReportMetric(masked/zeros, "masked/zeros")
			}
		})
	}
}

// BenchmarkConsensusTDT2 runs rank's cophenetic criterion (nmf, 30 runs a
// k, a sample of 2,000) on TDT2's 10 largest topics, prepared as the
// command line does, for ks 2 to 15. Metrics: the chosen k and the
// cophenetic correlation at k = 10.
//
//	go test -run '^$' -bench ConsensusTDT2 -benchtime 1x ./bench/
func BenchmarkConsensusTDT2(b *testing.B) {
	if _, err := os.Stat(tdt2Path); err != nil {
		b.Skipf("%s not found: the real data sets live in ../shared/data beside the project", tdt2Path)
	}
	raw, err := dataset.Load(context.Background(), tdt2Path, dataset.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	classes := make([]int, 10)
	for i := range classes {
		classes[i] = i + 1
	}
	p, err := model.Prepare(raw, model.PrepareOptions{Classes: classes})
	if err != nil {
		b.Fatal(err)
	}
	var ks []int
	for k := 2; k <= 15; k++ {
		ks = append(ks, k)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := rank.Consensus(context.Background(), p.Data, rank.ConsensusOptions{Fit: model.Options{Method: solver.NMF, Seed: 1}, Ks: ks})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Chosen), "chosen")
		b.ReportMetric(res.Curve[8].Cophenetic, "cophenetic@10")
	}
}
