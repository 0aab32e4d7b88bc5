package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/model/autolambda"
	"github.com/manifactor/manifactor/solver"
)

// Assign is how Fit gives every sample its cluster. The zero value is
// KMeansAssign.
type Assign int

const (
	// KMeansAssign clusters the rows of V by k-means (10 replicates), as
	// the authors' reference code does for GNMF and LCCF. It serves every
	// method: it finds the clusters of a smooth V that the arg max misses.
	KMeansAssign Assign = iota
	// ArgMaxAssign takes the factor of the largest entry of the sample's
	// row of V, U's columns at unit length (paper 004); a sample whose row
	// is all zero gets -1.
	ArgMaxAssign
)

var assignNames = [...]string{KMeansAssign: "kmeans", ArgMaxAssign: "argmax"}

// String returns the name UnmarshalText accepts.
func (a Assign) String() string {
	if a < 0 || int(a) >= len(assignNames) {
		return fmt.Sprintf("Assign(%d)", int(a))
	}
	return assignNames[a]
}

// parseAssign parses "kmeans" or "argmax".
func parseAssign(s string) (Assign, error) {
	if i := slices.Index(assignNames[:], s); i >= 0 {
		return Assign(i), nil
	}
	return 0, fmt.Errorf("model: unknown assignment %q (want kmeans or argmax)", s)
}

// Storage is how Fit holds sparse data for the solver. The zero value is
// BothOrientations.
type Storage int

const (
	// BothOrientations holds X and X^T (solver.NewSparseData), 16 bytes
	// a stored entry each: every product is a row-parallel gather.
	BothOrientations Storage = iota
	// OneOrientation holds X^T alone (solver.NewCompactData): half the
	// memory, X V formed by column ranges of X^T. Results agree with
	// BothOrientations' within rounding. nmf and gnmf (and their -ncw
	// forms) gain; the methods that walk X's rows transpose it anyway.
	OneOrientation
)

var storageNames = [...]string{BothOrientations: "both", OneOrientation: "one"}

// String returns the name UnmarshalText accepts.
func (s Storage) String() string {
	if s < 0 || int(s) >= len(storageNames) {
		return fmt.Sprintf("Storage(%d)", int(s))
	}
	return storageNames[s]
}

// MarshalText returns the storage's name.
func (s Storage) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses "both" or "one".
func (s *Storage) UnmarshalText(b []byte) error {
	if i := slices.Index(storageNames[:], string(b)); i >= 0 {
		*s = Storage(i)
		return nil
	}
	return fmt.Errorf("model: unknown storage %q (want both or one)", b)
}

// Compacts reports whether OneOrientation saves memory for method m:
// the methods whose solver never walks X's rows.
func Compacts(m solver.Method) bool { return !m.KL() && !m.Concept() }

// defaultAutoSample is the size of Auto's sample (Options.AutoSample) on
// data of at least sampleFrom times as many samples. On generated
// corpora of 100,000 and 500,000 documents whose whole graph lifts GNMF
// by 16 and 23 points, a sample of neighbourhoods (see Options.AutoSample) of 10,000
// documents kept the gain as one of 20,000 did, where uniform samples of
// 10,000 (at 100,000) and of 20,000 and 50,000 (at 500,000) lost it
// (docs/REPRODUCTION.md, "Lambda auto on large corpora").
const defaultAutoSample = 10000

// sampleFrom is how many times the default sample the data must hold for
// Auto to choose on it. A sample of neighbourhoods is denser in
// neighbours than the whole data: at a fifth of the seven corpora of
// ../shared/data it trusted weights that the whole graph did not (la1:
// lambda 1000, 54.5 % against the whole data's choice, 69.9 %), where at
// a tenth or less of the generated corpora its choice scored within a
// point of the whole data's (docs/REPRODUCTION.md, "Lambda auto on large
// corpora").
const sampleFrom = 10

// minSamplePerCluster is the fewest samples a cluster Auto's sample must
// hold on average: fewer could not show the clusters the rule compares.
const minSamplePerCluster = 10

// Options configures Fit. The zero value with K set is the command line's
// default run: NMF, a random start, 500 iterations at most, assignment by
// k-means on V; for the graph methods the 5-nearest-neighbour 0/1 graph
// and lambda chosen by Auto.
type Options struct {
	// Method is the factorization; the zero value is NMF.
	Method solver.Method
	// K is the number of factors and clusters, 1 <= K <= min(features,
	// samples).
	K int
	// Formulation is how the graph methods weigh their graph term; the
	// zero value is the scale-invariant one.
	Formulation solver.Formulation
	// Lambda is the graph term's weight for the graph methods: a fixed
	// value (solver.Fixed; 0 gives the plain method), or solver.Auto. The
	// zero value is Auto under the scale-invariant formulation and the
	// papers' value (solver.DefaultLambda) under Papers. Auto fits the
	// plain method and the graph method at every weight of Lambdas (from
	// the same start, or along the weights: CandidateStart), assigns
	// each, and keeps one by the data alone (no labels). A clustering
	// with fewer than 0.4 times the plain one's effective number of
	// clusters is collapsed and never kept. Auto trusts the graph when
	// the clustering that cuts least of it is the plain method's or cuts
	// at most half as much, both relative to what random clusters of the
	// same volumes would cut (Candidate.RelativeCut), and then keeps the
	// clustering that cuts least; untrusted, it keeps the clustering most
	// cohesive in the data (see cohesion) among the plain one and the
	// weights' whose largest cluster is at most 1.5 times the plain
	// one's. Where the plain clustering cuts the graph at half the rate
	// of chance or more (GraphOffTopic), only those size-keeping weights
	// are weighed at all. Result.Verdict says which, Result.Candidates
	// reports every candidate.
	Lambda solver.Lambda
	// Lambdas are Auto's candidate weights (0 is always added); nil means
	// autolambda.Grid. Each must be finite and positive, and a non-nil
	// slice must not be empty.
	Lambdas []float64
	// ScreenIter, when positive, is a screening budget for Auto: each
	// candidate runs at most this many iterations (fewer where its
	// stopping rule holds first) for Auto's choice, and the kept one, if
	// the budget cut it short, is refitted with the full budget
	// (Solver.MaxIter), so that the result is the fit its weight gives
	// when fixed. It bounds Auto's cost at about the candidates' count
	// times the budget plus one fit, where the large weights, which
	// converge slowly, otherwise run to MaxIter on large corpora. The
	// price is Auto's choice on shortened fits, which understates the
	// weights that need many iterations to show their clustering:
	// measured in docs/REPRODUCTION.md ("Screening"). 0, the default,
	// screens nothing; a budget at or above MaxIter is the same.
	ScreenIter int
	// CandidateStart is where Auto's candidates start (see PathStart);
	// the zero value is autolambda.DefaultStart.
	CandidateStart autolambda.Start
	// AutoSample is the size of the seeded sample on which Auto chooses
	// its weight on large data: every candidate and the rule run on the
	// sample, with its own nearest-neighbour graph. Sparse samples are
	// taken in neighbourhoods, each seed with its nearest neighbours, so
	// that the sample's graph keeps the whole graph's local structure (a
	// uniform sample's graph joins samples as far apart as the whole
	// data's (n/AutoSample) p-NN graph and looked weaker than the whole
	// graph wherever it was measured); dense ones uniformly. Then the
	// whole data is fitted by the plain method and, if the sample's rule
	// kept a weight without finding the sample's graph off topic, at that
	// weight (from the plain fit's factors where the candidates run along
	// the weights, CandidateStart), and the rule chooses between the two
	// on the whole data, so that a weight the whole graph does not
	// support is not kept (Result.Sample reports the sample's choice).
	// Its cost is the sample's candidates plus about one fit at a fixed
	// weight, where Auto on the whole data fits every candidate. 0 means
	// defaultAutoSample samples (at least 10 a cluster) on data of at
	// least ten times as many, the whole data below that; a positive value
	// is used whenever the data has more samples, must be smaller than
	// the data and must give 10 samples a cluster; a negative value chooses on the
	// whole data always. With SampleGraph the choice is made on the whole
	// data.
	AutoSample int
	// Graph says how the p-nearest-neighbour graph of the samples is
	// built (its Seed and Threads are set from the fields below).
	Graph graph.Options
	// SampleGraph, when set, is the graph of the samples to use instead
	// of a nearest-neighbour graph (e.g. hyperlinks).
	SampleGraph *graph.Graph
	// Start is how the factorization starts; the zero value is
	// solver.RandomStart. solver.KMeansStart starts from the clusters of
	// k-means on the samples (seeded by Seed); LabelsStart, which needs
	// labels, is not taken here.
	Start solver.Start
	// Assign is how samples get their cluster; the zero value is
	// KMeansAssign.
	Assign Assign
	// Solver is how the fits run, passed through to the solver:
	// algorithm, iterations, tolerances, stopping rule, evaluation
	// interval, restarts, kernel and kernel memory, CG settings.
	Solver solver.Control
	// Seed seeds every random step: the factorization's start with Seed,
	// the k-means start, the assignment and the graph's heat-kernel
	// sample each with Seed mixed with a constant of their own. The
	// command line's --seed defaults to 1, not 0: a seed is an input the
	// caller chooses, and the command line's recorded figures use 1.
	Seed uint64
	// Threads bounds the goroutines of every step; 0 means GOMAXPROCS.
	// Results do not depend on it.
	Threads int
	// Progress, when set, is called with the pipeline's steps and the
	// solver's iterations. It runs on the fitting goroutine and must be
	// quick.
	Progress func(Progress)
	// ConsumeData lets Fit build the solver's copy of sparse data in the
	// storage of the data set's matrix instead of beside it
	// (solver.NewSparseDataInPlace): one copy of the data fewer, 16 bytes
	// a stored entry, and the time of its first touch. Fit then sets
	// ds.Sparse to nil: the data set keeps its source, labels, names and
	// IDs but no matrix. For a caller done with the data once the fit is
	// (the command line's cluster and bench). Results are the same bit
	// for bit. Dense data is copied as before.
	ConsumeData bool
	// Storage is how sparse data is held for the solver; the zero value
	// holds both orientations.
	Storage Storage

	// fromPlain starts Auto's first weight from the plain fit's factors
	// under PathStart, instead of from the run's start (Fit sets it for
	// the whole data's check of a sample's choice).
	fromPlain bool
}

// Stage is a step of the pipeline, as Progress reports it.
type Stage int

const (
	GraphStage   Stage = iota // building the sample graph
	StartStage                // k-means for the start
	FitStage                  // the factorization's iterations
	AssignStage               // the assignment of one of Auto's candidates, or a streamed fit's
	PrepareStage              // a streamed fit's pass for the preparation's statistics
	WriteStage                // a streamed fit's last pass, which solves and writes V
)

var stageNames = [...]string{GraphStage: "graph", StartStage: "start", FitStage: "fit", AssignStage: "assign", PrepareStage: "prepare", WriteStage: "write"}

// String returns the stage's name.
func (s Stage) String() string {
	if s < 0 || int(s) >= len(stageNames) {
		return fmt.Sprintf("Stage(%d)", int(s))
	}
	return stageNames[s]
}

// Progress is one report of Fit's work.
type Progress struct {
	Stage Stage
	// Candidate (1-based) and Candidates count Auto's fits; both are 1
	// without Auto. Lambda is the weight being fitted.
	Candidate, Candidates int
	Lambda                float64
	// Start (0-based), Iter (1-based) and Objective describe the solver's
	// last evaluated iteration during "fit".
	Start, Iter int
	Objective   float64
	// Done and Total measure the neighbour search during "graph" (see
	// graph.Options.Progress), and a streamed fit's parts during
	// "prepare", "fit" (Iter is the pass, Objective the last pass's
	// online loss) and "write"; both are 0 elsewhere.
	Done, Total int
	// Sample is set for the steps of Auto's choice on a sample
	// (Options.AutoSample).
	Sample bool
}

// The streams mixed into Options.Seed for the steps other than the
// factorization's own start, so that no two steps draw the same numbers.
const (
	kmeansStartStream = 0x6b6d65616e73     // "kmeans"
	assignStream      = 0x9e3779b97f4a7c15 // golden ratio
)

// Check validates what can be checked before the data: the choices and
// that the pass-through solver settings leave the pipeline's fields
// alone. Fit calls it first.
func (o Options) Check() error {
	if !o.Method.Valid() {
		return fmt.Errorf("model: unknown method %d", int(o.Method))
	}
	if o.K < 1 {
		return fmt.Errorf("model: k = %d: need at least 1 factor", o.K)
	}
	switch o.Start {
	case solver.RandomStart, solver.NormalizedStart, solver.NNDSVDStart, solver.KMeansStart:
	case solver.LabelsStart:
		return fmt.Errorf("model: the labels start needs labels, which Fit takes from k-means: use solver.KMeansStart")
	default:
		return fmt.Errorf("model: unknown start %d", int(o.Start))
	}
	if o.Assign < 0 || int(o.Assign) >= len(assignNames) {
		return fmt.Errorf("model: unknown assignment %d", int(o.Assign))
	}
	if o.Storage < 0 || int(o.Storage) >= len(storageNames) {
		return fmt.Errorf("model: unknown storage %d", int(o.Storage))
	}
	if o.Threads < 0 {
		return fmt.Errorf("model: negative thread count %d", o.Threads)
	}
	if o.Start == solver.NormalizedStart && o.Method.KL() && o.Formulation == solver.Papers {
		return fmt.Errorf("model: the normalized start is for the Frobenius methods, not %s", o.Method)
	}
	if v := o.Lambda.Value(); !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("model: lambda = %v: must be finite and not negative", v)
	}
	if o.ScreenIter < 0 {
		return fmt.Errorf("model: screening budget %d: must be at least 1 iteration (0: no screening)", o.ScreenIter)
	}
	if o.AutoSample > 0 && o.AutoSample < minSamplePerCluster*o.K {
		return fmt.Errorf("model: a sample of %d for lambda auto with k = %d: need at least %d samples a cluster (%d)", o.AutoSample, o.K, minSamplePerCluster, minSamplePerCluster*o.K)
	}
	if !o.CandidateStart.Valid() {
		return fmt.Errorf("model: invalid candidate start %d", int(o.CandidateStart))
	}
	if o.Lambdas != nil && len(o.Lambdas) == 0 {
		return fmt.Errorf("model: an empty list of candidate lambdas (nil means the default candidates)")
	}
	for _, v := range o.Lambdas {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("model: candidate lambda %v: must be finite and positive", v)
		}
	}
	return nil
}

// lambdas returns the weights Fit tries for the method: one for a fixed
// or default lambda, 0 and the candidates under Auto, 0 for a method
// without a graph.
func (o Options) lambdas(sparse bool) []float64 {
	if !o.Method.TakesGraph() {
		return []float64{0}
	}
	l := o.Lambda
	if l.IsDefault() && o.Formulation == solver.Papers {
		return []float64{o.Method.DefaultLambda(solver.Papers, sparse)}
	}
	if l.IsDefault() || l.IsAuto() {
		c := o.Lambdas
		if c == nil {
			c = autolambda.Grid()
		}
		c = slices.Compact(slices.Sorted(slices.Values(c)))
		return append([]float64{0}, c...)
	}
	return []float64{l.Value()}
}

// autoSample returns the size of Auto's sample for data of n samples (0:
// the whole data), or an error for a sample the data cannot give.
func (o Options) autoSample(n int) (int, error) {
	switch s := o.AutoSample; {
	case s < 0 || o.SampleGraph != nil:
		return 0, nil
	case s == 0:
		s = max(defaultAutoSample, minSamplePerCluster*o.K)
		if n >= sampleFrom*s {
			return s, nil
		}
		return 0, nil
	case s >= n:
		return 0, fmt.Errorf("a sample of %d for lambda auto from %d samples: the sample must be smaller than the data (a negative size chooses on the whole data)", s, n)
	default:
		return s, nil
	}
}

// MarshalText returns the assignment's name.
func (a Assign) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText parses an assignment's name.
func (a *Assign) UnmarshalText(b []byte) error {
	v, err := parseAssign(string(b))
	if err == nil {
		*a = v
	}
	return err
}

// PapersOptions returns the settings of the papers' reference code for
// method on sparse (text) or dense (image) data; K and Seed are left to
// set. They are the Papers formulation with the papers' lambda; the
// rescaled random start and k-means on V for GNMF and LCCF, as the
// authors' GNMF and LCCF code does; a k-means start for NMF-KL and LPNMF,
// as their KL code does; a random start and the arg max of V for the
// rest (paper 004); 100 iterations on sparse text, 300 on dense
// images (the papers do not say; measured in docs/REPRODUCTION.md: on
// text GNMF's clusters blur from that start when run much longer, on
// images it improves up to about 300); and neighbours of images by
// Euclidean distance.
func PapersOptions(method solver.Method, sparse bool) Options {
	o := Options{Method: method, Formulation: solver.Papers, Assign: ArgMaxAssign}
	if !sparse {
		// The papers compare images by Euclidean distance.
		o.Graph.Metric = graph.EuclideanMetric
	}
	// The papers' multiplicative updates, whose iterations their tables
	// count.
	o.Solver.Algorithm = solver.MU
	o.Solver.MaxIter = 300
	if sparse {
		o.Solver.MaxIter = 100
	}
	switch method.Base() {
	case solver.GNMF:
		o.Start, o.Assign = solver.NormalizedStart, KMeansAssign
	case solver.LCCF:
		// Paper 002 eq. 8 weighs LCCF's graph by cosine similarity.
		o.Start, o.Assign, o.Graph.Weight = solver.NormalizedStart, KMeansAssign, graph.Cosine
	case solver.NMFKL, solver.LPNMF:
		o.Start = solver.KMeansStart
	}
	return o
}
