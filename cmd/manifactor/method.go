package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/kernels"
	"github.com/manifactor/manifactor/solver"
)

// methodFlags are the factorization options of fit, cluster, bench and demo.
type methodFlags struct {
	method       string
	k            int
	iters        int
	minIters     int
	tol          float64
	stop         string
	restarts     int
	restartIters int
	seed         uint64
	assign       string
	kernelMemGB  float64
	graph        graphFlags

	kernel string
	degree int
	coef0  float64
	sigma  float64

	cgTol    float64
	cgIters  int
	init     string
	evaluate int
}

// graphFlags are the sample-graph options of the graph-regularized methods
// and of the graph sub-command.
type graphFlags struct {
	lambda     float64
	neighbors  int
	weight     string
	heatT      float64
	file       string
	symmetrize bool
}

func (g *graphFlags) register(fs *flag.FlagSet, withLambda bool) {
	if withLambda {
		fs.Float64Var(&g.lambda, "lambda", -1, "graph regularization weight (default: the papers': gnmf 10 on sparse text, 100 on dense images; lccf and lpnmf 100)")
		fs.StringVar(&g.file, "graph", "", "use this n x n Matrix Market graph (e.g. hyperlinks) instead of a nearest-neighbour graph")
		fs.BoolVar(&g.symmetrize, "symmetrize", false, "accept an asymmetric (directed) --graph by taking W = max(W, W^T)")
	}
	fs.IntVar(&g.neighbors, "neighbors", graph.DefaultNeighbors, "p, nearest neighbours per sample")
	fs.StringVar(&g.weight, "weight", "", "edge weights: binary, heat or cosine (default: binary, cosine for lccf)")
	fs.Float64Var(&g.heatT, "heat-t", 0, "heat kernel width t (default: mean distance over a seeded sample)")
}

func (f *methodFlags) register(fs *flag.FlagSet, defaultIters int) {
	fs.StringVar(&f.method, "method", "nmf", "method: "+strings.Join(methodNames(), ", "))
	fs.IntVar(&f.k, "k", 0, "number of factors (clusters), 1 <= k <= min(samples, features)")
	fs.IntVar(&f.iters, "iters", defaultIters, "maximum iterations per start")
	fs.IntVar(&f.minIters, "min-iters", 0, "iterations before the stopping rule may stop a start")
	fs.Float64Var(&f.tol, "tol", solver.DefaultTol, "stopping threshold; 0 or negative runs all --iters")
	fs.IntVar(&f.evaluate, "evaluate", 1, "compute the objective (and test the stopping rule) every N iterations; the KL methods pay a logarithm per non-zero for it")
	fs.StringVar(&f.stop, "stop", "relative", "stopping rule: relative (objective decrease) or meanfit (the reference code's running mean)")
	fs.IntVar(&f.restarts, "restarts", 1, "random starts; the best objective wins")
	fs.IntVar(&f.restartIters, "restart-iters", 0, "run each start this many iterations, then continue only the best (the reference code uses 30); 0 runs every start to the end")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed; the same seed gives the same result")
	fs.StringVar(&f.assign, "assign", "argmax", "cluster assignment from V: argmax (paper 004) or kmeans (the reference code)")
	fs.StringVar(&f.init, "init", "random", "first start: random, kmeans (k-means on the samples: U from the centroids; the reference code's start for the KL methods) or nndsvd")
	fs.StringVar(&f.kernel, "kernel", "linear", "kernel of cf and lccf: linear, poly or gaussian")
	fs.IntVar(&f.degree, "degree", 2, "degree of the polynomial kernel")
	fs.Float64Var(&f.coef0, "coef0", 0, "constant added inside the polynomial kernel")
	fs.Float64Var(&f.sigma, "sigma", 0, "Gaussian kernel width (default: mean distance over a seeded sample)")
	fs.Float64Var(&f.kernelMemGB, "kernel-memory", float64(solver.DefaultKernelMemory)/(1<<30), "GiB an explicit n x n kernel may take")
	fs.Float64Var(&f.cgTol, "cg-tol", 1e-10, "relative residual of lpnmf's linear solves")
	fs.IntVar(&f.cgIters, "cg-iters", 1000, "iteration cap of lpnmf's linear solves (a solve that does not converge is an error)")
	f.graph.register(fs, true)
}

func methodNames() []string {
	var out []string
	for _, m := range solver.Methods {
		out = append(out, m, m+"-ncw")
	}
	return out
}

// options checks the flags and returns the solver options without the
// graph, which needs the data.
func (f *methodFlags) options(threads int) (solver.Options, error) {
	if f.k < 1 {
		return solver.Options{}, fmt.Errorf("--k is required and must be at least 1 (got %d)", f.k)
	}
	if f.iters < 1 {
		return solver.Options{}, fmt.Errorf("--iters %d: must be at least 1", f.iters)
	}
	if f.restarts < 1 {
		return solver.Options{}, fmt.Errorf("--restarts %d: must be at least 1", f.restarts)
	}
	if f.minIters < 0 || f.restartIters < 0 || f.evaluate < 1 {
		return solver.Options{}, fmt.Errorf("--min-iters and --restart-iters must not be negative, --evaluate at least 1")
	}
	valid := false
	for _, m := range methodNames() {
		valid = valid || m == f.method
	}
	if !valid {
		return solver.Options{}, fmt.Errorf("--method %q: unknown method (known: %s)", f.method, strings.Join(methodNames(), ", "))
	}
	switch f.init {
	case "random", "kmeans", "nndsvd":
	default:
		return solver.Options{}, fmt.Errorf("--init %q: want random, kmeans or nndsvd", f.init)
	}
	if f.assign != "argmax" && f.assign != "kmeans" {
		return solver.Options{}, fmt.Errorf("--assign %q: want argmax or kmeans", f.assign)
	}
	var stop solver.StopRule
	switch f.stop {
	case "relative":
	case "meanfit":
		stop = solver.MeanFit
	default:
		return solver.Options{}, fmt.Errorf("--stop %q: want relative or meanfit", f.stop)
	}
	kind, err := solver.ParseKernel(f.kernel)
	if err != nil {
		return solver.Options{}, fmt.Errorf("--kernel: %w", err)
	}
	if f.degree < 1 || f.sigma < 0 || f.kernelMemGB <= 0 {
		return solver.Options{}, fmt.Errorf("--degree must be at least 1, --sigma not negative, --kernel-memory positive")
	}
	if f.graph.lambda < 0 && f.graph.lambda != -1 {
		return solver.Options{}, fmt.Errorf("--lambda %v: must not be negative", f.graph.lambda)
	}
	if f.graph.neighbors < 1 {
		return solver.Options{}, fmt.Errorf("--neighbors %d: must be at least 1", f.graph.neighbors)
	}
	if !(f.cgTol > 0) || f.cgIters < 1 {
		return solver.Options{}, fmt.Errorf("--cg-tol must be positive and --cg-iters at least 1")
	}
	if f.graph.heatT < 0 {
		return solver.Options{}, fmt.Errorf("--heat-t %v: must not be negative", f.graph.heatT)
	}
	tol := f.tol
	if tol <= 0 {
		tol = -1 // an explicit --tol 0 means "never stop early"
	}
	return solver.Options{
		Method: f.method, K: f.k, MaxIter: f.iters, MinIter: f.minIters, Tol: tol, StopRule: stop,
		Restarts: f.restarts, RestartIters: f.restartIters, Seed: f.seed, Threads: threads, Evaluate: f.evaluate,
		Kernel:       solver.Kernel{Kind: kind, Degree: f.degree, Coef0: f.coef0, Sigma: f.sigma},
		KernelMemory: int64(f.kernelMemGB * (1 << 30)),
		CGTol:        f.cgTol, CGMaxIter: f.cgIters,
		InitMethod: map[string]string{"random": solver.InitRandom, "nndsvd": solver.InitNNDSVD, "kmeans": solver.InitLabels}[f.init],
	}, nil
}

// defaults fills lambda and the weighting with the papers' choices where
// the user gave none.
func (f *methodFlags) defaults(sparse bool) {
	base, _ := strings.CutSuffix(f.method, "-ncw")
	if f.graph.lambda == -1 {
		switch {
		case base == "gnmf" && sparse:
			f.graph.lambda = 10
		default:
			f.graph.lambda = 100
		}
	}
	if f.graph.weight == "" {
		f.graph.weight = "binary"
		if base == "lccf" {
			f.graph.weight = "cosine"
		}
	}
}

// buildGraph makes the sample graph of a prepared data set: the user's
// file, or the p-nearest-neighbour graph (cosine for sparse rows, Euclidean
// for dense ones).
func (g *graphFlags) buildGraph(ctx context.Context, p *prepared, seed uint64, threads int, stderr io.Writer) (*graph.Graph, error) {
	n, _ := p.ds.Dims()
	if g.file != "" {
		gr, notes, err := graph.Read(g.file, n)
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
	w, err := graph.ParseWeight(g.weight)
	if err != nil {
		return nil, fmt.Errorf("--weight: %w", err)
	}
	o := graph.Options{Neighbors: g.neighbors, Weight: w, HeatT: g.heatT, Seed: seed, Threads: threads}
	if p.ds.Sparse != nil {
		return graph.Sparse(ctx, p.ds.Sparse, o)
	}
	return graph.Dense(ctx, p.ds.Dense, o)
}

// fitSummary is summary.json and the --json output of fit and cluster.
type fitSummary struct {
	Method       string   `json:"method"`
	K            int      `json:"k"`
	Samples      int      `json:"samples"`
	Features     int      `json:"features"`
	NNZ          int      `json:"nnz"`
	Classes      []int    `json:"classes,omitempty"`
	Lambda       *float64 `json:"lambda,omitempty"`
	Neighbors    int      `json:"neighbors,omitempty"`
	Weight       string   `json:"weight,omitempty"`
	Kernel       string   `json:"kernel,omitempty"`
	Assign       string   `json:"assign"`
	Init         string   `json:"init"`
	Iterations   int      `json:"iterations"`
	Status       string   `json:"status"`
	Objective    float64  `json:"objective"`
	Start        int      `json:"start"`
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
}

// cgJSON reports lpnmf's linear solves.
type cgJSON struct {
	Solves      int     `json:"solves"`
	Iterations  int     `json:"iterations"`
	MaxResidual float64 `json:"max_residual"`
	Clamped     int     `json:"clamped_negatives"`
}

// factorize builds the graph when the method needs one, runs the solver,
// assigns clusters, and scores them against the labels when there are any.
func factorize(ctx context.Context, p *prepared, mf *methodFlags, rt runtimeFlags, progress func(int, int, float64), stderr io.Writer) (*fitSummary, *solver.Result, error) {
	opts, err := mf.options(rt.threads)
	if err != nil {
		return nil, nil, err
	}
	opts.Progress = progress
	mf.defaults(p.ds.Sparse != nil)
	d, err := p.solverData()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.ds.Source, err)
	}
	sum := &fitSummary{Method: mf.method, K: mf.k, Assign: mf.assign, Init: mf.init, Seed: mf.seed, Classes: p.classes}
	if solver.TakesGraph(mf.method) {
		opts.Lambda = mf.graph.lambda
		sum.Lambda = &opts.Lambda
		if opts.Lambda > 0 {
			t0 := time.Now()
			if opts.Graph, err = mf.graph.buildGraph(ctx, p, mf.seed, rt.threads, stderr); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", p.ds.Source, err)
			}
			sum.GraphSeconds = time.Since(t0).Seconds()
			if mf.graph.file == "" {
				sum.Neighbors, sum.Weight = mf.graph.neighbors, mf.graph.weight
			}
		}
	}
	if strings.HasPrefix(mf.method, "cf") || strings.HasPrefix(mf.method, "lccf") {
		sum.Kernel = mf.kernel
	}
	if mf.init == "kmeans" {
		// k-means on the prepared samples, with the default replicates:
		// one replicate's k-means++ seeding misses clusters too often.
		km := cluster.KMeansOptions{K: mf.k, Seed: mf.seed, Threads: rt.threads}
		var r *cluster.KMeansResult
		if p.ds.Sparse != nil {
			r, err = cluster.KMeansSparse(ctx, p.ds.Sparse, km)
		} else {
			r, err = cluster.KMeans(ctx, p.ds.Dense, km)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("--init kmeans: %w", err)
		}
		opts.InitLabels = r.Labels
	}
	m, n := d.Dims()
	res, err := solver.Fit(ctx, d, opts)
	if err != nil {
		if res != nil && errors.Is(err, context.Canceled) {
			return nil, nil, fmt.Errorf("canceled after %d iterations (objective %.6g): %w", res.Iterations, res.Final(), err)
		}
		return nil, nil, fmt.Errorf("%s: %w", p.ds.Source, err)
	}
	labels := res.Labels
	if mf.assign == "kmeans" {
		km, err := cluster.KMeans(ctx, res.V, cluster.KMeansOptions{K: mf.k, Seed: mf.seed, Threads: rt.threads})
		if err != nil {
			return nil, nil, err
		}
		labels = km.Labels
		res.Labels = labels
	}
	sum.Samples, sum.Features, sum.NNZ = n, m, d.NNZ()
	sum.Iterations, sum.Status, sum.Objective, sum.Start = res.Iterations, res.Status.String(), res.Final(), res.Start
	sum.Seconds = res.Runtime.Seconds()
	if res.CG.Solves > 0 {
		sum.CG = &cgJSON{res.CG.Solves, res.CG.Iterations, res.CG.MaxResidual, res.CG.Clamped}
	}
	sum.BLAS, sum.Kernels, sum.Threads = blas.Name(), kernels.Path(), rt.threadCount()
	sum.ClusterSizes = clusterSizes(labels, mf.k)
	for _, l := range labels {
		if l < 0 {
			sum.Unassigned++
		}
	}
	if p.ds.Labels != nil {
		acc, _, err := cluster.Accuracy(p.ds.Labels, labels)
		if err != nil {
			return nil, nil, err
		}
		nmi, err := cluster.NMI(p.ds.Labels, labels)
		if err != nil {
			return nil, nil, err
		}
		sum.Accuracy, sum.NMI = &acc, &nmi
	}
	return sum, res, nil
}
