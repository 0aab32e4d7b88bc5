package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/figure"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/model/memory"
	"github.com/manifactor/manifactor/model/rank"
	"github.com/manifactor/manifactor/solver"
)

// rankOutput is rank's --json: the chosen rank as "k", the curve, and
// what was run.
type rankOutput struct {
	Data       string       `json:"data"`
	Method     string       `json:"method"`
	Samples    int          `json:"samples"`
	Features   int          `json:"features"`
	TestShare  float64      `json:"test_share"`
	Replicates int          `json:"replicates"`
	Hidden     int          `json:"hidden"`
	ZeroShare  float64      `json:"zero_share"`
	Rule       string       `json:"rule"`
	K          int          `json:"k"`
	Best       int          `json:"best"`
	Curve      []rank.Point `json:"curve"`
	Seed       uint64       `json:"seed"`
	Seconds    float64      `json:"seconds"`
	Skipped    *skippedJSON `json:"skipped,omitempty"`
}

const (
	rankRule       = "the smallest k whose test error is within one standard error of the lowest"
	consensusRule  = "the k of the highest cophenetic correlation (Brunet et al.), ties within 0.001 to the highest dispersion"
	heldOutName    = "held-out"
	copheneticName = "cophenetic"
)

// criterion is rank's --criterion: what a k is judged by.
type criterion int

const (
	heldOut    criterion = iota // the test error at hidden entries (rank.CrossValidate)
	cophenetic                  // the consensus of restarts (rank.Consensus)
)

func (c criterion) String() string {
	if c == cophenetic {
		return copheneticName
	}
	return heldOutName
}

func (c criterion) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

func (c *criterion) UnmarshalText(b []byte) error {
	switch string(b) {
	case heldOutName:
		*c = heldOut
	case copheneticName:
		*c = cophenetic
	default:
		return fmt.Errorf("%q: want held-out or cophenetic", b)
	}
	return nil
}

// consensusOutput is rank --criterion cophenetic's --json: the chosen
// number of clusters as "k", the curve, and what was run.
type consensusOutput struct {
	Data      string                `json:"data"`
	Method    string                `json:"method"`
	Criterion string                `json:"criterion"`
	Samples   int                   `json:"samples"`
	Features  int                   `json:"features"`
	Measured  int                   `json:"measured_samples"`
	Runs      int                   `json:"runs"`
	Rule      string                `json:"rule"`
	K         int                   `json:"k"`
	Curve     []rank.ConsensusPoint `json:"curve"`
	Seed      uint64                `json:"seed"`
	Seconds   float64               `json:"seconds"`
	Skipped   *skippedJSON          `json:"skipped,omitempty"`
}

// rankFlags are rank's own flags.
type rankFlags struct {
	criterion     criterion
	ks            string
	step          int
	share         float64
	reps          int
	cold          bool
	runs          int
	sample        int
	plot          string
	asJSON        bool
	heldOutOnly   []string // flags that only the held-out criterion reads
	consensusOnly []string
}

func runRank(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("rank", "--data D --method M --k 2-40 [options]", stdout, stderr)
	var df dataFlags
	var rt runtimeFlags
	var mf methodFlags
	var rf rankFlags
	df.register(fs)
	rt.register(fs)
	fs.TextVar(&mf.method, "method", solver.NMF, "method: nmf, gnmf, nmf-kl or their -ncw forms; with --criterion cophenetic any")
	fs.TextVar(&rf.criterion, "criterion", heldOut, "held-out: the test error at hidden entries (the model's rank); cophenetic: the stability of the clusters over runs (a number of clusters)")
	fs.StringVar(&rf.ks, "k", "", "the ranks to try: a list or ranges, e.g. 2-40 or 2,4,8 (see --step)")
	fs.IntVar(&rf.step, "step", 1, "with a range, try every N-th rank of it")
	fs.Float64Var(&rf.share, "test-share", rank.DefaultTestShare, "held-out: share of all entries hidden in each replicate, zeros included: 0 < X <= 0.5")
	fs.IntVar(&rf.reps, "replicates", rank.DefaultReplicates, "held-out: hidden sets, each fitted at every rank (1 to 100)")
	fs.BoolVar(&rf.cold, "cold", false, "held-out: start every rank from random factors, as independent fits do (for comparison)")
	fs.IntVar(&rf.runs, "runs", rank.DefaultRuns, "cophenetic: fits from random starts at each k, 2 to 1000 (R's NMF: nrun)")
	fs.IntVar(&rf.sample, "sample", rank.DefaultSample, "cophenetic: the most samples measured, a seeded subsample of larger data (memory grows as its square)")
	fs.StringVar(&rf.plot, "plot", "", "directory for the curve as PNG and SVG")
	fs.BoolVar(&rf.asJSON, "json", false, "print the curve and the chosen k as JSON")
	mf.registerSettings(fs, solver.DefaultMaxIter, false)
	// Each run is one start: --restarts would keep the best of several.
	rf.heldOutOnly = []string{"test-share", "replicates", "cold", "restarts", "restart-iters"}
	rf.consensusOnly = []string{"runs", "sample"}
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := rt.apply(); err != nil {
		return err
	}
	if err := df.check(); err != nil {
		return err
	}
	if err := rf.check(fs); err != nil {
		return err
	}
	list, err := rankList(rf.ks, rf.step)
	if err != nil {
		return err
	}
	if set(fs, "lambda") && mf.lambda.IsAuto() {
		return errors.New("--lambda auto: the rank is measured at a fixed weight; give a number (default: the method's)")
	}
	p, err := df.load(ctx, &rt)
	if err != nil {
		return err
	}
	mf.k = list[0] // the ranks come from --k; options wants one
	opts, err := mf.options(rt.threads, kindOf(p.Data.Sparse != nil))
	if err != nil {
		return err
	}
	if !set(fs, "lambda") {
		opts.Lambda = solver.Lambda{} // the method's default weight, not auto
	}
	if rf.criterion == cophenetic {
		return rf.consensus(ctx, &df, &rt, p.Data, opts, list, stdout, stderr)
	}
	return rf.heldOut(ctx, &df, &rt, p.Data, opts, list, stdout, stderr)
}

// check refuses rank's flags out of range and those of the other
// criterion.
func (rf *rankFlags) check(fs *flag.FlagSet) error {
	if rf.plot != "" {
		if err := figure.CheckDir(rf.plot); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
	}
	other, names := rf.consensusOnly, copheneticName
	if rf.criterion == cophenetic {
		other, names = rf.heldOutOnly, heldOutName
	}
	for _, f := range other {
		if set(fs, f) {
			return fmt.Errorf("--%s is read by --criterion %s only", f, names)
		}
	}
	switch {
	case !(rf.share > 0 && rf.share <= 0.5):
		return fmt.Errorf("--test-share %v: want a share in (0, 0.5] of the entries", rf.share)
	case rf.reps < 1 || rf.reps > 100:
		return fmt.Errorf("--replicates %d: want 1 to 100", rf.reps)
	case rf.runs < 2 || rf.runs > 1000:
		return fmt.Errorf("--runs %d: want 2 to 1000", rf.runs)
	case rf.sample < 10:
		return fmt.Errorf("--sample %d: want at least 10 samples", rf.sample)
	}
	return nil
}

// heldOut is rank's held-out criterion: rank.CrossValidate.
func (rf *rankFlags) heldOut(ctx context.Context, df *dataFlags, rt *runtimeFlags, ds *dataset.Dataset, opts model.Options, list []int, stdout, stderr io.Writer) error {
	ro := rank.Options{Fit: opts, Ks: list, TestShare: rf.share, Replicates: rf.reps, Cold: rf.cold}
	if err := ro.Validate(ds); err != nil {
		return err
	}
	if err := rt.checkMemory(ds.Source, memory.Rank(ds, opts, list[len(list)-1], rf.share, rf.reps, rt.threadCount())); err != nil {
		return err
	}
	begin := time.Now()
	if !rt.quiet {
		ro.Progress = rankProgress(stderr, "rank", len(list)*rf.reps)
	}
	res, err := rank.CrossValidate(ctx, ds, ro)
	if !rt.quiet {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return err
	}
	n, m := ds.Dims()
	out := rankOutput{Data: df.path, Method: opts.Method.String(), Samples: n, Features: m, TestShare: rf.share, Replicates: rf.reps,
		Hidden: res.Hidden, ZeroShare: res.ZeroShare, Rule: rankRule, K: res.Chosen, Best: res.Best, Curve: res.Curve, Seed: opts.Seed,
		Seconds: time.Since(begin).Seconds(), Skipped: skippedOf(df.skipped)}
	if rf.plot != "" {
		if err := plotRank(rf.plot, baseName(ds.Source), out); err != nil {
			return err
		}
	}
	if rf.asJSON {
		return writeJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "%s: %s, %d samples x %d features, %d replicates hiding %.3g of the entries (%d each", df.path, out.Method, n, m, rf.reps, rf.share, res.Hidden)
	if res.ZeroShare < rf.share {
		fmt.Fprintf(stdout, "; zeros at %.3g, their errors weighed %.3gx", res.ZeroShare, rf.share/res.ZeroShare)
	}
	fmt.Fprint(stdout, ")\n\n")
	fmt.Fprintf(stdout, "%4s  %12s  %10s  %10s\n", "k", "test error", "spread", "iterations")
	for _, pt := range res.Curve {
		mark := ""
		switch pt.K {
		case res.Chosen:
			mark = "  <- chosen"
		case res.Best:
			mark = "  (lowest)"
		}
		fmt.Fprintf(stdout, "%4d  %12.6g  %10.3g  %10d%s\n", pt.K, pt.TestError, pt.Spread, pt.Iterations, mark)
	}
	fmt.Fprintf(stdout, "\nk = %d: %s (k = %d), in %.1f s\n", res.Chosen, rankRule, res.Best, out.Seconds)
	return nil
}

// consensus is rank's cophenetic criterion: rank.Consensus.
func (rf *rankFlags) consensus(ctx context.Context, df *dataFlags, rt *runtimeFlags, ds *dataset.Dataset, opts model.Options, list []int, stdout, stderr io.Writer) error {
	if err := rt.checkMemory(ds.Source, memory.Consensus(ds, opts, list[len(list)-1], rf.sample, rt.threadCount())); err != nil {
		return err
	}
	begin := time.Now()
	co := rank.ConsensusOptions{Fit: opts, Ks: list, Runs: rf.runs, Sample: rf.sample}
	if !rt.quiet {
		co.Progress = func(i, k int, _ float64) {
			fmt.Fprintf(stderr, "\rrank: %d of %d ranks (k = %d, %d runs)   ", i+1, len(list), k, rf.runs)
		}
	}
	res, err := rank.Consensus(ctx, ds, co)
	if !rt.quiet {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return err
	}
	n, m := ds.Dims()
	out := consensusOutput{Data: df.path, Method: opts.Method.String(), Criterion: copheneticName, Samples: n, Features: m,
		Measured: res.Samples, Runs: rf.runs, Rule: consensusRule, K: res.Chosen, Curve: res.Curve, Seed: opts.Seed,
		Seconds: time.Since(begin).Seconds(), Skipped: skippedOf(df.skipped)}
	if rf.plot != "" {
		if err := plotConsensus(rf.plot, baseName(ds.Source), out); err != nil {
			return err
		}
	}
	if rf.asJSON {
		return writeJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "%s: %s, %d samples x %d features, %d runs a rank on %d samples\n\n", df.path, out.Method, n, m, rf.runs, res.Samples)
	fmt.Fprintf(stdout, "%4s  %11s  %11s  %10s\n", "k", "cophenetic", "dispersion", "iterations")
	for _, pt := range res.Curve {
		mark := ""
		if pt.K == res.Chosen {
			mark = "  <- chosen"
		}
		fmt.Fprintf(stdout, "%4d  %11.4f  %11.4f  %10d%s\n", pt.K, pt.Cophenetic, pt.Dispersion, pt.Iterations, mark)
	}
	fmt.Fprintf(stdout, "\nk = %d: %s, in %.1f s\n", res.Chosen, consensusRule, out.Seconds)
	return nil
}

// rankList parses --k for rank: the ranks in increasing order, a range's
// every step-th.
func rankList(s string, step int) ([]int, error) {
	if s == "" {
		return nil, errors.New("--k is required: the ranks to try, e.g. 2-40")
	}
	if step < 1 {
		return nil, fmt.Errorf("--step %d: must be at least 1", step)
	}
	all, err := parseList(s)
	if err != nil {
		return nil, fmt.Errorf("--k: %w", err)
	}
	var out []int
	for _, k := range all {
		if k < 1 {
			return nil, fmt.Errorf("--k: rank %d: must be at least 1", k)
		}
		if (k-all[0])%step == 0 {
			out = append(out, k)
		}
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("--k %s: a curve needs at least two ranks", s)
	}
	return out, nil
}

// plotRank draws the test error against k, with the replicates' spread.
func plotRank(dir, data string, out rankOutput) error {
	fig := figure.Figure{Title: fmt.Sprintf("%s on %s: test error at hidden entries (k = %d chosen)", out.Method, data, out.K),
		XLabel: "k (rank)", YLabel: "mean test error", IntegerX: true}
	s := figure.Series{Name: out.Method}
	for _, pt := range out.Curve {
		s.X, s.Y, s.Err = append(s.X, float64(pt.K)), append(s.Y, pt.TestError), append(s.Err, pt.Spread)
	}
	fig.Series = append(fig.Series, s)
	return figure.Save(fig, dir, "test-error-vs-k")
}

// plotConsensus draws the cophenetic correlation and the dispersion
// against k.
func plotConsensus(dir, data string, out consensusOutput) error {
	fig := figure.Figure{Title: fmt.Sprintf("%s on %s: consensus of %d runs (k = %d chosen)", out.Method, data, out.Runs, out.K),
		XLabel: "k (clusters)", YLabel: "consensus", IntegerX: true}
	c, d := figure.Series{Name: "cophenetic correlation"}, figure.Series{Name: "dispersion"}
	for _, pt := range out.Curve {
		c.X, c.Y = append(c.X, float64(pt.K)), append(c.Y, pt.Cophenetic)
		d.X, d.Y = append(d.X, float64(pt.K)), append(d.Y, pt.Dispersion)
	}
	fig.Series = append(fig.Series, c, d)
	return figure.Save(fig, dir, "consensus-vs-k")
}

// rankProgress reports rank.CrossValidate's fits on one line of stderr,
// after prefix.
func rankProgress(stderr io.Writer, prefix string, total int) func(r, k int, _ float64) {
	done := 0
	return func(r, k int, _ float64) {
		done++
		fmt.Fprintf(stderr, "\r%s: %d of %d fits (replicate %d, k = %d)   ", prefix, done, total, r+1, k)
	}
}
