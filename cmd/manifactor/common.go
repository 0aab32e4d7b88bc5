package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/kernels"
	"github.com/manifactor/manifactor/solver"
)

// newFlagSet returns a flag set that reports parse errors to stderr with a
// usage text naming the sub-command.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: manifactor %s %s\n\nOptions:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args and rejects stray positional arguments.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// runtimeFlags select the compute backends; every sub-command has them.
type runtimeFlags struct {
	blas, kernels string
	threads       int
}

func (r *runtimeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.blas, "blas", "", "BLAS backend: openblas or gonum (default: openblas when compiled in; env MANIFACTOR_BLAS)")
	fs.StringVar(&r.kernels, "kernels", "", "kernel path: auto, generic or avx2 (default auto; env MANIFACTOR_KERNELS)")
	fs.IntVar(&r.threads, "threads", 0, "goroutines for the sparse products and updates (default: all cores)")
}

// apply installs the chosen backends. An explicit flag wins over the
// environment; an unusable environment value is an error only when no flag
// overrides it.
func (r *runtimeFlags) apply() error {
	if r.threads < 0 {
		return fmt.Errorf("--threads %d: must be at least 1 (or 0 for all cores)", r.threads)
	}
	if r.blas != "" {
		if err := blas.Use(r.blas); err != nil {
			return fmt.Errorf("--blas %s: %w", r.blas, err)
		}
	} else if err := blas.EnvError(); err != nil {
		return fmt.Errorf("MANIFACTOR_BLAS: %w", err)
	}
	if r.kernels != "" {
		if err := kernels.Use(r.kernels); err != nil {
			return fmt.Errorf("--kernels %s: %w", r.kernels, err)
		}
	} else if err := kernels.EnvError(); err != nil {
		return fmt.Errorf("MANIFACTOR_KERNELS: %w", err)
	}
	if r.threads > 0 {
		blas.SetThreads(r.threads)
	}
	return nil
}

func (r *runtimeFlags) threadCount() int {
	if r.threads > 0 {
		return r.threads
	}
	return runtime.GOMAXPROCS(0)
}

// dataFlags are the data options shared by every sub-command that reads data.
type dataFlags struct {
	path      string
	opts      dataset.LoadOptions
	tfidf     bool
	tf        string
	normalize string
	keepZero  bool
	classes   string
	header    string
	stderr    io.Writer // where readers' notes go; nil for none
	fs        *flag.FlagSet
	tfidfSet  bool // --tfidf was given explicitly
	weighted  bool // the loader already weighted and normalized
	// countsDefault makes a sparse matrix of whole numbers (term counts,
	// e.g. TDT2.mat) weighted by tf-idf and normalized to unit length
	// unless --tfidf or --normalize says otherwise: the papers' document
	// vectors, which the evaluation commands default to.
	countsDefault bool
}

func (d *dataFlags) register(fs *flag.FlagSet) {
	d.stderr, d.fs = fs.Output(), fs
	fs.StringVar(&d.path, "data", "", "data file: .mat (variables fea, gnd), .mtx or .mtx.gz (with --labels)")
	fs.StringVar(&d.opts.Var, "var", "", "data variable of a .mat file (default fea)")
	fs.StringVar(&d.opts.LabelVar, "label-var", "", "label variable of a .mat file (default gnd)")
	fs.StringVar(&d.opts.Labels, "labels", "", "text file with one integer label per sample, for .mtx data")
	fs.BoolVar(&d.opts.Transpose, "transpose", false, "the file stores features as rows and samples as columns")
	fs.BoolVar(&d.tfidf, "tfidf", false, "weight term counts by tf-idf, x = tf' * log(n / df) (default on for text corpora)")
	fs.StringVar(&d.tf, "tf", "auto", "tf' of tf-idf: log (1 + ln tf, the authors' code), raw (tf, paper 004), or auto: log for a matrix of counts, raw for the text pipeline")
	fs.StringVar(&d.normalize, "normalize", "", "sample normalization: l2 (unit Euclidean length) or none (default l2 for text corpora)")
	fs.BoolVar(&d.keepZero, "keep-zero-features", false, "keep features that are zero in every sample (dropped by default)")
	fs.StringVar(&d.classes, "classes", "", "keep only the samples of these labels, e.g. 1,2,3 or 1-10 (before weighting)")
	fs.StringVar(&d.opts.CSV.LabelColumn, "label-column", "", "CSV: the column of integer labels, by header name or 1-based position")
	// Text corpora: a Reuters-21578 directory or .sgm files, or a directory
	// of .txt documents with one sub-folder per class.
	fs.BoolVar(&d.opts.Reuters.SingleLabel, "single-label", false, "Reuters: keep articles with exactly one TOPICS label")
	fs.IntVar(&d.opts.Reuters.MinClassSize, "min-class-size", 0, "Reuters: drop topics with fewer articles")
	fs.IntVar(&d.opts.Reuters.Largest, "largest", 0, "Reuters: keep the N largest topics")
	fs.StringVar(&d.opts.Reuters.LewisSplit, "split", "", "Reuters: keep one LEWISSPLIT subset: TRAIN, TEST or NOT-USED")
	fs.IntVar(&d.opts.Text.MinDF, "min-df", 0, "text: drop terms in fewer documents (default 1)")
	fs.Float64Var(&d.opts.Text.MaxDF, "max-df", 0, "text: drop terms in more than this fraction of the documents (default no limit)")
	fs.BoolVar(&d.opts.Text.KeepNumbers, "keep-numbers", false, "text: keep tokens with digits")
	fs.BoolVar(&d.opts.Text.NoStem, "no-stem", false, "text: do not stem (Snowball English otherwise)")
	fs.BoolVar(&d.opts.Text.NoStopWords, "no-stopwords", false, "text: keep English stop words")
	fs.BoolVar(&d.opts.Text.DropEmpty, "drop-empty", false, "text: drop documents the pipeline leaves empty (kept as all-zero rows and reported otherwise)")
	fs.StringVar(&d.header, "header", "auto", "CSV: whether the first row names the columns: auto, yes or no")
}

// prepared is a data set after the data options have been applied.
type prepared struct {
	ds           *dataset.Dataset
	classes      []int // the labels kept by --classes, nil for all
	zeroFeatures int   // all-zero features dropped
	zeroSamples  int   // samples that are all zero after preparation
}

// load reads and prepares the data set named by --data.
func (d *dataFlags) load() (*prepared, error) {
	if d.path == "" {
		return nil, errors.New("--data is required")
	}
	switch d.header {
	case "auto", "":
		d.opts.CSV.Header = dataset.CSVHeaderAuto
	case "yes":
		d.opts.CSV.Header = dataset.CSVHeaderYes
	case "no":
		d.opts.CSV.Header = dataset.CSVHeaderNo
	default:
		return nil, fmt.Errorf("--header %q: want auto, yes or no", d.header)
	}
	if d.fs != nil {
		d.fs.Visit(func(f *flag.Flag) { d.tfidfSet = d.tfidfSet || f.Name == "tfidf" })
	}
	switch d.tf {
	case "auto", "raw", "log":
	default:
		return nil, fmt.Errorf("--tf %q: want log, raw or auto", d.tf)
	}
	text := dataset.IsTextSource(d.path)
	if text {
		d.opts.Text.LogTF = d.tf == "log"
		// The text pipeline weighs and normalizes by default (the papers'
		// preparation); --tfidf=false and --normalize none turn it off,
		// and prepare must not apply either again.
		d.opts.Text.NoTFIDF = d.tfidfSet && !d.tfidf
		d.opts.Text.NoNormalize = d.normalize == "none"
	}
	ds, err := dataset.Load(d.path, d.opts)
	if err != nil {
		return nil, err
	}
	if text {
		d.tfidf, d.normalize, d.weighted = false, "none", true
	}
	if d.stderr != nil {
		for _, n := range ds.Notes {
			fmt.Fprintln(d.stderr, n)
		}
	}
	if d.countsDefault && !text && !d.tfidfSet && d.normalize == "" && ds.Sparse != nil && wholeNumbers(ds.Sparse.Val) {
		d.tfidf, d.normalize = true, "l2"
		if d.stderr != nil {
			tf := "1 + ln tf"
			if d.tf == "raw" {
				tf = "tf"
			}
			fmt.Fprintf(d.stderr, "%s: term counts: weighting the corpus by tf-idf (tf' = %s) and normalizing each document to unit length, as the papers do (--tfidf=false --normalize none to turn off)\n", d.path, tf)
		}
	}
	return d.prepare(ds)
}

func (d *dataFlags) prepare(ds *dataset.Dataset) (*prepared, error) {
	switch d.normalize {
	case "", "none", "l2":
	default:
		return nil, fmt.Errorf("--normalize %q: want l2 or none", d.normalize)
	}
	p := &prepared{ds: ds}
	if d.classes != "" {
		keep, err := parseList(d.classes)
		if err != nil {
			return nil, fmt.Errorf("--classes: %w", err)
		}
		if p.ds, err = selectClasses(ds, keep); err != nil {
			return nil, err
		}
		p.classes = keep
		ds = p.ds
	}
	if err := ds.CheckNonNegative(); err != nil {
		return nil, err
	}
	if ds.Vocabulary == nil {
		// Name features by their column in the file, so they keep their
		// identity through the drop of all-zero features.
		_, m := ds.Dims()
		ds.Vocabulary = make([]string, m)
		for j := range ds.Vocabulary {
			ds.Vocabulary[j] = "f" + strconv.Itoa(j+1)
		}
	}
	if !d.keepZero {
		_, m := ds.Dims()
		p.zeroFeatures = m - len(ds.DropZeroFeatures())
	}
	if d.tfidf {
		if err := d.weigh(ds); err != nil {
			return nil, err
		}
	}
	if d.normalize == "l2" {
		p.zeroSamples = ds.NormalizeL2()
	} else {
		p.zeroSamples = countZeroSamples(ds)
	}
	return p, nil
}

// weigh applies tf-idf with the term frequency --tf asks for. A matrix of
// counts (this field's .mat corpora, e.g. TDT2.mat) gets the authors'
// reference weighting, 1 + ln tf, by default: it made the papers' tables
// from those files, and it decides GNMF's NMI on TDT2 (see
// docs/REPRODUCTION.md). Other values get paper 004's tf.
func (d *dataFlags) weigh(ds *dataset.Dataset) error {
	logTF := d.tf == "log"
	if d.tf == "auto" {
		if a := ds.Sparse; a != nil {
			logTF = wholeNumbers(a.Val)
		} else {
			raw := ds.Dense.RawMatrix()
			logTF = raw.Stride == raw.Cols && wholeNumbers(raw.Data)
		}
	}
	if logTF {
		return ds.LogTFIDF()
	}
	return ds.TFIDF()
}

// wholeNumbers reports whether every value is a whole number, as term
// counts are.
func wholeNumbers(v []float64) bool {
	for _, x := range v {
		if x != math.Trunc(x) {
			return false
		}
	}
	return len(v) > 0
}

func countZeroFeatures(p *prepared) int {
	n, m := p.ds.Dims()
	used := make([]bool, m)
	if p.ds.Sparse != nil {
		for _, j := range p.ds.Sparse.Ind {
			used[j] = true
		}
	} else {
		for i := 0; i < n; i++ {
			for j := 0; j < m; j++ {
				used[j] = used[j] || p.ds.Dense.At(i, j) != 0
			}
		}
	}
	zero := 0
	for _, u := range used {
		if !u {
			zero++
		}
	}
	return zero
}

func countZeroSamples(ds *dataset.Dataset) int {
	n, m := ds.Dims()
	zero := 0
	if ds.Sparse != nil {
		for i := 0; i < n; i++ {
			if ds.Sparse.Indptr[i] == ds.Sparse.Indptr[i+1] {
				zero++
			}
		}
		return zero
	}
	for i := 0; i < n; i++ {
		all := true
		for j := 0; j < m && all; j++ {
			all = ds.Dense.At(i, j) == 0
		}
		if all {
			zero++
		}
	}
	return zero
}

// solverData wraps a prepared data set for the solver.
func (p *prepared) solverData() (*solver.Data, error) {
	if p.ds.Sparse != nil {
		return solver.NewSparseData(p.ds.Sparse)
	}
	return solver.NewDenseData(p.ds.Dense)
}

// classSizes returns the class sizes keyed by the label as a string.
func classSizes(ds *dataset.Dataset) map[string]int {
	if ds.Labels == nil {
		return nil
	}
	labels, sizes := ds.Classes()
	out := make(map[string]int, len(labels))
	for i, l := range labels {
		out[strconv.Itoa(l)] = sizes[i]
	}
	return out
}

// clusterSizes counts samples per predicted cluster, k entries (unassigned
// samples, label -1, are not counted).
func clusterSizes(labels []int, k int) []int {
	sizes := make([]int, k)
	for _, l := range labels {
		if l >= 0 {
			sizes[l]++
		}
	}
	return sizes
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// sortedKeys returns a map's keys in numeric order when they are integers.
func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, errA := strconv.Atoi(keys[i])
		b, errB := strconv.Atoi(keys[j])
		if errA == nil && errB == nil {
			return a < b
		}
		return keys[i] < keys[j]
	})
	return keys
}

// parseList parses "1,2,5-8" into 1 2 5 6 7 8 (sorted, no duplicates).
func parseList(s string) ([]int, error) {
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer or a range a-b", part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("%q is not a range a-b with a <= b", part)
			}
		}
		if b-a > 1_000_000 {
			return nil, fmt.Errorf("range %q is too long", part)
		}
		for x := a; x <= b; x++ {
			seen[x] = true
		}
	}
	out := make([]int, 0, len(seen))
	for x := range seen {
		out = append(out, x)
	}
	sort.Ints(out)
	return out, nil
}

// selectClasses keeps the samples whose label is in keep; every label in
// keep must occur.
func selectClasses(ds *dataset.Dataset, keep []int) (*dataset.Dataset, error) {
	if ds.Labels == nil {
		return nil, fmt.Errorf("%s: --classes needs labels, and the data has none", ds.Source)
	}
	want := map[int]bool{}
	for _, c := range keep {
		want[c] = true
	}
	labels, _ := ds.Classes()
	have := map[int]bool{}
	for _, l := range labels {
		have[l] = true
	}
	for _, c := range keep {
		if !have[c] {
			return nil, fmt.Errorf("%s: --classes: label %d does not occur (the data has %d classes, labels %d..%d)", ds.Source, c, len(labels), labels[0], labels[len(labels)-1])
		}
	}
	var idx []int
	for i, l := range ds.Labels {
		if want[l] {
			idx = append(idx, i)
		}
	}
	return ds.SelectSamples(idx), nil
}
