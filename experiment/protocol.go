package experiment

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/coherence"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/model/autolambda"
	"github.com/manifactor/manifactor/sparse"
)

// Method clusters one data subset into k clusters: a factorization or a
// baseline. Cluster returns one label per sample of ds (-1 for a sample it
// could not assign); it must not modify ds, which other methods see after
// it, and its labels must depend only on ds, k and seed.
type Method interface {
	Name() string
	Cluster(ctx context.Context, ds *dataset.Dataset, k int, seed uint64) ([]int, error)
}

// validator is implemented by the methods of this package so that Run can
// reject a misconfigured method before any work.
type validator interface {
	validate() error
}

// Factorization is a Method running the pipeline of package model
// (model.Fit) with Options on each subset, K and Seed set by the protocol:
// the subset's own graph when the method takes one, the start, the
// factorization and the assignment, exactly as the command line's fit
// and cluster do for the same options and seed.
type Factorization struct {
	Options model.Options
}

var _ Method = Factorization{}

// Name returns the method's name.
func (f Factorization) Name() string { return f.Options.Method.String() }

func (f Factorization) validate() error {
	o := f.Options
	o.K = 1 // set by the protocol
	return o.Check()
}

// Cluster factorizes ds with k factors and returns the pipeline's labels.
func (f Factorization) Cluster(ctx context.Context, ds *dataset.Dataset, k int, seed uint64) ([]int, error) {
	res, err := f.Fit(ctx, ds, k, seed)
	if err != nil {
		return nil, err
	}
	return res.Labels, nil
}

// Fit runs the pipeline on ds with K = k and Seed = seed.
func (f Factorization) Fit(ctx context.Context, ds *dataset.Dataset, k int, seed uint64) (*model.Result, error) {
	o := f.Options
	o.K, o.Seed = k, seed
	return model.Fit(ctx, ds, o)
}

// Baseline is a Method running one of the cluster package's baselines,
// named by Algorithm:
//
//	kmeans      k-means on the samples (KMeansSparse or KMeans)
//	lsi-kmeans  k-means in the latent semantic subspace (LSIKMeans)
//	aa          Average Association spectral clustering (SpectralAA)
//	ncut        Normalized Cut spectral clustering (SpectralNCut)
//	pca-kmeans  k-means on the principal components (PCAKMeans)
//
// lsi-kmeans, aa and ncut work on the rows as sparse vectors (dense data
// is converted); pca-kmeans takes sparse data through PCAKMeansSparse. Dims, Replicates and Threads are those of cluster.BaselineOptions
// (Dims is ignored by kmeans); zero means their defaults.
type Baseline struct {
	Algorithm  string
	Dims       int
	Replicates int
	Threads    int
}

var _ Method = Baseline{}

// baselineNames lists the algorithms Baseline knows, in order.
var baselineNames = []string{"kmeans", "lsi-kmeans", "aa", "ncut", "pca-kmeans"}

// BaselineNames returns the algorithms Baseline knows, in order.
func BaselineNames() []string { return slices.Clone(baselineNames) }

// Baselines returns a default Baseline for each algorithm, keyed by its
// name.
func Baselines() map[string]Method {
	out := make(map[string]Method, len(baselineNames))
	for _, name := range baselineNames {
		out[name] = Baseline{Algorithm: name}
	}
	return out
}

// Name returns the algorithm.
func (b Baseline) Name() string { return b.Algorithm }

func (b Baseline) validate() error {
	if !slices.Contains(baselineNames, b.Algorithm) {
		return fmt.Errorf("unknown baseline %q (known: %s)", b.Algorithm, strings.Join(baselineNames, ", "))
	}
	return nil
}

// Cluster runs the baseline on the rows of ds.
func (b Baseline) Cluster(ctx context.Context, ds *dataset.Dataset, k int, seed uint64) ([]int, error) {
	if err := b.validate(); err != nil {
		return nil, err
	}
	opt := cluster.BaselineOptions{K: k, Dims: b.Dims, Seed: seed, Threads: b.Threads, Replicates: b.Replicates}
	switch b.Algorithm {
	case "kmeans":
		kopt := cluster.KMeansOptions{K: k, Seed: seed, Threads: b.Threads, Replicates: b.Replicates}
		var (
			res *cluster.KMeansResult
			err error
		)
		if ds.Sparse != nil {
			res, err = cluster.KMeansSparse(ctx, ds.Sparse, kopt)
		} else {
			res, err = cluster.KMeans(ctx, ds.Dense, kopt)
		}
		if err != nil {
			return nil, err
		}
		return res.Labels, nil
	case "pca-kmeans":
		if ds.Sparse != nil {
			return cluster.PCAKMeansSparse(ctx, ds.Sparse, opt)
		}
		return cluster.PCAKMeans(ctx, ds.Dense, opt)
	}
	// The operator methods take the rows as sparse vectors; dense images
	// go through the same code (their W = X X^T is small anyway).
	x := ds.Sparse
	if x == nil {
		x = sparsify(ds.Dense)
	}
	switch b.Algorithm {
	case "lsi-kmeans":
		return cluster.LSIKMeans(ctx, x, opt)
	case "aa":
		return cluster.SpectralAA(ctx, x, opt)
	default:
		return cluster.SpectralNCut(ctx, x, opt)
	}
}

// sparsify returns the non-zeros of x as a CSR matrix.
func sparsify(x *mat.Dense) *sparse.CSR {
	r, c := x.Dims()
	a := &sparse.CSR{Rows: r, Cols: c, Indptr: make([]int, r+1)}
	for i := range r {
		for j := range c {
			if v := x.At(i, j); v != 0 {
				a.Ind = append(a.Ind, j)
				a.Val = append(a.Val, v)
			}
		}
		a.Indptr[i+1] = len(a.Val)
	}
	return a
}

// Protocol is the papers' evaluation protocol: for each k in Classes it
// draws k distinct classes at random, Runs times, and clusters the samples
// of those classes with every method.
type Protocol struct {
	// Classes holds the values of k, distinct, each in 2..(number of
	// classes), e.g. 2..10.
	Classes []int
	// Runs is the number of random draws per k, at least 1.
	Runs int
	// Seed seeds the draws and the methods. The draw of run r for k comes
	// from a PCG generator seeded with (Seed, k<<32 | r), and the methods'
	// seed for that run is the generator's next number, so every method
	// sees the same subset with the same seed.
	Seed uint64
	// Workers is how many runs go in parallel; 0 means GOMAXPROCS. The
	// scores do not depend on it.
	Workers int
	// Prepare, when set, transforms each subset after it is selected and
	// before the methods see it (e.g. DropZeroFeatures, TFIDF,
	// NormalizeL2); it may modify its argument, which is a fresh copy, and
	// must keep the samples and their labels.
	Prepare func(*dataset.Dataset) (*dataset.Dataset, error)
	// Progress, when set, is called after each method's run with the number
	// of (k, run, method) cells done, their total and the time since Run
	// began. Calls are serialized but come from the worker goroutines.
	Progress func(done, total int, elapsed time.Duration)
	// Topics, when it asks for a measure or diversity, scores each
	// factorization's topics (model.ScoreTopics) against the documents
	// of its subset (model.ReferenceOf), beside accuracy and NMI;
	// baselines have none. The zero value scores nothing.
	Topics model.TopicOptions
}

// Score summarizes one method at one k (or, in Table.Average, over all k).
// Accuracy and NMI are fractions in [0, 1]; the standard deviations are
// population ones (divided by Runs, not Runs - 1). Seconds is the mean wall
// time of one clustering, without drawing and preparing the subset; it is
// the only field that varies between identical runs.
//
// Its JSON form, used by Table's and by the sweep command's, names the
// fields accuracy_mean, accuracy_std, nmi_mean, nmi_std, runs and seconds.
type Score struct {
	AccuracyMean float64 `json:"accuracy_mean"`
	AccuracyStd  float64 `json:"accuracy_std"`
	NMIMean      float64 `json:"nmi_mean"`
	NMIStd       float64 `json:"nmi_std"`
	Runs         int     `json:"runs"`
	Seconds      float64 `json:"seconds"`
	// Topics holds each topic metric of Protocol.Topics, by name (the
	// measure's, or "diversity"); nil for a baseline or when none was
	// asked for.
	Topics map[string]TopicScore `json:"topics,omitempty"`
}

// TopicScore is a topic metric over a series of runs: the mean and
// population standard deviation of the runs' means over their topics,
// and the runs that gave it a value (a run whose every topic lacks a
// score gives none).
type TopicScore struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	Runs int     `json:"runs"`
}

// DiversityName names topic diversity among Score.Topics' metrics.
const DiversityName = "diversity"

// topicNames are the names of the metrics of o, in order: the measures,
// then diversity.
func topicNames(o model.TopicOptions) []string {
	var out []string
	for _, m := range o.Measures {
		out = append(out, m.String())
	}
	if o.Diversity {
		out = append(out, DiversityName)
	}
	return out
}

// Table holds the scores of a protocol run: Cells[method][k], and
// Average[method], whose means, standard deviations and Seconds are the
// plain means over k of the per-k values (the papers' "Avg." column) and
// whose Runs is the total over k. Methods is sorted; K is in the order of
// Protocol.Classes.
type Table struct {
	Methods []string
	K       []int
	Cells   map[string]map[int]Score
	Average map[string]Score
	// Candidates holds, for each method that chose its lambda by Auto
	// (model.Options.Lambda), every candidate weight scored on the same
	// draws, in the order of their weight: what the method gives at that
	// fixed weight with the same seeds (a sweep's points, without fitting
	// again), and how often Auto kept it. Nil when no method ran Auto.
	Candidates map[string][]CandidateScore
	// Partial reports a table of the runs done before Run was cancelled
	// (each cell's Runs says how many); RunsDone and RunsTotal count the
	// (k, draw) runs completed and planned.
	Partial             bool
	RunsDone, RunsTotal int
	// Topics names the topic metrics of the cells, in order, and
	// Counted says how each was counted ("windows of 10 tokens",
	// "documents", or "top 25 terms" for diversity).
	Topics  []string
	Counted map[string]string
}

// CandidateScore is one of Auto's candidate weights, scored as Table
// scores a method (Seconds is 0: the candidates' fits are not timed
// apart). Kept counts the runs, over all k, in which Auto kept it.
type CandidateScore struct {
	Lambda  float64
	Cells   map[int]Score
	Average Score
	Kept    int
}

// cell is the outcome of one method on one (k, run), with the scores of
// Auto's candidates when it ran Auto.
type cell struct {
	accuracy, nmi, seconds float64
	done                   bool
	candidates             []candidateCell
	// topics holds each topic metric's mean over the run's topics (NaN
	// when none has a score), nil for a method without topics.
	topics map[string]float64
}

// candidateCell is the outcome of one of Auto's candidates on one run.
type candidateCell struct {
	lambda, accuracy, nmi float64
	kept                  bool
}

// check validates p, ds and methods and returns the sorted method names
// and the classes of ds.
func (p Protocol) check(ds *dataset.Dataset, methods map[string]Method) ([]string, []int, error) {
	if ds == nil {
		return nil, nil, errors.New("experiment: nil data")
	}
	if ds.Labels == nil {
		return nil, nil, fmt.Errorf("experiment: %s: the data has no labels; the protocol needs the true classes", ds.Source)
	}
	if (ds.Sparse == nil) == (ds.Dense == nil) {
		return nil, nil, fmt.Errorf("experiment: %s: exactly one of Sparse and Dense must be set", ds.Source)
	}
	if n, _ := ds.Dims(); len(ds.Labels) != n {
		return nil, nil, fmt.Errorf("experiment: %s: %d labels for %d samples", ds.Source, len(ds.Labels), n)
	}
	classes, _ := ds.Classes()
	if len(p.Classes) == 0 {
		return nil, nil, errors.New("experiment: no values of k (Protocol.Classes is empty)")
	}
	seen := make(map[int]bool)
	for _, k := range p.Classes {
		switch {
		case k < 2:
			return nil, nil, fmt.Errorf("experiment: k = %d: the protocol needs at least 2 classes", k)
		case k > len(classes):
			return nil, nil, fmt.Errorf("experiment: k = %d but the data has %d classes", k, len(classes))
		case seen[k]:
			return nil, nil, fmt.Errorf("experiment: k = %d appears twice in Protocol.Classes", k)
		}
		seen[k] = true
	}
	if p.Runs < 1 || p.Runs > MaxRuns {
		return nil, nil, fmt.Errorf("experiment: %d runs per k: need 1 to %d", p.Runs, MaxRuns)
	}
	if p.Workers < 0 {
		return nil, nil, fmt.Errorf("experiment: %d workers: must not be negative", p.Workers)
	}
	if len(methods) == 0 {
		return nil, nil, errors.New("experiment: no methods")
	}
	if topicNames(p.Topics) != nil {
		_, m := ds.Dims()
		switch top := p.Topics.Top; {
		case ds.Vocabulary == nil:
			return nil, nil, fmt.Errorf("experiment: %s: topic metrics score words, and the data's features have no names", ds.Source)
		case top < 0 || top == 1 || top > m:
			return nil, nil, fmt.Errorf("experiment: topic metrics on %d terms a topic: want 2 to the data's %d features (0 for 10)", top, m)
		}
	}
	names := make([]string, 0, len(methods))
	for name, m := range methods {
		if m == nil {
			return nil, nil, fmt.Errorf("experiment: method %q is nil", name)
		}
		if v, ok := m.(validator); ok {
			if err := v.validate(); err != nil {
				return nil, nil, fmt.Errorf("experiment: method %q: %w", name, err)
			}
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names, classes, nil
}

// SubsetPreparation returns a Protocol.Prepare for a corpus prepared
// (weighted, normalized) once as a whole, as the papers' document
// vectors are: each subset only loses the features none of its samples
// has, unless keepZeroFeatures.
func SubsetPreparation(keepZeroFeatures bool) func(*dataset.Dataset) (*dataset.Dataset, error) {
	return func(d *dataset.Dataset) (*dataset.Dataset, error) {
		p, err := model.Prepare(d, model.PrepareOptions{Weighting: model.NoWeighting, Normalize: model.NoNormalization, KeepZeroFeatures: keepZeroFeatures})
		if err != nil {
			return nil, err
		}
		return p.Data, nil
	}
}

// MaxRuns is the most draws per k a Protocol takes: far more than any
// table needs (the papers draw 50), and few enough that Run's record of
// every draw stays small; billions exhausted memory before the first fit.
const MaxRuns = 100000

// draw returns the sorted classes of run r for k and the methods' seed.
func (p Protocol) draw(classes []int, k, r int) ([]int, uint64) {
	rng := rand.New(rand.NewPCG(p.Seed, uint64(k)<<32|uint64(r)))
	picked := make([]int, k)
	for i, c := range rng.Perm(len(classes))[:k] {
		picked[i] = classes[c]
	}
	sort.Ints(picked)
	return picked, rng.Uint64()
}

// subset selects, in data order, the samples of the given classes and
// prepares them.
func (p Protocol) subset(ds *dataset.Dataset, picked []int) (*dataset.Dataset, error) {
	var idx []int
	for i, l := range ds.Labels {
		if _, found := slices.BinarySearch(picked, l); found {
			idx = append(idx, i)
		}
	}
	sub := ds.SelectSamples(idx)
	if p.Prepare == nil {
		return sub, nil
	}
	sub, err := p.Prepare(sub)
	if err != nil {
		return nil, err
	}
	if sub == nil || (sub.Sparse == nil) == (sub.Dense == nil) {
		return nil, errors.New("Prepare returned no data")
	}
	if n, _ := sub.Dims(); n != len(idx) || len(sub.Labels) != n {
		return nil, fmt.Errorf("Prepare changed the samples: %d selected, %d samples and %d labels after", len(idx), n, len(sub.Labels))
	}
	return sub, nil
}

// Subset returns the prepared subset that run r (0-based) for k draws from
// ds and the methods' seed for it: what Run gives every method in that
// cell, e.g. to trace one factorization's objective.
func (p Protocol) Subset(ds *dataset.Dataset, k, r int) (*dataset.Dataset, uint64, error) {
	if ds == nil || ds.Labels == nil {
		return nil, 0, errors.New("experiment: Subset needs labelled data")
	}
	classes, _ := ds.Classes()
	if k < 1 || k > len(classes) || r < 0 {
		return nil, 0, fmt.Errorf("experiment: no run %d for k = %d with %d classes", r, k, len(classes))
	}
	picked, seed := p.draw(classes, k, r)
	sub, err := p.subset(ds, picked)
	if err != nil {
		return nil, 0, fmt.Errorf("experiment: k = %d, run %d: %w", k, r+1, err)
	}
	return sub, seed, nil
}

// Run runs the protocol on ds with every method and returns the table of
// scores. Inputs are checked before any work. If ctx is done, it returns
// the table of the runs completed so far (Score.Runs says how many per
// cell; k values with none are left out) with ctx.Err(). A method's
// failure stops the protocol and is returned, naming the method, k and run.
func (p Protocol) Run(ctx context.Context, ds *dataset.Dataset, methods map[string]Method) (*Table, error) {
	names, classes, err := p.check(ds, methods)
	if err != nil {
		return nil, err
	}
	jobs := len(p.Classes) * p.Runs
	cells := make([][]cell, jobs)
	errs := make([]error, jobs)
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	begin := time.Now()
	var (
		mu   sync.Mutex
		done int
	)
	parallel.For(jobs, p.Workers, 1, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			if inner.Err() != nil {
				return
			}
			k, r := p.Classes[j/p.Runs], j%p.Runs
			cells[j], errs[j] = p.runOne(inner, ds, classes, names, methods, k, r, func() {
				if p.Progress == nil {
					return
				}
				mu.Lock()
				done++
				p.Progress(done, jobs*len(names), time.Since(begin))
				mu.Unlock()
			})
			if errs[j] != nil {
				cancel()
			}
		}
	})
	if err := ctx.Err(); err != nil {
		// The runs done so far, marked partial, for the caller to show.
		t := p.table(names, cells)
		p.topicColumns(t, ds)
		t.Partial, t.RunsTotal = true, jobs
		for _, row := range cells {
			complete := row != nil
			for _, c := range row {
				complete = complete && c.done
			}
			if complete {
				t.RunsDone++
			}
		}
		return t, err
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	t := p.table(names, cells)
	p.topicColumns(t, ds)
	return t, nil
}

// runOne draws and prepares the subset of run r for k and clusters it with
// every method, in name order.
func (p Protocol) runOne(ctx context.Context, ds *dataset.Dataset, classes []int, names []string, methods map[string]Method, k, r int, tick func()) ([]cell, error) {
	picked, seed := p.draw(classes, k, r)
	sub, err := p.subset(ds, picked)
	if err != nil {
		return nil, fmt.Errorf("experiment: k = %d, run %d: %w", k, r+1, err)
	}
	out := make([]cell, len(names))
	var ref *coherence.Reference // the subset's documents, for topic metrics
	for i, name := range names {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		start := time.Now()
		var (
			pred  []int
			cands []autolambda.Candidate
			res   *model.Result
		)
		if f, ok := methods[name].(Factorization); ok {
			// The pipeline's result, for Auto's candidates.
			if res, err = f.Fit(ctx, sub, k, seed); err == nil {
				pred, cands = res.Labels, res.Candidates
			}
		} else {
			pred, err = methods[name].Cluster(ctx, sub, k, seed)
		}
		secs := time.Since(start).Seconds()
		if err != nil {
			return out, fmt.Errorf("experiment: %s, k = %d, run %d: %w", name, k, r+1, err)
		}
		acc, nmi, err := score(sub.Labels, pred)
		if err != nil {
			return out, fmt.Errorf("experiment: %s, k = %d, run %d: %w", name, k, r+1, err)
		}
		out[i] = cell{accuracy: acc, nmi: nmi, seconds: secs, done: true}
		if res != nil && res.U != nil && topicNames(p.Topics) != nil {
			if ref == nil {
				ref = model.ReferenceOf(sub)
			}
			if out[i].topics, err = p.scoreTopics(ctx, res, sub, ref); err != nil {
				return out, fmt.Errorf("experiment: %s, k = %d, run %d: %w", name, k, r+1, err)
			}
		}
		for _, c := range cands {
			acc, nmi, err := score(sub.Labels, c.Labels)
			if err != nil {
				return out, fmt.Errorf("experiment: %s, k = %d, run %d, candidate lambda %g: %w", name, k, r+1, c.Lambda, err)
			}
			out[i].candidates = append(out[i].candidates, candidateCell{lambda: c.Lambda, accuracy: acc, nmi: nmi, kept: c.Kept})
		}
		tick()
	}
	return out, nil
}

// scoreTopics scores res's topics with p.Topics over ref (sub's
// documents): each metric's mean over the topics.
func (p Protocol) scoreTopics(ctx context.Context, res *model.Result, sub *dataset.Dataset, ref *coherence.Reference) (map[string]float64, error) {
	sc, err := model.ScoreTopics(ctx, res.U, sub.Vocabulary, ref, p.Topics)
	if err != nil {
		return nil, err
	}
	means := map[string]float64{}
	for m, s := range sc.Measures {
		means[m.String()] = s.Mean
	}
	if p.Topics.Diversity {
		means[DiversityName] = sc.Diversity
	}
	return means, nil
}

// topicColumns names in t the topic metrics its cells hold, and how each
// is counted on ds's subsets, when a method has topics.
func (p Protocol) topicColumns(t *Table, ds *dataset.Dataset) {
	has := false
	for _, s := range t.Average {
		has = has || s.Topics != nil
	}
	if !has {
		return
	}
	t.Topics, t.Counted = topicNames(p.Topics), map[string]string{}
	for _, m := range p.Topics.Measures {
		t.Counted[m.String()] = "documents"
		if w := (coherence.Options{}).WindowFor(m, ds.Tokens != nil); w > 0 {
			t.Counted[m.String()] = fmt.Sprintf("windows of %d tokens", w)
		}
	}
	if p.Topics.Diversity {
		t.Counted[DiversityName] = fmt.Sprintf("top %d terms", coherence.DiversityTop)
	}
}

// score returns the accuracy and NMI of pred against truth.
func score(truth, pred []int) (acc, nmi float64, err error) {
	if len(pred) != len(truth) {
		return 0, 0, fmt.Errorf("%d labels for %d samples", len(pred), len(truth))
	}
	k := 0
	for _, l := range pred {
		k = max(k, l+1)
	}
	s, err := model.Summarize(pred, k, truth, nil)
	if err != nil {
		return 0, 0, err
	}
	return *s.Accuracy, *s.NMI, nil
}

// table aggregates the completed cells, in the fixed order of k and run.
func (p Protocol) table(names []string, cells [][]cell) *Table {
	t := &Table{Methods: names, Cells: make(map[string]map[int]Score), Average: make(map[string]Score)}
	for ki, k := range p.Classes {
		ran := false
		for r := range p.Runs {
			for _, c := range cells[ki*p.Runs+r] {
				ran = ran || c.done
			}
		}
		if ran {
			t.K = append(t.K, k)
		}
	}
	for i, name := range names {
		// The method's cell of a run, if it ran.
		at := func(ki, r int) *cell {
			if row := cells[ki*p.Runs+r]; row != nil && row[i].done {
				return &row[i]
			}
			return nil
		}
		t.Cells[name], t.Average[name] = p.aggregate(t.K, func(ki, r int) (float64, float64, float64, bool) {
			if c := at(ki, r); c != nil {
				return c.accuracy, c.nmi, c.seconds, true
			}
			return 0, 0, 0, false
		})
		p.aggregateTopics(t, name, at)
		// Auto's candidates: the same weights in every run of a method.
		var lambdas []float64
		for ki := range p.Classes {
			for r := range p.Runs {
				if c := at(ki, r); c != nil && lambdas == nil {
					for _, cc := range c.candidates {
						lambdas = append(lambdas, cc.lambda)
					}
				}
			}
		}
		for ci, lambda := range lambdas {
			cs := CandidateScore{Lambda: lambda}
			cs.Cells, cs.Average = p.aggregate(t.K, func(ki, r int) (float64, float64, float64, bool) {
				c := at(ki, r)
				if c == nil || ci >= len(c.candidates) || c.candidates[ci].lambda != lambda {
					return 0, 0, 0, false
				}
				if c.candidates[ci].kept {
					cs.Kept++
				}
				return c.candidates[ci].accuracy, c.candidates[ci].nmi, 0, true
			})
			if t.Candidates == nil {
				t.Candidates = make(map[string][]CandidateScore)
			}
			t.Candidates[name] = append(t.Candidates[name], cs)
		}
	}
	return t
}

// aggregateTopics adds to t's scores of method name its topic metrics,
// per k and their plain means over k, as aggregate does for accuracy;
// at gives the method's cell of run r of the ki-th k.
func (p Protocol) aggregateTopics(t *Table, name string, at func(ki, r int) *cell) {
	for _, metric := range topicNames(p.Topics) {
		var avg TopicScore
		scoredK := 0
		for ki, k := range p.Classes {
			if !slices.Contains(t.K, k) {
				continue
			}
			var x []float64
			for r := range p.Runs {
				c := at(ki, r)
				if c == nil || c.topics == nil {
					continue
				}
				if v := c.topics[metric]; !math.IsNaN(v) {
					x = append(x, v)
				}
			}
			if len(x) == 0 {
				continue
			}
			var ts TopicScore
			ts.Mean, ts.Std = meanStd(x)
			ts.Runs = len(x)
			s := t.Cells[name][k]
			if s.Topics == nil {
				s.Topics = map[string]TopicScore{}
			}
			s.Topics[metric] = ts
			t.Cells[name][k] = s
			avg.Mean, avg.Std, avg.Runs = avg.Mean+ts.Mean, avg.Std+ts.Std, avg.Runs+ts.Runs
			scoredK++
		}
		if scoredK == 0 {
			continue
		}
		avg.Mean /= float64(scoredK)
		avg.Std /= float64(scoredK)
		s := t.Average[name]
		if s.Topics == nil {
			s.Topics = map[string]TopicScore{}
		}
		s.Topics[metric] = avg
		t.Average[name] = s
	}
}

// aggregate scores one series of runs (at gives the accuracy, NMI and
// seconds of run r of the ki-th k, and whether it ran) per k of ks, and
// their plain means over ks (the papers' "Avg." column, whose Runs is the
// total).
func (p Protocol) aggregate(ks []int, at func(ki, r int) (acc, nmi, secs float64, ok bool)) (map[int]Score, Score) {
	cells := make(map[int]Score)
	var avg Score
	for ki, k := range p.Classes {
		if !slices.Contains(ks, k) {
			continue
		}
		var acc, nmi, secs []float64
		for r := range p.Runs {
			if a, n, sec, ok := at(ki, r); ok {
				acc = append(acc, a)
				nmi = append(nmi, n)
				secs = append(secs, sec)
			}
		}
		s := Score{Runs: len(acc)}
		if len(acc) > 0 {
			s.AccuracyMean, s.AccuracyStd = meanStd(acc)
			s.NMIMean, s.NMIStd = meanStd(nmi)
			s.Seconds, _ = meanStd(secs)
		}
		cells[k] = s
		avg.AccuracyMean += s.AccuracyMean
		avg.AccuracyStd += s.AccuracyStd
		avg.NMIMean += s.NMIMean
		avg.NMIStd += s.NMIStd
		avg.Seconds += s.Seconds
		avg.Runs += s.Runs
	}
	if nk := float64(len(ks)); nk > 0 {
		avg.AccuracyMean /= nk
		avg.AccuracyStd /= nk
		avg.NMIMean /= nk
		avg.NMIStd /= nk
		avg.Seconds /= nk
	}
	return cells, avg
}

// meanStd returns the mean and the population standard deviation of x,
// summed in order.
func meanStd(x []float64) (mean, std float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		std += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(std / float64(len(x)))
}

// Markdown writes two Markdown tables, accuracy then NMI, with a row per k
// and an "Avg." row, a column per method, and cells "mean ± std"; then one
// such table per topic metric ("—" for a method without topics); then,
// when a method ran Auto, a table of its candidates averaged over k.
func (t *Table) Markdown(w io.Writer) error {
	var b strings.Builder
	if t.Partial {
		fmt.Fprintf(&b, "**Partial**: interrupted after %d of %d runs; each cell counts its own.\n\n", t.RunsDone, t.RunsTotal)
	}
	t.metricTable(&b, "Accuracy", func(s Score) (float64, float64, bool) { return s.AccuracyMean, s.AccuracyStd, true })
	t.metricTable(&b, "\nNMI", func(s Score) (float64, float64, bool) { return s.NMIMean, s.NMIStd, true })
	for _, metric := range t.Topics {
		title := fmt.Sprintf("\nTopics' %s (over %s; each run's mean over its topics)", metric, t.Counted[metric])
		if metric == DiversityName {
			title = fmt.Sprintf("\nTopics' diversity (the share of distinct words among a run's topics' %s)", t.Counted[metric])
		}
		t.metricTable(&b, title, func(s Score) (float64, float64, bool) {
			ts, ok := s.Topics[metric]
			return ts.Mean, ts.Std, ok
		})
	}
	if len(t.Candidates) > 0 {
		b.WriteString("\nLambda auto's candidates (same draws and seeds; each weight's fixed fit under --candidate-start same, the path's fits under path; kept: runs in which auto chose it)\n\n")
		b.WriteString("| method | lambda | accuracy | NMI | kept |\n|---|---|---|---|---|\n")
		for _, m := range t.Methods {
			for _, c := range t.Candidates[m] {
				fmt.Fprintf(&b, "| %s | %g | %.3f ± %.3f | %.3f ± %.3f | %d of %d |\n", m, c.Lambda,
					c.Average.AccuracyMean, c.Average.AccuracyStd, c.Average.NMIMean, c.Average.NMIStd, c.Kept, c.Average.Runs)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// metricTable writes the table titled title: a row per k and an "Avg."
// row, a column per method, each cell value's "mean ± std", or "—" where
// the method has none.
func (t *Table) metricTable(b *strings.Builder, title string, value func(Score) (mean, std float64, ok bool)) {
	fmt.Fprintf(b, "%s\n\n| k |", title)
	for _, m := range t.Methods {
		fmt.Fprintf(b, " %s |", m)
	}
	b.WriteString("\n|---|")
	for range t.Methods {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	row := func(label string, score func(string) Score) {
		fmt.Fprintf(b, "| %s |", label)
		for _, m := range t.Methods {
			if mean, std, ok := value(score(m)); ok {
				fmt.Fprintf(b, " %.3f ± %.3f |", mean, std)
			} else {
				b.WriteString(" — |")
			}
		}
		b.WriteString("\n")
	}
	for _, k := range t.K {
		row(strconv.Itoa(k), func(m string) Score { return t.Cells[m][k] })
	}
	row("Avg.", func(m string) Score { return t.Average[m] })
}

// CSV writes a header and one record per method and k, then per method
// "average": method,k,accuracy_mean,accuracy_std,nmi_mean,nmi_std,runs,seconds,
// then each topic metric's mean and std (empty for a method without
// topics). Auto's candidates are in the Markdown and JSON forms only.
func (t *Table) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	header := []string{"method", "k", "accuracy_mean", "accuracy_std", "nmi_mean", "nmi_std", "runs", "seconds"}
	for _, metric := range t.Topics {
		header = append(header, metric+"_mean", metric+"_std")
	}
	cw.Write(header)
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	record := func(m, k string, s Score) {
		rec := []string{m, k, f(s.AccuracyMean), f(s.AccuracyStd), f(s.NMIMean), f(s.NMIStd), strconv.Itoa(s.Runs), f(s.Seconds)}
		for _, metric := range t.Topics {
			if ts, ok := s.Topics[metric]; ok {
				rec = append(rec, f(ts.Mean), f(ts.Std))
			} else {
				rec = append(rec, "", "")
			}
		}
		cw.Write(rec)
	}
	for _, m := range t.Methods {
		for _, k := range t.K {
			record(m, strconv.Itoa(k), t.Cells[m][k])
		}
		record(m, "average", t.Average[m])
	}
	cw.Flush()
	return cw.Error()
}

// CandidatesKey is the key of Table's JSON under which Auto's candidates
// are, beside the methods' names (which solver.Method.UnmarshalText and the baselines
// never give it).
const CandidatesKey = "lambda_candidates"

// TopicsKey is the key of Table's JSON under which each topic metric's
// way of counting is (Table.Counted), when it has topic metrics.
const TopicsKey = "topic_metrics"

// PartialKey is the key of an interrupted Table's JSON under which the
// runs done and planned are.
const PartialKey = "partial"

// MarshalJSON encodes t as an object keyed by method name, each mapping
// every k (as a string) and "average" to {accuracy_mean, accuracy_std,
// nmi_mean, nmi_std, runs, seconds} and, with topic metrics, "topics"
// (each metric's {mean, std, runs}); when a method ran Auto, the key
// CandidatesKey maps each such method to its candidates in order of
// weight, each an object with "lambda", "kept" and, like a method's, every
// k and "average"; with topic metrics, TopicsKey maps each metric to how
// it was counted.
func (t *Table) MarshalJSON() ([]byte, error) {
	out := make(map[string]any, len(t.Methods)+1)
	for _, m := range t.Methods {
		row := make(map[string]Score, len(t.K)+1)
		for _, k := range t.K {
			row[strconv.Itoa(k)] = t.Cells[m][k]
		}
		row["average"] = t.Average[m]
		out[m] = row
	}
	if len(t.Candidates) > 0 {
		cands := make(map[string][]map[string]any, len(t.Candidates))
		for m, cs := range t.Candidates {
			for _, c := range cs {
				row := map[string]any{"lambda": c.Lambda, "kept": c.Kept, "average": c.Average}
				for _, k := range t.K {
					row[strconv.Itoa(k)] = c.Cells[k]
				}
				cands[m] = append(cands[m], row)
			}
		}
		out[CandidatesKey] = cands
	}
	if t.Partial {
		out[PartialKey] = map[string]int{"runs_done": t.RunsDone, "runs_total": t.RunsTotal}
	}
	if len(t.Topics) > 0 {
		out[TopicsKey] = t.Counted
	}
	return json.Marshal(out)
}

// SweepPoint is the outcome of one parameter value in Sweep: the method's
// table and its average over k.
type SweepPoint struct {
	Value   float64
	Average Score
	Table   *Table
}

// Sweep runs the protocol once per value with the method that method
// builds for it (named name in the tables), every value on the same draws
// and seeds, so the points differ only by the parameter. It stops at the
// first error, returning the points done.
func (p Protocol) Sweep(ctx context.Context, ds *dataset.Dataset, name string, values []float64, method func(v float64) (Method, error)) ([]SweepPoint, error) {
	if len(values) == 0 {
		return nil, errors.New("experiment: Sweep needs at least one value")
	}
	// Every method is built, and so checked, before any work.
	ms := make([]Method, len(values))
	for i, v := range values {
		m, err := method(v)
		if err != nil {
			return nil, fmt.Errorf("experiment: value %g: %w", v, err)
		}
		if _, _, err := p.check(ds, map[string]Method{name: m}); err != nil {
			return nil, err
		}
		ms[i] = m
	}
	var out []SweepPoint
	for i, v := range values {
		t, err := p.Run(ctx, ds, map[string]Method{name: ms[i]})
		if err != nil {
			return out, fmt.Errorf("experiment: value %g: %w", v, err)
		}
		out = append(out, SweepPoint{Value: v, Average: t.Average[name], Table: t})
	}
	return out, nil
}
