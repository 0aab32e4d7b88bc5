package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/outdir"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/model/autolambda"
	"github.com/manifactor/manifactor/solver"
)

func runFit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runFactorization(ctx, "fit", args, stdout, stderr)
}

func runCluster(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runFactorization(ctx, "cluster", args, stdout, stderr)
}

func runTopics(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runFactorization(ctx, "topics", args, stdout, stderr)
}

// fitFlags are the options of fit, cluster and topics: the data, the
// runtime and the method, and each command's own.
type fitFlags struct {
	df      dataFlags
	rt      runtimeFlags
	mf      methodFlags
	dfl     distFlags
	out     *string // fit's --out; nil for cluster and topics
	model   *string // topics' --model; nil for fit and cluster
	top     int
	stems   bool   // topics: the features as stems, not words
	metrics string // topics: --metrics
	ref     string // topics: --reference
	asJSON  bool
}

// register adds the flags of the command name to fs.
func (f *fitFlags) register(fs *flag.FlagSet, name string) {
	f.df.register(fs)
	f.rt.register(fs)
	f.mf.register(fs, solver.DefaultMaxIter)
	f.top = 10
	switch name {
	case "fit":
		f.dfl.register(fs)
		f.out = fs.String("out", "", "directory for the model that transform reads (manifest.json, features.tsv, U.mtx, V.mtx, W.mtx for cf and lccf, labels.txt, centers.mtx, train.mtx where transform needs the training data), vocabulary.txt, factors.mat (the factors for MATLAB), assignments.tsv (each sample's id, cluster and class) and summary.json (created if missing)")
	case "topics":
		// Sublinear term frequencies give more coherent and more diverse
		// topics than the papers' tf-idf on Reuters-21578 and on manual
		// pages, and no more topics of a few documents
		// (bench/topics_gensim.py, docs/PERFORMANCE.md (i)).
		f.df.sublinearText = true
		fs.Lookup("weighting").Usage = "term weighting: auto (log-tfidf for term counts, from text or a matrix; none otherwise), none, tfidf (tf log(n/df), paper 004) or log-tfidf ((1 + ln tf) log(n/df))"
		fs.IntVar(&f.top, "top", 10, "terms shown for each factor")
		f.model = fs.String("model", "", "show the topics of a model that fit --out saved, without fitting (no data or method options)")
		fs.BoolVar(&f.stems, "stems", false, "show terms as their stems, not as their most frequent word in the corpus")
		fs.StringVar(&f.metrics, "metrics", "", "score the topics' --top words: npmi, cv, umass, diversity, comma-separated; over windows of 10 (npmi) and 110 (cv) tokens where the reference is text, else over documents")
		fs.StringVar(&f.ref, "reference", "", "with --metrics: the corpus to count words in (default the fitted one), read with the fitted data's text pipeline")
	}
	fs.BoolVar(&f.asJSON, "json", false, "print the summary as JSON")
}

// check applies the runtime flags and checks the others.
func (f *fitFlags) check() error {
	if err := f.rt.apply(); err != nil {
		return err
	}
	// Everything the flags alone decide is checked before the data load.
	if _, err := f.mf.options(f.rt.threads, anyData); err != nil {
		return err
	}
	if err := f.mf.checkUsed(); err != nil {
		return err
	}
	if err := f.df.check(); err != nil {
		return err
	}
	if f.top < 1 {
		return fmt.Errorf("--top %d: must be at least 1", f.top)
	}
	return nil
}

// runFactorization is fit (which writes the factors to --out), cluster
// (which only reports, with every label in its JSON) and topics (which
// reads each factor as words).
func runFactorization(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(name, map[string]string{
		"fit":     "--data D --method M --k K --out DIR [options]",
		"cluster": "--data D --method M --k K [options]",
		"topics":  "(--data D --method M --k K | --model DIR) [--top N] [options]",
	}[name], stdout, stderr)
	var f fitFlags
	f.register(fs, name)
	if err := parse(fs, args); err != nil {
		return err
	}
	if f.model != nil && set(fs, "model") {
		return printModelTopics(ctx, fs, &f, stdout)
	}
	if err := f.check(); err != nil {
		return err
	}
	metrics, err := f.topicMetrics()
	if err != nil {
		return err
	}
	if metrics != nil && f.ref == "" {
		// Sliding windows count the fitted text's tokens in order.
		f.df.opts.Text.Tokens = true
	}
	if f.dfl.on {
		return runDistributedFit(ctx, fs, &f.df, &f.rt, &f.mf, &f.dfl, *f.out, f.asJSON, stdout, stderr)
	}
	if f.dfl.grid != "" {
		return fmt.Errorf("--grid %s: only with --distributed", f.dfl.grid)
	}
	mode := ""
	if f.out != nil {
		if *f.out == "" {
			return errors.New("--out is required")
		}
		parts, m, err := f.chooseMode(stderr)
		if err != nil {
			return err
		}
		if parts != nil {
			if metrics != nil {
				return fmt.Errorf("--metrics: topics of a corpus streamed from disk are not scored (fit it in memory)")
			}
			return runStreamedFit(ctx, &f, parts, stdout, stderr)
		}
		mode = m
	}
	var od *outdir.Dir
	if f.out != nil {
		if od, err = beginOutput(*f.out, fitOutputs, f.df.inputFiles()...); err != nil {
			return err
		}
		defer od.Abort()
	}
	p, err := f.df.load(ctx, &f.rt)
	if err != nil {
		return err
	}
	var ref *reference
	if metrics != nil {
		if err := checkMetrics(p.Data, f.top); err != nil {
			return err
		}
		// The reference is read before the fit, so that a bad one costs
		// no fit.
		if f.ref != "" {
			if ref, err = loadReference(ctx, f.ref, p.Data.Vocabulary, p.Data.Text, &f.rt); err != nil {
				return err
			}
		} else {
			ref = fittedReference(p.Data)
		}
	}
	opts, err := f.mf.options(f.rt.threads, kindOf(p.Data.Sparse != nil))
	if err != nil {
		return err
	}
	progress, done := progressPrinter(stderr, opts.Solver.MaxIter, f.rt.quiet)
	consume := consumes(name, opts.Method, metrics != nil)
	sum, res, fitOpts, err := factorize(ctx, p, &f.mf, f.rt, progress, consume, stderr)
	done()
	if err != nil {
		return err
	}
	sum.Classes, sum.Skipped, sum.Mode = f.df.prep.Classes, skippedOf(f.df.skipped), mode
	switch name {
	case "topics":
		return printTopics(ctx, stdout, p.Data, res.Result, sum, topicsView{top: f.top, stems: f.stems, metrics: metrics, ref: ref, threads: f.rt.threads}, f.asJSON)
	case "cluster":
		if f.asJSON {
			sum.Labels, sum.Assignments = res.Labels, assignmentsOf(p.Data, res.Labels)
			return writeJSON(stdout, sum)
		}
		printSummary(stdout, sum)
		return nil
	}
	assigned := assignmentsOf(p.Data, res.Labels)
	if err := writeFitOutputs(od, *f.out, p, res, fitOpts, assigned, sum); err != nil {
		return err
	}
	if f.asJSON {
		sum.Assignments = assigned
		return writeJSON(stdout, sum)
	}
	printSummary(stdout, sum)
	fmt.Fprintf(stdout, "wrote %s\n", *f.out)
	return nil
}

// writeFitOutputs writes fit's files into od and puts them in place of
// out: the model (manifest.json, features.tsv, U.mtx, V.mtx, W.mtx,
// labels.txt, ...: model.Save), which transform reads, then the
// vocabulary, the factors for MATLAB and the summary, which lists them.
func writeFitOutputs(od *outdir.Dir, out string, p *model.Prepared, res *model.Result, fitOpts model.Options, assigned []assignment, sum *fitSummary) error {
	mod, err := model.FromFit(p, res, fitOpts)
	if err != nil {
		return err
	}
	if err := mod.Save(od.Temp()); err != nil {
		return err
	}
	for _, f := range fitOutputs {
		if _, err := os.Stat(od.Path(f)); err == nil {
			sum.Files = append(sum.Files, od.FinalPath(f))
		}
	}
	var outputs []output
	if voc := p.Data.Vocabulary; voc != nil {
		// The names of U's rows, so its columns read as words.
		outputs = append(outputs, vocabularyOutput(voc))
	}
	outputs = append(outputs, factorsMAT(res.Result, p.Data.Vocabulary), assignmentsOutput(assigned))
	for _, o := range outputs {
		sum.Files = append(sum.Files, filepath.Join(out, o.name))
	}
	sum.Files = append(sum.Files, filepath.Join(out, "summary.json"))
	outputs = append(outputs, output{"summary.json", func(w io.Writer) error { return writeJSON(w, sum) }})
	for _, o := range outputs {
		if err := od.WriteFile(o.name, o.write); err != nil {
			return err
		}
	}
	if err := od.Commit(); err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	return nil
}

// factorsMAT is factors.mat: everything again in one file for MATLAB
// users (labels 1-based there, 0 for an unassigned sample).
func factorsMAT(res *solver.Result, voc []string) output {
	return output{"factors.mat", func(w io.Writer) error {
		n := len(res.Labels)
		lab := mat.NewDense(n, 1, nil)
		for i, l := range res.Labels {
			lab.Set(i, 0, float64(l+1))
		}
		vars := []dataset.MATWriteVar{{Name: "V", Dense: res.V}, {Name: "labels", Dense: lab}}
		if res.U != nil {
			vars = append(vars, dataset.MATWriteVar{Name: "U", Dense: res.U})
		}
		if res.W != nil {
			vars = append(vars, dataset.MATWriteVar{Name: "W", Dense: res.W})
		}
		if voc != nil {
			vars = append(vars, dataset.MATWriteVar{Name: "vocabulary", Strings: voc})
		}
		return dataset.WriteMAT(w, vars...)
	}}
}

func printSummary(w io.Writer, s *fitSummary) {
	fmt.Fprintf(w, "%s, k = %d: %d samples x %d features (%d non-zeros)", s.Method, s.K, s.Samples, s.Features, s.NNZ)
	if s.Missing > 0 {
		fmt.Fprintf(w, "; %d unknown entries left out of the fit", s.Missing)
	}
	fmt.Fprintln(w)
	if s.Lambda != nil {
		fmt.Fprintf(w, "lambda %g (%s formulation)", *s.Lambda, s.Formulation)
		if s.Verdict != autolambda.NoVerdict {
			fmt.Fprintf(w, ", %s", autoLine(s))
		}
		if s.Neighbors > 0 {
			fmt.Fprintf(w, "; %d-NN %s graph (%.2f s)", s.Neighbors, s.Weight, s.GraphSeconds)
		}
		if s.GraphPurity != nil {
			fmt.Fprintf(w, ", label purity %.3f", *s.GraphPurity)
		}
		if s.Isolated != nil && *s.Isolated > 0 {
			fmt.Fprintf(w, "; %d of %d samples without an edge, out of the graph term's reach", *s.Isolated, s.Samples)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d iterations (%s), objective %.6g, %.3f s [blas %s, kernels %s, %d threads]\n",
		s.Iterations, s.Status, s.Objective, s.Seconds, s.BLAS, s.Kernels, s.Threads)
	if s.CG != nil {
		fmt.Fprintf(w, "linear solves: %d, %d CG iterations (%.1f each), largest residual %.2g, %d round-off negatives set to 0\n",
			s.CG.Solves, s.CG.Iterations, float64(s.CG.Iterations)/float64(s.CG.Solves), s.CG.MaxResidual, s.CG.Clamped)
	}
	fmt.Fprintf(w, "cluster sizes (%s): %v", s.Assign, s.ClusterSizes)
	if s.Unassigned > 0 {
		fmt.Fprintf(w, " (%d samples unassigned: all-zero rows of V)", s.Unassigned)
	}
	fmt.Fprintln(w)
	if s.Accuracy != nil {
		fmt.Fprintf(w, "accuracy %.2f %%, NMI %.2f %%\n", 100**s.Accuracy, 100**s.NMI)
	}
}

// autoLine says how lambda auto chose: among which weights, on what, and
// its verdicts.
func autoLine(s *fitSummary) string {
	weights := func(cs []autolambda.Candidate) string {
		var w []string
		for _, c := range cs {
			w = append(w, strconv.FormatFloat(c.Lambda, 'g', -1, 64))
		}
		return strings.Join(w, ", ")
	}
	if a := s.AutoSample; a != nil {
		line := fmt.Sprintf("chosen by auto on a sample of %d of the %d samples among %s (on the sample: %s)",
			a.Samples, s.Samples, weights(a.Candidates), verdictLine(a.Verdict, a.Lambda, a.Candidates))
		switch {
		case len(s.LambdaAuto) > 1:
			line += fmt.Sprintf(", then against the plain method on the whole data (%s)", verdictLine(s.Verdict, *s.Lambda, s.LambdaAuto))
		case a.Lambda > 0:
			line += "; the graph off topic there, the plain method on the whole data, whose graph was not built"
		}
		return line
	}
	return fmt.Sprintf("chosen by auto among %s (%s)", weights(s.LambdaAuto), verdictLine(s.Verdict, *s.Lambda, s.LambdaAuto))
}

// verdictLine says what lambda auto concluded from candidates and kept.
func verdictLine(v autolambda.Verdict, lambda float64, candidates []autolambda.Candidate) string {
	kept := "the most cohesive clustering kept"
	if lambda == 0 {
		kept = "the plain method's clustering kept"
	}
	var line string
	switch v {
	case autolambda.GraphTrusted:
		line = "graph trusted: the clustering that cuts it least kept"
	case autolambda.GraphOffTopic:
		line = fmt.Sprintf("graph off-topic: the plain clusters cut it at %.2f of chance, its edges do not follow them; %s", candidates[0].RelativeCut, kept)
	default:
		line = "graph not trusted: " + kept
	}
	var collapsed int
	for _, c := range candidates {
		if c.Collapsed {
			collapsed++
		}
	}
	if collapsed > 0 {
		line += fmt.Sprintf("; %d collapsed clusterings left out", collapsed)
	}
	return line
}

// isTerminal reports whether w is a terminal (progress is shown there
// only; a log file would get a line per update).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressPrinter reports iterations on stderr when it is a terminal, at
// most five times a second, unless quiet; done ends the progress line.
func progressPrinter(stderr io.Writer, maxIter int, quiet bool) (progress func(model.Progress), done func()) {
	done = func() {}
	if quiet || !isTerminal(stderr) {
		return nil, done
	}
	last := time.Now()
	printed := false
	progress = func(p model.Progress) {
		if time.Since(last) < 200*time.Millisecond {
			return
		}
		last, printed = time.Now(), true
		prefix := ""
		if p.Candidates > 1 {
			prefix = fmt.Sprintf("lambda %g (%d of %d), ", p.Lambda, p.Candidate, p.Candidates)
		}
		if p.Stage != model.FitStage {
			if p.Total > 0 {
				fmt.Fprintf(stderr, "\r%s%s %3.0f%%...                         ", prefix, p.Stage, 100*float64(p.Done)/float64(p.Total))
				return
			}
			fmt.Fprintf(stderr, "\r%s%s...                              ", prefix, p.Stage)
			return
		}
		fmt.Fprintf(stderr, "\r%sstart %d, iteration %d/%d, objective %.6g   ", prefix, p.Start+1, p.Iter, maxIter, p.Objective)
	}
	done = func() {
		if printed {
			fmt.Fprintln(stderr)
		}
	}
	return progress, done
}

// fitOutputs are the files fit --out writes (the model's, see model.Save,
// then the vocabulary, the factors for MATLAB and the summary).
var fitOutputs = []string{"manifest.json", "features.tsv", "U.mtx", "V.mtx", "W.mtx", "labels.txt", "centers.mtx", "train.mtx", "reach.txt",
	"words.tsv", "vocabulary.txt", "factors.mat", "assignments.tsv", "summary.json"}

// output is a file a command writes into its output directory.
type output struct {
	name  string
	write func(io.Writer) error
}

// vocabularyOutput is vocabulary.txt: the names of U's rows, one per
// line, so that U's columns read as words.
func vocabularyOutput(voc []string) output {
	return output{"vocabulary.txt", func(w io.Writer) error {
		for _, v := range voc {
			if _, err := fmt.Fprintln(w, v); err != nil {
				return err
			}
		}
		return nil
	}}
}

// consumes reports whether command name's fit of method m takes over the
// data's matrix (model.Options.ConsumeData): cluster and topics need it
// no more once the fit is done, nor does fit's model, except a concept or
// graph method's, which keeps the training data for transform; the
// metrics count the documents' terms after the fit.
func consumes(name string, m solver.Method, metrics bool) bool {
	return (name != "fit" || !m.Concept() && !m.TakesGraph()) && !metrics
}
