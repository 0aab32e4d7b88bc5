package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/testenv"
	"github.com/manifactor/manifactor/model/autolambda"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/internal/corpus"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

// planted returns n documents over m terms drawn from k topics (each topic
// favours its own block of terms, with noise elsewhere), labelled by
// topic, tf-idf weighted and unit length as Prepare leaves them.
func planted(t *testing.T, seed uint64, n, m, k int, noise float64) *dataset.Dataset {
	t.Helper()
	a, labels := plantedCounts(t, seed, 1, n, m, k, noise, func(_ *rand.Rand, i int) int { return i % k })
	p, err := Prepare(&dataset.Dataset{Source: "planted", Sparse: a, Labels: labels}, PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Data
}

// plantedCounts draws the term counts of n documents over m terms from k
// topics, document i of topic class(rng, i): 30 words each from its
// topic's block of m/k terms, a share noise of them from anywhere, counts
// 1 to 3. Labels are 1-based.
func plantedCounts(t testing.TB, seed, stream uint64, n, m, k int, noise float64, class func(rng *rand.Rand, i int) int) (*sparse.CSR, []int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, stream))
	var ri, ci []int
	var v []float64
	labels := make([]int, n)
	block := m / k
	for i := 0; i < n; i++ {
		c := class(rng, i)
		labels[i] = c + 1
		seen := map[int]bool{}
		for w := 0; w < 30; w++ {
			j := c*block + rng.IntN(block)
			if rng.Float64() < noise {
				j = rng.IntN(m)
			}
			if !seen[j] {
				seen[j] = true
				ri, ci, v = append(ri, i), append(ci, j), append(v, float64(1+rng.IntN(3)))
			}
		}
	}
	a, err := sparse.FromTriplets(n, m, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	return a, labels
}

// TestFitIsItsSteps: Fit equals the solver run by hand from the same
// seed, with the assignment's k-means seeded by the pipeline's stream,
// and the graph built from the same options.
func TestFitIsItsSteps(t *testing.T) {
	ds := planted(t, 1, 120, 60, 3, 0.3)
	ctx := context.Background()
	for _, c := range []struct {
		method solver.Method
		lambda solver.Lambda
		assign Assign
	}{{solver.NMF, solver.Lambda{}, KMeansAssign}, {solver.GNMF, solver.Fixed(30), KMeansAssign}, {solver.LCCF, solver.Fixed(3), ArgMaxAssign}, {solver.LPNMF, solver.Fixed(5), KMeansAssign}} {
		o := Options{Method: c.method, K: 3, Lambda: c.lambda, Assign: c.assign, Seed: 11}
		o.Solver.MaxIter = 40
		res, err := Fit(ctx, ds, o)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := solver.NewSparseData(ds.Sparse)
		so := solver.Options{Method: c.method, K: 3, Lambda: c.lambda, Seed: 11, Control: solver.Control{MaxIter: 40}}
		if c.method.TakesGraph() {
			if so.Graph, err = graph.Sparse(ctx, ds.Sparse, graph.Options{Seed: 11}); err != nil {
				t.Fatal(err)
			}
		}
		want, err := solver.Fit(ctx, d, so)
		if err != nil {
			t.Fatal(err)
		}
		if c.assign == KMeansAssign {
			km, err := cluster.KMeans(ctx, want.V, cluster.KMeansOptions{K: 3, Seed: 11 ^ assignStream})
			if err != nil {
				t.Fatal(err)
			}
			want.Labels = km.Labels
		}
		if !mat.Equal(res.V, want.V) || !slices.Equal(res.Labels, want.Labels) || res.Final() != want.Final() {
			t.Errorf("%v: the pipeline differs from its steps", c.method)
		}
		if res.Lambda != c.lambda.Value() || res.Candidates != nil {
			t.Errorf("%v: lambda %v, candidates %v", c.method, res.Lambda, res.Candidates)
		}
	}
}

// TestFitLambdaZeroAndDefaults: an explicit 0 is the plain method bit for
// bit; the zero Lambda is Auto under the scale-invariant formulation and
// the papers' value under Papers.
func TestFitLambdaZeroAndDefaults(t *testing.T) {
	ds := planted(t, 2, 90, 45, 3, 0.3)
	ctx := context.Background()
	for _, pair := range [][2]solver.Method{{solver.NMF, solver.GNMF}, {solver.CF, solver.LCCF}, {solver.NMFKL, solver.LPNMF}} {
		// The same solver for both: the graph method's default (auto
		// picks cd for nmf, gnmf and nmf-kl, mu for lpnmf and cf).
		plainOpts := Options{Method: pair[0], K: 3, Seed: 4}
		plainOpts.Solver.Algorithm = solver.AutoAlgorithm.Resolve(pair[1])
		plain, err := Fit(ctx, ds, plainOpts)
		if err != nil {
			t.Fatal(err)
		}
		zero, err := Fit(ctx, ds, Options{Method: pair[1], K: 3, Seed: 4, Lambda: solver.Fixed(0)})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(plain.V, zero.V) || !slices.Equal(plain.Labels, zero.Labels) || zero.Graph != nil {
			t.Errorf("%v with lambda 0 differs from %v", pair[1], pair[0])
		}
		auto, err := Fit(ctx, ds, Options{Method: pair[1], K: 3, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		if len(auto.Candidates) != len(autolambda.Grid())+1 || auto.Graph == nil {
			t.Errorf("%v: zero Lambda ran %d candidates, want Auto's %d", pair[1], len(auto.Candidates), len(autolambda.Grid())+1)
		}
		// The plain candidate is the plain method.
		if c := auto.Candidates[0]; c.Lambda != 0 || c.Objective != plain.Final() {
			t.Errorf("%v: Auto's first candidate %+v, plain objective %v", pair[1], c, plain.Final())
		}
		papers, err := Fit(ctx, ds, Options{Method: pair[1], K: 3, Seed: 4, Formulation: solver.Papers})
		if err != nil {
			t.Fatal(err)
		}
		if want := pair[1].DefaultLambda(solver.Papers, true); papers.Candidates != nil || papers.Lambda != want {
			t.Errorf("%v under Papers: lambda %v, want %v", pair[1], papers.Lambda, want)
		}
	}
}

// randomGraph returns a graph joining each sample to 4 others: of its own
// class (by labels) with probability pure, any otherwise.
func randomGraph(t *testing.T, labels []int, pure float64, seed uint64) *graph.Graph {
	t.Helper()
	n := len(labels)
	rng := rand.New(rand.NewPCG(seed, 7))
	edges := map[[2]int]bool{}
	for i := 0; i < n; i++ {
		for q := 0; q < 4; q++ {
			j := rng.IntN(n)
			for rng.Float64() < pure && labels[j] != labels[i] {
				j = rng.IntN(n)
			}
			if j != i {
				edges[[2]int{min(i, j), max(i, j)}] = true
			}
		}
	}
	var ri, ci []int
	var v []float64
	for e := range edges {
		ri, ci, v = append(ri, e[0], e[1]), append(ci, e[1], e[0]), append(v, 1, 1)
	}
	w, err := sparse.FromTriplets(n, n, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.NewGraph(w)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestAutoRule: the kept candidate is the one the rule names, its cut
// and chance cut are those of its labels on the graph, and a graph that
// follows the classes is trusted while one joining samples at random is
// not.
func TestAutoRule(t *testing.T) {
	ds := planted(t, 3, 240, 120, 4, 0.8)
	ctx := context.Background()
	check := func(res *Result, g *graph.Graph, what string) {
		t.Helper()
		kept := -1
		for i, c := range res.Candidates {
			if c.Kept {
				if kept >= 0 {
					t.Fatalf("%s: two candidates kept", what)
				}
				kept = i
			}
			if i > 0 && !(c.Lambda > res.Candidates[i-1].Lambda) {
				t.Fatalf("%s: candidates out of order", what)
			}
			if !(c.ChanceCut > 0) || math.Abs(c.RelativeCut-c.Cut/c.ChanceCut) > 1e-15 {
				t.Fatalf("%s: candidate %d: relative cut %v, cut %v, chance %v", what, i, c.RelativeCut, c.Cut, c.ChanceCut)
			}
		}
		// The kept candidate's figures, from its labels by the definition.
		var same, total float64
		vol := map[int]float64{}
		for i := 0; i < g.N(); i++ {
			for p := g.W.Indptr[i]; p < g.W.Indptr[i+1]; p++ {
				total += g.W.Val[p]
				vol[res.Labels[i]] += g.W.Val[p]
				if res.Labels[g.W.Ind[p]] == res.Labels[i] {
					same += g.W.Val[p]
				}
			}
		}
		chance := 1.0
		for _, v := range vol {
			chance -= v * v / (total * total)
		}
		if c := res.Candidates[kept]; math.Abs(c.Cut-(1-same/total)) > 1e-12 || math.Abs(c.ChanceCut-chance) > 1e-12 {
			t.Fatalf("%s: kept candidate's cut %v and chance %v, its labels give %v and %v", what, c.Cut, c.ChanceCut, 1-same/total, chance)
		}
		if want, verdict := autolambda.Choose(res.Candidates); kept != want || verdict != res.Verdict || res.Lambda != res.Candidates[want].Lambda {
			t.Fatalf("%s: kept candidate %d (lambda %v, %v), the rule says %d (%v)", what, kept, res.Lambda, res.Verdict, want, verdict)
		}
		for i, c := range res.Candidates {
			largest, entropy := clusterSizes(c.Labels, 4)
			if c.Largest != largest || c.SizeEntropy != entropy || c.Collapsed != (i > 0 && autolambda.Collapsed(c, res.Candidates[0], 4)) {
				t.Fatalf("%s: candidate %d: largest %v, size entropy %v, collapsed %v; its labels give %v, %v", what, i, c.Largest, c.SizeEntropy, c.Collapsed, largest, entropy)
			}
		}
	}
	// A graph of random edges cuts the plain clusters as chance does: off
	// topic.
	for _, c := range []struct {
		what    string
		g       *graph.Graph
		verdict autolambda.Verdict
	}{
		{"class graph", randomGraph(t, ds.Labels, 0.95, 1), autolambda.GraphTrusted},
		{"random graph", randomGraph(t, ds.Labels, 0, 2), autolambda.GraphOffTopic},
	} {
		res, err := Fit(ctx, ds, Options{Method: solver.GNMF, K: 4, Seed: 1, SampleGraph: c.g})
		if err != nil {
			t.Fatal(err)
		}
		check(res, c.g, c.what)
		if res.Verdict != c.verdict {
			t.Errorf("%s: %v, want %v: %+v", c.what, res.Verdict, c.verdict, res.Candidates)
		}
	}
}

// TestAutoScreen: under a screening budget Auto chooses among the
// shortened fits (the rule applied to them), marks the ones the budget cut
// short, and returns the kept weight's fit with the full budget, bit for
// bit the fit of that weight fixed; a budget at the full one screens
// nothing.
func TestAutoScreen(t *testing.T) {
	ds := planted(t, 3, 240, 120, 4, 0.8)
	ctx := context.Background()
	g := randomGraph(t, ds.Labels, 0.95, 1)
	// No stopping rule: every fit runs its budget, so every candidate is
	// cut short and the kept one must be refitted.
	o := Options{Method: solver.GNMF, K: 4, Seed: 2, SampleGraph: g, ScreenIter: 4, CandidateStart: autolambda.SameStart, Solver: solver.Control{MaxIter: 25, Tol: -1, PGTol: -1}}
	res, err := Fit(ctx, ds, o)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range res.Candidates {
		if !c.Screened || c.Iterations != 4 {
			t.Errorf("candidate %d (lambda %v): screened %v after %d iterations, want the budget of 4", i, c.Lambda, c.Screened, c.Iterations)
		}
	}
	if want, verdict := autolambda.Choose(res.Candidates); res.Lambda != res.Candidates[want].Lambda || verdict != res.Verdict || !res.Candidates[want].Kept {
		t.Errorf("kept lambda %v (%v); the rule on the screened fits says %v (%v)", res.Lambda, res.Verdict, res.Candidates[want].Lambda, verdict)
	}
	fixed := o
	fixed.Lambda = solver.Fixed(res.Lambda)
	one, err := Fit(ctx, ds, fixed)
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations != 25 || !mat.Equal(res.V, one.V) || !mat.Equal(res.U, one.U) || !slices.Equal(res.Labels, one.Labels) || !mat.Equal(res.Centers, one.Centers) {
		t.Errorf("Auto's result (lambda %v, %d iterations) is not the fixed weight's fit (%d iterations)", res.Lambda, res.Iterations, one.Iterations)
	}
	// A budget at the full one: every candidate is its weight's whole fit.
	o.ScreenIter = 25
	whole, err := Fit(ctx, ds, o)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range whole.Candidates {
		fixed.Lambda = solver.Fixed(c.Lambda)
		one, err := Fit(ctx, ds, fixed)
		if err != nil {
			t.Fatal(err)
		}
		if c.Screened || c.Iterations != 25 || c.Objective != one.Final() || !slices.Equal(c.Labels, one.Labels) {
			t.Errorf("unscreened candidate %d (lambda %v): screened %v, %d iterations, objective %v; the fixed fit %v", i, c.Lambda, c.Screened, c.Iterations, c.Objective, one.Final())
		}
	}
}

// TestClusterSizes: the largest share and the size entropy over its
// maximum, empty clusters counting against it.
func TestClusterSizes(t *testing.T) {
	for _, c := range []struct {
		labels           []int
		k                int
		largest, entropy float64
	}{
		{[]int{0, 1, 2, 3}, 4, 0.25, 1},
		{[]int{5, 5, 7, 7}, 2, 0.5, 1},
		{[]int{0, 0, 0, 0}, 4, 1, 0},
		{[]int{0, 0, 1, 1}, 4, 0.5, 0.5},
		{[]int{-1, 0, 0, 0}, 2, 0.75, -(0.25*math.Log(0.25) + 0.75*math.Log(0.75)) / math.Log(2)},
		{[]int{0, 0}, 1, 1, 0},
	} {
		largest, entropy := clusterSizes(c.labels, c.k)
		if largest != c.largest || math.Abs(entropy-c.entropy) > 1e-15 {
			t.Errorf("%v, k = %d: largest %v, entropy %v; want %v, %v", c.labels, c.k, largest, entropy, c.largest, c.entropy)
		}
	}
}

func TestFitThreadInvariant(t *testing.T) {
	ds := planted(t, 4, 150, 80, 3, 0.4)
	var ref *Result
	for _, th := range []int{1, 2, 7} {
		res, err := Fit(context.Background(), ds, Options{Method: solver.GNMF, K: 3, Seed: 9, Threads: th, Start: solver.KMeansStart, Lambdas: []float64{3, 30}})
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = res
			continue
		}
		if !mat.Equal(res.V, ref.V) || !slices.Equal(res.Labels, ref.Labels) || !slices.Equal(res.Objective, ref.Objective) || res.Lambda != ref.Lambda {
			t.Fatalf("%d threads: result differs from 1 thread", th)
		}
	}
}

func TestCohesion(t *testing.T) {
	// Points 0, 1 and 10, 11 on a line: two clusters explain all but
	// the within-pair spread.
	x := mat.NewDense(4, 1, []float64{0, 1, 10, 11})
	ds := &dataset.Dataset{Source: "line", Dense: x}
	total := 0.25 + 0.25 + 0.25 + 0.25 + 4*25.0 // around the mean 5.5
	if got, want := cohesion(ds, []int{0, 0, 1, 1}), 1-1/total; math.Abs(got-want) > 1e-15 {
		t.Errorf("two clusters: %v, want %v", got, want)
	}
	if got := cohesion(ds, []int{3, 3, 3, 3}); math.Abs(got) > 1e-15 {
		t.Errorf("one cluster: %v, want 0", got)
	}
	if got := cohesion(ds, []int{0, 1, 2, -1}); math.Abs(got-1) > 1e-15 {
		t.Errorf("singletons: %v, want 1", got)
	}
	// Sparse samples are directions: (1,0), (2,0), (0,1), (1,1).
	sp := &dataset.Dataset{Source: "dirs", Sparse: &sparse.CSR{Rows: 4, Cols: 2, Indptr: []int{0, 1, 2, 3, 5}, Ind: []int{0, 0, 1, 0, 1}, Val: []float64{1, 2, 1, 1, 1}}}
	r := 1 / math.Sqrt2
	// {0, 1} point one way: |(2, 0)| = 2; {2, 3}: |(r, 1 + r)|.
	if got, want := cohesion(sp, []int{0, 0, 1, 1}), (2+math.Hypot(r, 1+r))/4; math.Abs(got-want) > 1e-15 {
		t.Errorf("sparse: %v, want %v", got, want)
	}
	if got := cohesion(sp, []int{0, 1, 2, 3}); math.Abs(got-1) > 1e-15 {
		t.Errorf("sparse singletons: %v, want 1", got)
	}
}

func TestFitBadOptions(t *testing.T) {
	ds := planted(t, 5, 30, 20, 2, 0.3)
	ctx := context.Background()
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{K: 0}, "k = 0"},
		{Options{K: 21}, "k = 21 is more than the data allows"},
		{Options{K: 2, Method: solver.Method(99)}, "unknown method"},
		{Options{K: 2, Start: solver.Start(9)}, "unknown start"},
		{Options{K: 2, Start: solver.LabelsStart}, "use solver.KMeansStart"},
		{Options{K: 2, Assign: Assign(-1)}, "unknown assignment"},
		{Options{K: 2, Method: solver.GNMF, Lambda: solver.Fixed(-1)}, "lambda = -1"},
		{Options{K: 2, Method: solver.GNMF, Lambda: solver.Fixed(math.Inf(1))}, "lambda = +Inf"},
		{Options{K: 2, Method: solver.GNMF, Lambdas: []float64{1, 0}}, "candidate lambda 0"},
		{Options{K: 2, Method: solver.GNMF, Lambdas: []float64{}}, "empty list"},
		{Options{K: 2, Method: solver.GNMF, ScreenIter: -1}, "screening budget -1"},
		{Options{K: 2, Method: solver.LPNMF, Start: solver.NormalizedStart, Formulation: solver.Papers}, "normalized start"},
		{Options{K: 2, Threads: -1}, "thread"},
		// Heat weights that all underflow: GNMF ran as NMF, reporting a
		// graph term.
		{Options{K: 2, Method: solver.GNMF, Lambda: solver.Fixed(1), Graph: graph.Options{Weight: graph.Heat, HeatT: 1e-300}}, "no edge of positive weight"},
	} {
		if _, err := Fit(ctx, ds, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	if _, err := Fit(ctx, nil, Options{K: 1}); err == nil {
		t.Error("nil data accepted")
	}
}

// realData returns a prepared corpus of ../shared/data, or skips.
func realData(t *testing.T, rel string) *dataset.Dataset {
	t.Helper()
	path := "../../shared/data/" + rel
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not found: the real data sets live in ../shared/data beside the project", path)
	}
	ds, err := dataset.Load(context.Background(), path, dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(ds, PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Data
}

// subsetOf prepares the samples of the given classes as the protocol does.
func subsetOf(t *testing.T, ds *dataset.Dataset, classes []int) *dataset.Dataset {
	t.Helper()
	var idx []int
	for i, l := range ds.Labels {
		if slices.Contains(classes, l) {
			idx = append(idx, i)
		}
	}
	p, err := Prepare(ds.SelectSamples(idx), PrepareOptions{Weighting: NoWeighting, Normalize: NoNormalization})
	if err != nil {
		t.Fatal(err)
	}
	return p.Data
}

// TestAutoRealData checks Auto against known facts of two corpora: on
// TDT2, whose 5-nearest-neighbour graph is 94 % pure, it trusts the graph
// and beats the plain method by far on a draw where NMF splits a large
// topic (seed 3: NMF 0.75; seed 1 gives NMF 0.994, leaving the graph
// nothing to add); on ohscal, whose graph is 56 % pure and hurts at every
// weight, it does not trust it and stays within a point of the plain
// method.
func TestAutoRealData(t *testing.T) {
	if testing.Short() {
		t.Skip("several factorizations of real corpora")
	}
	ctx := context.Background()
	for _, c := range []struct {
		file    string
		classes []int
		verdict autolambda.Verdict
		gain    float64 // the least gain in accuracy over NMF
		seed    uint64
	}{
		{"tdt2/TDT2.mat", []int{1, 4, 9, 17}, autolambda.GraphTrusted, 0.1, 3},
		// NMF already follows the graph here (0.994); a rule that trusted
		// only a weight halving NMF's cut kept lambda 1 (0.787).
		{"tdt2/TDT2.mat", []int{1, 4, 9, 17}, autolambda.GraphTrusted, -0.01, 2},
		{"cluto/ohscal.mat", []int{2, 5, 7, 9}, autolambda.GraphUntrusted, -0.01, 1},
	} {
		sub := subsetOf(t, realData(t, c.file), c.classes)
		o := Options{Method: solver.NMF, K: len(c.classes), Seed: c.seed}
		plain, err := Fit(ctx, sub, o)
		if err != nil {
			t.Fatal(err)
		}
		o.Method = solver.GNMF
		auto, err := Fit(ctx, sub, o)
		if err != nil {
			t.Fatal(err)
		}
		accP, _, _ := cluster.Accuracy(sub.Labels, plain.Labels)
		accA, _, _ := cluster.Accuracy(sub.Labels, auto.Labels)
		t.Logf("%s classes %v: NMF %.3f, GNMF auto %.3f (lambda %v, %v)", c.file, c.classes, accP, accA, auto.Lambda, auto.Verdict)
		if auto.Verdict != c.verdict || accA < accP+c.gain {
			t.Errorf("%s classes %v: %v (lambda %v), accuracy %.3f against NMF's %.3f; want %v and a gain of %v", c.file, c.classes, auto.Verdict, auto.Lambda, accA, accP, c.verdict, c.gain)
		}
	}
}

// TestFitCanceled: cancelling during Auto's third candidate returns the
// context's error with the factorization so far and the candidates done.
func TestFitCanceled(t *testing.T) {
	ds := planted(t, 6, 90, 40, 3, 0.3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := Options{Method: solver.GNMF, K: 3, Seed: 2, Progress: func(p Progress) {
		if p.Stage == FitStage && p.Candidate == 3 && p.Iter == 5 {
			cancel()
		}
	}}
	res, err := Fit(ctx, ds, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want the context's", err)
	}
	if res == nil || len(res.Candidates) != 2 || res.Iterations < 5 || res.Lambda != res.Candidates[1].Lambda*3 {
		t.Fatalf("result %+v", res)
	}
}

// TestFitGraphProgress: Fit passes the neighbour search's progress on as
// GraphStage reports whose counts rise to their total, and the result is
// the one without a callback.
func TestFitGraphProgress(t *testing.T) {
	ds := planted(t, 6, 90, 40, 3, 0.3)
	o := Options{Method: solver.GNMF, K: 3, Seed: 2, Lambda: solver.Fixed(10)}
	want, err := Fit(context.Background(), ds, o)
	if err != nil {
		t.Fatal(err)
	}
	var reports, last, total int
	o.Progress = func(p Progress) {
		if p.Stage != GraphStage || p.Total == 0 {
			return
		}
		if p.Done < last || p.Done > p.Total {
			t.Errorf("graph progress %d of %d after %d", p.Done, p.Total, last)
		}
		reports, last, total = reports+1, p.Done, p.Total
	}
	got, err := Fit(context.Background(), ds, o)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := ds.Dims(); reports == 0 || last != total || total != n {
		t.Errorf("%d graph reports, last %d of %d", reports, last, total)
	}
	if got.Final() != want.Final() || !slices.Equal(got.Labels, want.Labels) {
		t.Error("the progress callback changed the result")
	}
}

// TestAutoPath: under PathStart the plain fit and the smallest weight start
// from the run's start (each the fit of its weight fixed), and every larger
// weight from the factors the previous weight's fit ended with: the solver
// run from those factors gives the same fit, bit for bit. A screened
// candidate kept is refitted from the same factors with the full budget.
// autolambda.DefaultStart is PathStart for gnmf and lccf only.
func TestAutoPath(t *testing.T) {
	ds := planted(t, 3, 240, 120, 4, 0.8)
	ctx := context.Background()
	g := randomGraph(t, ds.Labels, 0.95, 1)
	keptPath := 0
	for _, run := range []struct {
		method solver.Method
		screen int
	}{{solver.GNMF, 0}, {solver.GNMF, 3}, {solver.LCCF, 0}} {
		method, screen := run.method, run.screen
		o := Options{Method: method, K: 4, Seed: 5, SampleGraph: g, Lambdas: []float64{3, 30, 300}, ScreenIter: screen, CandidateStart: autolambda.PathStart, Solver: solver.Control{MaxIter: 40}}
		res, err := Fit(ctx, ds, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Candidates) != 4 {
			t.Fatalf("%d candidates", len(res.Candidates))
		}
		d, err := solver.NewSparseData(ds.Sparse)
		if err != nil {
			t.Fatal(err)
		}
		// The chain by hand: weight 3 from the run's start, then each
		// weight from the previous one's factors.
		var prev *solver.Result
		for i, c := range res.Candidates {
			if c.Path != (i > 1) {
				t.Errorf("%v, screen %d: candidate %d (lambda %v): path %v", method, screen, i, c.Lambda, c.Path)
			}
			so := solver.Options{Method: method, K: 4, Seed: 5, Graph: res.Graph, Lambda: solver.Fixed(c.Lambda), Control: solver.Control{MaxIter: 40}}
			if screen > 0 {
				so.MaxIter = screen
			}
			var want *solver.Result
			if i <= 1 {
				fixed := o
				fixed.Lambda, fixed.Lambdas = solver.Fixed(c.Lambda), nil
				fixed.Solver.MaxIter = so.MaxIter
				one, err := Fit(ctx, ds, fixed)
				if err != nil {
					t.Fatal(err)
				}
				want = one.Result
			} else {
				so.Init = prev
				if want, err = solver.Fit(ctx, d, so); err != nil {
					t.Fatal(err)
				}
			}
			if c.Objective != want.Final() || c.Iterations != want.Iterations {
				t.Errorf("%v, screen %d: candidate %d (lambda %v): objective %v after %d iterations, the chain by hand %v after %d", method, screen, i, c.Lambda, c.Objective, c.Iterations, want.Final(), want.Iterations)
			}
			if c.Kept && i > 1 {
				keptPath++
				// The result: this weight's fit from the previous one's
				// factors, with the full budget.
				so.MaxIter = 40
				whole, err := solver.Fit(ctx, d, so)
				if err != nil {
					t.Fatal(err)
				}
				if !mat.Equal(res.V, whole.V) || res.Iterations != whole.Iterations {
					t.Errorf("%v, screen %d: the kept candidate's result differs from its weight's fit from the previous factors", method, screen)
				}
			}
			prev = want
		}
	}
	if keptPath < 2 {
		t.Errorf("a candidate along the path kept in %d of the 3 runs; the check of the kept fit needs gnmf's two", keptPath)
	}
	for m, want := range map[solver.Method]autolambda.Start{solver.GNMF: autolambda.PathStart, solver.LCCF: autolambda.PathStart, solver.LPNMF: autolambda.SameStart, solver.GNMFNCW: autolambda.SameStart, solver.LCCFNCW: autolambda.SameStart} {
		if got := autolambda.DefaultStart.Resolve(m); got != want {
			t.Errorf("DefaultStart for %v: %v, want %v", m, got, want)
		}
		if got := autolambda.SameStart.Resolve(m); got != autolambda.SameStart {
			t.Errorf("SameStart for %v resolved to %v", m, got)
		}
	}
	for _, s := range []autolambda.Start{autolambda.DefaultStart, autolambda.PathStart, autolambda.SameStart} {
		var got autolambda.Start
		if err := got.UnmarshalText([]byte(s.String())); err != nil || got != s {
			t.Errorf("%v does not round-trip: %v, %v", s, got, err)
		}
	}
	var warm autolambda.Start
	if err := warm.UnmarshalText([]byte("warm")); err == nil {
		t.Error("Start.UnmarshalText accepted \"warm\"")
	}
	if _, err := Fit(ctx, ds, Options{Method: solver.GNMF, K: 4, CandidateStart: 7}); err == nil {
		t.Error("Fit accepted candidate start 7")
	}
}

// TestAutoSample: Auto on a sample (Options.AutoSample) chooses among its
// candidates on the sample, then fits the whole data by the plain method
// and, when the sample kept a weight, by that weight from the plain fit's
// factors, keeping what the rule says of the two; a sample that keeps
// the plain method leaves the plain method's fit, bit for bit. The same
// at any thread count; sizes the data cannot give are errors.
func TestAutoSample(t *testing.T) {
	if testenv.Race {
		t.Skip("lambda auto on a corpus of 3,000 documents twice; under the race detector the fit's concurrency is TestFitThreadInvariant's")
	}
	ctx := context.Background()
	// A generated corpus of authors (internal/corpus) whose graph helps
	// GNMF, and planted topics whose graph adds nothing to the data.
	authors := func() *dataset.Dataset {
		a, labels, err := corpus.Generate(corpus.Options{Docs: 3000, Terms: 50000, Classes: 10, ClassSkew: 1, Topic: 0.05, Authors: 30, AuthorShare: 0.15, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Prepare(&dataset.Dataset{Source: "generated", Sparse: a, Labels: labels}, PrepareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p.Data
	}
	for _, c := range []struct {
		what    string
		ds      *dataset.Dataset
		k, size int
		weight  bool // whether the sample keeps a weight
	}{{"authors", authors(), 10, 1000, true}, {"planted", planted(t, 7, 1500, 300, 3, 0.9), 3, 500, false}} {
		ds := c.ds
		o := Options{Method: solver.GNMF, K: c.k, Seed: 4, AutoSample: c.size}
		var ref *Result
		for _, th := range []int{1, 3} {
			o.Threads = th
			res, err := Fit(ctx, ds, o)
			if err != nil {
				t.Fatal(err)
			}
			if ref != nil {
				if res.Lambda != ref.Lambda || !mat.Equal(res.V, ref.V) || !slices.Equal(res.Labels, ref.Labels) {
					t.Errorf("%s: %d threads: lambda %v, another fit than at 1 thread (lambda %v)", c.what, th, res.Lambda, ref.Lambda)
				}
				continue
			}
			ref = res
			s := res.Sample
			if s == nil || s.Samples != c.size || len(s.Candidates) != 8 || len(s.Candidates[0].Labels) != c.size {
				t.Fatalf("%s: sample %+v", c.what, s)
			}
			if kept, v := autolambda.Choose(s.Candidates); s.Candidates[kept].Lambda != s.Lambda || v != s.Verdict || !s.Candidates[kept].Kept {
				t.Errorf("%s: the sample's choice %v (%v), its rule says %v (%v)", c.what, s.Lambda, s.Verdict, s.Candidates[kept].Lambda, v)
			}
			if (s.Lambda > 0 && s.Verdict != autolambda.GraphOffTopic) != c.weight {
				t.Fatalf("%s: the sample kept lambda %v; the test wants a weight %v", c.what, s.Lambda, c.weight)
			}
			plain := o
			plain.Lambda = solver.Fixed(0)
			p, err := Fit(ctx, ds, plain)
			if err != nil {
				t.Fatal(err)
			}
			if s.Lambda == 0 || s.Verdict == autolambda.GraphOffTopic {
				if res.Lambda != 0 || res.Candidates != nil || res.Verdict != s.Verdict || !mat.Equal(res.U, p.U) || !mat.Equal(res.V, p.V) || !slices.Equal(res.Labels, p.Labels) {
					t.Errorf("%s: the sample kept the plain method, the whole data's fit is not the plain fit (lambda %v, %v)", c.what, res.Lambda, res.Verdict)
				}
				continue
			}
			cs := res.Candidates
			if len(cs) != 2 || cs[0].Lambda != 0 || cs[1].Lambda != s.Lambda || !cs[1].Path || cs[0].Objective != p.Final() {
				t.Fatalf("%s: the whole data's candidates %+v, want the plain fit (objective %v) and lambda %v from its factors", c.what, cs, p.Final(), s.Lambda)
			}
			if kept, v := autolambda.Choose(cs); cs[kept].Lambda != res.Lambda || v != res.Verdict {
				t.Errorf("%s: kept lambda %v (%v) on the whole data, the rule says %v (%v)", c.what, res.Lambda, res.Verdict, cs[kept].Lambda, v)
			}
		}
	}
	ds := planted(t, 7, 600, 300, 3, 0.5)
	for _, s := range []int{600, 601, 29} {
		if _, err := Fit(ctx, ds, Options{Method: solver.GNMF, K: 3, Seed: 4, AutoSample: s}); err == nil || !strings.Contains(err.Error(), "sample") {
			t.Errorf("a sample of %d of 600 samples, k = 3: error %v", s, err)
		}
	}
	// A negative size and the default on data under ten times it: the
	// whole data.
	for _, s := range []int{-1, 0} {
		res, err := Fit(ctx, ds, Options{Method: solver.GNMF, K: 3, Seed: 4, AutoSample: s})
		if err != nil {
			t.Fatal(err)
		}
		if res.Sample != nil || len(res.Candidates) != 8 {
			t.Errorf("AutoSample %d: sample %v, %d candidates", s, res.Sample, len(res.Candidates))
		}
	}
}
