package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/experiment"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/solver"
)

func runExperiment(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("experiment", "--data D --methods M1,M2,... --clusters 2-10 --runs 50 [--seed S] [--format markdown|csv|json]", stderr)
	var df dataFlags
	var rt runtimeFlags
	df.register(fs)
	rt.register(fs)
	methods := fs.String("methods", "", "methods to compare: any of "+strings.Join(append(methodNames(), "kmeans", "lsi-kmeans", "aa", "ncut", "pca-kmeans"), ", "))
	clusters := fs.String("clusters", "2-10", "the numbers of classes k drawn, e.g. 2-10 or 2,5,10")
	runs := fs.Int("runs", 50, "random draws of k classes per k")
	seed := fs.Uint64("seed", 1, "seed of the draws and the methods; the same seed gives the same table")
	format := fs.String("format", "markdown", "output: markdown, csv or json")
	lambda := fs.Float64("lambda", -1, "graph regularization weight (default: the papers': gnmf 10 on sparse text, 100 on dense images; lccf and lpnmf 100)")
	neighbors := fs.Int("neighbors", graph.DefaultNeighbors, "p, nearest neighbours per sample")
	iters := fs.Int("iters", solver.DefaultMaxIter, "maximum iterations of each factorization")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := rt.apply(); err != nil {
		return err
	}
	// Everything a user can get wrong is checked before any work starts.
	switch *format {
	case "markdown", "csv", "json":
	default:
		return fmt.Errorf("--format %q: want markdown, csv or json", *format)
	}
	ks, err := parseList(*clusters)
	if err != nil {
		return fmt.Errorf("--clusters: %w", err)
	}
	if *runs < 1 || *neighbors < 1 || *iters < 1 || (*lambda < 0 && *lambda != -1) {
		return errors.New("--runs, --neighbors and --iters must be at least 1, --lambda not negative")
	}
	names := strings.Split(*methods, ",")
	if *methods == "" {
		return errors.New("--methods is required")
	}
	p, err := df.load()
	if err != nil {
		return err
	}
	if p.ds.Labels == nil {
		return fmt.Errorf("%s: the protocol needs class labels", p.ds.Source)
	}
	ms := map[string]experiment.Method{}
	base := experiment.Baselines()
	for _, name := range names {
		if m, ok := base[name]; ok {
			ms[name] = m
			continue
		}
		if !knownMethod(name) {
			return fmt.Errorf("--methods: unknown method %q", name)
		}
		mf := methodFlags{method: name, graph: graphFlags{lambda: *lambda, neighbors: *neighbors}}
		mf.defaults(p.ds.Sparse != nil)
		w, err := graph.ParseWeight(mf.graph.weight)
		if err != nil {
			return err
		}
		o := solver.Options{Method: name, MaxIter: *iters, Threads: 1}
		if solver.TakesGraph(name) {
			o.Lambda = mf.graph.lambda
		}
		ms[name] = experiment.Factorization{Options: o, Graph: graph.Options{Neighbors: *neighbors, Weight: w, Threads: 1}}
	}
	// Each subset is prepared as the whole data set would be: the papers
	// draw classes from the raw corpus, then weigh the subset.
	prep := df
	prot := experiment.Protocol{Classes: ks, Runs: *runs, Seed: *seed, Workers: rt.threads,
		Prepare: func(d *dataset.Dataset) (*dataset.Dataset, error) {
			q, err := prep.prepare(d)
			if err != nil {
				return nil, err
			}
			return q.ds, nil
		}}
	if f, ok := stderr.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			prot.Progress = func(done, total int, elapsed time.Duration) {
				left := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
				fmt.Fprintf(stderr, "\r%d of %d runs, about %s left   ", done, total, left.Round(time.Second))
				if done == total {
					fmt.Fprintln(stderr)
				}
			}
		}
	}
	// The methods' own parallelism is off (Threads 1): runs go in parallel.
	table, err := prot.Run(ctx, p.ds, ms)
	if err != nil {
		return err
	}
	switch *format {
	case "csv":
		return table.CSV(stdout)
	case "json":
		return writeJSON(stdout, table)
	}
	return table.Markdown(stdout)
}

func knownMethod(name string) bool {
	names := methodNames()
	sort.Strings(names)
	i := sort.SearchStrings(names, name)
	return i < len(names) && names[i] == name
}
