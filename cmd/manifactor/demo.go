package main

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/manifactor/manifactor"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/solver"
)

// loadDemo reads the embedded TDT2 sample.
func loadDemo() (*dataset.Dataset, error) {
	f, err := manifactor.DemoFS.Open(manifactor.DemoMatrix)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", manifactor.DemoMatrix, err)
	}
	a, _, err := dataset.ReadMatrixMarket(zr, manifactor.DemoMatrix)
	if err != nil {
		return nil, err
	}
	lf, err := manifactor.DemoFS.Open(manifactor.DemoLabels)
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	labels, err := dataset.ReadLabels(lf, manifactor.DemoLabels)
	if err != nil {
		return nil, err
	}
	if a == nil || len(labels) != a.Rows {
		return nil, fmt.Errorf("%s: embedded demo data is inconsistent", manifactor.DemoMatrix)
	}
	return &dataset.Dataset{Source: "embedded TDT2 sample", Sparse: a, Labels: labels}, nil
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", "[--k K] [--seed S] [--json]", stderr)
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
	begin := time.Now()
	ds, err := loadDemo()
	if err != nil {
		return err
	}
	classes, _ := ds.Classes()
	if *k == 0 {
		*k = len(classes)
	}
	// The papers' document preparation: tf-idf, unit-length documents.
	df := dataFlags{tfidf: true, normalize: "l2"}
	p, err := df.prepare(ds)
	if err != nil {
		return err
	}
	// NMF (paper 004) and GNMF (paper 000: 5-NN 0/1 graph), each the best
	// of three starts.
	sums := map[string]*fitSummary{}
	var gnmfLabels []int
	for _, method := range []string{"nmf", "gnmf"} {
		mf := methodFlags{method: method, k: *k, iters: 300, tol: solver.DefaultTol, stop: "relative", restarts: 3,
			seed: *seed, assign: "argmax", init: "random", kernel: "linear", degree: 2, kernelMemGB: 1, cgTol: 1e-10, cgIters: 1000, evaluate: 1,
			graph: graphFlags{lambda: -1, neighbors: 5}}
		sum, res, err := factorize(ctx, p, &mf, rt, nil, stderr)
		if err != nil {
			return err
		}
		sums[method] = sum
		gnmfLabels = res.Labels
	}
	if *asJSON {
		return writeJSON(stdout, sums)
	}
	n, m := ds.Dims()
	fmt.Fprintf(stdout, "manifactor demo: %s, %d documents x %d terms, %d topics (tf-idf, unit length)\n\n", ds.Source, n, m, len(classes))
	fmt.Fprintln(stdout, "method  accuracy    NMI  iterations  seconds")
	for _, method := range []string{"nmf", "gnmf"} {
		s := sums[method]
		fmt.Fprintf(stdout, "%-6s  %7.2f %%  %5.2f %%  %10d  %7.2f\n", method, 100**s.Accuracy, 100**s.NMI, s.Iterations, s.Seconds)
	}
	g := sums["gnmf"]
	fmt.Fprintf(stdout, "\ngnmf: lambda %g, %d-NN %s graph built in %.2f s\n", *g.Lambda, g.Neighbors, g.Weight, g.GraphSeconds)
	// Each GNMF cluster with its size and the topic most of its documents
	// carry.
	fmt.Fprintln(stdout, "\ncluster  size  dominant topic (share)")
	for c := 0; c < *k; c++ {
		counts := map[int]int{}
		for i, l := range gnmfLabels {
			if l == c {
				counts[ds.Labels[i]]++
			}
		}
		topics := make([]int, 0, len(counts))
		for t := range counts {
			topics = append(topics, t)
		}
		sort.Slice(topics, func(i, j int) bool {
			if counts[topics[i]] != counts[topics[j]] {
				return counts[topics[i]] > counts[topics[j]]
			}
			return topics[i] < topics[j]
		})
		if len(topics) == 0 {
			fmt.Fprintf(stdout, "%7d  %4d  -\n", c+1, 0)
			continue
		}
		size := g.ClusterSizes[c]
		fmt.Fprintf(stdout, "%7d  %4d  topic %d (%.0f %%)\n", c+1, size, topics[0], 100*float64(counts[topics[0]])/float64(size))
	}
	fmt.Fprintf(stdout, "\ntotal time %.2f s\n", time.Since(begin).Seconds())
	return nil
}
