package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/internal/sysmem"
	"github.com/manifactor/manifactor/kernels"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
)

type benchOutput struct {
	Method       string  `json:"method"`
	K            int     `json:"k"`
	Iters        int     `json:"iters"`
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
	// EstimateBytes is model.EstimateMemory's figure, which --memory
	// checks; EstimatePanelBytes its X V panels, made where they fit
	// under the limit (model.Memory.Panels).
	EstimateBytes      int64   `json:"estimate_bytes"`
	EstimatePanelBytes int64   `json:"estimate_panel_bytes,omitempty"`
	BLAS               string  `json:"blas"`
	Kernels            string  `json:"kernels"`
	Threads            int     `json:"threads"`
	Samples            int     `json:"samples"`
	Features           int     `json:"features"`
	NNZ                int     `json:"nnz"`
	Objective          float64 `json:"objective"`
	Evaluate           int     `json:"evaluate_every"`
	CG                 *cgJSON `json:"cg,omitempty"`
	// GraphPasses counts GNMF's cd passes over the graph (one or more an
	// iteration); absent for the other methods and solvers.
	GraphPasses int `json:"graph_passes,omitempty"`
	// Trace, with --trace, is every evaluated iteration's objective and
	// the seconds since the factorization began (its set-up included):
	// the time-to-objective curve of bench/timeto.sh.
	Trace []tracePoint `json:"trace,omitempty"`
}

type tracePoint struct {
	Iter      int     `json:"iter"`
	Seconds   float64 `json:"seconds"`
	Objective float64 `json:"objective"`
	// ProjGrad is the relative KKT residual (solver.Result.ProjGrad),
	// where the method measures it.
	ProjGrad *float64 `json:"projected_gradient,omitempty"`
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", "--data D --method M --k K --iters N [data and method options] [--json]", stderr)
	var df dataFlags
	var rt runtimeFlags
	var mf methodFlags
	df.register(fs)
	rt.register(fs)
	mf.register(fs, 50)
	asJSON := fs.Bool("json", false, "print JSON")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the factorization loop to this file")
	trace := fs.Bool("trace", false, "record the objective and the elapsed time at every evaluated iteration (with --json; see --evaluate)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := rt.apply(); err != nil {
		return err
	}
	// A benchmark runs exactly --iters iterations of one start, with a
	// fixed lambda (the solver's default unless --lambda says; auto
	// would time several fits). Unless --evaluate is given, the
	// objective is evaluated only at the end, as scikit-learn does with
	// tol=0, so ms_per_iter is the updates' cost.
	mf.tol, mf.pgTol, mf.restarts, mf.restartIters = -1, -1, 1, 0
	if !set(fs, "evaluate") {
		mf.evaluate = mf.iters
	}
	if err := df.check(); err != nil {
		return err
	}
	if _, err := mf.options(rt.threads, anyData); err != nil {
		return err
	}
	if err := mf.checkUsed(); err != nil {
		return err
	}
	if *trace && !*asJSON {
		return errors.New("--trace: the trace is part of --json's output; give --json too")
	}
	if err := checkOutput("--cpuprofile", *cpuProfile, append(df.inputFiles(), mf.graph.file)...); err != nil {
		return err
	}
	setup := time.Now()
	p, err := df.load(ctx, &rt)
	if err != nil {
		return err
	}
	ds := p.Data
	sparse := ds.Sparse != nil
	opts, err := mf.options(rt.threads, kindOf(sparse))
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
	if opts.SampleGraph, err = mf.graph.sampleGraph(p, stderr); err != nil {
		return err
	}
	est := model.EstimateMemory(ds, opts, rt.threadCount())
	if err := rt.checkMemory(ds.Source, est); err != nil {
		return err
	}
	if opts.Method.TakesGraph() && opts.Lambda.Value() > 0 && opts.SampleGraph == nil {
		// Built here so that set-up includes it, as the pipeline would.
		if opts.SampleGraph, err = model.BuildGraph(ctx, ds, opts.Graph, opts.Seed, rt.threads); err != nil {
			return fmt.Errorf("%s: %w", ds.Source, err)
		}
	}
	graphTime := time.Since(graphStart)
	setupTime := time.Since(setup)
	if *cpuProfile != "" {
		stop, err := startProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	var points []tracePoint
	began := time.Now()
	if *trace {
		opts.Progress = func(p model.Progress) {
			if p.Stage == model.FitStage {
				points = append(points, tracePoint{Iter: p.Iter, Seconds: time.Since(began).Seconds(), Objective: p.Objective})
			}
		}
	}
	n, m := ds.Dims()
	nnz := ds.NNZ()
	res, err := model.Fit(ctx, ds, opts)
	if err != nil {
		return err
	}
	fitTime := time.Since(began)
	if len(res.ProjGrad) == len(points) {
		for i := range points {
			points[i].ProjGrad = &res.ProjGrad[i]
		}
	}
	out := benchOutput{
		Method: res.Method.String(), K: opts.K, Iters: res.Iterations,
		MsPerIter:    res.IterTime.Seconds() * 1000 / float64(res.Iterations),
		SetupSeconds: setupTime.Seconds(), BLAS: blas.Name(), Kernels: kernels.Path(),
		Threads: rt.threadCount(), Samples: n, Features: m, NNZ: nnz, Objective: res.Final(),
		Evaluate: mf.evaluate, Trace: points,
		LoadSeconds: df.loadTime.Seconds(), PrepareSeconds: df.prepareTime.Seconds(), DataSeconds: res.DataTime.Seconds(), FitSeconds: fitTime.Seconds(),
	}
	if opts.SampleGraph != nil {
		out.GraphSeconds = graphTime.Seconds()
	}
	out.EstimateBytes, out.EstimatePanelBytes = est.Total(), est.Panels
	if rss, ok := sysmem.PeakRSS(); ok {
		out.PeakRSSBytes = rss
	}
	if opts.Method == solver.NMF {
		out.GFlops = nmfFlops(n, m, nnz, sparse, opts.K) / (out.MsPerIter * 1e6)
	}
	out.GraphPasses = res.GraphPasses
	if res.CG.Solves > 0 {
		out.CG = &cgJSON{res.CG.Solves, res.CG.Iterations, res.CG.MaxResidual, res.CG.Clamped}
	}
	if *asJSON {
		return writeJSON(stdout, out)
	}
	out.print(stdout)
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
	fmt.Fprintf(w, "%s k=%d on %d x %d (%d non-zeros): %.2f ms/iter over %d iterations", out.Method, out.K, out.Features, out.Samples, out.NNZ, out.MsPerIter, out.Iters)
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
		fmt.Fprintf(w, "passes over the graph: %d, %.2f an iteration\n", out.GraphPasses, float64(out.GraphPasses)/float64(out.Iters))
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
