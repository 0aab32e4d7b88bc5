package dist

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/internal/nmfstep"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/model/autolambda"
	"github.com/manifactor/manifactor/solver"
)

// Job is a distributed fit from a corpus on disk to each rank's rows of
// the factors: what the command line's fit --distributed runs, for a Go
// program started by mpirun (or for RunLocal's goroutines). Every rank
// runs RunJob with the same Job.
type Job struct {
	// Path is the corpus: a parts directory (dataset.WriteParts; each
	// rank reads its own samples), an uncompressed Matrix Market file of
	// one sample per row (each rank reads a byte range of it), or any
	// file dataset.Load reads (every rank reads it whole).
	Path string
	// Load and Prepare say how the samples are read and prepared, as
	// dataset.Load and model.Prepare read and prepare them in one
	// process; the preparation's statistics (the idf, the lengths) are
	// the whole corpus's, pooled over the ranks.
	Load    dataset.LoadOptions
	Prepare model.PrepareOptions
	// Options are the fit's: Method NMF, GNMF (with a fixed Lambda > 0)
	// or NMFKL; K, Seed and Threads; for GNMF Formulation, Graph (the
	// ranks build the graph among themselves, graph.Sparse's exact
	// search) or SampleGraph (a graph of all the samples, on every
	// rank); Solver's MaxIter, Tol (its relative-decrease rule: the
	// projected-gradient rule is not applied, and PGTol may only be 0 or
	// negative), Algorithm (coordinate descent for NMF where the data
	// have enough blocks of rows for the grid, else the multiplicative
	// updates) and PlainCD. Other settings are not available distributed
	// and are an error.
	Options model.Options
	// GridRows is the number of rows of the grid of ranks; 0 lets
	// NewGrid choose.
	GridRows int
	// ReadGraph, when set, returns GNMF's graph of the n samples (read
	// from a file, say), which every rank then holds whole, where
	// Options.SampleGraph is not set and the corpus's size is not known
	// before it is read.
	ReadGraph func(n int) (*graph.Graph, error)
}

// JobResult is one rank's part of a distributed fit.
type JobResult struct {
	// Fit holds the rank's rows of U and V and the objective's trace.
	Fit *NMFResult
	// Grid is the grid of ranks, on the prepared features.
	Grid Grid
	// CD reports that the coordinate-descent half-steps ran (else the
	// multiplicative updates).
	CD bool
	// Prepared is the rank's samples as prepared (its Data the rank's
	// sample block).
	Prepared *model.Prepared
	// Features names U's rows in the grid's feature order (the data's,
	// unless the grid has several rows or CD ran: BalanceShard's); nil
	// where the data names none.
	Features []string
	// NNZ counts the corpus's stored entries; Notes are what the reader
	// decided on its own (dataset.Dataset.Notes) where this rank read
	// the corpus whole.
	NNZ   int
	Notes []string
	// ReadTime is the reading and preparing of the rank's samples,
	// GraphTime the graph's (0 without one), FitTime the factorization.
	ReadTime, GraphTime, FitTime time.Duration
	// Words and Formula are the most values any rank moved per iteration,
	// counted and by the formula (NMFResult.MaxWords).
	Words, Formula int
}

// check refuses the options a distributed fit does not take.
func (job *Job) check() error {
	o := job.Options
	switch o.Method {
	case solver.NMF, solver.NMFKL:
		if o.Lambda != (solver.Lambda{}) || o.SampleGraph != nil {
			return fmt.Errorf("dist: %v takes no graph", o.Method)
		}
	case solver.GNMF:
		if !(o.Lambda.Value() > 0 && !o.Lambda.IsAuto() && !o.Lambda.IsDefault()) {
			return fmt.Errorf("dist: gnmf needs a fixed weight > 0 (lambda %v; lambda auto is not available distributed)", o.Lambda)
		}
	default:
		return fmt.Errorf("dist: %v is not available distributed (nmf, gnmf and nmf-kl are)", o.Method)
	}
	if o.Solver.Algorithm == solver.CD && o.Method != solver.NMF {
		return fmt.Errorf("dist: coordinate descent runs for nmf only distributed (%v: multiplicative updates)", o.Method)
	}
	if o.Solver.Algorithm == solver.MiniBatch {
		return fmt.Errorf("dist: the minibatch solver runs on one process (it streams a corpus larger than memory from disk); distributed fits run mu or cd")
	}
	// What a distributed fit does not apply is refused, never ignored.
	c := o.Solver
	c.MaxIter, c.Tol, c.PlainCD, c.Algorithm = 0, 0, false, 0
	// The default or none of the projected-gradient rule, every
	// iteration evaluated and one start are what a distributed fit does.
	if c.PGTol < 0 {
		c.PGTol = 0
	}
	if c.Evaluate == 1 {
		c.Evaluate = 0
	}
	if c.Restarts == 1 {
		c.Restarts = 0
	}
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"Start", o.Start != solver.RandomStart}, {"Assign", o.Assign != model.KMeansAssign},
		{"Lambdas", o.Lambdas != nil}, {"ScreenIter", o.ScreenIter != 0}, {"AutoSample", o.AutoSample != 0},
		{"CandidateStart", o.CandidateStart != autolambda.DefaultStart},
		{"Solver (but MaxIter, Tol, PlainCD and Algorithm)", c != (solver.Control{})},
	} {
		if f.set {
			return fmt.Errorf("dist: Options.%s is not applied by a distributed fit (it runs from the random start, assigns nothing, and stops by Tol's relative decrease)", f.name)
		}
	}
	if job.Path == "" {
		return fmt.Errorf("dist: a job needs the corpus's path")
	}
	return nil
}

// RunJob runs rank's part of job, on size ranks: it reads the rank's
// samples, prepares them with the whole corpus's statistics, builds its
// rows of the graph (GNMF), balances the features over the grid's rows,
// fits, and returns the rank's rows of the factors. comms returns the
// rank's communicators on a grid (every rank asks for the same grid). A
// failure is an error on every rank where a collective decides it; a
// rank that fails alone returns its error, and the job should end (the
// others may wait in a collective).
func RunJob(ctx context.Context, job Job, rank, size int, comms func(Grid) (GridComms, error)) (*JobResult, error) {
	if err := job.check(); err != nil {
		return nil, err
	}
	o := job.Options
	t0 := time.Now()
	src, err := openSource(ctx, job)
	if err != nil {
		return nil, err
	}
	g, err := NewGrid(size, src.m, src.n, job.GridRows)
	if err != nil {
		return nil, err
	}
	out := &JobResult{NNZ: src.nnz, Notes: src.notes}
	// Coordinate descent updates blocks of nmfstep.Block rows together;
	// each must lie on one rank. Data with too few blocks for the grid
	// run the multiplicative updates, unless coordinate descent was asked
	// for.
	if o.Method == solver.NMF && o.Solver.Algorithm.Resolve(o.Method) == solver.CD {
		a, err := g.Aligned(nmfstep.Block)
		switch {
		case err == nil:
			g, out.CD = a, true
		case o.Solver.Algorithm == solver.CD:
			return nil, fmt.Errorf("%w (coordinate descent takes whole blocks of %d rows a rank; the multiplicative updates do not)", err, nmfstep.Block)
		}
	}
	cs, err := comms(g)
	if err != nil {
		return nil, err
	}
	if out.Prepared, err = src.prepare(ctx, job, cs, g, rank); err != nil {
		return nil, err
	}
	samples := out.Prepared.Data.Sparse
	if samples == nil {
		return nil, fmt.Errorf("%s: a distributed fit takes sparse data (this data set is dense)", job.Path)
	}
	out.ReadTime = time.Since(t0)
	if g, err = g.WithFeatures(samples.Cols); err != nil {
		return nil, err
	}
	out.Grid = g
	no := NMFOptions{K: o.K, Seed: o.Seed, Threads: o.Threads, CD: out.CD,
		Control: solver.Control{MaxIter: o.Solver.MaxIter, Tol: o.Solver.Tol, PlainCD: o.Solver.PlainCD}}
	if o.Method == solver.GNMF {
		// The given graph (every rank holds it whole), or one the ranks
		// build among themselves, each finding its samples' neighbours
		// among all samples.
		no.Graph = o.SampleGraph
		if no.Graph == nil && job.ReadGraph != nil {
			if no.Graph, err = job.ReadGraph(g.N); err != nil {
				return nil, err
			}
		}
		if no.Graph == nil {
			gopts := o.Graph
			gopts.Seed, gopts.Threads = o.Seed, o.Threads
			t0 := time.Now()
			if no.GraphRows, err = BuildGraph(ctx, cs.World, g, samples, gopts); err != nil {
				return nil, err
			}
			out.GraphTime = time.Since(t0)
		}
		no.Lambda, no.Formulation = o.Lambda.Value(), o.Formulation
	}
	// Feature blocks of about equal work (the graph above is built on
	// the data's own order, as one process builds it); under coordinate
	// descent also on one grid row, for one process's order of U's rows.
	out.Features = out.Prepared.Data.Vocabulary
	if g.Rows > 1 || out.CD {
		if samples, no.FeatureOrder, err = BalanceShard(cs.Row, g, samples); err != nil {
			return nil, err
		}
		if names := out.Features; names != nil {
			out.Features = make([]string, len(names))
			for p, f := range no.FeatureOrder {
				out.Features[p] = names[f]
			}
		}
	}
	fit := FitNMF
	if o.Method == solver.NMFKL {
		fit = FitNMFKL
	}
	t0 = time.Now()
	if out.Fit, err = fit(ctx, cs, g, g.ShardBlock(samples, rank), no); err != nil {
		return nil, err
	}
	out.FitTime = time.Since(t0)
	if out.Words, out.Formula, err = out.Fit.MaxWords(cs.World); err != nil {
		return nil, err
	}
	return out, nil
}

// source is what every rank knows of the corpus before the grid: a parts
// directory's manifest, a Matrix Market file's header (read by byte
// ranges), or the whole data set.
type source struct {
	n, m, nnz int
	parts     bool
	mtx       *matrixio.MTXParts
	whole     *dataset.Dataset
	notes     []string
}

func openSource(ctx context.Context, job Job) (*source, error) {
	s := &source{}
	switch {
	case matrixio.IsParts(job.Path):
		man, err := matrixio.ReadParts(job.Path)
		if err != nil {
			return nil, err
		}
		s.parts, s.n, s.m, s.nnz = true, man.Samples, man.Features, man.NNZ
	case strings.HasSuffix(strings.ToLower(job.Path), ".mtx") && !job.Load.Transpose:
		p, err := matrixio.ReadMTXParts(job.Path)
		if err != nil {
			return nil, err
		}
		s.mtx, s.n, s.m, s.nnz = p, p.Rows, p.Cols, p.NNZ
	default:
		ds, err := dataset.Load(ctx, job.Path, job.Load)
		if err != nil {
			return nil, err
		}
		s.whole, s.notes = ds, ds.Notes
		s.n, s.m = ds.Dims()
		s.nnz = ds.NNZ()
	}
	return s, nil
}

// prepare returns rank's samples (its grid column's sample block),
// prepared as one process prepares the whole data set: read from a parts
// directory or by byte ranges and prepared by model.PrepareShard, the
// corpus's statistics pooled over the grid row (whose ranks hold every
// sample block once); from a whole data set by model.Prepare, its rows
// kept.
func (s *source) prepare(ctx context.Context, job Job, cs GridComms, g Grid, rank int) (*model.Prepared, error) {
	_, j := g.Pos(rank)
	s0, s1 := g.SampleBlock(j)
	if s.whole == nil {
		var ds *dataset.Dataset
		var err error
		if s.mtx != nil {
			ds, err = ReadMTXShard(ctx, cs.World, g, s.mtx)
		} else {
			// Every rank learns that one could not read its part,
			// before the preparation's collectives would wait for it.
			ds, err = dataset.LoadRows(ctx, job.Path, s0, s1, job.Load)
			err = agree(cs.World, err)
		}
		if err != nil {
			return nil, err
		}
		return model.PrepareShard(ds, job.Prepare, ShardPool{C: cs.Row})
	}
	p, err := model.Prepare(s.whole, job.Prepare)
	if err != nil {
		return nil, err
	}
	s.whole = nil
	if n, _ := p.Data.Dims(); n != g.N {
		return nil, fmt.Errorf("%s: a distributed fit does not select samples (PrepareOptions.Classes)", job.Path)
	}
	shard := *p
	data := *p.Data
	if a := data.Sparse; a != nil {
		data.Sparse = a.RowSlice(s0, s1)
	}
	shard.Data = &data
	return &shard, nil
}

// RunLocal runs job on size ranks that are goroutines of this process,
// with Local's communicators, and returns every rank's result: the
// distributed fit without MPI, for tests and for trying a job's grid on
// one machine.
func RunLocal(ctx context.Context, job Job, size int) ([]*JobResult, error) {
	var once sync.Once
	var local []GridComms
	comms := func(rank int) func(Grid) (GridComms, error) {
		return func(g Grid) (GridComms, error) {
			once.Do(func() { local = LocalGrid(g) })
			if len(local) != size || rank >= len(local) {
				return GridComms{}, fmt.Errorf("dist: RunLocal: a grid of %d ranks for %d", len(local), size)
			}
			return local[rank], nil
		}
	}
	out := make([]*JobResult, size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for r := range size {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[r], errs[r] = RunJob(ctx, job, r, size, comms(r))
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("rank %d: %w", r, err)
		}
	}
	return out, nil
}
