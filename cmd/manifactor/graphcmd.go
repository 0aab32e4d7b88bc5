package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/internal/outdir"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/model/memory"
)

type graphOutput struct {
	Data      string   `json:"data"`
	Samples   int      `json:"samples"`
	Edges     int      `json:"edges"`
	Neighbors int      `json:"neighbors"`
	Weight    string   `json:"weight"`
	Metric    string   `json:"metric"` // how samples were compared: cosine (sparse), euclidean or correlation
	Symmetry  string   `json:"symmetry"`
	Search    string   `json:"search"` // exact or approx, as run
	MinShared int      `json:"min_shared,omitempty"`
	Isolated  int      `json:"isolated"`
	Purity    *float64 `json:"purity,omitempty"`
	Seconds   float64  `json:"seconds"`
	// Recall against the exact search, over RecallQueries samples
	// (--recall); absent when not asked for.
	Recall        *float64 `json:"recall,omitempty"`
	RecallQueries int      `json:"recall_queries,omitempty"`
	RecallSeconds float64  `json:"recall_seconds,omitempty"`
	Out           string   `json:"out"`
}

func runGraph(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("graph", "--data D --out FILE.mtx [options]", stdout, stderr)
	var df dataFlags
	var rt runtimeFlags
	var gf graphFlags
	df.register(fs)
	rt.register(fs)
	gf.register(fs, false)
	seed := fs.Uint64("seed", 1, "seed of the sample that sets the default heat kernel width and of --graph-search approx")
	out := fs.String("out", "", "Matrix Market file for the n x n weight matrix")
	asJSON := fs.Bool("json", false, "print JSON")
	queries := fs.Int("recall", 0, "also measure the graph's recall: the share of the exact neighbours of this many samples (drawn with --seed) that it keeps (0: do not)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := rt.apply(); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	if *queries < 0 {
		return fmt.Errorf("--recall %d: want a number of samples, or 0", *queries)
	}
	gopt, err := gf.options()
	if err != nil {
		return err
	}
	if err := checkOutput("--out", *out, df.inputFiles()...); err != nil {
		return err
	}
	p, err := df.load(ctx, &rt)
	if err != nil {
		return err
	}
	if err := gf.checkMetric(p.Data.Sparse != nil); err != nil {
		return err
	}
	est := memory.Graph(p.Data, gopt, rt.threadCount(), *queries > 0)
	if err := rt.checkMemory(p.Data.Source, est); err != nil {
		return err
	}
	progress, done := progressPrinter(stderr, 0, rt.quiet)
	if progress != nil {
		gopt.Progress = func(d, total int) { progress(model.Progress{Stage: model.GraphStage, Done: d, Total: total}) }
	}
	t0 := time.Now()
	g, err := p.Graph(ctx, gopt, *seed, rt.threads)
	done()
	if err != nil {
		return fmt.Errorf("%s: %w", p.Data.Source, err)
	}
	secs := time.Since(t0).Seconds()
	if err := outdir.WriteFile(*out, func(w io.Writer) error { return matrixio.WriteMatrixMarket(w, g.W) }); err != nil {
		return err
	}
	o := graphOutput{Data: df.path, Samples: g.N(), Edges: g.Edges(), Neighbors: gopt.Neighbors, Weight: gopt.Weight.String(),
		Metric: p.GraphMetric(gopt).String(), Symmetry: gopt.Symmetry.String(), Search: g.Search.String(), MinShared: gopt.MinShared, Seconds: secs, Out: *out}
	for i := 0; i < g.N(); i++ {
		if g.W.Indptr[i] == g.W.Indptr[i+1] {
			o.Isolated++
		}
	}
	if p.Data.Labels != nil {
		purity := g.Agreement(p.Data.Labels)
		o.Purity = &purity
	}
	if *queries > 0 {
		t0 := time.Now()
		r, err := p.GraphRecall(ctx, g, gopt, *seed, rt.threads, *queries)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Data.Source, err)
		}
		o.Recall, o.RecallQueries, o.RecallSeconds = &r, min(*queries, g.N()), time.Since(t0).Seconds()
	}
	return o.write(stdout, *asJSON)
}

// write reports the graph on w: as JSON, or as a line of text.
func (o *graphOutput) write(w io.Writer, asJSON bool) error {
	if asJSON {
		return writeJSON(w, o)
	}
	fmt.Fprintf(w, "%d samples, %d edges (%d-NN by %s, %s weights, %s rule), %d samples without an edge", o.Samples, o.Edges, o.Neighbors, o.Metric, o.Weight, o.Symmetry, o.Isolated)
	if o.Purity != nil {
		fmt.Fprintf(w, ", label purity %.3f", *o.Purity)
	}
	fmt.Fprintf(w, "; %.3f s", o.Seconds)
	if o.Recall != nil {
		fmt.Fprintf(w, "; recall %.4f over %d samples (%.3f s)", *o.Recall, o.RecallQueries, o.RecallSeconds)
	}
	fmt.Fprintf(w, "; wrote %s\n", o.Out)
	return nil
}
