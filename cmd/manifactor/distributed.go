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
	"time"

	"github.com/manifactor/manifactor/internal/nmfstep"

	"gonum.org/v1/gonum/blas/blas64"
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
	Converged  bool      `json:"converged"`
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

// runDistributedFit is fit --distributed, run by every rank of the job.
func runDistributedFit(ctx context.Context, fs *flag.FlagSet, df *dataFlags, rt *runtimeFlags, mf *methodFlags, d *distFlags, out string, asJSON bool, stdout, stderr io.Writer) error {
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
	cd := mf.algorithm.Resolve(mf.method) == solver.CD
	if cd && mf.method != solver.NMF {
		if mf.algorithm == solver.CD {
			return fmt.Errorf("--solver cd: --distributed runs coordinate descent for nmf only so far (%s: --solver mu)", mf.method)
		}
		cd = false
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
	t0 := time.Now()
	dd, err := readDistData(ctx, df, rt, size, rows, cd, mf.algorithm == solver.CD)
	if err != nil {
		return fail(err)
	}
	cd = dd.cd
	cs, err := job.comms(dd.grid)
	if err != nil {
		return fail(err)
	}
	// This rank's samples, prepared with the whole corpus's statistics.
	shard, err := dd.prepare(ctx, cs, rank)
	if err != nil {
		return fail(err)
	}
	samples := shard.Data.Sparse
	if samples == nil {
		return fail(fmt.Errorf("%s: --distributed takes sparse data so far (this data set is dense)", df.path))
	}
	readTime := time.Since(t0)
	n, m := dd.grid.N, samples.Cols
	g, err := dd.grid.WithFeatures(m)
	if err != nil {
		return fail(err)
	}
	opts, err := mf.options(rt.threads, sparseData)
	if err != nil {
		return fail(err)
	}
	var graphTime time.Duration
	no := dist.NMFOptions{K: opts.K, Iters: opts.Solver.MaxIter, Tol: opts.Solver.Tol, Seed: opts.Seed, Threads: rt.threads}
	if mf.method == solver.GNMF {
		// The graph from --graph (every rank reads it whole), or built by
		// the ranks among themselves, each finding its samples'
		// neighbours among all samples.
		if mf.graph.file != "" {
			if no.Graph, err = mf.graph.readGraph(n, io.Discard); err != nil {
				return fail(err)
			}
		} else {
			o := opts.Graph
			o.Seed, o.Threads = opts.Seed, rt.threads
			t0 := time.Now()
			if no.GraphRows, err = dist.BuildGraph(ctx, cs.World, g, samples, o); err != nil {
				return fail(err)
			}
			graphTime = time.Since(t0)
		}
		no.Lambda, no.Formulation = opts.Lambda.Value(), opts.Formulation
	}
	// Feature blocks of about equal work (the graph above is built on
	// the data's own order, as one process builds it); under coordinate
	// descent also on one grid row, for one process's order of U's rows.
	voc := shard.Data.Vocabulary
	no.CD, no.PlainCD = cd, opts.Solver.PlainCD
	if g.Rows > 1 || cd {
		if samples, no.FeatureOrder, err = dist.BalanceShard(cs.Row, g, samples); err != nil {
			return fail(err)
		}
		if voc != nil {
			byPos := make([]string, len(voc))
			for p, f := range no.FeatureOrder {
				byPos[p] = voc[f]
			}
			voc = byPos
		}
	}
	begin := time.Now()
	fit := dist.FitNMF
	if mf.method == solver.NMFKL {
		fit = dist.FitNMFKL
	}
	res, err := fit(ctx, cs, g, g.ShardBlock(samples, rank), no)
	if err != nil {
		return fail(err)
	}
	elapsed := time.Since(begin)
	k := opts.K
	// Every rank writes its rows of U and V as a part of the parts
	// directories U and V; rank 0 adds their manifests once all are
	// written.
	for _, f := range []struct {
		dir string
		a   blas64.General
	}{{"U", res.U}, {"V", res.V}} {
		if f.a.Rows == 0 {
			continue
		}
		path := filepath.Join(tmp, f.dir, dataset.PartName(rank))
		err := outdir.WriteFile(path, func(w io.Writer) error {
			return dataset.WriteMatrixMarketDense(w, mat.NewDense(f.a.Rows, k, f.a.Data))
		})
		if err != nil {
			return fail(err)
		}
	}
	measured, formula, err := res.MaxWords(cs.World)
	if err != nil {
		return fail(err)
	}
	if err := cs.World.Barrier(); err != nil {
		return fail(err)
	}
	if rank != 0 {
		return nil
	}
	iters := len(res.Objective) - 1
	sum := &distSummary{
		Method: mf.method.String(), Solver: map[bool]string{true: "cd", false: "mu"}[cd], K: k, Samples: n, Features: m, NNZ: dd.nnz, Ranks: size,
		Grid: fmt.Sprintf("%dx%d", g.Rows, g.Cols), Iterations: iters, Converged: res.Converged,
		Objective: res.Objective[iters], Trace: res.Objective, Seconds: elapsed.Seconds(),
		WordsPerIter: formula, WordsMeasured: measured,
		ReadSeconds: readTime.Seconds(), GraphSeconds: graphTime.Seconds(),
	}
	if iters > 0 {
		sum.PerIter = 1000 * elapsed.Seconds() / float64(iters)
	}
	uMan, vMan := factorParts(g, k)
	outputs := []output{
		{filepath.Join("U", dataset.PartsFile), uMan.Encode},
		{filepath.Join("V", dataset.PartsFile), vMan.Encode},
	}
	if voc != nil {
		outputs = append(outputs, vocabularyOutput(voc))
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
	status := "iteration limit"
	if res.Converged {
		status = "converged"
	}
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
func factorParts(g dist.Grid, k int) (u, v *dataset.Parts) {
	u, v = dataset.NewParts(g.M, k, false), dataset.NewParts(g.N, k, false)
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
		man   *dataset.Parts
		parts []part
	}{{u, us}, {v, vs}} {
		slices.SortFunc(f.parts, func(a, b part) int { return a.lo - b.lo })
		for _, p := range f.parts {
			if p.hi > p.lo {
				f.man.Add(dataset.PartName(p.rank), p.hi-p.lo, (p.hi-p.lo)*k)
			}
		}
	}
	return u, v
}

// distData is what the ranks know of the data before they read their
// samples: the grid's shape, and the manifest of a parts directory (each
// rank then reads only its samples' parts), the header of a Matrix
// Market coordinate file (each rank then reads a byte range of it), or
// else the file read whole by every rank.
type distData struct {
	path  string
	grid  dist.Grid // on the features as read (WithFeatures after the preparation)
	nnz   int
	mtx   *dataset.MTXParts
	whole *dataset.Dataset
	cd    bool // the coordinate-descent steps, on a grid aligned for them
	df    *dataFlags
	rt    *runtimeFlags
}

// readDistData reads what every rank needs to know of --data: a parts
// directory's manifest, a Matrix Market coordinate file's header, or else
// the whole file (a format that cannot be read by parts).
func readDistData(ctx context.Context, df *dataFlags, rt *runtimeFlags, size, rows int, cd, cdAsked bool) (*distData, error) {
	dd := &distData{path: df.path, df: df, rt: rt}
	var n, m int
	if dataset.IsParts(df.path) {
		if err := df.check(); err != nil {
			return nil, err
		}
		man, err := dataset.ReadParts(df.path)
		if err != nil {
			return nil, err
		}
		n, m, dd.nnz = man.Samples, man.Features, man.NNZ
	} else if byRanges(df) {
		if err := df.check(); err != nil {
			return nil, err
		}
		p, err := dataset.ReadMTXParts(df.path)
		if err != nil {
			return nil, err
		}
		dd.mtx = p
		n, m, dd.nnz = p.Rows, p.Cols, p.NNZ
	} else {
		ds, _, err := df.read(ctx, rt)
		if err != nil {
			return nil, err
		}
		dd.whole = ds
		n, m = ds.Dims()
		dd.nnz = ds.NNZ()
	}
	g, err := dist.NewGrid(size, m, n, rows)
	if err != nil {
		return nil, err
	}
	if cd {
		// Coordinate descent updates blocks of nmfstep.Block rows
		// together; each must lie on one rank. Data with too few blocks
		// for the grid run the multiplicative updates, unless cd was
		// asked for.
		a, err := g.Aligned(nmfstep.Block)
		switch {
		case err == nil:
			g, dd.cd = a, true
		case cdAsked:
			return nil, fmt.Errorf("--solver cd: %w", err)
		}
	}
	dd.grid = g
	return dd, nil
}

// prepare returns rank's samples (those of its grid column's sample
// block), prepared as fit prepares the whole data set: read from a parts
// directory or by byte ranges and prepared by model.PrepareShard,
// pooling the corpus's statistics over the grid row (whose ranks hold
// every sample block once); from a whole file by model.Prepare, and its
// rows kept.
func (dd *distData) prepare(ctx context.Context, cs dist.GridComms, rank int) (*model.Prepared, error) {
	_, j := dd.grid.Pos(rank)
	s0, s1 := dd.grid.SampleBlock(j)
	if dd.whole == nil {
		opts, prep, err := dd.df.loadOptions(dd.rt)
		if err != nil {
			return nil, err
		}
		var ds *dataset.Dataset
		if dd.mtx != nil {
			ds, err = dist.ReadMTXShard(ctx, cs.World, dd.grid, dd.mtx)
		} else {
			ds, err = dataset.LoadRows(ctx, dd.path, s0, s1, opts)
		}
		if err != nil {
			return nil, err
		}
		p, err := model.PrepareShard(ds, prep, dist.ShardPool{C: cs.Row})
		if err != nil {
			return nil, err
		}
		dd.df.noteWeighting(p)
		return p, nil
	}
	_, prep, err := dd.df.loadOptions(dd.rt)
	if err != nil {
		return nil, err
	}
	p, err := model.Prepare(dd.whole, prep)
	if err != nil {
		return nil, err
	}
	dd.df.noteWeighting(p)
	dd.whole = nil
	if n, _ := p.Data.Dims(); n != dd.grid.N {
		return nil, fmt.Errorf("%s: --distributed does not select samples (--classes)", dd.path)
	}
	shard := *p
	data := *p.Data
	if a := data.Sparse; a != nil {
		data.Sparse = a.RowSlice(s0, s1)
	}
	shard.Data = &data
	return &shard, nil
}

// byRanges reports whether the ranks read --data by byte ranges: an
// uncompressed Matrix Market file of one sample per row.
func byRanges(df *dataFlags) bool {
	return strings.HasSuffix(strings.ToLower(df.path), ".mtx") && !df.opts.Transpose
}
