package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/dist"
	"github.com/manifactor/manifactor/internal/outdir"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
)

// distFlags are fit's options for a run over MPI ranks.
type distFlags struct {
	on   bool
	grid string
}

func (d *distFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&d.on, "distributed", false, "run on the MPI ranks of the job (mpirun -np P manifactor fit --distributed ...): nmf, nmf-kl, or gnmf with a given --lambda, by the multiplicative updates on a 2-D grid of the ranks; needs a build with MPI (info says)")
	fs.StringVar(&d.grid, "grid", "", "with --distributed: the grid of ranks as ROWSxCOLS (default: the shape that communicates least for the data's shape)")
}

// gridRows parses --grid for p ranks: the number of grid rows, 0 for the
// default shape.
func (d *distFlags) gridRows(p int) (int, error) {
	if d.grid == "" {
		return 0, nil
	}
	r, c, ok := strings.Cut(d.grid, "x")
	rows, err1 := strconv.Atoi(r)
	cols, err2 := strconv.Atoi(c)
	if !ok || err1 != nil || err2 != nil || rows < 1 || cols < 1 {
		return 0, fmt.Errorf("--grid %q: want ROWSxCOLS, e.g. 2x4", d.grid)
	}
	if rows*cols != p {
		return 0, fmt.Errorf("--grid %s: %d ranks, but the job has %d", d.grid, rows*cols, p)
	}
	return rows, nil
}

// distUnsupported are fit's options the distributed run does not have
// yet; given with --distributed they are an error, not ignored.
var distUnsupported = []string{"lambdas", "papers", "start", "assign", "min-iters", "pg-tol", "stop",
	"evaluate", "restarts", "restart-iters", "kernel", "degree", "coef0", "sigma", "kernel-memory", "cg-tol", "cg-iters"}

// distGraphFlags are the graph options, which only gnmf takes.
var distGraphFlags = []string{"lambda", "formulation", "neighbors", "weight", "heat-t", "symmetry", "min-shared", "graph", "graph-search", "symmetrize"}

// distSummary is summary.json of a distributed fit.
type distSummary struct {
	Method     string    `json:"method"`
	K          int       `json:"k"`
	Samples    int       `json:"samples"`
	Features   int       `json:"features"`
	NNZ        int       `json:"nnz"`
	Ranks      int       `json:"ranks"`
	Grid       string    `json:"grid"`
	Iterations int       `json:"iterations"`
	Converged  bool      `json:"converged"`
	Objective  float64   `json:"objective"`
	Trace      []float64 `json:"objective_trace"`
	Seconds    float64   `json:"seconds"`
	PerIter    float64   `json:"ms_per_iter"`
	// WordsPerIter is the most values any rank moves to or from the
	// others in one iteration by the formula (dist.NMFResult.Formula),
	// WordsMeasured the most counted at the collectives.
	WordsPerIter  int      `json:"words_per_iter"`
	WordsMeasured int      `json:"words_per_iter_measured"`
	Files         []string `json:"files,omitempty"`
}

// runDistributedFit is fit --distributed, run by every rank of the job.
func runDistributedFit(ctx context.Context, fs *flag.FlagSet, df *dataFlags, rt *runtimeFlags, mf *methodFlags, d *distFlags, out string, asJSON bool, stdout, stderr io.Writer) error {
	for _, name := range distUnsupported {
		if set(fs, name) {
			return fmt.Errorf("--%s: not available with --distributed yet (it runs nmf, random start, relative-decrease stopping rule)", name)
		}
	}
	if mf.method != solver.NMF && mf.method != solver.GNMF && mf.method != solver.NMFKL {
		return fmt.Errorf("--method %s: --distributed runs nmf, gnmf and nmf-kl only so far", mf.method)
	}
	if mf.method != solver.GNMF {
		for _, name := range distGraphFlags {
			if set(fs, name) {
				return fmt.Errorf("--%s: %s takes no graph", name, mf.method)
			}
		}
	}
	if mf.method == solver.GNMF && !(mf.lambda.Value() > 0 && !mf.lambda.IsAuto() && !mf.lambda.IsDefault()) {
		return fmt.Errorf("--lambda %v: --distributed gnmf needs a weight > 0 (lambda auto is not available there yet)", mf.lambda)
	}
	if mf.algorithm == solver.CD {
		return errors.New("--solver cd: --distributed runs the multiplicative updates (mu) only so far")
	}
	if out == "" {
		return errors.New("--out is required")
	}
	job, err := startMPI()
	if err != nil {
		return fmt.Errorf("--distributed: %w", err)
	}
	defer job.finish()
	rank, size := job.rank(), job.size()
	// A rank that fails ends the job with its message: the others would
	// wait for it in the next collective.
	fail := func(err error) error {
		if size > 1 {
			fmt.Fprintf(stderr, "manifactor: rank %d of %d: %v\n", rank, size, err)
			job.abort(1)
		}
		return err
	}
	rows, err := d.gridRows(size)
	if err != nil {
		return fail(err)
	}
	var od *outdir.Dir
	if rank == 0 {
		if od, err = outdir.Begin(out, distOutputs); err != nil {
			return fail(fmt.Errorf("--out: %w", err))
		}
		defer od.Abort()
	}
	if rank != 0 {
		rt.quiet = true
	}
	// Every rank reads and prepares the whole file, the same way, and
	// keeps its block.
	p, err := df.load(ctx, rt)
	if err != nil {
		return fail(err)
	}
	opts, err := mf.options(rt.threads, p.Data.Sparse != nil)
	if err != nil {
		return fail(err)
	}
	samples := p.Data.Sparse
	if samples == nil {
		return fail(fmt.Errorf("%s: --distributed takes sparse data so far (this file is dense)", df.path))
	}
	n, m := samples.Rows, samples.Cols
	g, err := dist.NewGrid(size, m, n, rows)
	if err != nil {
		return fail(err)
	}
	cs, err := job.comms(g)
	if err != nil {
		return fail(err)
	}
	no := dist.NMFOptions{K: opts.K, Iters: opts.Solver.MaxIter, Tol: opts.Solver.Tol, Seed: opts.Seed, Threads: rt.threads}
	if mf.method == solver.GNMF {
		// Every rank builds (or reads) the whole graph, the same one.
		gr, err := mf.graph.sampleGraph(p, io.Discard)
		if err == nil && gr == nil {
			gr, err = model.BuildGraph(ctx, p.Data, opts.Graph, opts.Seed, rt.threads)
		}
		if err != nil {
			return fail(err)
		}
		no.Lambda, no.Graph, no.Formulation = opts.Lambda.Value(), gr, opts.Formulation
	}
	begin := time.Now()
	fit := dist.FitNMF
	if mf.method == solver.NMFKL {
		fit = dist.FitNMFKL
	}
	res, err := fit(ctx, cs, g, g.Block(samples, rank), no)
	if err != nil {
		return fail(err)
	}
	elapsed := time.Since(begin)
	u, v, err := res.Gather(cs.World, g)
	if err != nil {
		return fail(err)
	}
	measured, formula, err := res.MaxWords(cs.World)
	if err != nil {
		return fail(err)
	}
	if rank != 0 {
		return nil
	}
	k := opts.K
	iters := len(res.Objective) - 1
	sum := &distSummary{
		Method: mf.method.String(), K: k, Samples: n, Features: m, NNZ: samples.NNZ(), Ranks: size,
		Grid: fmt.Sprintf("%dx%d", g.Rows, g.Cols), Iterations: iters, Converged: res.Converged,
		Objective: res.Objective[iters], Trace: res.Objective, Seconds: elapsed.Seconds(),
		WordsPerIter: formula, WordsMeasured: measured,
	}
	if iters > 0 {
		sum.PerIter = 1000 * elapsed.Seconds() / float64(iters)
	}
	outputs := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"U.mtx", func(w io.Writer) error { return dataset.WriteMatrixMarketDense(w, mat.NewDense(m, k, u)) }},
		{"V.mtx", func(w io.Writer) error { return dataset.WriteMatrixMarketDense(w, mat.NewDense(n, k, v)) }},
	}
	for _, o := range outputs {
		if err := od.WriteFile(o.name, o.write); err != nil {
			return fail(err)
		}
		sum.Files = append(sum.Files, filepath.Join(out, o.name))
	}
	sum.Files = append(sum.Files, filepath.Join(out, "summary.json"))
	if err := od.WriteFile("summary.json", func(w io.Writer) error { return writeJSON(w, sum) }); err != nil {
		return fail(err)
	}
	if err := od.Commit(); err != nil {
		return fail(fmt.Errorf("--out %s: %w", out, err))
	}
	if asJSON {
		return writeJSON(stdout, sum)
	}
	fmt.Fprintf(stdout, "%s, k = %d: %d samples x %d features (%d non-zeros) on %d ranks, grid %s\n", sum.Method, k, n, m, sum.NNZ, size, sum.Grid)
	status := "iteration limit"
	if res.Converged {
		status = "converged"
	}
	fmt.Fprintf(stdout, "%d iterations (%s), objective %.6g, %.3f s (%.2f ms per iteration, %d words per rank per iteration)\n",
		iters, status, sum.Objective, sum.Seconds, sum.PerIter, sum.WordsPerIter)
	fmt.Fprintf(stdout, "wrote %s\n", out)
	return nil
}

// distOutputs are the files fit --distributed writes.
var distOutputs = []string{"U.mtx", "V.mtx", "summary.json"}
