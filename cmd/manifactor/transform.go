package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/internal/outdir"
	"github.com/manifactor/manifactor/model"
)

// transformSummary is what transform reports.
type transformSummary struct {
	Model          string   `json:"model"`
	Data           string   `json:"data"`
	Method         string   `json:"method"`
	K              int      `json:"k"`
	Samples        int      `json:"samples"`
	Features       int      `json:"features"`
	ByName         bool     `json:"aligned_by_name"`
	Unknown        int      `json:"unknown_features"`
	UnknownEntries int      `json:"unknown_entries"`
	EmptySamples   int      `json:"empty_samples"`
	ClusterSizes   []int    `json:"cluster_sizes"`
	Accuracy       *float64 `json:"accuracy,omitempty"`
	NMI            *float64 `json:"nmi,omitempty"`
	Seconds        float64  `json:"seconds"`
	Files          []string `json:"files,omitempty"`
	Labels         []int    `json:"labels,omitempty"`
	// Assignments name each new sample's cluster (assignments.tsv).
	Assignments []assignment `json:"assignments,omitempty"`
}

// runTransform places new samples on a saved model's factors.
func runTransform(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("transform", "--model DIR --data D [--out DIR] [options]", stdout, stderr)
	var rt runtimeFlags
	rt.register(fs)
	var df dataFlags
	dir := fs.String("model", "", "model directory written by fit --out")
	// How to read the new data; its preparation is the model's.
	df.registerRead(fs)
	maxIter := fs.Int("max-iter", 200, "updates of each new sample's row of V")
	out := fs.String("out", "", "directory for V.mtx, labels.txt, assignments.tsv (each sample's id, cluster and class) and summary.json (created if missing)")
	asJSON := fs.Bool("json", false, "print the summary as JSON, with every label")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := rt.apply(); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("--model is required")
	}
	if err := df.check(); err != nil {
		return err
	}
	if *maxIter < 1 {
		return fmt.Errorf("--max-iter %d: must be at least 1", *maxIter)
	}
	path, opts := &df.path, df.opts
	var od *outdir.Dir
	if *out != "" {
		var err error
		if od, err = beginOutput(*out, []string{"V.mtx", "labels.txt", "assignments.tsv", "summary.json"}, df.inputFiles()...); err != nil {
			return err
		}
		defer od.Abort()
	}
	begin := time.Now()
	m, err := model.Load(*dir)
	if err != nil {
		return err
	}
	if dataset.IsTextSource(*path) {
		if m.Text == nil {
			return fmt.Errorf("%s is text, but the model in %s was fitted on a matrix: its features are not words", *path, *dir)
		}
		// The model's own pipeline, document by document: the model
		// weighs the counts and knows the vocabulary.
		skip := opts.Text.SkipUnreadable
		opts.Text = m.Text.Tokenization()
		opts.Text.SkipUnreadable = skip
	}
	ds, err := dataset.Load(ctx, *path, opts)
	if err != nil {
		return err
	}
	for _, n := range ds.Notes {
		fmt.Fprintln(stderr, printable(n))
	}
	t, err := m.Transform(ctx, ds, model.TransformOptions{MaxIter: *maxIter, Threads: rt.threads})
	if err != nil {
		return err
	}
	sum, err := newTransformSummary(*dir, *path, m, t)
	if err != nil {
		return err
	}
	sum.Seconds = time.Since(begin).Seconds()
	if od != nil {
		if err := writeTransformOutputs(od, *out, t, assignmentsOf(ds, t.Labels), sum); err != nil {
			return err
		}
	}
	if *asJSON {
		sum.Labels, sum.Assignments = t.Labels, assignmentsOf(ds, t.Labels)
		return writeJSON(stdout, sum)
	}
	sum.print(stdout, *out)
	return nil
}

// newTransformSummary describes t, the data at path placed on the model m
// read from dir: the features' alignment, the samples left empty, the
// clusters and their scores.
func newTransformSummary(dir, path string, m *model.Model, t *model.Transformed) (*transformSummary, error) {
	n, mf := t.Data.Dims()
	sum := &transformSummary{Model: dir, Data: path, Method: m.Method.String(), K: m.K, Samples: n, Features: mf,
		ByName: t.Alignment.ByName, Unknown: t.Alignment.Unknown, UnknownEntries: t.Alignment.UnknownEntries,
	}
	for i := 0; i < n; i++ {
		var row []float64
		if a := t.Data.Sparse; a != nil {
			row = a.Val[a.Indptr[i]:a.Indptr[i+1]]
		} else {
			row = t.Data.Dense.RawRowView(i)
		}
		if rowZero(row) {
			sum.EmptySamples++
		}
	}
	score, err := model.Summarize(t.Labels, m.K, t.Data.Labels, nil)
	if err != nil {
		return nil, err
	}
	sum.ClusterSizes, sum.Accuracy, sum.NMI = score.Sizes, score.Accuracy, score.NMI
	return sum, nil
}

// writeTransformOutputs writes V.mtx, labels.txt, assignments.tsv and
// summary.json, which lists them, into od and puts them in place of out.
func writeTransformOutputs(od *outdir.Dir, out string, t *model.Transformed, assigned []assignment, sum *transformSummary) error {
	sum.Files = []string{od.FinalPath("V.mtx"), od.FinalPath("labels.txt"), od.FinalPath("assignments.tsv"), od.FinalPath("summary.json")}
	a := assignmentsOutput(assigned)
	if err := od.WriteFile(a.name, a.write); err != nil {
		return err
	}
	if err := od.WriteFile("V.mtx", func(w io.Writer) error { return matrixio.WriteMatrixMarketDense(w, t.V) }); err != nil {
		return err
	}
	if err := od.WriteFile("labels.txt", func(w io.Writer) error {
		for _, l := range t.Labels {
			if _, err := fmt.Fprintln(w, l); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := od.WriteFile("summary.json", func(w io.Writer) error { return writeJSON(w, sum) }); err != nil {
		return err
	}
	if err := od.Commit(); err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	return nil
}

// print writes the summary as text; out is the --out directory, if any.
func (sum *transformSummary) print(w io.Writer, out string) {
	fmt.Fprintf(w, "%s: %d samples on the %d factors of %s (%s)\n", sum.Data, sum.Samples, sum.K, sum.Model, sum.Method)
	how := "by column"
	if sum.ByName {
		how = "by name"
	}
	fmt.Fprintf(w, "features aligned %s; %d unknown features (%d entries) ignored; %d samples with no known feature\n", how, sum.Unknown, sum.UnknownEntries, sum.EmptySamples)
	fmt.Fprintf(w, "cluster sizes %v\n", sum.ClusterSizes)
	if sum.Accuracy != nil {
		fmt.Fprintf(w, "accuracy %.2f %%, NMI %.2f %%\n", 100**sum.Accuracy, 100**sum.NMI)
	}
	if out != "" {
		fmt.Fprintf(w, "wrote %s\n", out)
	}
}

func rowZero(r []float64) bool {
	for _, x := range r {
		if x != 0 {
			return false
		}
	}
	return true
}
