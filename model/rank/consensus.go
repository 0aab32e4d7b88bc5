package rank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
)

// DefaultRuns and DefaultSample are what ConsensusOptions' zero
// values stand for: R's NMF package runs 30 fits a rank, and the
// consensus of 2,000 samples takes about 50 MB (13 bytes a pair).
const (
	DefaultRuns   = 30
	DefaultSample = 2000
)

// ConsensusOptions configures Consensus. The zero value with Ks set is
// the command line's default.
type ConsensusOptions struct {
	// Fit is the factorization each run fits: any method, with its
	// Formulation, Lambda (fixed or the method's default; Auto cannot be
	// used), Graph, Solver, Seed and Threads. Its K and Auto fields are
	// not used, nor its Solver's Restarts (each run is one start).
	Fit model.Options
	// Ks are the numbers of clusters to try, at least 2 and below the
	// sample's smaller dimension.
	Ks []int
	// Runs is the number of fits from different random starts at each
	// k, 2 to 1000; 0 means DefaultRuns.
	Runs int
	// Sample is the most samples the consensus is measured on, at least
	// 10: a larger data set is subsampled (seeded) so that the consensus
	// matrix, Sample^2 entries, fits in memory. 0 means DefaultSample.
	Sample int
	// Progress, when set, is called after each rank with its index in Ks
	// and its cophenetic correlation, one call at a time.
	Progress func(i, k int, cophenetic float64)
}

// ConsensusPoint is the stability of one k over the runs.
type ConsensusPoint struct {
	K int `json:"k"`
	// Cophenetic is the cophenetic correlation of the consensus matrix:
	// the correlation between 1 - C_ij and the height at which the
	// average-linkage tree of 1 - C joins samples i and j (1 when every
	// run clusters the samples alike).
	Cophenetic float64 `json:"cophenetic"`
	// Dispersion is the mean of 4 (C_ij - 1/2)^2 over all pairs: 1 when
	// each pair is always or never together, lower as the runs
	// disagree (Kim and Park 2007).
	Dispersion float64 `json:"dispersion"`
	// Iterations sums the runs' iterations.
	Iterations int `json:"iterations"`
}

// ConsensusResult is the outcome of Consensus.
type ConsensusResult struct {
	Curve []ConsensusPoint `json:"curve"`
	// Chosen is the k of the highest cophenetic correlation, Brunet et
	// al.'s rank, the last before the consensus begins to break up; of
	// ks within 0.001 of it, the one of the highest dispersion, then the
	// smallest.
	Chosen int `json:"k"`
	// Samples is the number of samples the consensus was measured on.
	Samples int `json:"samples"`
}

// Consensus measures how stable each k's clustering is over restarts
// (Brunet et al. 2004): it fits each k Runs times from random starts
// on a seeded sample of at most Sample samples, assigns each sample to
// its largest factor, and summarizes the consensus matrix C (C_ij, the
// share of runs that put samples i and j together) by its cophenetic
// correlation and dispersion. It answers a clustering user's question,
// how many groups the data fall into reproducibly, rather than the
// model's rank (CrossValidate). ds must be prepared (model.Prepare);
// the graph methods' graph is built on the sample. Runs go in
// parallel; the result does not depend on Threads.
func Consensus(ctx context.Context, ds *dataset.Dataset, opts ConsensusOptions) (*ConsensusResult, error) {
	o, sub, err := opts.check(ds)
	if err != nil {
		return nil, err
	}
	s, _ := sub.Dims()
	threads := parallel.Threads(o.Fit.Threads)
	so := solver.Options{Method: o.Fit.Method, Formulation: o.Fit.Formulation, Lambda: o.Fit.Lambda, Threads: 1, Control: o.Fit.Solver}
	so.Restarts = 1
	d, err := fitInputs(ctx, sub, &so, o.Fit, threads) // sub is a copy
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Source, err)
	}
	res := &ConsensusResult{Samples: s}
	together := make([]uint16, s*(s-1)/2) // upper triangle, row by row
	for i, k := range o.Ks {
		clear(together)
		iters, err := o.runs(ctx, d, so, k, threads, together)
		if err != nil {
			return nil, fmt.Errorf("%s: k = %d: %w", ds.Source, k, err)
		}
		coph, disp := consensusStats(together, s, o.Runs)
		res.Curve = append(res.Curve, ConsensusPoint{K: k, Cophenetic: coph, Dispersion: disp, Iterations: iters})
		if o.Progress != nil {
			o.Progress(i, k, coph)
		}
	}
	res.Chosen = chooseConsensus(res.Curve)
	return res, nil
}

// copheneticTie is how close two cophenetic correlations are taken to be
// equal. The coefficient saturates at 1 whenever the consensus is a
// clean hierarchy, which a k below the data's groups often gives too
// (every run merging the same groups the same way); the dispersion
// still tells those apart.
const copheneticTie = 1e-3

// chooseConsensus returns the k of the highest cophenetic correlation;
// of those within copheneticTie of it, the one of the highest
// dispersion, then the smallest.
func chooseConsensus(curve []ConsensusPoint) int {
	top := math.Inf(-1)
	for _, p := range curve {
		top = max(top, p.Cophenetic)
	}
	best := -1
	for i, p := range curve {
		if p.Cophenetic >= top-copheneticTie && (best < 0 || p.Dispersion > curve[best].Dispersion) {
			best = i
		}
	}
	return curve[best].K
}

// runs fits k Runs times, threads fits at once, and adds to
// together each pair of samples that a fit puts in one cluster. It
// returns the fits' iterations.
func (o ConsensusOptions) runs(ctx context.Context, d *solver.Data, so solver.Options, k, threads int, together []uint16) (int, error) {
	s, _ := d.Dims()
	labels := make([][]int, o.Runs)
	iters := make([]int, o.Runs)
	errs := make([]error, o.Runs)
	// One run a goroutine at a time: each run's result depends on its
	// seed alone.
	parallel.For(o.Runs, threads, 1, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			fo := so
			fo.K, fo.Seed = k, o.Fit.Seed+uint64(r)
			res, err := solver.Fit(ctx, d, fo)
			if err != nil {
				errs[r] = err
				continue
			}
			labels[r], iters[r] = model.LargestFactor(res.V), res.Iterations
		}
	})
	for _, err := range errs {
		if err != nil {
			return 0, err // the first run's, not one for every run that a cancel stopped
		}
	}
	total := 0
	members := make([][]int, k)
	for r, l := range labels {
		total += iters[r]
		for c := range members {
			members[c] = members[c][:0]
		}
		for j, c := range l {
			members[c] = append(members[c], j)
		}
		for _, g := range members {
			for a, i := range g {
				row := pairIndex(i, i+1, s)
				for _, j := range g[a+1:] {
					together[row+j-i-1]++
				}
			}
		}
	}
	return total, nil
}

// pairIndex is the position of the pair i < j in an upper triangle of s
// samples stored row by row.
func pairIndex(i, j, s int) int {
	return i*(2*s-i-1)/2 + j - i - 1
}

// consensusStats returns the cophenetic correlation and the dispersion
// of the consensus matrix C_ij = together_ij / runs.
func consensusStats(together []uint16, s, runs int) (coph, disp float64) {
	r := float64(runs)
	var sum float64
	for _, t := range together {
		c := float64(t) / r
		sum += 4 * (c - 0.5) * (c - 0.5)
	}
	disp = (2*sum + float64(s)) / float64(s*s) // both halves and the diagonal, C_ii = 1
	dist := make([]float64, len(together))
	for q, t := range together {
		dist[q] = 1 - float64(t)/r
	}
	return cophenetic(dist, s), disp
}

// cophenetic returns the correlation between the dissimilarities dist
// (an upper triangle of s points, row by row) and the heights at which
// the average-linkage tree of dist joins each pair: 1 when both are
// constant. The tree is built by the nearest-neighbour chain, O(s^2)
// time and one s x s work array, since average linkage is reducible.
func cophenetic(dist []float64, s int) float64 {
	d := make([]float64, s*s)
	for i := 0; i < s; i++ {
		for j := i + 1; j < s; j++ {
			x := dist[pairIndex(i, j, s)]
			d[i*s+j], d[j*s+i] = x, x
		}
	}
	size := make([]int, s)
	next, tail := make([]int, s), make([]int, s) // members as linked lists
	active := make([]bool, s)
	for i := range size {
		size[i], next[i], tail[i], active[i] = 1, -1, i, true
	}
	// Pairs' (dissimilarity, height) sums, centred at 1/2 against
	// cancellation.
	var sx, sy, sxx, syy, sxy float64
	chain := make([]int, 0, s)
	for merges := 0; merges < s-1; merges++ {
		if len(chain) == 0 {
			for i := range active {
				if active[i] {
					chain = append(chain, i)
					break
				}
			}
		}
		var a, b int
		for {
			a = chain[len(chain)-1]
			b = -1
			bd := math.Inf(1)
			if len(chain) > 1 {
				b = chain[len(chain)-2]
				bd = d[a*s+b]
			}
			prev := b
			for c := 0; c < s; c++ {
				if active[c] && c != a && d[a*s+c] < bd {
					b, bd = c, d[a*s+c]
				}
			}
			if b == prev {
				break // mutual nearest neighbours
			}
			chain = append(chain, b)
		}
		chain = chain[:len(chain)-2]
		h := d[a*s+b]
		for i := a; i >= 0; i = next[i] {
			for j := b; j >= 0; j = next[j] {
				x, y := dist[pairIndex(min(i, j), max(i, j), s)]-0.5, h-0.5
				sx, sy, sxx, syy, sxy = sx+x, sy+y, sxx+x*x, syy+y*y, sxy+x*y
			}
		}
		// b joins a: a's row becomes the size-weighted mean of both.
		na, nb := float64(size[a]), float64(size[b])
		for c := 0; c < s; c++ {
			if active[c] && c != a && c != b {
				v := (na*d[a*s+c] + nb*d[b*s+c]) / (na + nb)
				d[a*s+c], d[c*s+a] = v, v
			}
		}
		active[b] = false
		size[a] += size[b]
		next[tail[a]], tail[a] = b, tail[b]
	}
	np := float64(s) * float64(s-1) / 2
	vx, vy := sxx-sx*sx/np, syy-sy*sy/np
	if vx <= 0 || vy <= 0 {
		if vx <= 0 && vy <= 0 {
			return 1
		}
		return 0
	}
	return (sxy - sx*sy/np) / math.Sqrt(vx*vy)
}

// check validates opts against ds, fills the defaults and returns the
// samples to measure: ds, or a seeded subsample of it, with the features
// none of them uses dropped.
func (opts ConsensusOptions) check(ds *dataset.Dataset) (ConsensusOptions, *dataset.Dataset, error) {
	if ds == nil {
		return opts, nil, errors.New("rank: nil data set")
	}
	if err := ds.Validate(); err != nil {
		return opts, nil, err
	}
	if opts.Runs == 0 {
		opts.Runs = DefaultRuns
	}
	if opts.Sample == 0 {
		opts.Sample = DefaultSample
	}
	switch {
	case opts.Runs < 2 || opts.Runs > 1000:
		return opts, nil, fmt.Errorf("rank: %d runs: want 2 to 1000", opts.Runs)
	case opts.Sample < 10:
		return opts, nil, fmt.Errorf("rank: sample of %d: want at least 10 samples", opts.Sample)
	case len(opts.Ks) == 0:
		return opts, nil, errors.New("rank: no ranks to try")
	case opts.Fit.Lambda.IsAuto():
		return opts, nil, errors.New("rank: lambda auto chooses the graph's weight by fitting; measure the consensus at a fixed lambda (or the method's default)")
	case ds.Missing != nil:
		return opts, nil, errors.New("rank: the consensus needs every entry; the data has unknown entries (use the held-out criterion)")
	}
	n, _ := ds.Dims()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if n > opts.Sample {
		rng := rand.New(rand.NewPCG(opts.Fit.Seed, 0x636f6e73656e7375)) // "consensu"
		rng.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		idx = idx[:opts.Sample]
		sort.Ints(idx)
	}
	sub := ds.SelectSamples(idx)
	sub.DropZeroFeatures()
	s, m := sub.Dims()
	ks := append([]int(nil), opts.Ks...)
	sort.Ints(ks)
	for i, k := range ks {
		if i > 0 && k == ks[i-1] {
			return opts, nil, fmt.Errorf("rank: rank %d given twice", k)
		}
		if k < 2 || k >= min(s, m) {
			return opts, nil, fmt.Errorf("rank: %d clusters out of range: the sample (%d samples x %d features) allows 2 to %d", k, s, m, min(s, m)-1)
		}
	}
	opts.Ks = ks
	return opts, sub, nil
}
