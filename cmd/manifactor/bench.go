package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/sysmem"
	"github.com/manifactor/manifactor/kernels"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/model/memory"
	"github.com/manifactor/manifactor/solver"
)

type benchOutput struct {
	Method       string  `json:"method"`
	K            int     `json:"k"`
	Iterations   int     `json:"iterations"`
	MsPerIter    float64 `json:"ms_per_iter"`
	GFlops       float64 `json:"gflops,omitempty"`
	SetupSeconds float64 `json:"setup_seconds"`
	// The set-up's parts: reading the file, weighting and normalizing,
	// and the sample graph (graph methods); FitSeconds is model.Fit's
	// wall time, its own set-up included: DataSeconds of it the solver's
	// copies of the data (both orientations), then the start.
	LoadSeconds    float64 `json:"load_seconds"`
	PrepareSeconds float64 `json:"prepare_seconds"`
	DataSeconds    float64 `json:"data_seconds"`
	GraphSeconds   float64 `json:"graph_seconds,omitempty"`
	FitSeconds     float64 `json:"fit_seconds"`
	// PeakRSSBytes is the process's largest resident memory over the
	// whole run (absent where the system does not report it).
	PeakRSSBytes int64 `json:"peak_rss_bytes,omitempty"`
	// EstimateBytes is memory.Fit's figure, which --memory
	// checks; EstimatePanelBytes its X V panels, made where they fit
	// under the limit (memory.Estimate.Panels).
	EstimateBytes      int64 `json:"estimate_bytes"`
	EstimatePanelBytes int64 `json:"estimate_panel_bytes,omitempty"`
	// Storage is how sparse data was held (model.Storage), "" for dense.
	Storage   string  `json:"storage,omitempty"`
	BLAS      string  `json:"blas"`
	Kernels   string  `json:"kernels"`
	Threads   int     `json:"threads"`
	Samples   int     `json:"samples"`
	Features  int     `json:"features"`
	NNZ       int     `json:"nnz"`
	Objective float64 `json:"objective"`
	Evaluate  int     `json:"evaluate_every"`
	CG        *cgJSON `json:"cg,omitempty"`
	// GraphPasses counts GNMF's cd passes over the graph (one or more an
	// iteration); absent for the other methods and solvers.
	GraphPasses int `json:"graph_passes,omitempty"`
	// Trace, with --trace, is every evaluated iteration's objective and
	// the seconds since the factorization began (its set-up included):
	// the time-to-objective curve of bench/timeto.sh.
	Trace []tracePoint `json:"trace,omitempty"`
}

type tracePoint struct {
	Iter      int     `json:"iteration"`
	Seconds   float64 `json:"seconds"`
	Objective float64 `json:"objective"`
	// ProjGrad is the relative KKT residual (solver.Result.ProjGrad),
	// where the method measures it.
	ProjGrad *float64 `json:"projected_gradient,omitempty"`
}

// benchFlags are bench's options: the data, runtime and method flags and
// bench's own.
type benchFlags struct {
	df         dataFlags
	rt         runtimeFlags
	mf         methodFlags
	asJSON     bool
	cpuProfile string
	trace      bool
}

// register adds bench's flags to fs.
func (f *benchFlags) register(fs *flag.FlagSet) {
	f.df.register(fs)
	f.rt.register(fs)
	f.mf.register(fs, 50)
	fs.BoolVar(&f.asJSON, "json", false, "print JSON")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the factorization loop to this file")
	fs.BoolVar(&f.trace, "trace", false, "record the objective and the elapsed time at every evaluated iteration (with --json; see --evaluate)")
}

// check applies the runtime flags, fixes a benchmark's settings and checks
// what the flags alone decide, before the data is read.
func (f *benchFlags) check(fs *flag.FlagSet) error {
	if err := f.rt.apply(); err != nil {
		return err
	}
	// A benchmark runs exactly --iters iterations of one start, with a
	// fixed lambda (the solver's default unless --lambda says; auto
	// would time several fits). Unless --evaluate is given, the
	// objective is evaluated only at the end, as scikit-learn does with
	// tol=0, so ms_per_iter is the updates' cost.
	f.mf.tol, f.mf.pgTol, f.mf.restarts, f.mf.restartIters = -1, -1, 1, 0
	if !set(fs, "evaluate") {
		f.mf.evaluate = f.mf.iters
	}
	if err := f.df.check(); err != nil {
		return err
	}
	if _, err := f.mf.options(f.rt.threads, anyData); err != nil {
		return err
	}
	if err := f.mf.checkUsed(); err != nil {
		return err
	}
	if f.trace && !f.asJSON {
		return errors.New("--trace: the trace is part of --json's output; give --json too")
	}
	return checkOutput("--cpuprofile", f.cpuProfile, append(f.df.inputFiles(), f.mf.graph.file)...)
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", "--data D --method M --k K --iters N [options]", stdout, stderr)
	var f benchFlags
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if f.mf.kAuto {
		return errors.New("--k auto: bench times one k; give a number (manifactor rank chooses one)")
	}
	if err := f.check(fs); err != nil {
		return err
	}
	setup := time.Now()
	p, err := f.df.load(ctx, &f.rt)
	if err != nil {
		return err
	}
	ds := p.Data
	sparse := ds.Sparse != nil
	opts, err := f.mf.options(f.rt.threads, kindOf(sparse))
	if err != nil {
		return err
	}
	if set(fs, "lambda") && opts.Lambda.IsAuto() {
		return fmt.Errorf("--lambda auto: bench times one factorization; give a number")
	}
	if opts.Lambda.IsAuto() || opts.Lambda.IsDefault() {
		opts.Lambda = solver.Fixed(opts.Method.DefaultLambda(opts.Formulation, sparse))
	}
	opts.Assign = model.ArgMaxAssign // no k-means on V: only the loop is timed
	// The data is needed no more once the fit is done: the solver's copy
	// may take over its storage, as cluster's does.
	opts.ConsumeData = true
	graphStart := time.Now()
	if opts.SampleGraph, err = f.mf.graph.sampleGraph(p, stderr); err != nil {
		return err
	}
	if err := f.rt.checkFitMemory(ds, &opts, f.mf.storage, stderr); err != nil {
		return err
	}
	est := memory.Fit(ds, opts, f.rt.threadCount())
	if opts.Method.TakesGraph() && opts.Lambda.Value() > 0 && opts.SampleGraph == nil {
		// Built here so that set-up includes it, as the pipeline would.
		if opts.SampleGraph, err = p.Graph(ctx, opts.Graph, opts.Seed, f.rt.threads); err != nil {
			return fmt.Errorf("%s: %w", ds.Source, err)
		}
	}
	graphTime := time.Since(graphStart)
	setupTime := time.Since(setup)
	if f.cpuProfile != "" {
		stop, err := startProfile(f.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	var out benchOutput
	if err := out.fit(ctx, ds, opts, sparse, f.trace); err != nil {
		return err
	}
	out.SetupSeconds, out.LoadSeconds, out.PrepareSeconds = setupTime.Seconds(), f.df.loadTime.Seconds(), f.df.prepareTime.Seconds()
	out.BLAS, out.Kernels, out.Threads, out.Evaluate = blas.Name(), kernels.Path(), f.rt.threadCount(), f.mf.evaluate
	if opts.SampleGraph != nil {
		out.GraphSeconds = graphTime.Seconds()
	}
	out.EstimateBytes, out.EstimatePanelBytes = est.Total(), est.Panels
	if sparse {
		out.Storage = opts.Storage.String()
	}
	if rss, ok := sysmem.PeakRSS(); ok {
		out.PeakRSSBytes = rss
	}
	if f.asJSON {
		return writeJSON(stdout, out)
	}
	out.print(stdout)
	return nil
}

// fit runs the timed factorization and records it in out: the data's size
// (read first: the fit may take over its storage), the fit's wall time and
// result and, with trace, every evaluated iteration.
func (out *benchOutput) fit(ctx context.Context, ds *dataset.Dataset, opts model.Options, sparse, trace bool) error {
	began := time.Now()
	if trace {
		opts.Progress = func(p model.Progress) {
			if p.Stage == model.FitStage {
				out.Trace = append(out.Trace, tracePoint{Iter: p.Iter, Seconds: time.Since(began).Seconds(), Objective: p.Objective})
			}
		}
	}
	out.Samples, out.Features = ds.Dims()
	out.NNZ = ds.NNZ()
	res, err := model.Fit(ctx, ds, opts)
	if err != nil {
		return err
	}
	out.FitSeconds = time.Since(began).Seconds()
	if len(res.ProjGrad) == len(out.Trace) {
		for i := range out.Trace {
			out.Trace[i].ProjGrad = &res.ProjGrad[i]
		}
	}
	out.Method, out.K, out.Iterations, out.Objective = res.Method.String(), opts.K, res.Iterations, res.Final()
	out.MsPerIter = res.IterTime.Seconds() * 1000 / float64(res.Iterations)
	out.DataSeconds, out.GraphPasses = res.DataTime.Seconds(), res.GraphPasses
	if opts.Method == solver.NMF {
		out.GFlops = nmfFlops(out.Samples, out.Features, out.NNZ, sparse, opts.K) / (out.MsPerIter * 1e6)
	}
	if res.CG.Solves > 0 {
		out.CG = &cgJSON{res.CG.Solves, res.CG.Iterations, res.CG.MaxResidual, res.CG.Clamped}
	}
	return nil
}

// startProfile starts a CPU profile into path and returns its stop.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// print writes the benchmark's line, and its graph passes and linear
// solves where it has them.
func (out *benchOutput) print(w io.Writer) {
	fmt.Fprintf(w, "%s k=%d on %d x %d (%d non-zeros): %.2f ms/iter over %d iterations", out.Method, out.K, out.Features, out.Samples, out.NNZ, out.MsPerIter, out.Iterations)
	if out.GFlops > 0 {
		fmt.Fprintf(w, ", %.2f GFLOP/s", out.GFlops)
	}
	fmt.Fprintf(w, " [blas %s, kernels %s, %d threads]; setup %.2f s (load %.2f, prepare %.2f", out.BLAS, out.Kernels, out.Threads, out.SetupSeconds, out.LoadSeconds, out.PrepareSeconds)
	if out.GraphSeconds > 0 {
		fmt.Fprintf(w, ", graph %.2f", out.GraphSeconds)
	}
	fmt.Fprintf(w, "); fit %.2f s (data copies %.2f)", out.FitSeconds, out.DataSeconds)
	if out.PeakRSSBytes > 0 {
		fmt.Fprintf(w, "; peak memory %.0f MB (estimate %.0f MB)", float64(out.PeakRSSBytes)/1e6, float64(out.EstimateBytes)/1e6)
	}
	fmt.Fprintln(w)
	if out.GraphPasses > 0 {
		fmt.Fprintf(w, "passes over the graph: %d, %.2f an iteration\n", out.GraphPasses, float64(out.GraphPasses)/float64(out.Iterations))
	}
	if out.CG != nil {
		fmt.Fprintf(w, "linear solves: %d, %.1f CG iterations each, largest residual %.2g\n", out.CG.Solves, float64(out.CG.Iterations)/float64(out.CG.Solves), out.CG.MaxResidual)
	}
}

// nmfFlops counts the floating-point operations of one NMF iteration: the
// two sparse (or dense) data products 2*2*nnz*k (dense: 2*2*m*n*k), two
// k x k Gram matrices (m+n)*k*(k+1), and two products with them 2*(m+n)*k^2.
func nmfFlops(n, m, nnz int, sparse bool, k int) float64 {
	data := float64(nnz)
	if !sparse {
		data = float64(m) * float64(n)
	}
	fk, mn := float64(k), float64(m+n)
	return 4*data*fk + mn*fk*(fk+1) + 2*mn*fk*fk
}
