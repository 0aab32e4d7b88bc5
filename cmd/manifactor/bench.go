package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/kernels"
	"github.com/manifactor/manifactor/solver"
)

type benchOutput struct {
	Method       string  `json:"method"`
	K            int     `json:"k"`
	Iters        int     `json:"iters"`
	MsPerIter    float64 `json:"ms_per_iter"`
	GFlops       float64 `json:"gflops,omitempty"`
	SetupSeconds float64 `json:"setup_seconds"`
	BLAS         string  `json:"blas"`
	Kernels      string  `json:"kernels"`
	Threads      int     `json:"threads"`
	Samples      int     `json:"samples"`
	Features     int     `json:"features"`
	NNZ          int     `json:"nnz"`
	Objective    float64 `json:"objective"`
	Evaluate     int     `json:"evaluate_every"`
	CG           *cgJSON `json:"cg,omitempty"`
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
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := rt.apply(); err != nil {
		return err
	}
	// A benchmark runs exactly --iters iterations of one start. Unless
	// --evaluate is given, the objective is evaluated only at the end, as
	// scikit-learn does with tol=0, so ms_per_iter is the updates' cost.
	mf.tol, mf.restarts, mf.restartIters = -1, 1, 0
	evalSet := false
	fs.Visit(func(f *flag.Flag) { evalSet = evalSet || f.Name == "evaluate" })
	if !evalSet {
		mf.evaluate = mf.iters
	}
	opts, err := mf.options(rt.threads)
	if err != nil {
		return err
	}
	setup := time.Now()
	p, err := df.load()
	if err != nil {
		return err
	}
	d, err := p.solverData()
	if err != nil {
		return fmt.Errorf("%s: %w", p.ds.Source, err)
	}
	mf.defaults(p.ds.Sparse != nil)
	if solver.TakesGraph(mf.method) {
		opts.Lambda = mf.graph.lambda
		if opts.Graph, err = mf.graph.buildGraph(ctx, p, mf.seed, rt.threads, stderr); err != nil {
			return fmt.Errorf("%s: %w", p.ds.Source, err)
		}
	}
	setupTime := time.Since(setup)
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	res, err := solver.Fit(ctx, d, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", p.ds.Source, err)
	}
	m, n := d.Dims()
	out := benchOutput{
		Method: res.Method, K: opts.K, Iters: res.Iterations,
		MsPerIter:    res.IterTime.Seconds() * 1000 / float64(res.Iterations),
		SetupSeconds: setupTime.Seconds(), BLAS: blas.Name(), Kernels: kernels.Path(),
		Threads: rt.threadCount(), Samples: n, Features: m, NNZ: d.NNZ(), Objective: res.Final(),
		Evaluate: mf.evaluate,
	}
	if mf.method == "nmf" {
		out.GFlops = nmfFlops(d, opts.K) / (out.MsPerIter * 1e6)
	}
	if res.CG.Solves > 0 {
		out.CG = &cgJSON{res.CG.Solves, res.CG.Iterations, res.CG.MaxResidual, res.CG.Clamped}
	}
	if *asJSON {
		return writeJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "%s k=%d on %d x %d (%d non-zeros): %.2f ms/iter over %d iterations", out.Method, out.K, out.Features, out.Samples, out.NNZ, out.MsPerIter, out.Iters)
	if out.GFlops > 0 {
		fmt.Fprintf(stdout, ", %.2f GFLOP/s", out.GFlops)
	}
	fmt.Fprintf(stdout, " [blas %s, kernels %s, %d threads]; setup %.2f s\n", out.BLAS, out.Kernels, out.Threads, out.SetupSeconds)
	if out.CG != nil {
		fmt.Fprintf(stdout, "linear solves: %d, %.1f CG iterations each, largest residual %.2g\n", out.CG.Solves, float64(out.CG.Iterations)/float64(out.CG.Solves), out.CG.MaxResidual)
	}
	return nil
}

// nmfFlops counts the floating-point operations of one NMF iteration: the
// two sparse (or dense) data products 2*2*nnz*k (dense: 2*2*m*n*k), two
// k x k Gram matrices (m+n)*k*(k+1), and two products with them 2*(m+n)*k^2.
func nmfFlops(d *solver.Data, k int) float64 {
	m, n := d.Dims()
	data := float64(d.NNZ())
	if !d.IsSparse() {
		data = float64(m) * float64(n)
	}
	fk, mn := float64(k), float64(m+n)
	return 4*data*fk + mn*fk*(fk+1) + 2*mn*fk*fk
}
