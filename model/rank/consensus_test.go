package rank

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

// clustered returns n samples in g groups, each group's samples using
// their own block of m/g features, over a faint background on every
// feature.
func clustered(seed uint64, n, m, g int) *dataset.Dataset {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := mat.NewDense(n, m, nil)
	block := m / g
	labels := make([]int, n)
	for j := 0; j < n; j++ {
		c := j % g
		labels[j] = c
		for i := 0; i < m; i++ {
			v := 0.02 * rng.Float64()
			if i/block == c {
				v += rng.Float64()
			}
			x.Set(j, i, v)
		}
	}
	return &dataset.Dataset{Source: "clustered", Sparse: sparse.FromMatrix(x), Labels: labels}
}

// TestConsensusPlanted: four planted groups are the most stable k, their
// consensus near perfect, the same whatever the threads; a subsample is
// measured on Sample samples.
func TestConsensusPlanted(t *testing.T) {
	t.Parallel()
	ds := clustered(1, 240, 80, 4)
	o := ConsensusOptions{Fit: model.Options{Method: solver.NMF, Seed: 3, Threads: 1}, Ks: []int{2, 3, 4, 5, 6}, Runs: 12}
	res, err := Consensus(context.Background(), ds, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Chosen != 4 || res.Samples != 240 {
		t.Errorf("chosen %d on %d samples, want 4 on 240: %+v", res.Chosen, res.Samples, res.Curve)
	}
	if p := res.Curve[2]; p.Cophenetic < 0.99 || p.Dispersion < 0.99 {
		t.Errorf("k = 4: cophenetic %.4f, dispersion %.4f, want near 1", p.Cophenetic, p.Dispersion)
	}
	for _, p := range res.Curve {
		if p.Iterations < o.Runs || !(p.Cophenetic >= -1 && p.Cophenetic <= 1) || !(p.Dispersion >= 0 && p.Dispersion <= 1) {
			t.Errorf("k = %d: %+v", p.K, p)
		}
	}
	o.Fit.Threads = 4
	again, err := Consensus(context.Background(), ds, o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, res) {
		t.Error("4 threads changed the curve")
	}
	o.Sample, o.Ks = 100, []int{3, 4, 5}
	sub, err := Consensus(context.Background(), ds, o)
	if err != nil {
		t.Fatal(err)
	}
	if sub.Samples != 100 || sub.Chosen != 4 {
		t.Errorf("subsample: %d samples, chosen %d: %+v", sub.Samples, sub.Chosen, sub.Curve)
	}
}

// TestConsensusGraph: a graph method (its graph built on the sample) and
// cf run too.
func TestConsensusGraph(t *testing.T) {
	t.Parallel()
	ds := clustered(2, 120, 60, 3)
	for _, m := range []solver.Method{solver.GNMF, solver.CF} {
		res, err := Consensus(context.Background(), ds, ConsensusOptions{Fit: model.Options{Method: m, Seed: 1}, Ks: []int{2, 3, 4}, Runs: 6})
		if err != nil {
			t.Fatal(m, err)
		}
		if res.Chosen != 3 {
			t.Errorf("%s chose %d: %+v", m, res.Chosen, res.Curve)
		}
	}
}

// upgmaReference is average linkage the plain way: merge the closest
// pair of clusters (the first on a tie) s - 1 times, the height of each
// pair of points being that of the merge that joins them.
func upgmaReference(dist []float64, s int) []float64 {
	members := make([][]int, s)
	for i := range members {
		members[i] = []int{i}
	}
	height := make([]float64, len(dist))
	link := func(a, b []int) float64 {
		var sum float64
		for _, i := range a {
			for _, j := range b {
				sum += dist[pairIndex(min(i, j), max(i, j), s)]
			}
		}
		return sum / float64(len(a)*len(b))
	}
	for len(members) > 1 {
		ba, bb, bd := 0, 1, math.Inf(1)
		for a := range members {
			for b := a + 1; b < len(members); b++ {
				if d := link(members[a], members[b]); d < bd {
					ba, bb, bd = a, b, d
				}
			}
		}
		for _, i := range members[ba] {
			for _, j := range members[bb] {
				height[pairIndex(min(i, j), max(i, j), s)] = bd
			}
		}
		members[ba] = append(members[ba], members[bb]...)
		members = append(members[:bb], members[bb+1:]...)
	}
	return height
}

// TestCopheneticReference: the nearest-neighbour chain's correlation is
// that of the plain average linkage, on dissimilarities without ties;
// 1 on an ultrametric (a partition's 0/1 distances).
func TestCopheneticReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	for _, s := range []int{2, 3, 7, 40} {
		dist := make([]float64, s*(s-1)/2)
		for q := range dist {
			dist[q] = rng.Float64()
		}
		want := stat.Correlation(dist, upgmaReference(dist, s), nil)
		if s == 2 {
			want = 1 // both constant
		}
		if got := cophenetic(dist, s); math.Abs(got-want) > 1e-12 {
			t.Errorf("%d points: %v, reference %v", s, got, want)
		}
	}
	s := 30
	dist := make([]float64, s*(s-1)/2)
	for i := 0; i < s; i++ {
		for j := i + 1; j < s; j++ {
			if i%3 != j%3 {
				dist[pairIndex(i, j, s)] = 1
			}
		}
	}
	if got := cophenetic(dist, s); math.Abs(got-1) > 1e-12 {
		t.Errorf("partition: %v, want 1", got)
	}
}

// TestConsensusStats: dispersion is 1 for a stable partition and 1/s when
// every pair is together half the time.
func TestConsensusStats(t *testing.T) {
	t.Parallel()
	s, r := 20, 10
	stable, half := make([]uint16, s*(s-1)/2), make([]uint16, s*(s-1)/2)
	for i := 0; i < s; i++ {
		for j := i + 1; j < s; j++ {
			if i%2 == j%2 {
				stable[pairIndex(i, j, s)] = uint16(r)
			}
			half[pairIndex(i, j, s)] = uint16(r / 2)
		}
	}
	if coph, disp := consensusStats(stable, s, r); math.Abs(coph-1) > 1e-12 || math.Abs(disp-1) > 1e-12 {
		t.Errorf("stable: cophenetic %v, dispersion %v", coph, disp)
	}
	if _, disp := consensusStats(half, s, r); math.Abs(disp-1/float64(s)) > 1e-12 {
		t.Errorf("half: dispersion %v, want %v", disp, 1/float64(s))
	}
}

// TestConsensusErrors: what cannot be measured is refused by name.
func TestConsensusErrors(t *testing.T) {
	t.Parallel()
	ds := clustered(5, 30, 12, 2)
	fit := model.Options{Method: solver.NMF}
	missing := *ds
	missing.Missing = &sparse.CSR{Rows: 30, Cols: 12, Indptr: make([]int, 31)}
	for _, c := range []struct {
		ds   *dataset.Dataset
		o    ConsensusOptions
		want string
	}{
		{ds, ConsensusOptions{Fit: fit, Ks: []int{2, 3}, Runs: 1}, "1 runs"},
		{ds, ConsensusOptions{Fit: fit, Ks: []int{2, 3}, Sample: 5}, "sample of 5"},
		{ds, ConsensusOptions{Fit: fit, Ks: []int{1, 2}}, "1 clusters out of range"},
		{ds, ConsensusOptions{Fit: fit, Ks: []int{2, 12}}, "12 clusters out of range: the sample (30 samples x 12 features) allows 2 to 11"},
		{ds, ConsensusOptions{Fit: fit, Ks: []int{3, 3}}, "rank 3 given twice"},
		{ds, ConsensusOptions{Fit: fit}, "no ranks"},
		{ds, ConsensusOptions{Fit: model.Options{Method: solver.GNMF, Lambda: solver.Auto}, Ks: []int{2}}, "lambda auto"},
		{&missing, ConsensusOptions{Fit: fit, Ks: []int{2}}, "unknown entries"},
	} {
		if _, err := Consensus(context.Background(), c.ds, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// TestChooseConsensus: the highest cophenetic correlation wins; within
// 0.001 of it the highest dispersion, then the smaller k.
func TestChooseConsensus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		curve []ConsensusPoint
		want  int
	}{
		{[]ConsensusPoint{{K: 2, Cophenetic: 0.95, Dispersion: 0.9}, {K: 3, Cophenetic: 0.99, Dispersion: 0.7}, {K: 4, Cophenetic: 0.97, Dispersion: 0.95}}, 3},
		{[]ConsensusPoint{{K: 2, Cophenetic: 1, Dispersion: 0.6}, {K: 3, Cophenetic: 0.9995, Dispersion: 1}, {K: 4, Cophenetic: 0.99, Dispersion: 0.8}}, 3},
		{[]ConsensusPoint{{K: 2, Cophenetic: 1, Dispersion: 1}, {K: 3, Cophenetic: 1, Dispersion: 1}}, 2},
	} {
		if got := chooseConsensus(c.curve); got != c.want {
			t.Errorf("%+v: chose %d, want %d", c.curve, got, c.want)
		}
	}
}
