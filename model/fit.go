package model

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/kernels"
	"github.com/manifactor/manifactor/solver"
)

// Result is the outcome of Fit: the kept factorization (its Labels are
// the assignment Options.Assign asked for) and what the pipeline decided.
type Result struct {
	*solver.Result
	// Lambda is the graph term's weight of the kept factorization (0 for
	// a method without a graph).
	Lambda float64
	// Candidates reports Auto's fits in the order of their weight, the
	// plain method (weight 0) first; nil when lambda was fixed.
	Candidates []Candidate
	// Trusted reports Auto's verdict on the graph (see Options.Lambda).
	Trusted bool
	// Graph is the sample graph the graph methods used, nil when none.
	Graph *graph.Graph
	// DataTime is the time spent on the solver's copies of the data (the
	// two orientations in frequency order, see solver.NewSparseData).
	DataTime time.Duration
	// GraphTime is the time spent building Graph.
	GraphTime time.Duration
	// Runtime is the wall time of the whole of Fit.
	Runtime time.Duration
}

// Candidate is one of Auto's fits.
type Candidate struct {
	Lambda float64 `json:"lambda"`
	// Cohesion is the Cohesion of this fit's clustering in the data.
	Cohesion float64 `json:"cohesion"`
	// Cut is the share of the graph's edge weight between samples in
	// different clusters.
	Cut        float64 `json:"cut"`
	Iterations int     `json:"iterations"`
	Objective  float64 `json:"objective"`
	Kept       bool    `json:"kept"`
}

// collectBeforeCopy is the number of stored entries from which Fit
// collects garbage before the solver copies the data: below it the copies
// are small and the protocol's many small fits would pay for nothing.
const collectBeforeCopy = 1 << 22

// Fit runs the pipeline on a prepared data set (see Prepare): the sample
// graph when the method takes one (the nearest-neighbour graph of
// opts.Graph, or opts.SampleGraph), the start, the factorization (under
// Auto once per candidate weight, all from the same start), and the
// assignment. ds is not modified. Errors name the source. On
// cancellation the result so far, if any, comes back with the context's
// error.
func Fit(ctx context.Context, ds *dataset.Dataset, opts Options) (*Result, error) {
	begin := time.Now()
	if err := opts.Check(); err != nil {
		return nil, err
	}
	if ds == nil {
		return nil, fmt.Errorf("model: nil data set")
	}
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	var err error
	n, m := ds.Dims()
	if opts.K > min(m, n) {
		return nil, fmt.Errorf("%s: k = %d is more than the data allows: at most min(features, samples) = min(%d, %d)", ds.Source, opts.K, m, n)
	}
	lambdas := opts.lambdas(ds.Sparse != nil)
	auto := len(lambdas) > 1
	res := &Result{}
	report := func(p Progress) {
		if opts.Progress != nil {
			opts.Progress(p)
		}
	}
	if opts.Method.TakesGraph() && slices.Max(lambdas) > 0 {
		report(Progress{Stage: GraphStage, Candidate: 1, Candidates: len(lambdas)})
		t0 := time.Now()
		gopts := opts
		if opts.Progress != nil {
			gopts.Graph.Progress = func(done, total int) {
				report(Progress{Stage: GraphStage, Candidate: 1, Candidates: len(lambdas), Done: done, Total: total})
			}
		}
		if res.Graph, err = sampleGraph(ctx, ds, gopts); err != nil {
			return nil, fmt.Errorf("%s: %w", ds.Source, err)
		}
		res.GraphTime = time.Since(t0)
		// The search's working set (about 16 bytes a stored entry) is
		// garbage now and the solver's two copies of the data come next:
		// collecting here lets them reuse it. Without it the collector's
		// slack put the peak of GNMF on 500,000 generated documents at
		// 6.26 GB (bench/RESULTS.md).
		runtime.GC()
	}
	// The solver's copies come after the graph, so that the search's
	// working set and its garbage never sit beside them.
	var d *solver.Data
	dataStart := time.Now()
	if ds.Sparse != nil {
		if ds.Sparse.NNZ() >= collectBeforeCopy && res.Graph == nil {
			// The solver copies the data twice (a gigabyte each at 70
			// million entries), and what the loader left behind (a .mat
			// file's column-major arrays) is garbage by now. Collecting
			// first lets the copies reuse that memory: fresh pages cost a
			// fault each, 2.7 ms a megabyte on the virtual machine of
			// bench/RESULTS.md, where the first copy of 500,000 generated
			// documents took 4.5 s into fresh memory and 1.0-1.7 s after
			// a collection. After a graph, the collection above has
			// done this.
			runtime.GC()
		}
		d, err = solver.NewSparseData(ds.Sparse)
	} else {
		d, err = solver.NewDenseData(ds.Dense)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Source, err)
	}
	res.DataTime = time.Since(dataStart)
	so := opts.Solver
	so.Method, so.K, so.Formulation, so.Seed, so.Threads = opts.Method, opts.K, opts.Formulation, opts.Seed, opts.Threads
	so.Graph = res.Graph
	switch opts.Start {
	case KMeansStart:
		report(Progress{Stage: StartStage, Candidate: 1, Candidates: len(lambdas)})
		km := cluster.KMeansOptions{K: opts.K, Seed: opts.Seed ^ kmeansStartStream, Threads: opts.Threads}
		var r *cluster.KMeansResult
		if ds.Sparse != nil {
			r, err = cluster.KMeansSparse(ctx, ds.Sparse, km)
		} else {
			r, err = cluster.KMeans(ctx, ds.Dense, km)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: k-means start: %w", ds.Source, err)
		}
		so.Start, so.InitLabels = solver.LabelsStart, r.Labels
	case NormalizedStart:
		so.Start = solver.NormalizedStart
	case NNDSVDStart:
		so.Start = solver.NNDSVDStart
	}
	var cands []Candidate
	// The candidates Auto may keep: the one cutting least, the one cutting
	// least among those at least as cohesive as the plain method's (the
	// first candidate), and the most cohesive.
	var byCut, byAdmissibleCut, byCohesion *fitted
	for c, lambda := range lambdas {
		so.Lambda = solver.Fixed(lambda)
		so.Progress = func(start, iter int, obj float64) {
			report(Progress{Stage: FitStage, Candidate: c + 1, Candidates: len(lambdas), Lambda: lambda, Start: start, Iter: iter, Objective: obj})
		}
		f, err := fitOne(ctx, ds, d, so, opts)
		if err != nil {
			if ctx.Err() == nil {
				err = fmt.Errorf("%s: %w", ds.Source, err)
			}
			if f == nil {
				return nil, err
			}
			// The factorization so far (cancelled, or a linear solve that
			// did not converge), with the candidates done before it.
			res.Result, res.Lambda, res.Candidates = f.res, lambda, cands
			res.Runtime = time.Since(begin)
			return res, err
		}
		if !auto {
			res.Result, res.Lambda = f.res, lambda
			res.Runtime = time.Since(begin)
			return res, nil
		}
		report(Progress{Stage: AssignStage, Candidate: c + 1, Candidates: len(lambdas), Lambda: lambda})
		cand := Candidate{Lambda: lambda, Cohesion: Cohesion(ds, f.res.Labels), Iterations: f.res.Iterations, Objective: f.res.Final()}
		if res.Graph != nil {
			cand.Cut = 1 - res.Graph.Agreement(f.res.Labels)
		}
		f.cand = len(cands)
		cands = append(cands, cand)
		// Ties keep the smaller weight, the earlier candidate.
		if byCut == nil || cand.Cut < cands[byCut.cand].Cut {
			byCut = f
		}
		if cand.Cohesion >= cands[0].Cohesion && (byAdmissibleCut == nil || cand.Cut < cands[byAdmissibleCut.cand].Cut) {
			byAdmissibleCut = f
		}
		if byCohesion == nil || cand.Cohesion > cands[byCohesion.cand].Cohesion {
			byCohesion = f
		}
	}
	res.Trusted = cands[middle(cands)].Cohesion >= cands[0].Cohesion
	kept := autoChoice(cands, res.Trusted, byCut, byAdmissibleCut, byCohesion)
	cands[kept.cand].Kept = true
	res.Result, res.Lambda, res.Candidates = kept.res, cands[kept.cand].Lambda, cands
	res.Runtime = time.Since(begin)
	return res, nil
}

// autoChoice is Auto's rule (see Options.Lambda). The graph is trusted
// when the middle weight leaves a clustering at least as cohesive in the
// data as the plain method's. Then the candidates as cohesive as the plain
// method's are admissible, and the one whose clustering cuts the least
// graph weight is kept, unless another cuts at most half as much: the
// data's cohesion is a weak signal that favours splitting large classes,
// and a clustering that halves the disagreement with a trusted graph is
// the stronger evidence. Untrusted, the most cohesive clustering is kept.
func autoChoice(c []Candidate, trusted bool, byCut, byAdmissibleCut, byCohesion *fitted) *fitted {
	if !trusted {
		return byCohesion
	}
	if c[byCut.cand].Cut <= c[byAdmissibleCut.cand].Cut/2 {
		return byCut
	}
	return byAdmissibleCut
}

// middle returns the index of the candidate whose weight is nearest the
// geometric middle of the positive candidates' range (30 for
// DefaultLambdas): the clustering Auto compares with the plain method's.
func middle(c []Candidate) int {
	lo, hi := c[1].Lambda, c[len(c)-1].Lambda
	mid := math.Sqrt(lo * hi)
	best := 1
	for i := 2; i < len(c); i++ {
		if math.Abs(math.Log(c[i].Lambda/mid)) < math.Abs(math.Log(c[best].Lambda/mid)) {
			best = i
		}
	}
	return best
}

// fitted is one factorization with its assignment.
type fitted struct {
	res  *solver.Result
	cand int
}

// fitOne runs the solver and the assignment.
func fitOne(ctx context.Context, ds *dataset.Dataset, d *solver.Data, so solver.Options, opts Options) (*fitted, error) {
	res, err := solver.Fit(ctx, d, so)
	if err != nil {
		if res != nil {
			return &fitted{res: res}, err
		}
		return nil, err
	}
	if opts.Assign == KMeansAssign {
		km, err := cluster.KMeans(ctx, res.V, cluster.KMeansOptions{K: opts.K, Seed: opts.Seed ^ assignStream, Threads: opts.Threads})
		if err != nil {
			// The factorization stands; its labels stay the arg max.
			return &fitted{res: res}, fmt.Errorf("assignment: %w", err)
		}
		res.Labels = km.Labels
	}
	return &fitted{res: res}, nil
}

// sampleGraph returns the caller's graph or builds the nearest-neighbour
// graph of the samples.
func sampleGraph(ctx context.Context, ds *dataset.Dataset, opts Options) (*graph.Graph, error) {
	if opts.SampleGraph != nil {
		n, _ := ds.Dims()
		if err := opts.SampleGraph.Check(n); err != nil {
			return nil, err
		}
		return opts.SampleGraph, nil
	}
	return BuildGraph(ctx, ds, opts.Graph, opts.Seed, opts.Threads)
}

// BuildGraph returns the p-nearest-neighbour graph of ds's samples as o
// says, with o's Seed and Threads replaced by seed and threads: cosine
// neighbours for sparse samples, Euclidean for dense ones.
func BuildGraph(ctx context.Context, ds *dataset.Dataset, o graph.Options, seed uint64, threads int) (*graph.Graph, error) {
	o.Seed, o.Threads = seed, threads
	if ds.Sparse != nil {
		return graph.Sparse(ctx, ds.Sparse, o)
	}
	return graph.Dense(ctx, ds.Dense, o)
}

// GraphRecall returns the share of the exact p nearest neighbours of
// queries samples drawn with seed that g, built by BuildGraph from ds with
// o, joins to them (graph.SparseRecall, graph.DenseRecall): how much an
// approximate search lost.
func GraphRecall(ctx context.Context, ds *dataset.Dataset, g *graph.Graph, o graph.Options, seed uint64, threads, queries int) (float64, error) {
	o.Seed, o.Threads = seed, threads
	if ds.Sparse != nil {
		return graph.SparseRecall(ctx, ds.Sparse, g, o, queries)
	}
	return graph.DenseRecall(ctx, ds.Dense, g, o, queries)
}

// Cohesion measures how tight the clusters of labels are in the data, in
// the geometry the sample graph uses (label -1 counts as a cluster of its
// own). For sparse samples, compared by cosine, it is the mean cosine of
// the samples to their cluster's mean direction, sum_c |sum_{i in c}
// x_i / |x_i|| / n: the objective of spherical k-means (Dhillon and Modha
// 2001), 1 when every cluster's samples point one way. For dense samples,
// compared by Euclidean distance, it is the share of the variance between
// the clusters, 1 - within / total sums of squares: 0 for one cluster, 1
// when every cluster is a point. It is what Auto compares clusterings by
// in the data.
func Cohesion(ds *dataset.Dataset, labels []int) float64 {
	n, m := ds.Dims()
	index := map[int]int{}
	for _, l := range labels {
		if _, ok := index[l]; !ok {
			index[l] = len(index)
		}
	}
	k := len(index)
	sums := make([]float64, k*m)
	if a := ds.Sparse; a != nil {
		for i := 0; i < n; i++ {
			row := a.Val[a.Indptr[i]:a.Indptr[i+1]]
			norm := math.Sqrt(kernels.Dot(row, row))
			if norm == 0 {
				continue
			}
			s := sums[index[labels[i]]*m:]
			for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
				s[a.Ind[p]] += a.Val[p] / norm
			}
		}
		var total float64
		for c := 0; c < k; c++ {
			s := sums[c*m : (c+1)*m]
			total += math.Sqrt(kernels.Dot(s, s))
		}
		return total / float64(n)
	}
	count := make([]float64, k)
	all := make([]float64, m)
	var sq float64
	raw := ds.Dense.RawMatrix()
	for i := 0; i < n; i++ {
		c := index[labels[i]]
		count[c]++
		s := sums[c*m : (c+1)*m]
		for j, x := range raw.Data[i*raw.Stride : i*raw.Stride+m] {
			s[j] += x
			all[j] += x
			sq += x * x
		}
	}
	var between float64
	for c := 0; c < k; c++ {
		s := sums[c*m : (c+1)*m]
		between += kernels.Dot(s, s) / count[c]
	}
	mean := kernels.Dot(all, all) / float64(n)
	total := sq - mean
	if !(total > 0) {
		return 0
	}
	return (between - mean) / total
}
