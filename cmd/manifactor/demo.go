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
	var mf methodFlags
	rt.register(fs)
	mf.register(fs, 300)
	mf.restarts = 3
	asJSON := fs.Bool("json", false, "print the summary as JSON")
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
	if mf.k == 0 {
		mf.k = len(classes)
	}
	opts, err := mf.options(rt.threads)
	if err != nil {
		return err
	}
	// The papers' document preparation: tf-idf, unit-length documents.
	df := dataFlags{tfidf: true, normalize: "l2"}
	p, err := df.prepare(ds)
	if err != nil {
		return err
	}
	sum, res, err := factorize(ctx, p, opts, rt)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, sum)
	}
	n, m := ds.Dims()
	fmt.Fprintf(stdout, "manifactor demo: %s, %d documents x %d terms, %d topics (tf-idf, unit length)\n\n", ds.Source, n, m, len(classes))
	printSummary(stdout, sum)
	// Each cluster with its size and the topic most of its documents carry.
	fmt.Fprintln(stdout, "\ncluster  size  dominant topic (share)")
	for c := 0; c < opts.K; c++ {
		counts := map[int]int{}
		for i, l := range res.Labels {
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
		size := sum.ClusterSizes[c]
		fmt.Fprintf(stdout, "%7d  %4d  topic %d (%.0f %%)\n", c+1, size, topics[0], 100*float64(counts[topics[0]])/float64(size))
	}
	fmt.Fprintf(stdout, "\ntotal time %.2f s\n", time.Since(begin).Seconds())
	return nil
}
