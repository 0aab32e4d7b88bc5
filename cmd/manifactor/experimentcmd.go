package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/experiment"
	"github.com/manifactor/manifactor/figure"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
)

// protocolFlags are the options experiment and sweep share: the data, the
// protocol and the methods' settings (the factorization flags of fit and
// cluster, without --method and --k, which the protocol sets).
type protocolFlags struct {
	df       dataFlags
	rt       runtimeFlags
	mf       methodFlags
	clusters string
	runs     int
	plot     string
	terminal bool      // stderr is a terminal (set by protocol)
	progress io.Writer // where progress goes: stderr, or io.Discard with --quiet
}

func (f *protocolFlags) register(fs *flag.FlagSet) {
	f.df.register(fs)
	f.rt.register(fs)
	f.mf.registerSettings(fs, solver.DefaultMaxIter, false)
	fs.StringVar(&f.clusters, "clusters", "2-10", "the numbers of classes k drawn, e.g. 2-10 or 2,5,10")
	fs.IntVar(&f.runs, "runs", 50, "random draws of k classes per k")
	fs.StringVar(&f.plot, "plot", "", "write figures (PNG and SVG) into this directory")
}

// check validates everything that does not need the data, so that a
// mistake fails before the data is read.
func (f *protocolFlags) check() ([]int, error) {
	ks, err := parseList(f.clusters)
	if err != nil {
		return nil, fmt.Errorf("--clusters: %w", err)
	}
	if f.runs < 1 || f.runs > experiment.MaxRuns {
		return nil, fmt.Errorf("--runs %d: must be 1 to %d", f.runs, experiment.MaxRuns)
	}
	// The factorization flags, checked once for a method of each family.
	for _, m := range []solver.Method{solver.NMF, solver.GNMF, solver.LPNMF} {
		mf := f.mf
		mf.method, mf.k = m, 2
		if (mf.algorithm == solver.CD && !m.HasCD()) || (mf.algorithm == solver.MiniBatch && !m.HasMiniBatch()) {
			// Whether each requested method has the solver is checked
			// by name (begin); here only the other flags are.
			mf.algorithm, mf.batchSize = solver.MU, 0
		}
		if _, err := mf.options(1, anyData); err != nil {
			return nil, err
		}
	}
	if f.plot != "" {
		if err := figure.CheckDir(f.plot); err != nil {
			return nil, fmt.Errorf("--plot: %w", err)
		}
	}
	if err := f.df.check(); err != nil {
		return nil, err
	}
	return ks, nil
}

// begin checks the method names (flag is the option that gave them) and
// the protocol flags, then loads the labelled data: the order in which
// mistakes surface, cheapest first.
func (f *protocolFlags) begin(ctx context.Context, flag string, names []string) ([]int, *model.Prepared, error) {
	for _, name := range names {
		if _, ok := experiment.Baselines()[name]; !ok {
			m, err := parseMethod(name)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: unknown method %q (known: %s)", flag, name, strings.Join(knownNames(), ", "))
			}
			if f.mf.algorithm == solver.CD && !m.HasCD() {
				return nil, nil, fmt.Errorf("--solver cd: %s has no coordinate-descent solver (it exists for %s)", m, cdMethodNames())
			}
			if f.mf.algorithm == solver.MiniBatch && !m.HasMiniBatch() {
				return nil, nil, fmt.Errorf("--solver minibatch: %s has no mini-batch solver (it exists for nmf, nmf-ncw and nmf-kl)", m)
			}
		}
	}
	ks, err := f.check()
	if err != nil {
		return nil, nil, err
	}
	p, err := f.df.load(ctx, &f.rt)
	if err != nil {
		return nil, nil, err
	}
	if p.Data.Labels == nil {
		return nil, nil, fmt.Errorf("%s: the protocol needs class labels", p.Data.Source)
	}
	return ks, p, nil
}

// knownNames lists every method the protocol can run.
func knownNames() []string {
	return append(methodNames(nil), experiment.BaselineNames()...)
}

// method builds one method with the flags' settings; tweak, when set,
// changes the factorization's options (a sweep's value).
func (f *protocolFlags) method(name string, sparse bool, tweak func(*model.Options)) (experiment.Method, error) {
	if m, ok := experiment.Baselines()[name]; ok {
		return m, nil
	}
	m, err := parseMethod(name)
	if err != nil {
		return nil, fmt.Errorf("unknown method %q (known: %s)", name, strings.Join(knownNames(), ", "))
	}
	mf := f.mf
	mf.method, mf.k = m, 2 // the protocol sets k
	// The runs go in parallel, so each method runs on one thread.
	o, err := mf.options(1, kindOf(sparse))
	if err != nil {
		return nil, err
	}
	if tweak != nil {
		tweak(&o)
	}
	if err := o.Check(); err != nil {
		return nil, err
	}
	return experiment.Factorization{Options: o}, nil
}

// protocol returns the protocol over the prepared corpus: the corpus is
// weighted once, as the papers' document vectors are, and each subset
// only loses the features none of its samples has.
func (f *protocolFlags) protocol(ks []int, stderr io.Writer) experiment.Protocol {
	prot := experiment.Protocol{Classes: ks, Runs: f.runs, Seed: f.mf.seed, Workers: f.rt.threads,
		Prepare: experiment.SubsetPreparation(f.df.prep.KeepZeroFeatures)}
	f.terminal, f.progress = isTerminal(stderr), stderr
	if f.rt.quiet {
		f.progress = io.Discard
	}
	prot.Progress = progressLine(f.progress, f.terminal, "")
	return prot
}

// progressLine reports runs done and the time left: on one rewritten line
// on a terminal, else (a log file) a line at every tenth of the runs.
func progressLine(w io.Writer, terminal bool, prefix string) func(done, total int, elapsed time.Duration) {
	return func(done, total int, elapsed time.Duration) {
		left := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
		if terminal {
			fmt.Fprintf(w, "\r%s%d of %d runs, about %s left   ", prefix, done, total, left.Round(time.Second))
			if done == total {
				fmt.Fprintln(w)
			}
			return
		}
		if done == total || done*10/total != (done-1)*10/total {
			fmt.Fprintf(w, "%s%d of %d runs, %s elapsed, about %s left\n", prefix, done, total, elapsed.Round(time.Second), left.Round(time.Second))
		}
	}
}

func runExperiment(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("experiment", "--data D --methods M1,M2,... --clusters 2-10 --runs 50 [options]", stdout, stderr)
	var pf protocolFlags
	pf.register(fs)
	methods := fs.String("methods", "", "methods to compare: any of "+strings.Join(knownNames(), ", "))
	chosenFormat := registerFormat(fs)
	compare := fs.String("compare", "", "print the paper's table beside ours, run with the papers' settings unless --papers=false: a table ID such as 000-table2, or list to show them")
	metricList := fs.String("metrics", "", "also score each factorization's topics (top 10 terms) over its subset's documents: npmi, cv, umass, diversity")
	if err := parse(fs, args); err != nil {
		return err
	}
	metrics, err := parseMetrics(*metricList)
	if err != nil {
		return err
	}
	if metrics != nil {
		// Sliding windows count the text's tokens in order.
		pf.df.opts.Text.Tokens = true
	}
	if *compare != "" && !set(fs, "papers") {
		pf.mf.papers = true
	}
	// A paper's table counts the papers' multiplicative updates.
	compareMU := *compare != "" && !set(fs, "solver")
	if compareMU {
		pf.mf.algorithm = solver.MU
	}
	if err := pf.rt.apply(); err != nil {
		return err
	}
	if *compare == "list" {
		for _, r := range experiment.References() {
			fmt.Fprintf(stdout, "%-12s %-14s %s\n", r.ID, r.Data, strings.Join(r.Methods, ","))
		}
		return nil
	}
	// Everything a user can get wrong is checked before any work starts.
	format, err := chosenFormat()
	if err != nil {
		return err
	}
	var ref *experiment.Reference
	if *compare != "" {
		r, err := experiment.LookupReference(*compare)
		if err != nil {
			return fmt.Errorf("--compare: %w", err)
		}
		ref = &r
	}
	if *methods == "" {
		return errors.New("--methods is required")
	}
	names := strings.Split(*methods, ",")
	ks, p, err := pf.begin(ctx, "--methods", names)
	if err != nil {
		return err
	}
	ms := map[string]experiment.Method{}
	for _, name := range names {
		if ms[name], err = pf.method(name, p.Data.Sparse != nil, nil); err != nil {
			return fmt.Errorf("--methods: %w", err)
		}
	}
	if pf.mf.papers {
		fmt.Fprintln(stderr, "the factorizations run with the papers' settings (--papers)")
	}
	if compareMU {
		fmt.Fprintln(stderr, "beside a paper's table every method runs the papers' multiplicative updates (--solver mu; give --solver to change it)")
	}
	prot := pf.protocol(ks, stderr)
	if metrics != nil {
		if err := checkMetrics(p.Data, 10); err != nil {
			return err
		}
		factorizations := 0
		for _, m := range ms {
			if _, ok := m.(experiment.Factorization); ok {
				factorizations++
			}
		}
		if factorizations == 0 {
			return fmt.Errorf("--metrics scores topics, and none of --methods %s has any (the baselines do not factorize)", *methods)
		}
		// The runs go in parallel, so each counts on one thread.
		prot.Topics = topicOptions(metrics, 10, 1)
	}
	// The methods' own parallelism is off (Threads 1): runs go in parallel.
	table, err := prot.Run(ctx, p.Data, ms)
	if err != nil {
		return writePartial(stdout, stderr, table, format, err)
	}
	if err := writeCompared(stdout, stderr, table, format, ref); err != nil {
		return err
	}
	if pf.plot == "" {
		return nil
	}
	if err := plotTable(pf.plot, p.Data.Source, table, ref); err != nil {
		return err
	}
	return plotObjectives(ctx, pf.plot, prot, p.Data, ks[len(ks)-1], ms)
}

// writePartial writes the table of a protocol that failed with err, if it
// has one, and returns err.
func writePartial(stdout, stderr io.Writer, t *experiment.Table, format string, err error) error {
	if t == nil || !t.Partial || len(t.K) == 0 {
		return err
	}
	// Interrupted: the runs done are worth their time; show them,
	// marked partial, then exit as interrupted.
	if perr := writeTable(stdout, t, format); perr != nil {
		return perr
	}
	fmt.Fprintf(stderr, "partial table: interrupted after %d of %d runs\n", t.RunsDone, t.RunsTotal)
	return err
}

// writeCompared writes the table in format, then, with ref, the paper's
// table beside it.
func writeCompared(stdout, stderr io.Writer, t *experiment.Table, format string, ref *experiment.Reference) error {
	if err := writeTable(stdout, t, format); err != nil {
		return err
	}
	if ref == nil {
		return nil
	}
	// Markdown goes beside Markdown; with CSV or JSON on stdout the
	// comparison goes to stderr so the output stays machine-readable.
	w := stdout
	if format != "markdown" {
		w = stderr
	} else {
		fmt.Fprintln(w)
	}
	return t.Compare(w, *ref)
}

// plotTable draws accuracy and NMI against k, the paper's curves dashed.
func plotTable(dir, source string, t *experiment.Table, ref *experiment.Reference) error {
	for _, metric := range []string{"accuracy", "nmi"} {
		fig := figure.Figure{Title: fmt.Sprintf("%s: %s", baseName(source), map[string]string{"accuracy": "accuracy", "nmi": "normalized mutual information"}[metric]),
			XLabel: "number of classes k", YLabel: metric, IntegerX: true, Fraction: true}
		for _, name := range t.Methods {
			s := figure.Series{Name: name}
			for _, k := range t.K {
				c, ok := t.Cells[name][k]
				if !ok {
					continue
				}
				mean, std := c.AccuracyMean, c.AccuracyStd
				if metric == "nmi" {
					mean, std = c.NMIMean, c.NMIStd
				}
				s.X, s.Y, s.Err = append(s.X, float64(k)), append(s.Y, mean), append(s.Err, std)
			}
			fig.Series = append(fig.Series, s)
		}
		if ref != nil {
			values := ref.Accuracy
			if metric == "nmi" {
				values = ref.NMI
			}
			for _, name := range ref.Methods {
				if _, ours := t.Cells[name]; !ours || values[name] == nil {
					continue
				}
				s := figure.Series{Name: name + " (paper " + ref.ID + ")", Reference: true, Like: name}
				for i, k := range ref.K {
					s.X, s.Y = append(s.X, float64(k)), append(s.Y, values[name][i])
				}
				fig.Series = append(fig.Series, s)
			}
		}
		if err := figure.Save(fig, dir, metric+"-vs-k"); err != nil {
			return err
		}
	}
	return nil
}

// plotObjectives fits each factorization once more on the first draw of k
// classes, evaluating the objective every iteration, and draws it against
// the iterations (paper 002, Figure 3).
func plotObjectives(ctx context.Context, dir string, prot experiment.Protocol, ds *dataset.Dataset, k int, ms map[string]experiment.Method) error {
	sub, seed, err := prot.Subset(ds, k, 0)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(ms))
	for name := range ms {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f, ok := ms[name].(experiment.Factorization)
		if !ok {
			continue
		}
		f.Options.Solver.Evaluate, f.Options.Threads = 1, 0
		res, err := f.Fit(ctx, sub, k, seed)
		if err != nil {
			return fmt.Errorf("objective of %s: %w", name, err)
		}
		s := figure.Series{Name: name}
		for i, v := range res.Objective {
			s.X, s.Y = append(s.X, float64(i)), append(s.Y, v)
		}
		fig := figure.Figure{Title: fmt.Sprintf("%s on %s, k = %d (first draw)", name, baseName(ds.Source), k),
			XLabel: "iteration", YLabel: "objective", LogY: true, Series: []figure.Series{s}}
		if err := figure.Save(fig, dir, "objective-"+name); err != nil {
			return err
		}
	}
	return nil
}

// baseName is the last element of a path, for titles.
func baseName(path string) string {
	path = strings.TrimRight(path, "/")
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[i+1:]
	}
	return path
}

// writeTable writes the protocol's table in the chosen format.
func writeTable(w io.Writer, t *experiment.Table, format string) error {
	switch format {
	case "csv":
		return t.CSV(w)
	case "json":
		return writeJSON(w, t)
	}
	return t.Markdown(w)
}
