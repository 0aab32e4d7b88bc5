package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/manifactor/manifactor/figure"
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
	Rule       string       `json:"rule"`
	K          int          `json:"k"`
	Best       int          `json:"best"`
	Curve      []rank.Point `json:"curve"`
	Seed       uint64       `json:"seed"`
	Seconds    float64      `json:"seconds"`
	Skipped    *skippedJSON `json:"skipped,omitempty"`
}

const rankRule = "the smallest k whose test error is within one standard error of the lowest"

func runRank(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("rank", "--data D --method M --k 2-40 [options]", stdout, stderr)
	var df dataFlags
	var rt runtimeFlags
	var mf methodFlags
	df.register(fs)
	rt.register(fs)
	fs.TextVar(&mf.method, "method", solver.NMF, "method: nmf, gnmf, nmf-kl or their -ncw forms")
	ks := fs.String("k", "", "the ranks to try: a list or ranges, e.g. 2-40 or 2,4,8 (see --step)")
	step := fs.Int("step", 1, "with a range, try every N-th rank of it")
	share := fs.Float64("test-share", rank.DefaultTestShare, "share of all entries hidden in each replicate, zeros included: 0 < X <= 0.5")
	reps := fs.Int("replicates", rank.DefaultReplicates, "hidden sets, each fitted at every rank (1 to 100)")
	cold := fs.Bool("cold", false, "start every rank from random factors, as independent fits do (for comparison)")
	plot := fs.String("plot", "", "directory for test-error-vs-k.png and .svg")
	asJSON := fs.Bool("json", false, "print the curve and the chosen rank as JSON")
	mf.registerSettings(fs, solver.DefaultMaxIter, false)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := rt.apply(); err != nil {
		return err
	}
	if err := df.check(); err != nil {
		return err
	}
	if *plot != "" {
		if err := figure.CheckDir(*plot); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
	}
	if !(*share > 0 && *share <= 0.5) {
		return fmt.Errorf("--test-share %v: want a share in (0, 0.5] of the entries", *share)
	}
	if *reps < 1 || *reps > 100 {
		return fmt.Errorf("--replicates %d: want 1 to 100", *reps)
	}
	list, err := rankList(*ks, *step)
	if err != nil {
		return err
	}
	if set(fs, "lambda") && mf.lambda.IsAuto() {
		return errors.New("--lambda auto: the rank is cross-validated at a fixed weight; give a number (default: the method's)")
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
	if err := rt.checkMemory(p.Data.Source, memory.Rank(p.Data, opts, list[len(list)-1], *share, *reps, rt.threadCount())); err != nil {
		return err
	}
	begin := time.Now()
	ro := rank.Options{Fit: opts, Ks: list, TestShare: *share, Replicates: *reps, Cold: *cold}
	if !rt.quiet {
		ro.Progress = rankProgress(stderr, "rank", len(list)**reps)
	}
	res, err := rank.CrossValidate(ctx, p.Data, ro)
	if !rt.quiet {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return err
	}
	n, m := p.Data.Dims()
	out := rankOutput{Data: df.path, Method: opts.Method.String(), Samples: n, Features: m, TestShare: *share, Replicates: *reps,
		Hidden: res.Hidden, Rule: rankRule, K: res.Chosen, Best: res.Best, Curve: res.Curve, Seed: opts.Seed,
		Seconds: time.Since(begin).Seconds(), Skipped: skippedOf(df.skipped)}
	if *plot != "" {
		if err := plotRank(*plot, baseName(p.Data.Source), out); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "%s: %s, %d samples x %d features, %d replicates hiding %.3g of the entries (%d each)\n\n", df.path, out.Method, n, m, *reps, *share, res.Hidden)
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

// rankProgress reports rank.CrossValidate's fits on one line of stderr,
// after prefix.
func rankProgress(stderr io.Writer, prefix string, total int) func(r, k int, _ float64) {
	done := 0
	return func(r, k int, _ float64) {
		done++
		fmt.Fprintf(stderr, "\r%s: %d of %d fits (replicate %d, k = %d)   ", prefix, done, total, r+1, k)
	}
}
