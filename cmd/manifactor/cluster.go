package main

import (
	"context"
	"io"

	"github.com/manifactor/manifactor/solver"
)

func runCluster(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("cluster", "--data D --method M --k K [--classes 3,7,12] [--lambda L] [--neighbors P] [--weight W] [--kernel K] [--assign argmax|kmeans] [--seed S] [--json]", stderr)
	var df dataFlags
	var rt runtimeFlags
	var mf methodFlags
	df.register(fs)
	rt.register(fs)
	mf.register(fs, solver.DefaultMaxIter)
	asJSON := fs.Bool("json", false, "print JSON, with the label of every sample")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := rt.apply(); err != nil {
		return err
	}
	if _, err := mf.options(rt.threads); err != nil {
		return err
	}
	p, err := df.load()
	if err != nil {
		return err
	}
	progress, done := progressPrinter(stderr, mf.iters)
	sum, res, err := factorize(ctx, p, &mf, rt, progress, stderr)
	done()
	if err != nil {
		return err
	}
	if *asJSON {
		sum.Labels = res.Labels
		return writeJSON(stdout, sum)
	}
	printSummary(stdout, sum)
	return nil
}
