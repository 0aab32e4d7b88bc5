package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/internal/graphfile"
	"github.com/manifactor/manifactor/kernels"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/model/autolambda"
	"github.com/manifactor/manifactor/model/memory"
	"github.com/manifactor/manifactor/model/rank"
	"github.com/manifactor/manifactor/solver"
)

// methodFlags are the factorization options of fit, cluster, topics,
// bench and demo: each flag fills a field of model.Options, whose zero
// value is the default, so the command line adds no defaults of its own.
type methodFlags struct {
	fs           *flag.FlagSet
	method       solver.Method
	k            int
	kAuto        bool   // --k auto: cross-validated over ranks
	ranks        string // --ranks
	lambda       solver.Lambda
	lambdas      string
	screenIters  int
	autoSample   int
	candStart    autolambda.Start
	formulation  solver.Formulation
	papers       bool
	start        solver.Start
	assign       model.Assign
	iters        int
	minIters     int
	tol          threshold
	pgTol        threshold
	stop         solver.StopRule
	evaluate     int
	restarts     int
	restartIters int
	seed         uint64
	kernel       solver.KernelKind
	degree       int
	coef0        float64
	sigma        float64
	kernelMemGB  float64
	cgTol        float64
	cgIters      int
	algorithm    solver.Algorithm
	batchSize    int
	extrapolate  bool
	storage      storageChoice
	graph        graphFlags
}

// storageChoice is --storage: auto, or a model.Storage.
type storageChoice struct {
	auto bool
	s    model.Storage
}

func (c storageChoice) MarshalText() ([]byte, error) {
	if c.auto {
		return []byte("auto"), nil
	}
	return c.s.MarshalText()
}

func (c *storageChoice) UnmarshalText(b []byte) error {
	if string(b) == "auto" {
		*c = storageChoice{auto: true}
		return nil
	}
	if err := c.s.UnmarshalText(b); err != nil {
		return fmt.Errorf("unknown storage %q (want auto, both or one)", b)
	}
	c.auto = false
	return nil
}

// graphFlags are the sample-graph options of the graph-regularized methods
// and of the graph sub-command.
type graphFlags struct {
	neighbors  int
	weight     graph.Weight
	metric     graph.Metric
	symmetry   graph.Symmetry
	minShared  int
	heatT      float64
	search     graph.Search
	file       string
	symmetrize bool
}

func (g *graphFlags) register(fs *flag.FlagSet, withFile bool) {
	if withFile {
		fs.StringVar(&g.file, "graph", "", "use this n x n Matrix Market graph (e.g. hyperlinks) instead of a nearest-neighbour graph")
		fs.BoolVar(&g.symmetrize, "symmetrize", false, "accept an asymmetric (directed) --graph by taking W = max(W, W^T)")
	}
	fs.IntVar(&g.neighbors, "neighbors", graph.DefaultNeighbors, "p, nearest neighbours per sample")
	fs.TextVar(&g.weight, "weight", graph.Binary, "edge weights: binary, heat or cosine")
	fs.TextVar(&g.metric, "graph-metric", graph.AutoMetric, "how dense samples are compared for their neighbours: euclidean (the papers'), cosine, correlation (Pearson: each sample centred and scaled to unit length, so that an image's brightness and contrast do not count) or auto (correlation for dense samples; sparse samples are always compared by cosine)")
	fs.TextVar(&g.symmetry, "symmetry", graph.Either, "edge rule: either (i chose j or j chose i, the papers') or mutual (both)")
	fs.IntVar(&g.minShared, "min-shared", 0, "keep an edge only when its samples share this many of their p neighbours (0: no pruning)")
	fs.Float64Var(&g.heatT, "heat-t", 0, "heat kernel width t (0: the mean distance over a seeded sample)")
	fs.TextVar(&g.search, "graph-search", graph.AutoSearch, "neighbour search: exact (every pair), approx (NN-descent, seeded by --seed; recall 0.99 on the real corpora, 0.997 on 200,000 generated documents) or auto (approx for sparse data where the exact search's pairs sharing a feature exceed 800 per stored entry, e.g. 20,000 generated documents; exact otherwise)")
}

// options checks the graph flags and returns the graph options.
func (g *graphFlags) options() (graph.Options, error) {
	if g.neighbors < 1 {
		return graph.Options{}, fmt.Errorf("--neighbors %d: must be at least 1", g.neighbors)
	}
	if g.minShared < 0 || (g.minShared > 0 && g.minShared >= g.neighbors) {
		return graph.Options{}, fmt.Errorf("--min-shared %d: must be 0 (no pruning) or between 1 and --neighbors - 1 = %d", g.minShared, g.neighbors-1)
	}
	if !(g.heatT >= 0) || math.IsInf(g.heatT, 0) {
		return graph.Options{}, fmt.Errorf("--heat-t %v: must be a finite number >= 0 (0: from the data)", g.heatT)
	}
	if g.heatT > 0 && g.weight != graph.Heat {
		return graph.Options{}, fmt.Errorf("--heat-t %v: the heat kernel's width, but --weight is %v", g.heatT, g.weight)
	}
	return graph.Options{Neighbors: g.neighbors, Weight: g.weight, Metric: g.metric, Symmetry: g.symmetry, MinShared: g.minShared, HeatT: g.heatT, Search: g.search}, nil
}

// checkMetric refuses a --graph-metric that the data's kind has not:
// sparse samples are compared by cosine similarity only.
func (g *graphFlags) checkMetric(sparse bool) error {
	if sparse && g.metric != graph.AutoMetric && g.metric != graph.CosineMetric {
		return fmt.Errorf("--graph-metric %v: for dense samples; sparse samples are compared by cosine similarity (auto or cosine)", g.metric)
	}
	return nil
}

func (f *methodFlags) register(fs *flag.FlagSet, defaultIters int) {
	fs.TextVar(&f.method, "method", solver.NMF, "method: "+strings.Join(methodNames(nil), ", "))
	fs.Var(kValue{&f.k, &f.kAuto}, "k", "number of factors (clusters), 1 <= k <= min(samples, features); auto: the rank of --ranks that predicts hidden entries best (fit, cluster, topics; see manifactor rank)")
	fs.StringVar(&f.ranks, "ranks", "2-20", "with --k auto, the ranks to cross-validate, e.g. 2-30")
	f.registerSettings(fs, defaultIters, true)
}

// registerSettings registers every factorization flag but --method and
// --k, which the experiment protocol sets itself; withFile adds --graph,
// which the protocol cannot use (a graph file has the whole corpus's
// samples, not a drawn subset's).
func (f *methodFlags) registerSettings(fs *flag.FlagSet, defaultIters int, withFile bool) {
	f.fs = fs
	fs.TextVar(&f.lambda, "lambda", solver.Lambda{}, "graph weight of gnmf, lccf and lpnmf: auto (chosen from the data, see --lambdas) or a number >= 0 (0: the plain method); default: auto, or the papers' value under --formulation papers")
	fs.StringVar(&f.lambdas, "lambdas", "", "the weights --lambda auto chooses among, e.g. 1,10,100 (default 1,3,10,30,100,300,1000)")
	fs.TextVar(&f.candStart, "candidate-start", autolambda.DefaultStart, "where --lambda auto's candidate fits start: path (each weight from the previous weight's factors; the plain fit and the smallest weight from the run's start), same (every weight from the run's start, each then the fit its weight gives fixed) or auto (path for gnmf and lccf, same for the others)")
	fs.IntVar(&f.autoSample, "auto-sample", 0, "--lambda auto chooses on a seeded sample of N samples, then checks its weight against the plain method on the whole data (0: 10000, at least 10 a cluster, on data of ten times as many or more; -1: always on the whole data)")
	fs.IntVar(&f.screenIters, "screen-iters", 0, "with N > 0, each of --lambda auto's candidates runs at most N iterations for the choice and the kept one, if cut short, is refitted with --iters: auto's time bounded at about 8 N iterations plus one fit, its choice made on the shortened fits (0: every candidate runs to its stopping rule)")
	fs.TextVar(&f.formulation, "formulation", solver.ScaleInvariant, "graph term: invariant (lambda per unit of mean degree, factor scale fixed) or papers (lambda Tr(V^T L V) as written)")
	fs.BoolVar(&f.papers, "papers", false, "the papers' settings for the method: papers formulation and lambda, their start, assignment and iterations (other flags given override them)")
	fs.TextVar(&f.start, "start", solver.RandomStart, "first start: random, kmeans (from k-means' clusters), normalized (random, basis at unit length) or nndsvd")
	fs.TextVar(&f.assign, "assign", model.KMeansAssign, "cluster of a sample: kmeans (k-means on the rows of V) or argmax (its largest factor, paper 004)")
	fs.TextVar(&f.algorithm, "solver", solver.AutoAlgorithm, "how the objective is minimized: auto (cd for nmf, gnmf, nmf-kl and their -ncw forms, the fastest to a given objective; mu for the rest), mu (the papers' multiplicative updates), cd (coordinate descent) or minibatch (nmf, nmf-ncw, nmf-kl: online passes over batches of samples; an iteration is a pass)")
	fs.TextVar(&f.storage, "storage", storageChoice{auto: true}, "how sparse data is held in memory: both (X and X^T, 16 bytes a stored entry each), one (X^T alone: half the memory, X V formed by column ranges; nmf and gnmf gain) or auto (one only where both would pass --memory and one fits, said on stderr)")
	fs.IntVar(&f.batchSize, "batch-size", 0, fmt.Sprintf("samples a batch of --solver minibatch (0: %d)", solver.DefaultBatchSize))
	fs.IntVar(&f.iters, "iters", defaultIters, "maximum iterations per start")
	fs.IntVar(&f.minIters, "min-iters", 0, "iterations before the stopping rule may stop a start (at most --iters)")
	fs.Var(&f.tol, "tol", fmt.Sprintf("stopping threshold of --stop, below 1 (0: the default, %g; %g for --solver minibatch, whose iteration is a pass); off turns the rule off (with --pg-tol off, all --iters run)", solver.DefaultTol, solver.DefaultPassTol))
	fs.Var(&f.pgTol, "pg-tol", fmt.Sprintf("also stop once the relative KKT residual (the projected gradient over the gradient's data part, unit-free) falls below this, below 1 (0: the default, %g); off turns the rule off", solver.DefaultPGTol))
	fs.IntVar(&f.evaluate, "evaluate", 1, "compute the objective (and test the stopping rule) every N iterations; the KL methods pay a logarithm per non-zero for it")
	fs.TextVar(&f.stop, "stop", solver.RelativeDecrease, "stopping rule: relative (objective decrease) or meanfit (the reference code's running mean)")
	fs.IntVar(&f.restarts, "restarts", 1, "random starts; the best objective wins")
	fs.IntVar(&f.restartIters, "restart-iters", 0, "run each start this many iterations, then continue only the best (the reference code uses 30); 0 runs every start to the end")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed; the same seed gives the same result")
	fs.TextVar(&f.kernel, "kernel", solver.Linear, "kernel of cf and lccf: linear, poly or gaussian")
	fs.IntVar(&f.degree, "degree", 2, "degree of the polynomial kernel")
	fs.Float64Var(&f.coef0, "coef0", 0, "constant added inside the polynomial kernel")
	fs.Float64Var(&f.sigma, "sigma", 0, "Gaussian kernel width (0: the mean distance over a seeded sample)")
	fs.Float64Var(&f.kernelMemGB, "kernel-memory", float64(solver.DefaultKernelMemory)/(1<<30), "GiB an explicit n x n kernel may take")
	fs.Float64Var(&f.cgTol, "cg-tol", solver.DefaultCGTol, "relative residual of lpnmf's linear solves")
	fs.IntVar(&f.cgIters, "cg-iters", 1000, "iteration cap of lpnmf's linear solves (a solve that does not converge is an error)")
	fs.BoolVar(&f.extrapolate, "extrapolate", true, "cd of nmf, gnmf and their -ncw forms: extrapolate both factors past each iteration, undoing a step that would raise the objective (Ang and Gillis 2019); false for plain cd")
	f.graph.register(fs, withFile)
}

// set reports whether the flag named was given on the command line.
func set(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// threshold is a stopping threshold's flag: a number in [0, 1), 0 (or
// leaving it out) for the default as in the library, or "off", the
// library's negative value.
type threshold float64

func (t *threshold) String() string {
	if *t < 0 {
		return "off"
	}
	return strconv.FormatFloat(float64(*t), 'g', -1, 64)
}

func (t *threshold) Set(s string) error {
	if s == "off" {
		*t = -1
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0 && v < 1) {
		return fmt.Errorf("want a number in [0, 1) (0: the default) or off")
	}
	*t = threshold(v)
	return nil
}

// finite checks a float flag: finite and, unless zeroOK, positive, or
// not negative.
func finite(name string, v float64, zeroOK bool) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("--%s %v: must be a finite number", name, v)
	case v < 0 || (v == 0 && !zeroOK):
		want := "> 0"
		if zeroOK {
			want = ">= 0"
		}
		return fmt.Errorf("--%s %v: must be %s", name, v, want)
	}
	return nil
}

// dataKind is what options knows of the data: nothing yet (the check of
// the flags before the data is read), or its form.
type dataKind int

const (
	anyData dataKind = iota
	sparseData
	denseData
)

// kindOf returns the dataKind of data held sparse or not.
func kindOf(sparse bool) dataKind {
	if sparse {
		return sparseData
	}
	return denseData
}

// options checks every flag and returns the pipeline's options; of the
// data only its form (kind) counts here, for the graph's metric (the
// data's shape is checked by model.Fit).
func (f *methodFlags) options(threads int, kind dataKind) (model.Options, error) {
	// The papers' settings for data of unknown form are those of sparse
	// data; only the graph's metric depends on the form (below).
	sparse := kind != denseData
	var o model.Options
	if f.k < 1 && !f.kAuto {
		return o, fmt.Errorf("--k is required and must be at least 1 (got %d)", f.k)
	}
	if f.papers {
		o = model.PapersOptions(f.method, sparse)
	}
	given := func(name string) bool { return f.fs == nil || set(f.fs, name) }
	o.Method, o.K, o.Seed, o.Threads = f.method, f.k, f.seed, threads
	if !f.papers || given("formulation") {
		o.Formulation = f.formulation
	}
	if !f.papers || given("start") {
		o.Start = f.start
	}
	if f.start == solver.LabelsStart {
		return o, fmt.Errorf("--start labels: the command line has no labels to start from (kmeans starts from k-means' clusters)")
	}
	if !f.papers || given("assign") {
		o.Assign = f.assign
	}
	if !f.papers || given("lambda") {
		o.Lambda = f.lambda
	}
	if !f.papers || given("solver") {
		o.Solver.Algorithm = f.algorithm
	}
	if o.Solver.Algorithm == solver.CD && !f.method.HasCD() {
		return o, fmt.Errorf("--solver cd: %s has no coordinate-descent solver (it exists for %s)", f.method, cdMethodNames())
	}
	if o.Solver.Algorithm == solver.MiniBatch && !f.method.HasMiniBatch() {
		return o, fmt.Errorf("--solver minibatch: %s has no mini-batch solver (it exists for nmf, nmf-ncw and nmf-kl)", f.method)
	}
	switch {
	case f.batchSize < 0:
		return o, fmt.Errorf("--batch-size %d: want at least 1 (0: the default, %d)", f.batchSize, solver.DefaultBatchSize)
	case f.batchSize > 0 && o.Solver.Algorithm != solver.MiniBatch:
		return o, fmt.Errorf("--batch-size %d: for --solver minibatch, not %v", f.batchSize, o.Solver.Algorithm.Resolve(f.method))
	}
	o.Solver.BatchSize = f.batchSize
	if !f.storage.auto {
		o.Storage = f.storage.s
	}
	o.Solver.PlainCD = !f.extrapolate
	if err := f.checkRanges(); err != nil {
		return o, err
	}
	o.ScreenIter = f.screenIters
	o.AutoSample = f.autoSample
	o.CandidateStart = f.candStart
	var err error
	if o.Lambdas, err = f.candidates(o.Formulation); err != nil {
		return o, err
	}
	if !f.papers || given("iters") {
		o.Solver.MaxIter = f.iters
	}
	// The solver's meanings: 0 its default, a negative value off.
	o.Solver.MinIter, o.Solver.Tol, o.Solver.StopRule, o.Solver.Evaluate = f.minIters, float64(f.tol), f.stop, f.evaluate
	o.Solver.PGTol = float64(f.pgTol)
	o.Solver.Restarts, o.Solver.RestartIters = f.restarts, f.restartIters
	o.Solver.Kernel = solver.Kernel{Kind: f.kernel, Degree: f.degree, Coef0: f.coef0, Sigma: f.sigma}
	o.Solver.KernelMemory = int64(f.kernelMemGB * (1 << 30))
	o.Solver.CGTol, o.Solver.CGMaxIter = f.cgTol, f.cgIters
	g, err := f.graph.options()
	if err != nil {
		return o, err
	}
	if kind != anyData {
		if err := f.graph.checkMetric(sparse); err != nil {
			return o, err
		}
	}
	weight, metric := o.Graph.Weight, o.Graph.Metric
	o.Graph = g
	if f.papers && !given("weight") {
		o.Graph.Weight = weight
	}
	if f.papers && !given("graph-metric") {
		o.Graph.Metric = metric
	}
	return o, nil
}

// checkRanges refuses the numeric flags out of their ranges, by name.
func (f *methodFlags) checkRanges() error {
	switch {
	case f.iters < 1:
		return fmt.Errorf("--iters %d: must be at least 1", f.iters)
	case f.minIters < 0 || f.minIters > f.iters:
		return fmt.Errorf("--min-iters %d: must be between 0 and --iters %d", f.minIters, f.iters)
	case f.evaluate < 1:
		return fmt.Errorf("--evaluate %d: must be at least 1", f.evaluate)
	case f.restarts < 1:
		return fmt.Errorf("--restarts %d: must be at least 1", f.restarts)
	case f.restartIters < 0 || f.restartIters > f.iters:
		return fmt.Errorf("--restart-iters %d: must be between 0 and --iters %d", f.restartIters, f.iters)
	case f.degree < 1:
		return fmt.Errorf("--degree %d: must be at least 1", f.degree)
	case f.cgIters < 1:
		return fmt.Errorf("--cg-iters %d: must be at least 1", f.cgIters)
	case f.screenIters < 0:
		return fmt.Errorf("--screen-iters %d: must be at least 1, or 0 for no screening", f.screenIters)
	case f.autoSample < -1:
		return fmt.Errorf("--auto-sample %d: a sample size, 0 for the default or -1 for the whole data", f.autoSample)
	case f.autoSample > 0 && f.k > 0 && f.autoSample < 10*f.k:
		return fmt.Errorf("--auto-sample %d with --k %d: the sample needs at least 10 samples a cluster (%d)", f.autoSample, f.k, 10*f.k)
	}
	for _, c := range []struct {
		name   string
		v      float64
		zeroOK bool
	}{{"sigma", f.sigma, true}, {"kernel-memory", f.kernelMemGB, false}, {"cg-tol", f.cgTol, false}} {
		if err := finite(c.name, c.v, c.zeroOK); err != nil {
			return err
		}
	}
	if math.IsNaN(f.coef0) || math.IsInf(f.coef0, 0) {
		return fmt.Errorf("--coef0 %v: must be a finite number", f.coef0)
	}
	if f.kernelMemGB > 1<<20 || int64(f.kernelMemGB*(1<<30)) < 1 {
		return fmt.Errorf("--kernel-memory %v: want between a byte and a million GiB", f.kernelMemGB)
	}
	return nil
}

// candidates returns --lambdas, lambda auto's candidate weights (nil for
// the default ones), refusing it, and --auto-sample, where lambda is
// fixed under formulation.
func (f *methodFlags) candidates(formulation solver.Formulation) ([]float64, error) {
	// --lambdas and --auto-sample are lambda auto's: given where lambda
	// is fixed (a number, or the papers' value under their formulation)
	// they would be ignored.
	fixed := ""
	switch {
	case !f.lambda.IsAuto() && !f.lambda.IsDefault():
		fixed = fmt.Sprintf("--lambda is %v", f.lambda)
	case f.lambda.IsDefault() && formulation == solver.Papers:
		fixed = "the papers' formulation fixes lambda at the papers' value (--lambda auto chooses)"
	}
	if f.lambdas != "" && fixed != "" {
		return nil, fmt.Errorf("--lambdas %s: the candidates of --lambda auto, but %s", f.lambdas, fixed)
	}
	if f.autoSample != 0 && fixed != "" {
		return nil, fmt.Errorf("--auto-sample %d: where --lambda auto chooses, but %s", f.autoSample, fixed)
	}
	var lambdas []float64
	if f.lambdas != "" {
		if n := strings.Count(f.lambdas, ",") + 1; n > maxFitValues {
			return nil, fmt.Errorf("--lambdas: %d weights, each a fit; at most %d", n, maxFitValues)
		}
		for _, s := range strings.Split(f.lambdas, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("--lambdas: %q is not a finite number > 0", s)
			}
			lambdas = append(lambdas, v)
		}
	}
	return lambdas, nil
}

// sampleGraph reads the --graph file for the prepared data; nil without
// one.
func (g *graphFlags) sampleGraph(p *model.Prepared, stderr io.Writer) (*graph.Graph, error) {
	if g.file == "" {
		return nil, nil
	}
	n, _ := p.Data.Dims()
	return g.readGraph(n, stderr)
}

// readGraph reads --graph, a graph of n samples.
func (g *graphFlags) readGraph(n int, stderr io.Writer) (*graph.Graph, error) {
	gr, notes, err := graphfile.Read(g.file, n)
	if err != nil {
		return nil, err
	}
	if notes.Asymmetric > 0 && !g.symmetrize {
		return nil, fmt.Errorf("%s: %d pairs of samples have different weights in the two directions (a directed graph?); the regularizer needs a symmetric graph: pass --symmetrize to use W = max(W, W^T)", g.file, notes.Asymmetric)
	}
	if s := notes.String(); s != "" {
		fmt.Fprintf(stderr, "%s: %s\n", g.file, s)
	}
	return gr, nil
}

// fitSummary is summary.json and the --json output of fit and cluster.
type fitSummary struct {
	Method   string `json:"method"`
	K        int    `json:"k"`
	Samples  int    `json:"samples"`
	Features int    `json:"features"`
	NNZ      int    `json:"nnz"`
	// Weighting and Normalize are the preparation applied (model.Prepared's).
	Weighting string `json:"weighting,omitempty"`
	Normalize string `json:"normalize,omitempty"`
	Classes   []int  `json:"classes,omitempty"`
	// KAuto is how --k auto chose k, nil when --k was a number.
	KAuto *kAutoJSON `json:"k_auto,omitempty"`
	// Missing counts the unknown entries (--mask, --missing nan) the fit
	// left out.
	Missing     int                    `json:"missing,omitempty"`
	Formulation string                 `json:"formulation,omitempty"`
	Lambda      *float64               `json:"lambda,omitempty"`
	LambdaAuto  []autolambda.Candidate `json:"lambda_candidates,omitempty"`
	// AutoSample is lambda auto's choice on a sample (--auto-sample);
	// lambda_candidates are then the whole data's check of it.
	AutoSample *autolambda.Sample `json:"auto_sample,omitempty"`
	// CandidateStart is where auto's candidates started (path or same).
	CandidateStart string `json:"candidate_start,omitempty"`
	// Verdict is lambda auto's verdict on the graph: trusted, untrusted
	// or off-topic (autolambda.Verdict).
	Verdict     autolambda.Verdict `json:"graph_verdict,omitempty"`
	Neighbors   int                `json:"neighbors,omitempty"`
	Weight      string             `json:"weight,omitempty"`
	GraphPurity *float64           `json:"graph_purity,omitempty"`
	// Isolated counts the samples without an edge in the graph: the
	// graph term does not reach them (a heat kernel's tiny width, or a
	// --graph file, can leave most of them so).
	Isolated   *int   `json:"isolated,omitempty"`
	Kernel     string `json:"kernel,omitempty"`
	Assign     string `json:"assign"`
	Start      string `json:"start"`
	Iterations int    `json:"iterations"`
	Status     string `json:"status"`
	// ProjGrad is the final relative KKT residual (solver.Result.ProjGrad),
	// where the method measures it.
	ProjGrad     *float64 `json:"projected_gradient,omitempty"`
	Objective    float64  `json:"objective"`
	BestStart    int      `json:"best_start"`
	Seed         uint64   `json:"seed"`
	Seconds      float64  `json:"seconds"`
	GraphSeconds float64  `json:"graph_seconds,omitempty"`
	CG           *cgJSON  `json:"cg,omitempty"`
	BLAS         string   `json:"blas"`
	Kernels      string   `json:"kernels"`
	Threads      int      `json:"threads"`
	ClusterSizes []int    `json:"cluster_sizes"`
	Unassigned   int      `json:"unassigned"`
	Accuracy     *float64 `json:"accuracy,omitempty"`
	NMI          *float64 `json:"nmi,omitempty"`
	Labels       []int    `json:"labels,omitempty"`
	Files        []string `json:"files,omitempty"`
	// Skipped is what --skip-unreadable left out of the corpus.
	Skipped *skippedJSON `json:"skipped,omitempty"`
	// Assignments name each sample's cluster (--json; assignments.tsv
	// in fit's directory).
	Assignments []assignment `json:"assignments,omitempty"`
	// Mode is fit's: "in memory", or "streamed" from a parts directory
	// on disk, which Streamed describes.
	Mode string `json:"mode,omitempty"`
	// Storage is how sparse data was held in memory (model.Storage).
	Storage  string        `json:"storage,omitempty"`
	Streamed *streamedJSON `json:"streamed,omitempty"`
}

// cgJSON reports lpnmf's linear solves.
type cgJSON struct {
	Solves      int     `json:"solves"`
	Iterations  int     `json:"iterations"`
	MaxResidual float64 `json:"max_residual"`
	Clamped     int     `json:"clamped_negatives"`
}

// factorize runs the pipeline on prepared data with the flags' options and
// summarizes the result, scored against the labels when there are any.
//
// With consume the fit takes over the data's matrix (model.Options'
// ConsumeData): p.Data keeps its labels and names but no matrix.
func factorize(ctx context.Context, p *model.Prepared, mf *methodFlags, rt runtimeFlags, progress func(model.Progress), consume bool, stderr io.Writer) (*fitSummary, *model.Result, model.Options, error) {
	ds := p.Data
	opts, err := mf.options(rt.threads, kindOf(ds.Sparse != nil))
	if err != nil {
		return nil, nil, opts, err
	}
	opts.Progress = progress
	opts.ConsumeData = consume
	var kAuto *rank.Result
	if mf.kAuto {
		if kAuto, err = chooseK(ctx, ds, mf, opts, rt, stderr); err != nil {
			return nil, nil, opts, err
		}
		opts.K = kAuto.Chosen
	}
	if opts.SampleGraph, err = mf.graph.sampleGraph(p, stderr); err != nil {
		return nil, nil, opts, err
	}
	if err := rt.checkFitMemory(ds, &opts, mf.storage, stderr); err != nil {
		return nil, nil, opts, err
	}
	n, m := ds.Dims()
	nnz := ds.NNZ()
	storage := ""
	if ds.Sparse != nil {
		storage = opts.Storage.String()
	}
	if len(opts.Lambdas) == 1 && opts.Method.TakesGraph() {
		l := opts.Lambdas[0]
		fmt.Fprintf(stderr, "--lambdas %g: one weight: lambda auto chooses between the plain method and lambda %g (--lambda %g fixes the weight)\n", l, l, l)
	}
	if mf.autoSample > 0 && mf.autoSample >= n {
		return nil, nil, opts, fmt.Errorf("--auto-sample %d: %s has %d samples; the sample must be smaller (-1 chooses on the whole data)", mf.autoSample, ds.Source, n)
	}
	res, err := model.Fit(ctx, ds, opts)
	if err != nil {
		if res != nil && errors.Is(err, context.Canceled) {
			return nil, nil, opts, fmt.Errorf("canceled after %d iterations (objective %.6g): %w", res.Iterations, res.Final(), err)
		}
		return nil, nil, opts, err
	}
	sum := &fitSummary{Method: opts.Method.String(), K: opts.K, Samples: n, Features: m, NNZ: nnz,
		Weighting: p.Weighting.String(), Normalize: p.Normalize.String(),
		Assign: opts.Assign.String(), Start: opts.Start.String(), Seed: opts.Seed, Storage: storage}
	if h := ds.Missing; h != nil {
		sum.Missing = h.NNZ()
	}
	if kAuto != nil {
		sum.KAuto = &kAutoJSON{Ranks: mf.ranks, Rule: rankRule, Best: kAuto.Best, Curve: kAuto.Curve}
	}
	var g *graph.Graph // the graph the fit used, if any
	if opts.Method.TakesGraph() {
		sum.Formulation = opts.Formulation.String()
		sum.Lambda = &res.Lambda
		sum.LambdaAuto = res.Candidates
		sum.AutoSample = res.Sample
		if res.Verdict != autolambda.NoVerdict {
			sum.Verdict = res.Verdict
			sum.CandidateStart = opts.CandidateStart.Resolve(opts.Method).String()
		}
		if res.Graph != nil {
			sum.GraphSeconds = res.GraphTime.Seconds()
			if opts.SampleGraph == nil {
				sum.Neighbors, sum.Weight = opts.Graph.Neighbors, opts.Graph.Weight.String()
			}
			g = res.Graph
		}
	}
	if opts.Method.Concept() {
		sum.Kernel = opts.Solver.Kernel.Kind.String()
	}
	sum.Iterations, sum.Status, sum.Objective, sum.BestStart = res.Iterations, res.Status.String(), res.Final(), res.Start
	sum.Seconds = res.TotalTime.Seconds()
	if n := len(res.ProjGrad); n > 0 {
		sum.ProjGrad = &res.ProjGrad[n-1]
	}
	if res.CG.Solves > 0 {
		sum.CG = &cgJSON{res.CG.Solves, res.CG.Iterations, res.CG.MaxResidual, res.CG.Clamped}
	}
	sum.BLAS, sum.Kernels, sum.Threads = blas.Name(), kernels.Path(), rt.threadCount()
	score, err := model.Summarize(res.Labels, opts.K, ds.Labels, g)
	if err != nil {
		return nil, nil, opts, err
	}
	sum.ClusterSizes, sum.Unassigned, sum.Accuracy, sum.NMI = score.Sizes, score.Unassigned, score.Accuracy, score.NMI
	sum.Isolated, sum.GraphPurity = score.Isolated, score.GraphPurity
	return sum, res, opts, nil
}

// checkUsed refuses, for a command that runs one method, a flag given on
// the command line that the method and the other flags make no use of:
// silently ignored, `fit --method nmf --lambda 5` looked like a graph
// method's fit, and `--graph FILE` with nmf read the file for nothing.
// (experiment and sweep run several methods with one set of flags, each
// taking what applies to it, and do not call it.)
func (f *methodFlags) checkUsed() error {
	if f.fs == nil {
		return nil
	}
	m := f.method
	unused := func(names []string, why string) error {
		for _, name := range names {
			if set(f.fs, name) {
				return fmt.Errorf("--%s: %s", name, why)
			}
		}
		return nil
	}
	knn := []string{"neighbors", "weight", "graph-metric", "symmetry", "min-shared", "heat-t", "graph-search"}
	if !m.TakesGraph() {
		graphOnly := append([]string{"lambda", "lambdas", "screen-iters", "candidate-start", "auto-sample", "graph", "symmetrize"}, knn...)
		if err := unused(graphOnly, fmt.Sprintf("%s takes no graph (the graph methods: %s)", m, graphMethodNames())); err != nil {
			return err
		}
	}
	if f.graph.file != "" {
		if err := unused(knn, "the graph is --graph "+f.graph.file+", not a nearest-neighbour graph"); err != nil {
			return err
		}
		if err := unused([]string{"auto-sample"}, "with --graph "+f.graph.file+" lambda auto chooses on the whole data (a sample would lose most of the graph's edges)"); err != nil {
			return err
		}
	}
	if m.Concept() {
		if f.kernel != solver.Polynomial {
			if err := unused([]string{"degree", "coef0"}, fmt.Sprintf("a setting of the poly kernel, but --kernel is %v", f.kernel)); err != nil {
				return err
			}
		}
		if f.kernel != solver.Gaussian {
			if err := unused([]string{"sigma"}, fmt.Sprintf("a setting of the gaussian kernel, but --kernel is %v", f.kernel)); err != nil {
				return err
			}
		}
	} else if err := unused([]string{"degree", "coef0", "sigma", "kernel-memory"}, fmt.Sprintf("a setting of cf's and lccf's kernels; %s has none", m)); err != nil {
		return err
	}
	if m.Base() != solver.LPNMF {
		if err := unused([]string{"cg-tol", "cg-iters"}, fmt.Sprintf("a setting of lpnmf's linear solves; %s makes none", m)); err != nil {
			return err
		}
	}
	return nil
}

// parseMethod returns the method named name.
func parseMethod(name string) (solver.Method, error) {
	var m solver.Method
	err := m.UnmarshalText([]byte(name))
	return m, err
}

// methodNames lists the methods for which keep holds (every method when
// keep is nil).
func methodNames(keep func(solver.Method) bool) []string {
	var names []string
	for _, m := range solver.Methods() {
		if keep == nil || keep(m) {
			names = append(names, m.String())
		}
	}
	return names
}

// graphMethodNames lists the methods that fit a graph, comma-separated.
func graphMethodNames() string {
	return strings.Join(methodNames(solver.Method.TakesGraph), ", ")
}

// cdMethodNames lists the methods that have coordinate descent,
// comma-separated.
func cdMethodNames() string {
	return strings.Join(methodNames(solver.Method.HasCD), ", ")
}

// kValue is --k: a number of factors, or auto.
type kValue struct {
	k    *int
	auto *bool
}

func (v kValue) String() string {
	switch {
	case v.auto != nil && *v.auto:
		return "auto"
	case v.k == nil:
		return "0"
	}
	return strconv.Itoa(*v.k)
}

func (v kValue) Set(s string) error {
	if s == "auto" {
		*v.auto, *v.k = true, 0
		return nil
	}
	n, err := parseDecimal(s)
	switch {
	case err != nil && !decimal(s):
		return fmt.Errorf("%q is not a decimal integer or auto", s)
	case err != nil:
		return fmt.Errorf("%q is out of range", s)
	}
	*v.k, *v.auto = n, false
	return nil
}

// chooseK is --k auto: the rank of --ranks that rank.CrossValidate
// chooses on the prepared data, with the method's default graph weight
// where lambda is auto (the cross-validation needs a fixed one).
func chooseK(ctx context.Context, ds *dataset.Dataset, mf *methodFlags, opts model.Options, rt runtimeFlags, stderr io.Writer) (*rank.Result, error) {
	ks, err := parseList(mf.ranks)
	if err != nil {
		return nil, fmt.Errorf("--ranks: %w", err)
	}
	if len(ks) < 2 || ks[0] < 1 {
		return nil, fmt.Errorf("--ranks %s: want two or more ranks of at least 1", mf.ranks)
	}
	cv := opts
	if cv.Lambda.IsAuto() {
		cv.Lambda = solver.Lambda{}
	}
	ro := rank.Options{Fit: cv, Ks: ks}
	if err := ro.Validate(ds); err != nil {
		return nil, fmt.Errorf("--k auto: %w", err)
	}
	if err := rt.checkMemory(ds.Source, memory.Rank(ds, cv, ks[len(ks)-1], rank.DefaultTestShare, rank.DefaultReplicates, rt.threadCount())); err != nil {
		return nil, fmt.Errorf("--k auto: %w", err)
	}
	if !rt.quiet {
		ro.Progress = rankProgress(stderr, "--k auto", len(ks)*rank.DefaultReplicates)
	}
	res, err := rank.CrossValidate(ctx, ds, ro)
	if !rt.quiet {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return nil, fmt.Errorf("--k auto: %w", err)
	}
	if !rt.quiet {
		fmt.Fprintf(stderr, "--k auto: k = %d of %s (%s; lowest at k = %d)\n", res.Chosen, mf.ranks, rankRule, res.Best)
	}
	return res, nil
}

// kAutoJSON is --k auto's cross-validation in the summary.
type kAutoJSON struct {
	Ranks string       `json:"ranks"`
	Rule  string       `json:"rule"`
	Best  int          `json:"best"`
	Curve []rank.Point `json:"curve"`
}
