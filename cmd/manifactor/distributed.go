package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dist"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/internal/matrixio"
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
	fs.BoolVar(&d.on, "distributed", false, "run on the MPI ranks of the job (mpirun -np P manifactor fit --distributed ...): nmf (cd or mu), nmf-kl or gnmf with a given --lambda (mu) on a 2-D grid of the ranks, each reading its own samples from a split directory (manifactor split) or a .mtx file; needs a build with MPI (info says)")
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
var distUnsupported = []string{"classes", "labels", "lambdas", "screen-iters", "candidate-start", "papers", "start", "assign", "min-iters", "pg-tol", "stop",
	"evaluate", "restarts", "restart-iters", "kernel", "degree", "coef0", "sigma", "kernel-memory", "cg-tol", "cg-iters"}

// distGraphFlags are the graph options, which only gnmf takes.
var distGraphFlags = []string{"lambda", "formulation", "neighbors", "weight", "graph-metric", "heat-t", "symmetry", "min-shared", "graph", "graph-search", "symmetrize"}

// distSummary is summary.json of a distributed fit.
type distSummary struct {
	Method     string    `json:"method"`
	Solver     string    `json:"solver"`
	K          int       `json:"k"`
	Samples    int       `json:"samples"`
	Features   int       `json:"features"`
	NNZ        int       `json:"nnz"`
	Ranks      int       `json:"ranks"`
	Grid       string    `json:"grid"`
	Iterations int       `json:"iterations"`
	Status     string    `json:"status"`
	Objective  float64   `json:"objective"`
	Trace      []float64 `json:"objective_trace"`
	Seconds    float64   `json:"seconds"`
	PerIter    float64   `json:"ms_per_iter"`
	// ReadSeconds is rank 0's reading and preparing of its samples,
	// GraphSeconds the graph's search on the ranks (0 without one).
	ReadSeconds  float64 `json:"read_seconds"`
	GraphSeconds float64 `json:"graph_seconds,omitempty"`
	// WordsPerIter is the most values any rank moves to or from the
	// others in one iteration by the formula (dist.NMFResult.Formula),
	// WordsMeasured the most counted at the collectives.
	WordsPerIter  int      `json:"words_per_iter"`
	WordsMeasured int      `json:"words_per_iter_measured"`
	Files         []string `json:"files,omitempty"`
}

// checkDistFlags refuses the flags and methods fit --distributed does not
// take, by their names on the command line.
func checkDistFlags(fs *flag.FlagSet, mf *methodFlags) error {
	for _, name := range distUnsupported {
		if set(fs, name) {
			return fmt.Errorf("--%s: not available with --distributed yet (it runs nmf, gnmf and nmf-kl from the random start and stops by --tol's relative decrease)", name)
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
	// The solver: auto is one process's choice (cd for nmf, where the
	// data have enough of its blocks of rows for the grid), but gnmf and
	// nmf-kl have only the multiplicative updates distributed so far.
	if mf.algorithm == solver.CD && mf.method != solver.NMF {
		return fmt.Errorf("--solver cd: --distributed runs coordinate descent for nmf only so far (%s: --solver mu)", mf.method)
	}
	if mf.algorithm == solver.MiniBatch {
		return fmt.Errorf("--solver minibatch: runs on one process, not --distributed (mu or cd)")
	}
	return nil
}

// runDistributedFit is fit --distributed, run by every rank of the job.
func runDistributedFit(ctx context.Context, fs *flag.FlagSet, df *dataFlags, rt *runtimeFlags, mf *methodFlags, d *distFlags, out string, asJSON bool, stdout, stderr io.Writer) error {
	if err := checkDistFlags(fs, mf); err != nil {
		return err
	}
	if mf.kAuto {
		return errors.New("--k auto: the distributed fit takes a number; choose it with manifactor rank on one machine")
	}
	if df.opts.Mask != "" {
		return errors.New("--mask: the distributed fit has no unknown entries; fit on one machine to leave them out")
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
	// Rank 0 makes the output's temporary directory; every rank writes
	// its rows of the factors into it.
	var od *outdir.Dir
	tmp := ""
	if rank == 0 {
		if od, err = outdir.Begin(out, distOutputs); err != nil {
			return fail(fmt.Errorf("--out: %w", err))
		}
		defer od.Abort()
		for _, f := range []string{"U", "V"} {
			if err := os.Mkdir(od.Path(f), 0o755); err != nil {
				return fail(err)
			}
		}
		tmp = od.Temp()
	}
	if tmp, err = job.bcastString(tmp); err != nil {
		return fail(err)
	}
	if rank != 0 {
		rt.quiet, df.stderr = true, nil
	}
	res, err := runJob(ctx, df, rt, mf, rows, rank, size, job.comms)
	if err != nil {
		return fail(err)
	}
	k := mf.k
	// Every rank writes its rows of U and V as a part of the parts
	// directories U and V; rank 0 adds their manifests once all are
	// written.
	for _, f := range []struct {
		dir string
		a   blas64.General
	}{{"U", res.Fit.U}, {"V", res.Fit.V}} {
		if f.a.Rows == 0 {
			continue
		}
		path := filepath.Join(tmp, f.dir, matrixio.PartName(rank))
		err := outdir.WriteFile(path, func(w io.Writer) error {
			return matrixio.WriteMatrixMarketDense(w, mat.NewDense(f.a.Rows, k, f.a.Data))
		})
		if err != nil {
			return fail(err)
		}
	}
	if err := job.barrier(); err != nil {
		return fail(err)
	}
	if rank != 0 {
		return nil
	}
	return writeDistSummary(od, out, res, mf, size, asJSON, stdout, fail)
}

// writeDistSummary writes, on rank 0 once every rank has written its rows,
// the parts directories' manifests, the vocabulary and the summary, puts
// the output in place and prints the summary.
func writeDistSummary(od *outdir.Dir, out string, res *dist.JobResult, mf *methodFlags, size int, asJSON bool, stdout io.Writer, fail func(error) error) error {
	g, k := res.Grid, mf.k
	fit, n, m := res.Fit, g.N, g.M
	iters := len(fit.Objective) - 1
	sum := &distSummary{
		Method: mf.method.String(), Solver: map[bool]string{true: "cd", false: "mu"}[res.CD], K: k, Samples: n, Features: m, NNZ: res.NNZ, Ranks: size,
		Grid: fmt.Sprintf("%dx%d", g.Rows, g.Cols), Iterations: iters, Status: fit.Status.String(),
		Objective: fit.Objective[iters], Trace: fit.Objective, Seconds: res.FitTime.Seconds(),
		WordsPerIter: res.Formula, WordsMeasured: res.Words,
		ReadSeconds: res.ReadTime.Seconds(), GraphSeconds: res.GraphTime.Seconds(),
	}
	if iters > 0 {
		sum.PerIter = 1000 * res.FitTime.Seconds() / float64(iters)
	}
	uMan, vMan := factorParts(g, k)
	outputs := []output{
		{filepath.Join("U", matrixio.PartsFile), uMan.Encode},
		{filepath.Join("V", matrixio.PartsFile), vMan.Encode},
	}
	if res.Features != nil {
		outputs = append(outputs, vocabularyOutput(res.Features))
	}
	for _, o := range outputs {
		if err := outdir.WriteFile(od.Path(o.name), o.write); err != nil {
			return fail(err)
		}
	}
	for _, f := range []string{"U", "V", "vocabulary.txt", "summary.json"} {
		if _, err := os.Stat(od.Path(f)); err == nil || f == "summary.json" {
			sum.Files = append(sum.Files, filepath.Join(out, f))
		}
	}
	if err := od.WriteFile("summary.json", func(w io.Writer) error { return writeJSON(w, sum) }); err != nil {
		return fail(err)
	}
	if err := od.Commit(); err != nil {
		return fail(fmt.Errorf("--out %s: %w", out, err))
	}
	if asJSON {
		return writeJSON(stdout, sum)
	}
	fmt.Fprintf(stdout, "%s (%s), k = %d: %d samples x %d features (%d non-zeros) on %d ranks, grid %s\n", sum.Method, sum.Solver, k, n, m, sum.NNZ, size, sum.Grid)
	status := fit.Status.String()
	fmt.Fprintf(stdout, "%d iterations (%s), objective %.6g, %.3f s (%.2f ms per iteration, %d words per rank per iteration)\n",
		iters, status, sum.Objective, sum.Seconds, sum.PerIter, sum.WordsPerIter)
	fmt.Fprintf(stdout, "wrote %s\n", out)
	return nil
}

// distOutputs are the files fit --distributed writes: the parts
// directories U and V (the rows of U, one per feature in the order of
// vocabulary.txt, which is the data's unless the grid has several rows
// and dist.BalanceShard reordered them; the rows of V, one per sample;
// each rank wrote its own, and dataset.Load reads either whole), the
// names of U's rows and the summary.
var distOutputs = []string{"U", "V", "vocabulary.txt", "summary.json"}

// factorParts returns the manifests of the parts directories U and V:
// rank q wrote part q, its rows (Grid.URows and VRows), if any.
func factorParts(g dist.Grid, k int) (u, v *matrixio.Parts) {
	u, v = matrixio.NewParts(g.M, k, false), matrixio.NewParts(g.N, k, false)
	type part struct{ rank, lo, hi int }
	var us, vs []part
	for q := 0; q < g.Size(); q++ {
		i, j := g.Pos(q)
		lo, hi := g.URows(i, j)
		us = append(us, part{q, lo, hi})
		lo, hi = g.VRows(i, j)
		vs = append(vs, part{q, lo, hi})
	}
	for _, f := range []struct {
		man   *matrixio.Parts
		parts []part
	}{{u, us}, {v, vs}} {
		slices.SortFunc(f.parts, func(a, b part) int { return a.lo - b.lo })
		for _, p := range f.parts {
			if p.hi > p.lo {
				f.man.Add(matrixio.PartName(p.rank), p.hi-p.lo, (p.hi-p.lo)*k)
			}
		}
	}
	return u, v
}

// runJob reads the flags into a dist.Job and runs this rank's part of
// it, printing (where this rank prints) what the reader and the
// preparation decided.
func runJob(ctx context.Context, df *dataFlags, rt *runtimeFlags, mf *methodFlags, rows, rank, size int, comms func(dist.Grid) (dist.GridComms, error)) (*dist.JobResult, error) {
	if err := df.check(); err != nil {
		return nil, err
	}
	lo, prep := df.loadOptions(rt)
	opts, err := mf.options(rt.threads, sparseData)
	if err != nil {
		return nil, err
	}
	// What a distributed fit applies (checkDistFlags refused the rest).
	fit := model.Options{Method: opts.Method, K: opts.K, Seed: opts.Seed, Threads: opts.Threads,
		Lambda: opts.Lambda, Formulation: opts.Formulation, Graph: opts.Graph,
		Solver: solver.Control{MaxIter: opts.Solver.MaxIter, Tol: opts.Solver.Tol, PlainCD: opts.Solver.PlainCD, Algorithm: opts.Solver.Algorithm}}
	job := dist.Job{Path: df.path, Load: lo, Prepare: prep, Options: fit, GridRows: rows}
	if mf.graph.file != "" {
		job.ReadGraph = func(n int) (*graph.Graph, error) { return mf.graph.readGraph(n, io.Discard) }
	}
	res, err := dist.RunJob(ctx, job, rank, size, comms)
	if err != nil {
		return nil, err
	}
	if df.stderr != nil {
		for _, n := range res.Notes {
			fmt.Fprintln(df.stderr, printable(n))
		}
	}
	df.noteWeighting(res.Prepared)
	return res, nil
}
