package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/kernels"
	"github.com/manifactor/manifactor/solver"
)

// methodFlags are the factorization options of fit, bench and demo.
type methodFlags struct {
	method   string
	k        int
	iters    int
	minIters int
	tol      float64
	restarts int
	seed     uint64
}

func (f *methodFlags) register(fs *flag.FlagSet, defaultIters int) {
	fs.StringVar(&f.method, "method", "nmf", "factorization method: nmf")
	fs.IntVar(&f.k, "k", 0, "number of factors (clusters), 1 <= k <= min(samples, features)")
	fs.IntVar(&f.iters, "iters", defaultIters, "maximum iterations per start")
	fs.IntVar(&f.minIters, "min-iters", 0, "iterations before the tolerance may stop a start")
	fs.Float64Var(&f.tol, "tol", solver.DefaultTol, "stop when the relative objective decrease falls below this; negative runs all --iters")
	fs.IntVar(&f.restarts, "restarts", 1, "random starts; the best final objective wins")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed; the same seed gives the same result")
}

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
	if f.minIters < 0 {
		return solver.Options{}, fmt.Errorf("--min-iters %d: must not be negative", f.minIters)
	}
	tol := f.tol
	if tol == 0 {
		tol = -1 // an explicit --tol 0 means "never stop early"
	}
	return solver.Options{
		Method: f.method, K: f.k, MaxIter: f.iters, MinIter: f.minIters, Tol: tol,
		Restarts: f.restarts, Seed: f.seed, Threads: threads,
	}, nil
}

// fitSummary is summary.json and fit's --json output.
type fitSummary struct {
	Method       string   `json:"method"`
	K            int      `json:"k"`
	Samples      int      `json:"samples"`
	Features     int      `json:"features"`
	NNZ          int      `json:"nnz"`
	Iterations   int      `json:"iterations"`
	Status       string   `json:"status"`
	Objective    float64  `json:"objective"`
	Start        int      `json:"start"`
	Seed         uint64   `json:"seed"`
	Seconds      float64  `json:"seconds"`
	BLAS         string   `json:"blas"`
	Kernels      string   `json:"kernels"`
	Threads      int      `json:"threads"`
	ClusterSizes []int    `json:"cluster_sizes"`
	Unassigned   int      `json:"unassigned"`
	Accuracy     *float64 `json:"accuracy,omitempty"`
	NMI          *float64 `json:"nmi,omitempty"`
	Files        []string `json:"files,omitempty"`
}

func runFit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("fit", "--data D --method nmf --k K [options] --out DIR", stderr)
	var df dataFlags
	var rt runtimeFlags
	var mf methodFlags
	df.register(fs)
	rt.register(fs)
	mf.register(fs, solver.DefaultMaxIter)
	out := fs.String("out", "", "directory for U.mtx, V.mtx, labels.txt and summary.json (created if missing)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := rt.apply(); err != nil {
		return err
	}
	opts, err := mf.options(rt.threads)
	if err != nil {
		return err
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	p, err := df.load()
	if err != nil {
		return err
	}
	var done func()
	opts.Progress, done = progressPrinter(stderr, opts.MaxIter)
	sum, res, err := factorize(ctx, p, opts, rt)
	done()
	if err != nil {
		return err
	}
	files := []string{"U.mtx", "V.mtx", "labels.txt", "summary.json"}
	for i, f := range files {
		files[i] = filepath.Join(*out, f)
	}
	sum.Files = files
	if err := writeFile(files[0], func(w io.Writer) error { return dataset.WriteMatrixMarketDense(w, res.U) }); err != nil {
		return err
	}
	if err := writeFile(files[1], func(w io.Writer) error { return dataset.WriteMatrixMarketDense(w, res.V) }); err != nil {
		return err
	}
	if err := writeFile(files[2], func(w io.Writer) error {
		for _, l := range res.Labels {
			if _, err := fmt.Fprintln(w, l); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := writeFile(files[3], func(w io.Writer) error { return writeJSON(w, sum) }); err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, sum)
	}
	printSummary(stdout, sum)
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return nil
}

// factorize runs the solver on a prepared data set and scores the result
// against the labels when there are any.
func factorize(ctx context.Context, p *prepared, opts solver.Options, rt runtimeFlags) (*fitSummary, *solver.Result, error) {
	d, err := p.solverData()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p.ds.Source, err)
	}
	m, n := d.Dims()
	res, err := solver.Fit(ctx, d, opts)
	if err != nil {
		if res != nil && errors.Is(err, context.Canceled) {
			return nil, nil, fmt.Errorf("canceled after %d iterations (objective %.6g): %w", res.Iterations, res.Final(), err)
		}
		return nil, nil, fmt.Errorf("%s: %w", p.ds.Source, err)
	}
	sum := &fitSummary{
		Method: res.Method, K: opts.K, Samples: n, Features: m, NNZ: d.NNZ(),
		Iterations: res.Iterations, Status: res.Status.String(), Objective: res.Final(), Start: res.Start,
		Seed: opts.Seed, Seconds: res.Runtime.Seconds(), BLAS: blas.Name(), Kernels: kernels.Path(),
		Threads: rt.threadCount(), ClusterSizes: clusterSizes(res.Labels, opts.K),
	}
	for _, l := range res.Labels {
		if l < 0 {
			sum.Unassigned++
		}
	}
	if p.ds.Labels != nil {
		acc, _, err := cluster.Accuracy(p.ds.Labels, res.Labels)
		if err != nil {
			return nil, nil, err
		}
		nmi, err := cluster.NMI(p.ds.Labels, res.Labels)
		if err != nil {
			return nil, nil, err
		}
		sum.Accuracy, sum.NMI = &acc, &nmi
	}
	return sum, res, nil
}

func printSummary(w io.Writer, s *fitSummary) {
	fmt.Fprintf(w, "%s, k = %d: %d samples x %d features (%d non-zeros)\n", s.Method, s.K, s.Samples, s.Features, s.NNZ)
	fmt.Fprintf(w, "%d iterations (%s), objective %.6g, %.3f s [blas %s, kernels %s, %d threads]\n",
		s.Iterations, s.Status, s.Objective, s.Seconds, s.BLAS, s.Kernels, s.Threads)
	fmt.Fprintf(w, "cluster sizes: %v", s.ClusterSizes)
	if s.Unassigned > 0 {
		fmt.Fprintf(w, " (%d samples unassigned: all-zero rows of V)", s.Unassigned)
	}
	fmt.Fprintln(w)
	if s.Accuracy != nil {
		fmt.Fprintf(w, "accuracy %.2f %%, NMI %.2f %%\n", 100**s.Accuracy, 100**s.NMI)
	}
}

// progressPrinter reports iterations on stderr when it is a terminal, at
// most five times a second; done ends the progress line.
func progressPrinter(stderr io.Writer, maxIter int) (progress func(int, int, float64), done func()) {
	done = func() {}
	f, ok := stderr.(*os.File)
	if !ok {
		return nil, done
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil, done
	}
	last := time.Now()
	printed := false
	progress = func(start, iter int, obj float64) {
		if time.Since(last) < 200*time.Millisecond {
			return
		}
		last, printed = time.Now(), true
		fmt.Fprintf(stderr, "\rstart %d, iteration %d/%d, objective %.6g   ", start+1, iter, maxIter, obj)
	}
	done = func() {
		if printed {
			fmt.Fprintln(stderr)
		}
	}
	return progress, done
}

// writeFile creates path and writes it with fn, reporting errors with the
// path.
func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
