package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/manifactor/manifactor/internal/outdir"
	"github.com/manifactor/manifactor/internal/sysmem"
	"github.com/manifactor/manifactor/model/memory"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/kernels"
	"github.com/manifactor/manifactor/model"
)

// newFlagSet returns a flag set that reports parse errors to stderr with a
// usage text naming the sub-command.
func newFlagSet(name, synopsis string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The command's notes go to fs.Output(); the flag package's own
	// messages are replaced by parse's: one line for a mistake, the help
	// on stdout when asked for.
	fs.SetOutput(stderr)
	all := fs.Bool("help-all", false, "show every option")
	fs.Usage = func() {
		// The flags' defaults are asked of their own types, not of
		// parse's wrappers (whose zero values have no flag inside).
		fs.VisitAll(func(f *flag.Flag) {
			switch o := f.Value.(type) {
			case *onceValue:
				f.Value = o.Value
			case *onceBool:
				f.Value = o.Value
			}
		})
		printHelp(stdout, fs, name, synopsis, *all)
	}
	return fs
}

// skippedJSON reports what --skip-unreadable left out: how many files
// (or lines), and the first ten.
type skippedJSON struct {
	Count int      `json:"count"`
	First []string `json:"first"`
}

// skippedOf is the report of skipped, nil when nothing was skipped.
func skippedOf(skipped []string) *skippedJSON {
	if len(skipped) == 0 {
		return nil
	}
	return &skippedJSON{Count: len(skipped), First: skipped[:min(len(skipped), 10)]}
}

// registerFormat registers --format (markdown, csv or json) and --json,
// its synonym for json, as every other command spells it. The returned
// function gives the chosen format once the flags are parsed, or an error
// for an unknown one or --json beside another format.
func registerFormat(fs *flag.FlagSet) func() (string, error) {
	format := fs.String("format", "markdown", "output: markdown, csv or json")
	asJSON := fs.Bool("json", false, "print JSON (--format json)")
	return func() (string, error) {
		switch {
		case *asJSON && set(fs, "format") && *format != "json":
			return "", fmt.Errorf("--json and --format %s: give one", *format)
		case *asJSON:
			return "json", nil
		}
		switch *format {
		case "markdown", "csv", "json":
			return *format, nil
		}
		return "", fmt.Errorf("--format %q: want markdown, csv or json", *format)
	}
}

// onceValue refuses a second value for its flag: a flag given twice is
// most likely a mistake in a long command line, and the flag package
// would silently keep the last. It refuses an empty value too: several
// flags read "" as their default (an empty --lambda ran lambda auto, an
// empty --memory the default limit), and a value left empty by a
// script's unset variable should not pass for a choice.
type onceValue struct {
	flag.Value
	first string
	set   bool
}

func (o *onceValue) Set(s string) error {
	if o.set {
		return fmt.Errorf("given twice (%q, then %q): give it once", o.first, s)
	}
	if strings.TrimSpace(s) == "" {
		return errors.New("empty value: give a value or leave the flag out for its default")
	}
	if g, ok := o.Value.(flag.Getter); ok {
		// The flag package reads Go's literals ("010" is 8, "1_0" is
		// 10): an integer is read in decimal here and handed on in its
		// plain form.
		var err error
		switch g.Get().(type) {
		case int, int64:
			var v int64
			if v, err = strconv.ParseInt(s, 10, 64); err == nil {
				s = strconv.FormatInt(v, 10)
			}
		case uint, uint64:
			var v uint64
			if v, err = strconv.ParseUint(s, 10, 64); err == nil {
				s = strconv.FormatUint(v, 10)
			}
		}
		if err != nil {
			if !decimal(s) {
				return fmt.Errorf("%q is not a decimal integer", s)
			}
			return fmt.Errorf("%q is out of range", s)
		}
	}
	o.set, o.first = true, s
	return o.Value.Set(s)
}

// onceBool is onceValue for a boolean flag, which takes no argument.
type onceBool struct{ onceValue }

func (o *onceBool) IsBoolFlag() bool { return true }

// parse parses args, each flag at most once, and rejects stray
// positional arguments.
func parse(fs *flag.FlagSet, args []string) error {
	fs.VisitAll(func(f *flag.Flag) {
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			f.Value = &onceBool{onceValue{Value: f.Value}}
		} else {
			f.Value = &onceValue{Value: f.Value}
		}
	})
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {} // called by Parse on every error, and for -h
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	if all := fs.Lookup("help-all"); err == nil && all != nil && all.Value.String() == "true" {
		err = flag.ErrHelp
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return err
	case err != nil:
		return flagError(fs, err)
	case fs.NArg() > 0:
		return fmt.Errorf("%s: unexpected argument %q ('manifactor %s --help' lists the options)", fs.Name(), fs.Arg(0), fs.Name())
	}
	return nil
}

// runtimeFlags select the compute backends; every sub-command has them.
type runtimeFlags struct {
	blas, kernels string
	threads       int
	memory        string
	quiet         bool
	// limit is --memory in bytes once apply has run; 0 for no limit.
	limit int64
}

// defaultMemoryShare is the share of the machine's memory that a job may
// use unless --memory says otherwise.
const defaultMemoryShare = 0.8

func (r *runtimeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.blas, "blas", "", "BLAS backend: openblas or gonum (default: openblas when compiled in; env MANIFACTOR_BLAS)")
	fs.StringVar(&r.kernels, "simd", "", "SIMD path of the kernels: auto, generic or avx2 (default auto; env MANIFACTOR_KERNELS)")
	fs.IntVar(&r.threads, "threads", 0, "goroutines for the sparse products and updates (default: all cores)")
	fs.BoolVar(&r.quiet, "quiet", false, "no progress on stderr (the file read, the neighbour search, the iterations: shown only when stderr is a terminal; a log file gets a line at every tenth of an experiment's runs)")
	fs.StringVar(&r.memory, "memory", "", "memory the job may use, e.g. 6G or 512M (default 80% of the machine's memory, and for a job on a data file 64 times its size, at least 1 GiB; none for no limit): a job estimated to need more is refused before it starts, and Go's collector keeps the heap under it; given, it also bounds what a data file may hold as values (by default 64 times the file's size, at least 256 MB, so a small hostile file fails before it allocates)")
}

// parseSize reads a size such as 6G, 6GB, 512M, 1.5T or 1000000 (bytes;
// K, M, G and T are powers of 1000).
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, "B")
	mult := 1.0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1e3
		case 'M':
			mult = 1e6
		case 'G':
			mult = 1e9
		case 'T':
			mult = 1e12
		}
		if mult != 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || math.IsInf(v*mult, 0) || v*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a size: want a positive number with an optional K, M, G or T", s)
	}
	return int64(v * mult), nil
}

// checkMemory refuses a job whose estimate exceeds --memory.
// Without --memory, a job on a data file may use at most this many times
// the file's size, and at least jobFloor bytes (and never more than the
// machine's share): a small file cannot start a job of many gigabytes
// (a 2.6 MB TDT2.mat with --neighbors 9393 asks for a 15 GB graph) unless
// the user says so.
const (
	jobRatio = 64
	jobFloor = 1 << 30
)

func (r *runtimeFlags) checkMemory(source string, est memory.Estimate) error {
	limit, what := r.limitFor(source)
	if limit > 0 && est.Total() > limit {
		return fmt.Errorf("%s: the job needs an estimated %v, above the memory limit of %s (%s); give more with --memory, or reduce k or the data", source, est, sysmem.FormatBytes(limit), what)
	}
	return nil
}

// limitFor returns the memory limit of a job on source (0: none) and
// where it comes from, for messages.
func (r *runtimeFlags) limitFor(source string) (int64, string) {
	limit, what := r.limit, "--memory "+r.memoryText()
	if r.memory == "" {
		if fi, err := os.Stat(source); err == nil && fi.Mode().IsRegular() {
			if b := max(jobFloor, jobRatio*fi.Size()); limit == 0 || b < limit {
				limit, what = b, fmt.Sprintf("default for a file of %d bytes: %d times its size, at least %s", fi.Size(), jobRatio, sysmem.FormatBytes(jobFloor))
			}
		}
	}
	return limit, what
}

// checkFitMemory is checkMemory for model.Fit of ds with opts, after
// storageFor's choice, which it sets in opts and, when it is one
// orientation, says on stderr. An explicit --storage one on dense data is
// refused.
func (r *runtimeFlags) checkFitMemory(ds *dataset.Dataset, opts *model.Options, choice storageChoice, stderr io.Writer) error {
	if !choice.auto && opts.Storage == model.OneOrientation && ds.Sparse == nil {
		return fmt.Errorf("--storage one: %s is dense; one orientation is for sparse data", ds.Source)
	}
	limit, what := r.limitFor(ds.Source)
	o, est, both := storageFor(*opts, choice, ds.Sparse != nil, limit, func(o model.Options) memory.Estimate { return memory.Fit(ds, o, r.threadCount()) })
	if o.Storage != opts.Storage {
		fmt.Fprintf(stderr, "holding %s in one orientation (--storage one): with both it needs an estimated %s, above the memory limit of %s (%s); estimate %v\n", ds.Source, sysmem.FormatBytes(both.Total()), sysmem.FormatBytes(limit), what, est)
	}
	*opts = o
	return r.checkMemory(ds.Source, est)
}

// storageFor returns opts with the storage that --storage auto chooses
// under limit (0: none), its estimate by estimate and the estimate with
// both orientations: one orientation, for sparse data and a method that
// gains from it (model.Compacts), where both would pass the limit and one
// fits. Other choices return opts as they are.
func storageFor(opts model.Options, choice storageChoice, sparse bool, limit int64, estimate func(model.Options) memory.Estimate) (model.Options, memory.Estimate, memory.Estimate) {
	est := estimate(opts)
	if !choice.auto || !sparse || !model.Compacts(opts.Method) || limit <= 0 || est.Total() <= limit {
		return opts, est, est
	}
	one := opts
	one.Storage = model.OneOrientation
	if e := estimate(one); e.Total() <= limit {
		return one, e, est
	}
	return opts, est, est
}

func (r *runtimeFlags) memoryText() string {
	if r.memory == "" {
		return "default: 80% of this machine's memory"
	}
	return r.memory
}

// apply installs the chosen backends. An explicit flag wins over the
// environment; an unusable environment value is an error only when no flag
// overrides it.
func (r *runtimeFlags) apply() error {
	if r.threads < 0 {
		return fmt.Errorf("--threads %d: must be at least 1 (or 0 for all cores)", r.threads)
	}
	// Far more threads than cores gain nothing and cost memory per
	// thread (OpenBLAS buffers): refused, not capped, so the user knows.
	if limit := maxThreads(); r.threads > limit {
		return fmt.Errorf("--threads %d: this machine has %d cores; at most %d (0 for all cores)", r.threads, runtime.NumCPU(), limit)
	}
	switch r.memory {
	case "none":
		r.limit = 0
	case "":
		if total, ok := sysmem.Total(); ok {
			r.limit = int64(defaultMemoryShare * float64(total))
		}
	default:
		v, err := parseSize(r.memory)
		if err != nil {
			return fmt.Errorf("--memory: %w (or none)", err)
		}
		r.limit = v
	}
	if r.limit > 0 {
		debug.SetMemoryLimit(r.limit)
	}
	if r.blas != "" {
		if err := blas.Use(r.blas); err != nil {
			return fmt.Errorf("--blas %s: %w", r.blas, err)
		}
	}
	if r.kernels != "" {
		if err := kernels.Use(r.kernels); err != nil {
			return fmt.Errorf("--simd %s: %w", r.kernels, err)
		}
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

// dataFlags are the data options shared by every sub-command that reads
// data: how to read it (dataset.LoadOptions) and how to prepare it
// (model.PrepareOptions).
type dataFlags struct {
	path    string
	opts    dataset.LoadOptions
	prep    model.PrepareOptions
	classes string
	header  string
	missing string    // --missing: "" or "nan"
	stderr  io.Writer // where readers' notes go; nil for none
	// What load took: reading the file, and model.Prepare.
	loadTime, prepareTime time.Duration
	// skipped is what --skip-unreadable left out of the data.
	skipped []string
	// sublinearText makes --weighting auto weigh the text pipeline's
	// counts by log-tfidf, as it does a matrix's (topics' choice).
	sublinearText bool
}

func (d *dataFlags) register(fs *flag.FlagSet) {
	d.registerRead(fs)
	fs.TextVar(&d.prep.Weighting, "weighting", model.AutoWeighting, "term weighting: auto (log-tfidf for a matrix of term counts, tfidf for the text pipeline, none otherwise), none, tfidf (tf log(n/df), paper 004) or log-tfidf ((1 + ln tf) log(n/df), the authors' code)")
	fs.TextVar(&d.prep.Normalize, "normalize", model.AutoNormalization, "sample length: auto (unit length when tf-idf weighted), l2 or none")
	fs.BoolVar(&d.prep.KeepZeroFeatures, "keep-zero-features", false, "keep features that are zero in every sample (dropped by default)")
	fs.StringVar(&d.classes, "classes", "", "keep only the samples of these labels, e.g. 1,2,3 or 1-10 (after weighting, which stays the whole corpus's)")
	d.registerText(fs)
}

// registerText registers the options of the text pipeline of text
// corpora (Reuters, directories, lines).
func (d *dataFlags) registerText(fs *flag.FlagSet) {
	fs.IntVar(&d.opts.Text.MinDF, "min-df", 0, "drop terms (features of a sparse matrix of counts) in fewer documents (default 1: keep every term)")
	fs.Float64Var(&d.opts.Text.MaxDF, "max-df", 0, "text: drop terms in more than this fraction of the documents (default no limit)")
	fs.BoolVar(&d.opts.Text.KeepNumbers, "keep-numbers", false, "text: keep tokens with digits")
	fs.BoolVar(&d.opts.Text.NoStem, "no-stem", false, "text: do not stem (Snowball English otherwise)")
	fs.BoolVar(&d.opts.Text.NoStopWords, "no-stopwords", false, "text: keep English stop words")
	fs.BoolVar(&d.opts.Text.DropEmpty, "drop-empty", false, "text: drop documents the pipeline leaves empty (kept as all-zero rows and reported otherwise)")
	fs.TextVar(&d.opts.Text.Strip, "strip", dataset.Strip(0), "text: remove parts of e-mail and news messages before tokenizing: headers, footers (signatures), quotes, comma-separated")
}

// registerRead registers the flags that say how to read a data file,
// without those of its preparation: what transform, which prepares new
// data as its model says, takes.
func (d *dataFlags) registerRead(fs *flag.FlagSet) {
	d.stderr = fs.Output()
	fs.StringVar(&d.path, "data", "", "data file: .mat (variables fea, gnd; or dtm, classid), .mtx (with --labels), .svm, .csv, .npy (each also .gz), a Reuters-21578 directory or .sgm files, a directory of text documents (one sub-folder per class, one file per document, any extension, UTF-8 or Latin-1), or a .txt file of one document per line (label<TAB>text with --label-column 1)")
	fs.StringVar(&d.opts.Var, "var", "", "data variable of a .mat file (default fea, else dtm)")
	fs.StringVar(&d.opts.LabelVar, "label-var", "", "label variable of a .mat file (default gnd, else classid)")
	fs.StringVar(&d.opts.Labels, "labels", "", "text file with one integer label per sample, for .mtx data")
	fs.StringVar(&d.missing, "missing", "", "nan: NaN values in .npy, .mat, .csv and .tsv data are unknown entries, which nmf, gnmf and nmf-kl leave out of the fit (default: NaN is an error)")
	fs.StringVar(&d.opts.Mask, "mask", "", "Matrix Market file (samples x features) whose entries mark the data's unknown values: nmf, gnmf and nmf-kl leave them out of the fit")
	fs.BoolVar(&d.opts.Transpose, "transpose", false, "the file stores features as rows and samples as columns")
	fs.BoolVar(&d.opts.Text.SkipUnreadable, "skip-unreadable", false, "text: leave out the files (lines) that are binary (more than 1 byte in 20 a control byte) or cannot be read, reporting them, rather than stop at the first")
	fs.StringVar(&d.opts.CSV.LabelColumn, "label-column", "", "CSV: the column of integer labels, by header name or 1-based position; a .txt file of one document per line: 1 for label<TAB>text")
	fs.BoolVar(&d.opts.Reuters.SingleLabel, "single-label", false, "Reuters: keep articles with exactly one TOPICS label")
	fs.IntVar(&d.opts.Reuters.MinClassSize, "min-class-size", 0, "Reuters: drop topics with fewer articles")
	fs.IntVar(&d.opts.Reuters.Largest, "largest", 0, "Reuters: keep the N largest topics")
	fs.StringVar(&d.opts.Reuters.LewisSplit, "split", "", "Reuters: keep one LEWISSPLIT subset: TRAIN, TEST or NOT-USED")
	fs.StringVar(&d.header, "header", "auto", "CSV: whether the first row names the columns: auto, yes or no")
}

// check validates the data flags that need no data.
func (d *dataFlags) check() error {
	if d.path == "" {
		return errors.New("--data is required")
	}
	switch d.missing {
	case "":
	case "nan":
		d.opts.MissingNaN = true
	default:
		return fmt.Errorf("--missing %q: the one marker of unknown entries is nan", d.missing)
	}
	switch d.header {
	case "auto", "":
		d.opts.CSV.Header = dataset.CSVHeaderAuto
	case "yes":
		d.opts.CSV.Header = dataset.CSVHeaderYes
	case "no":
		d.opts.CSV.Header = dataset.CSVHeaderNo
	default:
		return fmt.Errorf("--header %q: want auto, yes or no", d.header)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"--min-class-size", d.opts.Reuters.MinClassSize}, {"--largest", d.opts.Reuters.Largest}, {"--min-df", d.opts.Text.MinDF}} {
		if f.v < 0 {
			return fmt.Errorf("%s %d: must not be negative", f.name, f.v)
		}
	}
	if !(d.opts.Text.MaxDF >= 0 && d.opts.Text.MaxDF <= 1) {
		return fmt.Errorf("--max-df %v: want a fraction in [0, 1] (0: no limit)", d.opts.Text.MaxDF)
	}
	if d.classes != "" {
		keep, err := parseList(d.classes)
		if err != nil {
			return fmt.Errorf("--classes: %w", err)
		}
		d.prep.Classes = keep
	}
	// The text pipeline's and Reuters's options mean nothing for a
	// matrix: given for one, they are an error, not ignored.
	if !dataset.IsTextSource(d.path) {
		t, r := d.opts.Text, d.opts.Reuters
		for _, f := range []struct {
			name string
			set  bool
		}{
			{"--max-df", t.MaxDF != 0}, {"--keep-numbers", t.KeepNumbers}, {"--no-stem", t.NoStem},
			{"--no-stopwords", t.NoStopWords}, {"--drop-empty", t.DropEmpty}, {"--strip", t.Strip != 0},
			{"--single-label", r.SingleLabel}, {"--min-class-size", r.MinClassSize != 0}, {"--largest", r.Largest != 0}, {"--split", r.LewisSplit != ""},
		} {
			if f.set {
				return fmt.Errorf("%s applies to text corpora (a directory, .sgm or .txt files), not to %s", f.name, d.path)
			}
		}
	} else if _, err := dataset.ReutersFiles(d.path); err != nil {
		// A plain-text corpus: the Reuters selection means nothing.
		r := d.opts.Reuters
		for _, f := range []struct {
			name string
			set  bool
		}{{"--single-label", r.SingleLabel}, {"--min-class-size", r.MinClassSize != 0}, {"--largest", r.Largest != 0}, {"--split", r.LewisSplit != ""}} {
			if f.set {
				return fmt.Errorf("%s selects Reuters-21578 articles; %s is not a Reuters corpus (.sgm files)", f.name, d.path)
			}
		}
	}
	return nil
}

// loadOptions returns how to read and prepare --data: the flags' options
// (a text corpus is read as term counts, which the preparation weighs by
// tf-idf, as the library's zero options do) and the reader's memory
// bound from --memory.
func (d *dataFlags) loadOptions(rt *runtimeFlags) (dataset.LoadOptions, model.PrepareOptions) {
	opts, prep := d.opts, d.prep
	if !dataset.IsTextSource(d.path) {
		// A matrix's floor is Prepare's; the text pipeline applies its
		// own to its counts.
		prep.MinDF = opts.Text.MinDF
	}
	// The reader's bound on a file's data: --memory when given, else its
	// own (a small multiple of the file's size, so that a small hostile
	// file fails before it allocates; see dataset.LoadOptions).
	switch rt.memory {
	case "":
	case "none":
		opts.MemoryLimit = -1
	default:
		opts.MemoryLimit = rt.limit
	}
	return opts, prep
}

// read reads the data set named by --data as it is, before its
// preparation, showing how much of the file is read when stderr is a
// terminal, unless quiet; it returns the preparation to apply.
func (d *dataFlags) read(ctx context.Context, rt *runtimeFlags) (*dataset.Dataset, model.PrepareOptions, error) {
	if err := d.check(); err != nil {
		return nil, model.PrepareOptions{}, err
	}
	opts, prep := d.loadOptions(rt)
	printed := false
	if !rt.quiet && d.stderr != nil && isTerminal(d.stderr) {
		var last time.Time
		opts.Progress = func(read, size int64) {
			if size <= 0 || time.Since(last) < 200*time.Millisecond {
				return
			}
			last, printed = time.Now(), true
			fmt.Fprintf(d.stderr, "\rreading %s: %3.0f%%   ", d.path, 100*float64(read)/float64(size))
		}
	}
	t0 := time.Now()
	ds, err := dataset.Load(ctx, d.path, opts)
	if printed {
		fmt.Fprintln(d.stderr)
	}
	if err != nil {
		return nil, prep, err
	}
	d.loadTime = time.Since(t0)
	d.skipped = ds.Skipped
	if d.stderr != nil {
		for _, n := range ds.Notes {
			fmt.Fprintln(d.stderr, printable(n))
		}
	}
	return ds, prep, nil
}

// load reads and prepares the data named by --data (read, then
// model.Prepare).
func (d *dataFlags) load(ctx context.Context, rt *runtimeFlags) (*model.Prepared, error) {
	ds, prep, err := d.read(ctx, rt)
	if err != nil {
		return nil, err
	}
	if d.sublinearText && prep.Weighting == model.AutoWeighting && ds.Text != nil && !ds.Weighted {
		prep.Weighting = model.LogTFIDF
	}
	t0 := time.Now()
	p, err := model.Prepare(ds, prep)
	if err != nil {
		return nil, err
	}
	d.prepareTime = time.Since(t0)
	d.noteWeighting(p)
	return p, nil
}

// noteWeighting says on stderr when the automatic weighting chose log
// tf-idf, and what --min-df dropped.
func (d *dataFlags) noteWeighting(p *model.Prepared) {
	if d.stderr != nil && p.RareFeatures > 0 {
		fmt.Fprintf(d.stderr, "%s: --min-df %d: dropped %d terms in fewer documents\n", d.path, d.opts.Text.MinDF, p.RareFeatures)
	}
	if d.stderr != nil && d.prep.Weighting == model.AutoWeighting && p.Weighting == model.LogTFIDF {
		length := ""
		if p.Normalize == model.L2 {
			length = ", each document at unit length"
		}
		fmt.Fprintf(d.stderr, "%s: term counts: weighted by tf-idf with (1 + ln tf), as the papers' authors' code does%s (--weighting none to turn off)\n", d.path, length)
	}
}

// countZeroFeatures counts the features no sample uses.
func countZeroFeatures(ds *dataset.Dataset) int {
	n, m := ds.Dims()
	used := make([]bool, m)
	if ds.Sparse != nil {
		for _, j := range ds.Sparse.Ind {
			used[j] = true
		}
	} else {
		for i := 0; i < n; i++ {
			for j := 0; j < m; j++ {
				used[j] = used[j] || ds.Dense.At(i, j) != 0
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

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Encode writes nothing when a value cannot be encoded.
	var unsupported *json.UnsupportedValueError
	if err := enc.Encode(v); errors.As(err, &unsupported) {
		return fmt.Errorf("the result holds %s, which is not a number: nothing printed (the data's scale may have overflowed a sum; --normalize l2 scales it)", unsupported.Str)
	} else if err != nil {
		return err
	}
	return nil
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

// A list a user gives (--classes, --clusters, sweep's values) holds at
// most maxListValues values, each at most maxListValue in magnitude: the
// bound that keeps "1-9223372036854775807" or a few hundred long ranges
// from expanding into more memory than the machine has.
const (
	maxListValues = 100_000
	maxListValue  = 1_000_000_000
)

// maxFitValues bounds the lists whose every value is a fit (--lambdas,
// sweep's lambda values).
const maxFitValues = 1_000

// parseList parses "1,2,5-8" into 1 2 5 6 7 8 (sorted, no duplicates),
// within the bounds above.
func parseList(s string) ([]int, error) {
	seen := map[int]bool{}
	total := 0
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := parseDecimal(lo)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer or a range a-b", part)
		}
		b := a
		if isRange {
			if b, err = parseDecimal(hi); err != nil || b < a {
				return nil, fmt.Errorf("%q is not a range a-b with a <= b", part)
			}
		}
		if a < -maxListValue || b > maxListValue {
			return nil, fmt.Errorf("%q: values must be within ±%d", part, maxListValue)
		}
		if total += b - a + 1; total > maxListValues {
			return nil, fmt.Errorf("%q: the list holds more than %d values", part, maxListValues)
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

// parseDecimal parses a whole number written in decimal digits (a sign
// allowed): not Go's literal syntax, in which "010" is 8 and "1_0" is
// 10.
func parseDecimal(s string) (int, error) {
	if !decimal(s) {
		return 0, fmt.Errorf("%q is not a decimal integer", s)
	}
	return strconv.Atoi(s)
}

// decimal reports whether s is an optional sign and decimal digits.
func decimal(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// maxThreads is the most --threads accepts: four per core, at least 8.
func maxThreads() int { return max(8, 4*runtime.NumCPU()) }

// inputFiles returns the files the data flags name for reading.
func (d *dataFlags) inputFiles() []string { return []string{d.path, d.opts.Labels, d.opts.Mask} }

// beginOutput checks --out against the inputs (checkOutput) and makes its
// temporary twin (outdir.Begin) before the work, so that an unusable
// --out is found at once; it replaces --out only when every file is
// written.
func beginOutput(out string, names []string, inputs ...string) (*outdir.Dir, error) {
	if err := checkOutput("--out", out, inputs...); err != nil {
		return nil, err
	}
	od, err := outdir.Begin(out, names)
	if err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	return od, nil
}

// checkOutput refuses an output file that is one of the files the command
// reads: written at the end of the run, it would replace the data with
// the output (`graph --data g.mat --out g.mat` did). Names that do not
// exist yet, and empty names, are fine.
//
// An output inside an input directory (a corpus of documents) is refused
// too: its files would be read as documents by the next run on the
// corpus.
func checkOutput(flagName, out string, inputs ...string) error {
	if out == "" {
		return nil
	}
	absOut, _ := filepath.Abs(out)
	fo, oerr := os.Stat(out)
	for _, in := range inputs {
		if in == "" {
			continue
		}
		fi, err := os.Stat(in)
		if err != nil {
			continue
		}
		if oerr == nil && os.SameFile(fo, fi) {
			return fmt.Errorf("%s %s: the same file as the input %s; refusing to replace the input with the output", flagName, out, in)
		}
		if absIn, _ := filepath.Abs(in); fi.IsDir() && strings.HasPrefix(absOut, absIn+string(filepath.Separator)) {
			return fmt.Errorf("%s %s: inside the input directory %s, whose files are read as the data: the next run would read the output too; write it elsewhere", flagName, out, in)
		}
	}
	return nil
}
