package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/manifactor/manifactor"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
)

// loadDemo reads the embedded Reuters sample and runs the text pipeline
// on it: tokens, stop words, stemming, tf-idf, unit-length documents.
func loadDemo(ctx context.Context) (*dataset.Dataset, error) {
	f, err := manifactor.DemoFS.Open(manifactor.DemoCorpus)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var docs []dataset.Document
	err = dataset.ReadReuters(f, manifactor.DemoCorpus, func(a *dataset.Article) error {
		docs = append(docs, dataset.Document{ID: strconv.Itoa(a.NewID), Label: a.Topics[0], Text: a.Text()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	ds, _, err := dataset.Vectorize(ctx, "embedded Reuters-21578 sample", docs, dataset.TextOptions{})
	return ds, err
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", "[--k K] [--seed S] [--json]", stdout, stderr)
	var rt runtimeFlags
	rt.register(fs)
	k := fs.Int("k", 0, "number of clusters (default: the number of topics)")
	seed := fs.Uint64("seed", 1, "random seed")
	asJSON := fs.Bool("json", false, "print the summaries as JSON, keyed by method")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := rt.apply(); err != nil {
		return err
	}
	if set(fs, "k") && *k < 1 {
		return fmt.Errorf("--k %d: must be at least 1 (leave it out for the number of topics)", *k)
	}
	begin := time.Now()
	ds, err := loadDemo(ctx)
	if err != nil {
		return err
	}
	classes, _ := ds.Classes()
	if *k == 0 {
		*k = len(classes)
	}
	// Term counts, weighed by tf-idf and scaled to unit length here.
	p, err := model.Prepare(ds, model.PrepareOptions{})
	if err != nil {
		return err
	}
	// NMF (paper 004) and GNMF (paper 000: 5-NN 0/1 graph) with the
	// command line's defaults, as fit and cluster run them.
	sums := map[string]*fitSummary{}
	var gnmf *model.Result
	for _, method := range []string{"nmf", "gnmf"} {
		var mf methodFlags
		mfs := flag.NewFlagSet("demo", flag.ContinueOnError)
		mf.register(mfs, solver.DefaultMaxIter)
		if err := mfs.Parse([]string{"--method", method, "--k", strconv.Itoa(*k), "--seed", strconv.FormatUint(*seed, 10)}); err != nil {
			return err
		}
		sum, res, _, err := factorize(ctx, p, &mf, rt, nil, false, stderr)
		if err != nil {
			return err
		}
		sums[method] = sum
		gnmf = res
	}
	if *asJSON {
		return writeJSON(stdout, sums)
	}
	n, m := ds.Dims()
	fmt.Fprintf(stdout, "manifactor demo: %s, %d articles of %d topics, raw SGML to %d stemmed terms (tf-idf, unit length)\n\n", ds.Source, n, len(classes), m)
	fmt.Fprintln(stdout, "method  accuracy    NMI  iterations  seconds")
	for _, method := range []string{"nmf", "gnmf"} {
		s := sums[method]
		fmt.Fprintf(stdout, "%-6s  %7.2f %%  %5.2f %%  %10d  %7.2f\n", method, 100**s.Accuracy, 100**s.NMI, s.Iterations, s.Seconds)
	}
	g := sums["gnmf"]
	fmt.Fprintf(stdout, "\ngnmf: lambda %g chosen by auto, %d-NN %s graph built in %.2f s\n\n", *g.Lambda, g.Neighbors, g.Weight, g.GraphSeconds)
	// Each GNMF factor with the articles it is the largest in, their
	// dominant Reuters topic and its strongest terms.
	fmt.Fprintln(stdout, "factor  size  dominant topic   top terms")
	for _, t := range readTopics(p.Data, gnmf.Result, model.TopTerms(gnmf.U, p.Data.Vocabulary, 7), false) {
		fmt.Fprintf(stdout, "%6d  %4d  %-9s %3.0f %%  %s\n", t.Topic, t.Size, t.DominantClass, 100*t.DominantShare, strings.Join(t.Terms, " "))
	}
	fmt.Fprintf(stdout, "\ntotal time %.2f s\n", time.Since(begin).Seconds())
	return nil
}
