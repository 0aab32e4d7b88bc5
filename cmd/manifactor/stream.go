package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/sysmem"
	"github.com/manifactor/manifactor/kernels"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/model/memory"
	"github.com/manifactor/manifactor/solver"
)

// streamedJSON is what fit's summary says of a streamed fit.
type streamedJSON struct {
	Parts int `json:"parts"`
	// PassLoss is each pass's online loss (minibatch.Model.PassLoss).
	PassLoss []float64 `json:"pass_loss"`
}

// chooseMode decides whether fit streams --data, a parts directory, from
// disk (model.FitParts) rather than load it: with --solver minibatch it
// does; with the default solver it does when the fit in memory would not
// fit under the memory limit (in one orientation, under --storage auto)
// and the method streams (model.Streams), and says so. It returns
// nil parts for a fit in memory. A job that fits neither way is refused
// with both estimates' parts.
func (f *fitFlags) chooseMode(stderr io.Writer) (*dataset.Parts, string, error) {
	if !dataset.IsParts(f.df.path) {
		return nil, "in memory", nil
	}
	opts, _ := f.df.loadOptions(&f.rt)
	parts, err := dataset.OpenParts(f.df.path, opts)
	if err != nil {
		return nil, "", err
	}
	mo, err := f.mf.options(f.rt.threads, kindOf(parts.Sparse))
	if err != nil {
		return nil, "", err
	}
	mo.ConsumeData = consumes("fit", mo.Method, false)
	limit := f.rt.limit
	// In memory in one orientation where that fits (checkFitMemory
	// chooses it again once the data are loaded).
	mo, whole, _ := storageFor(mo, f.mf.storage, parts.Sparse, limit, func(o model.Options) memory.Estimate { return memory.Parts(parts, o, f.rt.threadCount()) })
	fits := limit == 0 || whole.Total() <= limit
	canStream := parts.Sparse && model.Streams(mo.Method) && !f.mf.kAuto && f.df.classes == ""
	switch {
	case f.mf.algorithm == solver.MiniBatch:
	case fits:
		return nil, "in memory", nil
	case !canStream:
		return nil, "", fmt.Errorf("%s: the fit in memory needs an estimated %v, above the memory limit of %s; only nmf and nmf-kl on sparse parts, without --classes or --k auto, stream from disk: give more with --memory, or reduce k or the data", f.df.path, whole, sysmem.FormatBytes(limit))
	case f.mf.algorithm != solver.AutoAlgorithm:
		return nil, "", fmt.Errorf("%s: the fit in memory needs an estimated %v, above the memory limit of %s: --solver minibatch (or the default solver) streams it from disk, or give more with --memory", f.df.path, whole, sysmem.FormatBytes(limit))
	}
	if !canStream {
		return nil, "", fmt.Errorf("--solver minibatch on %s streams the parts from disk, which runs nmf or nmf-kl on sparse parts without --classes or --k auto", f.df.path)
	}
	mo.Solver.Algorithm = solver.MiniBatch
	est := memory.Streamed(parts, mo, f.rt.threadCount())
	if limit > 0 && est.Total() > limit {
		return nil, "", fmt.Errorf("%s: streamed from disk the fit needs an estimated %v (in memory %v), above the memory limit of %s: give more with --memory, or reduce k or the parts' size (split into more parts)", f.df.path, est, whole, sysmem.FormatBytes(limit))
	}
	why := "--solver minibatch"
	if f.mf.algorithm == solver.AutoAlgorithm {
		why = fmt.Sprintf("in memory it needs an estimated %s, above the limit of %s", sysmem.FormatBytes(whole.Total()), sysmem.FormatBytes(limit))
	}
	fmt.Fprintf(stderr, "streaming %s from disk, %d parts, by the minibatch solver (%s): estimate %v\n", f.df.path, parts.NumParts(), why, est)
	return parts, "streamed", nil
}

// runStreamedFit is fit of a parts directory streamed from disk.
func runStreamedFit(ctx context.Context, f *fitFlags, parts *dataset.Parts, stdout, stderr io.Writer) error {
	opts, err := f.mf.options(f.rt.threads, kindOf(true))
	if err != nil {
		return err
	}
	opts.Solver.Algorithm = solver.MiniBatch
	if f.mf.start != solver.RandomStart {
		return fmt.Errorf("--start %v: a fit streamed from disk starts at random", f.mf.start)
	}
	_, prep := f.df.loadOptions(&f.rt)
	od, err := beginOutput(*f.out, fitOutputs, f.df.path)
	if err != nil {
		return err
	}
	defer od.Abort()
	progress, done := streamProgress(stderr, opts.Solver.MaxIter, f.rt.quiet)
	opts.Progress = progress
	res, err := model.FitParts(ctx, parts, prep, opts, od.Temp())
	done()
	if err != nil {
		return err
	}
	mod := res.Model
	sum := &fitSummary{Method: opts.Method.String(), K: opts.K, Samples: res.Samples, Features: res.Features, NNZ: res.NNZ,
		Weighting: res.Weighting.String(), Normalize: res.Normalize.String(), Assign: opts.Assign.String(), Start: opts.Start.String(),
		Seed: opts.Seed, Iterations: len(res.PassLoss), Status: res.Status.String(), Objective: res.Objective,
		Seconds: res.Runtime.Seconds(), BLAS: blas.Name(), Kernels: kernels.Path(), Threads: f.rt.threadCount(),
		Mode: "streamed", Streamed: &streamedJSON{Parts: parts.NumParts(), PassLoss: res.PassLoss}}
	score, err := model.Summarize(mod.Labels, opts.K, parts.Labels, nil)
	if err != nil {
		return err
	}
	sum.ClusterSizes, sum.Unassigned, sum.Accuracy, sum.NMI = score.Sizes, score.Unassigned, score.Accuracy, score.NMI
	for _, name := range fitOutputs {
		if _, err := os.Stat(od.Path(name)); err == nil {
			sum.Files = append(sum.Files, od.FinalPath(name))
		}
	}
	outputs := []output{{"assignments.tsv", func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		fmt.Fprintln(bw, "id\tcluster\tclass")
		for i, c := range mod.Labels {
			class := ""
			if parts.Labels != nil {
				class = strconv.Itoa(parts.Labels[i])
			}
			id := strconv.Itoa(i + 1)
			if parts.IDs != nil {
				id = oneLine.Replace(parts.IDs[i])
			}
			fmt.Fprintf(bw, "%s\t%d\t%s\n", id, c, class)
		}
		return bw.Flush()
	}}}
	if voc := parts.Vocabulary; voc != nil {
		outputs = append(outputs, vocabularyOutput(mod.Preparation.Features))
	}
	for _, o := range outputs {
		sum.Files = append(sum.Files, filepath.Join(*f.out, o.name))
	}
	sum.Files = append(sum.Files, filepath.Join(*f.out, "summary.json"))
	outputs = append(outputs, output{"summary.json", func(w io.Writer) error { return writeJSON(w, sum) }})
	for _, o := range outputs {
		if err := od.WriteFile(o.name, o.write); err != nil {
			return err
		}
	}
	if err := od.Commit(); err != nil {
		return fmt.Errorf("--out %s: %w", *f.out, err)
	}
	if f.asJSON {
		return writeJSON(stdout, sum)
	}
	printSummary(stdout, sum)
	fmt.Fprintf(stdout, "wrote %s\n", *f.out)
	return nil
}

// streamProgress shows a streamed fit's stage, pass and part on a
// terminal, with the time the stage's remaining parts should take at the
// rate of its parts so far: never above what it showed before, so that
// it does not run backwards.
func streamProgress(stderr io.Writer, maxPasses int, quiet bool) (progress func(model.Progress), done func()) {
	done = func() {}
	if quiet || !isTerminal(stderr) {
		return nil, done
	}
	var stage model.Stage = -1
	var pass int
	var began, shownAt, last time.Time
	var shown time.Duration
	printed := false
	progress = func(p model.Progress) {
		now := time.Now()
		if p.Stage != stage || p.Iter != pass {
			stage, pass, began, shownAt, shown = p.Stage, p.Iter, now, time.Time{}, 0
		}
		if now.Sub(last) < 200*time.Millisecond || p.Total == 0 {
			return
		}
		last, printed = now, true
		left := ""
		if p.Done > 0 {
			est := time.Duration(float64(now.Sub(began)) / float64(p.Done) * float64(p.Total-p.Done))
			if !shownAt.IsZero() {
				est = min(est, max(0, shown-now.Sub(shownAt)))
			}
			shown, shownAt = est, now
			left = fmt.Sprintf(", about %s left", est.Round(time.Second))
		}
		what := p.Stage.String()
		if p.Stage == model.FitStage {
			what = fmt.Sprintf("pass %d/%d", p.Iter, maxPasses)
			if p.Iter > 1 {
				left += fmt.Sprintf(", last pass's loss %.6g", p.Objective)
			}
		}
		fmt.Fprintf(stderr, "\r%s: part %d/%d%s        ", what, p.Done, p.Total, left)
	}
	done = func() {
		if printed {
			fmt.Fprintln(stderr)
		}
	}
	return progress, done
}
