package model

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/model/autolambda"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
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
	Candidates []autolambda.Candidate
	// Verdict is Auto's verdict on the graph (see Options.Lambda);
	// NoVerdict when lambda was fixed.
	Verdict autolambda.Verdict
	// Sample is Auto's choice on a sample of the data (Options.AutoSample),
	// nil when Auto chose on the whole data. Where the sample kept a
	// weight and did not find its graph off topic, Candidates and Verdict
	// are the whole data's two fits (the plain method, that weight) and
	// the rule's verdict on them; otherwise Candidates is nil, the result
	// the plain fit, and Verdict the sample's.
	Sample *autolambda.Sample
	// Graph is the sample graph the graph methods used, nil when none.
	Graph *graph.Graph
	// Centers holds, under KMeansAssign, the centres of the k-means
	// clusters of V's rows that Labels were assigned against (k x k): new
	// samples' rows of V go to the nearest. Nil under ArgMaxAssign.
	Centers *mat.Dense
	// DataTime is the time spent on the solver's copies of the data (the
	// two orientations in frequency order, see solver.NewSparseData).
	DataTime time.Duration
	// GraphTime is the time spent building Graph.
	GraphTime time.Duration
	// TotalTime is the wall time of the whole of Fit (the graph, every
	// candidate, the assignment); the embedded solver.Result's Runtime is
	// the kept factorization's alone.
	TotalTime time.Duration
}

// collectBeforeCopy is the number of stored entries from which Fit
// collects garbage before the solver copies the data: below it the copies
// are small and the protocol's many small fits would pay for nothing.
const collectBeforeCopy = 1 << 22

// Fit runs the pipeline on a prepared data set (see Prepare): the sample
// graph when the method takes one (the nearest-neighbour graph of
// opts.Graph, or opts.SampleGraph), the start, the factorization (under
// Auto once per candidate weight, from the same start or along the
// weights: Options.CandidateStart), and the
// assignment. ds is not modified, unless opts.ConsumeData lets the
// solver's copy take over its sparse matrix. Errors name the source. On
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
	if auto {
		s, err := opts.autoSample(n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ds.Source, err)
		}
		if s > 0 {
			return fitSampled(ctx, ds, opts, s, begin)
		}
	}
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
		// slack raised the peak of GNMF on large corpora (measured:
		// docs/PERFORMANCE.md).
		runtime.GC()
	}
	// The k-means start reads the data set's matrix, which the solver's
	// copy may take over (ConsumeData).
	start := opts.Start
	var startLabels []int
	switch opts.Start {
	case solver.KMeansStart:
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
		start, startLabels = solver.LabelsStart, r.Labels
	}
	// Auto scores its candidates' clusterings in the data (Cohesion),
	// from the solver's copy, which holds the data set's matrix in
	// another order; the samples' lengths come from the matrix as it is.
	var norms []float64
	if auto && ds.Sparse != nil {
		norms = rowNorms(ds.Sparse, opts.Threads)
	}
	// The solver's copies come after the graph, so that the search's
	// working set and its garbage never sit beside them.
	var d *solver.Data
	dataStart := time.Now()
	if ds.Sparse != nil {
		if ds.Sparse.NNZ() >= collectBeforeCopy && res.Graph == nil {
			// The solver transposes the data into fresh memory (a
			// gigabyte at 70 million entries), and what the loader left
			// behind (a .mat file's column-major arrays) is garbage by
			// now. Collecting first lets the transpose reuse that
			// memory: fresh pages cost a fault each, and the first copy
			// of a large corpus took markedly longer into fresh memory
			// than after a collection (measured: docs/PERFORMANCE.md).
			// After a graph, the collection above has done this.
			runtime.GC()
		}
		switch {
		case opts.Storage == OneOrientation:
			samples := ds.Sparse
			if !opts.ConsumeData {
				samples = samples.Clone()
			}
			if d, err = solver.NewCompactData(samples); err == nil && opts.ConsumeData {
				ds.Sparse = nil
			}
		case opts.ConsumeData:
			if d, err = solver.NewSparseDataInPlace(ds.Sparse); err == nil {
				ds.Sparse = nil
			}
		default:
			d, err = solver.NewSparseData(ds.Sparse)
		}
	} else {
		d, err = solver.NewDenseData(ds.Dense)
	}
	if err == nil && ds.Missing != nil {
		// The unknown entries are left out of the objective.
		d, err = d.Hide(ds.Missing)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Source, err)
	}
	res.DataTime = time.Since(dataStart)
	so := solver.Options{Control: opts.Solver}
	so.Method, so.K, so.Formulation, so.Seed, so.Threads = opts.Method, opts.K, opts.Formulation, opts.Seed, opts.Threads
	so.Graph = res.Graph
	so.Start, so.InitLabels = start, startLabels
	// Under Auto with a screening budget, every candidate first runs at
	// most ScreenIter iterations; the kept one, if that cut it short, is
	// refitted below.
	full := so.MaxIter
	if full == 0 {
		full = solver.DefaultMaxIter
	}
	screen := so
	if auto && opts.ScreenIter > 0 && opts.ScreenIter < full {
		screen.MaxIter = opts.ScreenIter
		screen.MinIter = min(screen.MinIter, screen.MaxIter)
		screen.RestartIters = min(screen.RestartIters, screen.MaxIter)
	}
	var cands []autolambda.Candidate
	// The fits Auto may keep (see autolambda.Choose), so that the others' factors
	// can go as soon as they are scored.
	var byCut, byCohesion *fitted
	// fit runs candidate c, of weight lambda, under o, reporting its
	// iterations; its errors name the source.
	fit := func(o solver.Options, c int, lambda float64) (*fitted, error) {
		o.Lambda = solver.Fixed(lambda)
		o.Progress = func(start, iter int, obj float64) {
			report(Progress{Stage: FitStage, Candidate: c + 1, Candidates: len(lambdas), Lambda: lambda, Start: start, Iter: iter, Objective: obj})
		}
		f, err := fitOne(ctx, ds, d, o, opts)
		if err != nil && ctx.Err() == nil {
			err = fmt.Errorf("%s: %w", ds.Source, err)
		}
		return f, err
	}
	// stopped returns the factorization so far (cancelled, or a linear
	// solve that did not converge), if any, with the candidates done
	// before it.
	stopped := func(f *fitted, lambda float64, err error) (*Result, error) {
		if f == nil {
			return nil, err
		}
		res.Result, res.Lambda, res.Candidates = f.res, lambda, cands
		res.TotalTime = time.Since(begin)
		return res, err
	}
	path := auto && opts.CandidateStart.Resolve(opts.Method) == autolambda.PathStart
	// next is where the next candidate starts under PathStart: the
	// factors the previous positive weight ended with (cf and lccf keep W
	// in U's place), only they, so that the rest of that fit can go.
	var next *solver.Result
	large := d.NNZ() >= collectBeforeCopy
	for c, lambda := range lambdas {
		o := screen
		o.Init = next
		if c > 0 && large {
			// The previous candidate's working set (the solver's buffers,
			// k-means' replicates) is garbage now; without a collection
			// here the short fits along the path stacked it up, to a
			// higher peak than one long fit after another (measured:
			// docs/PERFORMANCE.md).
			runtime.GC()
		}
		f, err := fit(o, c, lambda)
		if err != nil {
			return stopped(f, lambda, err)
		}
		f.init = o.Init
		if path && (lambda > 0 || opts.fromPlain) {
			next = f.res
		}
		if !auto {
			res.Result, res.Lambda, res.Centers = f.res, lambda, f.centers
			res.TotalTime = time.Since(begin)
			return res, nil
		}
		report(Progress{Stage: AssignStage, Candidate: c + 1, Candidates: len(lambdas), Lambda: lambda})
		cand := autolambda.Candidate{Lambda: lambda, Cohesion: dataCohesion(ds, d, norms, f.res.Labels, opts.Threads), Iterations: f.res.Iterations, Objective: f.res.Final(), Labels: f.res.Labels,
			Screened: screen.MaxIter < full && f.res.Status == solver.IterationLimit, Path: f.init != nil}
		if res.Graph != nil {
			cand.Cut, cand.ChanceCut, cand.RelativeCut = graphCut(res.Graph, f.res.Labels)
		}
		cand.Largest, cand.SizeEntropy = clusterSizes(f.res.Labels, opts.K)
		if len(cands) > 0 {
			cand.Collapsed = autolambda.Collapsed(cand, cands[0], opts.K)
		}
		f.cand = len(cands)
		cands = append(cands, cand)
		// Ties keep the smaller weight, the earlier candidate; the plain
		// method comes first, so that each candidate's standing against
		// it is known here (autolambda.Choose).
		forCut, forCohesion := autolambda.Standing(cands, f.cand)
		if forCut && (byCut == nil || cand.RelativeCut < cands[byCut.cand].RelativeCut) {
			byCut = f
		}
		if forCohesion && (byCohesion == nil || cand.Cohesion > cands[byCohesion.cand].Cohesion) {
			byCohesion = f
		}
	}
	kept, verdict := autolambda.Choose(cands)
	cands[kept].Kept = true
	f := byCohesion
	if verdict == autolambda.GraphTrusted {
		f = byCut
	}
	if f.cand != kept {
		panic("model: Auto's kept candidate is not one of the fits it kept")
	}
	if cands[kept].Screened {
		// The same start and weight with the full budget: the fit that
		// --lambda with this weight gives (under PathStart, from the
		// previous candidate's screened fit, where this one started).
		full := so
		full.Init = f.init
		if f, err = fit(full, kept, cands[kept].Lambda); err != nil {
			res.Verdict = verdict
			return stopped(f, cands[kept].Lambda, err)
		}
	}
	res.Result, res.Lambda, res.Candidates, res.Verdict, res.Centers = f.res, cands[kept].Lambda, cands, verdict, f.centers
	res.TotalTime = time.Since(begin)
	return res, nil
}

// sampleStream is mixed into Options.Seed for Auto's sample.
const sampleStream = 0x73616d706c65 // "sample"

// fitSampled is Fit under Auto with its choice made on a sample of s of
// ds's samples (Options.AutoSample, autoSample): Auto on the sample, then
// on the whole data the plain method and, if the sample kept a weight
// without finding its graph off topic, that weight (from the plain fit's
// factors under PathStart), the rule choosing between them.
func fitSampled(ctx context.Context, ds *dataset.Dataset, opts Options, s int, begin time.Time) (*Result, error) {
	p := opts.Graph.Neighbors
	if p == 0 {
		p = graph.DefaultNeighbors
	}
	idx, err := autoSample(ctx, ds, s, p, opts.Seed^sampleStream, opts.Threads)
	if err != nil {
		return nil, err
	}
	// The sample loses the features none of its samples uses; its values
	// stay the whole data's, weighted once.
	sub, err := Prepare(ds.SelectSamples(idx), PrepareOptions{Weighting: NoWeighting, Normalize: NoNormalization})
	if err != nil {
		return nil, err
	}
	so := opts
	so.AutoSample, so.ConsumeData = -1, false
	if opts.Progress != nil {
		so.Progress = func(pr Progress) {
			pr.Sample = true
			opts.Progress(pr)
		}
	}
	sres, err := Fit(ctx, sub.Data, so)
	if err != nil {
		return nil, fmt.Errorf("lambda auto on a sample of %d: %w", s, err)
	}
	choice := &autolambda.Sample{Samples: s, Lambda: sres.Lambda, Verdict: sres.Verdict, Candidates: sres.Candidates}
	// The sample's data and fits are garbage now.
	sres, sub = nil, nil
	wo := opts
	wo.AutoSample = -1
	// Where the sample's graph does not follow its plain clusters, the
	// whole data's graph is not built for a weight that only refined
	// them there: on generated corpora of authors it was off topic on the
	// whole data too, and its neighbour search alone cost about as much
	// as the plain fit (docs/REPRODUCTION.md, "Lambda auto on large
	// corpora").
	if choice.Verdict == autolambda.GraphOffTopic || choice.Lambda == 0 {
		wo.Lambda = solver.Fixed(0)
	} else {
		wo.Lambdas, wo.fromPlain = []float64{choice.Lambda}, true
	}
	res, err := Fit(ctx, ds, wo)
	if res != nil {
		res.Sample = choice
		if res.Candidates == nil {
			res.Verdict = choice.Verdict
		}
		res.TotalTime = time.Since(begin)
	}
	return res, err
}

// graphCut returns the share of g's edge weight that labels cut, the
// share random labels with the same cluster volumes would cut, and their
// ratio (1 when the latter is 0: a single cluster).
func graphCut(g *graph.Graph, labels []int) (cut, chance, relative float64) {
	cut = 1 - g.Agreement(labels)
	// Clusters in the order of their first sample, so that the sum below
	// runs in one order.
	cluster, k := clusterIndex(labels)
	vol := make([]float64, k)
	var total float64
	for i, d := range g.Degree {
		vol[cluster[i]] += d
		total += d
	}
	chance = 1
	for _, v := range vol {
		chance -= (v / total) * (v / total)
	}
	if total == 0 || !(chance > 0) {
		return cut, 0, 1
	}
	return cut, chance, cut / chance
}

// fitted is one factorization with its assignment.
type fitted struct {
	res     *solver.Result
	centers *mat.Dense // k-means's centres of V's rows, nil under ArgMaxAssign
	cand    int
	init    *solver.Result // the start of an Auto candidate along the weights
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
		return &fitted{res: res, centers: km.Centers}, nil
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
	g, err := buildGraph(ctx, ds, opts.Graph, opts.Seed, opts.Threads)
	if err != nil {
		return nil, err
	}
	for _, d := range g.Degree {
		if d > 0 {
			return g, nil
		}
	}
	// Every weight underflowed (a heat kernel far narrower than the
	// distances): the graph method would run as the plain one while
	// reporting a graph term.
	return nil, fmt.Errorf("the %d-NN graph has no edge of positive weight (%v weights, heat width %v); the graph term would be zero", opts.Graph.Neighbors, opts.Graph.Weight, opts.Graph.HeatT)
}

// buildGraph returns the p-nearest-neighbour graph of ds's samples as o
// says, with o's Seed and Threads replaced by seed and threads: cosine
// neighbours for sparse samples, Euclidean for dense ones.
func buildGraph(ctx context.Context, ds *dataset.Dataset, o graph.Options, seed uint64, threads int) (*graph.Graph, error) {
	o.Seed, o.Threads = seed, threads
	if ds.Sparse != nil {
		return graph.Sparse(ctx, ds.Sparse, o)
	}
	return graph.Dense(ctx, ds.Dense, o)
}

// graphMetric returns how buildGraph compares ds's samples under o: by
// cosine similarity when they are sparse, else o.Metric resolved for
// their number of features (graph.Metric.ForDense).
func graphMetric(ds *dataset.Dataset, o graph.Options) graph.Metric {
	if ds.Sparse != nil {
		return graph.CosineMetric
	}
	_, m := ds.Dims()
	return o.Metric.ForDense(m)
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
func cohesion(ds *dataset.Dataset, labels []int) float64 {
	n, m := ds.Dims()
	cluster, k := clusterIndex(labels)
	if a := ds.Sparse; a != nil {
		norms := rowNorms(a, 0)
		return sparseCohesion(n, m, k, func(sums []float64) {
			for i := 0; i < n; i++ {
				if norms[i] == 0 {
					continue
				}
				s := sums[cluster[i]*m:]
				for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
					s[a.Ind[p]] += a.Val[p] / norms[i]
				}
			}
		})
	}
	sums := make([]float64, k*m)
	count := make([]float64, k)
	all := make([]float64, m)
	var sq float64
	raw := ds.Dense.RawMatrix()
	for i := 0; i < n; i++ {
		c := cluster[i]
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
		between += asm.Dot(s, s) / count[c]
	}
	mean := asm.Dot(all, all) / float64(n)
	total := sq - mean
	if !(total > 0) {
		return 0
	}
	return (between - mean) / total
}

// dataCohesion is cohesion(ds, labels) for Fit, which may have handed
// ds's sparse matrix to the solver's copy d (Options.ConsumeData): sparse
// samples are read from d, feature by feature, with norms their lengths
// (rowNorms of the matrix as ds had it). Each sum over a cluster's samples
// adds them in the same order as Cohesion does, so the two agree bit for
// bit.
func dataCohesion(ds *dataset.Dataset, d *solver.Data, norms []float64, labels []int, threads int) float64 {
	if norms == nil {
		return cohesion(ds, labels)
	}
	n, m := d.Dims()
	cluster, k := clusterIndex(labels)
	return sparseCohesion(n, m, k, func(sums []float64) {
		// Feature j's sums, sums[c*m+j], are its own: the features run
		// in parallel (on one goroutine, on large corpora, they were
		// most of what Auto did not spread over the threads).
		d.EachFeature(threads, func(j int, samples []int, values []float64) {
			for q, i := range samples {
				if norms[i] != 0 {
					sums[cluster[i]*m+j] += values[q] / norms[i]
				}
			}
		})
	})
}

// sparseCohesion returns sum_c |s_c| / n for the k cluster sums s_c of
// length m that add fills in (zeroed, one after another).
func sparseCohesion(n, m, k int, add func(sums []float64)) float64 {
	sums := make([]float64, k*m)
	add(sums)
	var total float64
	for c := 0; c < k; c++ {
		s := sums[c*m : (c+1)*m]
		total += math.Sqrt(asm.Dot(s, s))
	}
	return total / float64(n)
}

// clusterSizes returns the share of the samples in the largest cluster
// of labels and the entropy of the cluster sizes over ln k, k the number
// of clusters asked for (so that clusters left empty count against it);
// 0 for k = 1.
func clusterSizes(labels []int, k int) (largest, entropy float64) {
	cluster, c := clusterIndex(labels)
	size := make([]float64, c)
	for _, q := range cluster {
		size[q]++
	}
	n := float64(len(labels))
	for _, s := range size {
		largest = max(largest, s/n)
		if s > 0 {
			entropy -= s / n * math.Log(s/n)
		}
	}
	if k < 2 || n == 0 {
		return largest, 0
	}
	return largest, entropy / math.Log(float64(k))
}

// clusterIndex numbers the distinct labels 0..k-1 in order of first
// appearance and returns each sample's number and k.
func clusterIndex(labels []int) (cluster []int, k int) {
	index := map[int]int{}
	cluster = make([]int, len(labels))
	for i, l := range labels {
		c, ok := index[l]
		if !ok {
			c = len(index)
			index[l] = c
		}
		cluster[i] = c
	}
	return cluster, len(index)
}

// rowNorms returns the Euclidean length of each row of a, using up to
// threads goroutines.
func rowNorms(a *sparse.CSR, threads int) []float64 {
	norms := make([]float64, a.Rows)
	parallel.For(a.Rows, threads, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := a.Val[a.Indptr[i]:a.Indptr[i+1]]
			norms[i] = math.Sqrt(asm.Dot(row, row))
		}
	})
	return norms
}
