package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

// Model is a fitted pipeline: the preparation learned from the training
// corpus, the factorization Fit kept, and everything Transform needs to
// place samples the fit did not see. Model.Fit (or Train, or FromFit
// after Prepare and Fit) makes one; Save writes it to a directory and Load reads it back, in this or any other
// process, with the same results bit for bit.
type Model struct {
	Method      solver.Method
	K           int
	Formulation solver.Formulation
	// Lambda is the graph term's weight the fit kept (Auto's choice, or
	// the fixed weight); 0 for a method without a graph.
	Lambda float64
	Assign Assign
	Seed   uint64
	// Preparation prepares new samples as the training corpus was.
	Preparation *Preparation
	// Text is the text pipeline the training corpus went through
	// (Dataset.Text, as each document meets it: Tokenization), which
	// TransformText applies to new raw text; nil when the corpus was a
	// matrix.
	Text *dataset.TextOptions
	// Words names the features that are stems by their most frequent
	// form in the training corpus (Dataset.Words, restricted to the
	// model's features), so that topics read as words; nil when there
	// are none.
	Words map[string]string
	// Links says that Transform links new samples to their nearest
	// training samples, found and weighed as Graph says (the training
	// graph's construction): a graph method with a positive weight whose
	// graph the pipeline built (not one the caller supplied, which the
	// model cannot extend).
	Links bool
	Graph graph.Options
	// Reach is the training graph's Graph.Reach when Links: how near
	// each training sample's p-th neighbour is, so that a new sample is
	// also joined to the training samples that would have chosen it.
	Reach []float64
	// U, V and W are the factors (W for cf and lccf only); Labels the
	// training samples' clusters; Centers the k-means centres of V's rows
	// under KMeansAssign (nil under ArgMaxAssign).
	U, V, W *mat.Dense
	Labels  []int
	Centers *mat.Dense
	// State is the rest of the fit that Transform needs (see
	// solver.State).
	State solver.State
	// Train is the prepared training data, kept when Transform needs it:
	// for cf and lccf (their basis is a combination of the training
	// samples) and for the graph methods with a positive weight (new
	// samples are linked to their nearest training samples). Nil
	// otherwise.
	Train *dataset.Dataset

	// streamedV says that V is not held: FitParts wrote V.mtx, which
	// Save leaves as it is.
	streamedV bool
}

// Train prepares ds as prep says (see Prepare; ds must not be used
// afterwards), fits it as opts says (see Fit) and returns the model with
// the fit's result: Model.Fit on a new Model.
func Train(ctx context.Context, ds *dataset.Dataset, prep PrepareOptions, opts Options) (*Model, *Result, error) {
	m := new(Model)
	res, err := m.Fit(ctx, ds, prep, opts)
	if err != nil {
		return nil, res, err
	}
	return m, res, nil
}

// Fit makes m the model of ds: prepared as prep says (see Prepare; ds
// must not be used afterwards) and fitted as opts says (the package's
// Fit). It returns the fit's result; on error m is unchanged.
func (m *Model) Fit(ctx context.Context, ds *dataset.Dataset, prep PrepareOptions, opts Options) (*Result, error) {
	p, err := Prepare(ds, prep)
	if err != nil {
		return nil, err
	}
	res, err := Fit(ctx, p.Data, opts)
	if err != nil {
		return res, err
	}
	fitted, err := FromFit(p, res, opts)
	if err != nil {
		return res, err
	}
	*m = *fitted
	return res, nil
}

// FromFit returns the model of a fit that the caller ran through Prepare
// and Fit: p is Prepare's report, res what Fit returned for p.Data and
// opts Fit's options. The model shares the factors and the data with
// them.
func FromFit(p *Prepared, res *Result, opts Options) (*Model, error) {
	if p == nil || p.Preparation == nil || res == nil || res.Result == nil {
		return nil, fmt.Errorf("model: FromFit needs Prepare's and Fit's results")
	}
	if p.Preparation.weighed {
		return nil, fmt.Errorf("model: FromFit: %s came weighed already (prepared before), with an idf a model cannot apply to new samples: prepare it as read", p.Data.Source)
	}
	if res.V == nil || res.U == nil && !opts.Method.Concept() {
		return nil, fmt.Errorf("model: FromFit: the fit has no factors")
	}
	// A fit under ConsumeData leaves p.Data without its matrix, which
	// only a model that keeps the training data needs (below).
	consumed := p.Data.Sparse == nil && p.Data.Dense == nil
	if !consumed {
		n, _ := p.Data.Dims()
		if r, _ := res.V.Dims(); r != n {
			return nil, fmt.Errorf("model: FromFit: V has %d rows, the prepared data %d samples", r, n)
		}
	}
	m := &Model{Method: opts.Method, K: opts.K, Formulation: opts.Formulation, Lambda: res.Lambda, Assign: opts.Assign,
		Seed: opts.Seed, Preparation: p.Preparation, U: res.U, V: res.V, W: res.W,
		Labels: res.Labels, Centers: res.Centers, State: res.State()}
	if t := p.Data.Text; t != nil {
		text := t.Tokenization()
		m.Text = &text
	}
	for _, f := range p.Preparation.Features {
		if w, ok := p.Data.Words[f]; ok {
			if m.Words == nil {
				m.Words = make(map[string]string)
			}
			m.Words[f] = w
		}
	}
	// A graph method's model links new samples to the training samples
	// through the graph it built; it and a concept model keep the data.
	links := opts.Method.TakesGraph() && m.State.GraphWeight > 0 && opts.SampleGraph == nil
	if (opts.Method.Concept() || links) && consumed {
		return nil, fmt.Errorf("model: FromFit: a %v model keeps the training data, which the fit consumed (Options.ConsumeData)", opts.Method)
	}
	if m.U == nil {
		// cf and lccf under a non-linear kernel have no basis in feature
		// space; Transform needs W and the training data only.
		_, mf := p.Data.Dims()
		m.U = mat.NewDense(mf, opts.K, nil)
	}
	if links {
		m.Graph = opts.Graph
		m.Graph.Seed, m.Graph.Threads, m.Graph.Progress = opts.Seed, 0, nil
		if m.Graph.Neighbors == 0 {
			// The graph as built, whichever way its default was asked
			// for (the command line names it, the library leaves it zero).
			m.Graph.Neighbors = graph.DefaultNeighbors
		}
		m.Links = true
		m.Reach = res.Graph.Reach
		if m.Reach == nil {
			return nil, fmt.Errorf("model: FromFit: the fit's graph has no reach (Graph.Reach); a model links new samples through it")
		}
	}
	if opts.Method.Concept() || m.linked() {
		m.Train = p.Data
	}
	return m, nil
}

// linked reports whether Transform links new samples to the training
// samples.
func (m *Model) linked() bool { return m.Links }

// TransformOptions configures Transform. The zero value is the default.
type TransformOptions struct {
	// MaxIter is the number of updates per new sample; 0 means 200.
	MaxIter int
	// Threads bounds the goroutines; 0 means GOMAXPROCS. Results do not
	// depend on it.
	Threads int
}

// Transformed is what Transform gives for new samples.
type Transformed struct {
	// V holds one row per new sample: its coordinates on the model's k
	// factors.
	V *mat.Dense
	// Labels is each new sample's cluster, assigned as the training
	// samples were: the nearest k-means centre of V's rows, or the arg
	// max of the row (-1 for an all-zero row).
	Labels []int
	// Alignment reports how the new features met the training ones.
	Alignment Alignment
	// Data is the new samples as prepared for the model (their labels,
	// if any, are the source's).
	Data *dataset.Dataset
}

// Transform places samples the fit did not see on the model's factors:
// they are prepared as the training corpus was (Preparation.Apply: ds is
// changed and must not be used afterwards), linked to their nearest
// training samples when the method has a graph, and their rows of V
// computed with the basis fixed (solver.Result.Transform). A sample's row
// depends on the sample and its position alone (its start is the
// position's draw from the model's seed), not on the thread count, and
// on the other samples only through the rounding of the kernels that
// take rows together. ds's unknown entries (Missing) are left out of
// each sample's loss, for the methods that fit with them (nmf, gnmf,
// nmf-kl and their -ncw forms).
func (m *Model) Transform(ctx context.Context, ds *dataset.Dataset, opts TransformOptions) (*Transformed, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	return m.transform(ctx, ds, opts)
}

// transform is Transform for a model check has passed.
func (m *Model) transform(ctx context.Context, ds *dataset.Dataset, opts TransformOptions) (*Transformed, error) {
	if opts.MaxIter < 0 || opts.Threads < 0 {
		return nil, fmt.Errorf("model: Transform: MaxIter %d and Threads %d must not be negative", opts.MaxIter, opts.Threads)
	}
	if err := m.checkText(ds); err != nil {
		return nil, err
	}
	entries := ds.NNZ()
	x, al, err := m.Preparation.Apply(ds)
	if err != nil {
		return nil, err
	}
	// Data that barely meets the model's features (another corpus, the
	// wrong model) would be placed, every sample alike, in one cluster.
	if known := x.NNZ(); entries > 0 && int64(known)*minKnownShare < int64(entries) {
		return nil, fmt.Errorf("%s: %d of its %d stored entries fall on the model's %d features (the least is 1 in %d): is this the model of other data?", x.Source, known, entries, len(m.Preparation.Features), minKnownShare)
	}
	out := &Transformed{Alignment: al, Data: x}
	res, err := m.State.Restore(m.U, m.V, m.W)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	xd, err := solverData(x)
	if err == nil && x.Missing != nil {
		// Unknown entries (on the model's features) are left out of each
		// sample's loss, as a fit leaves them out.
		xd, err = xd.Hide(x.Missing)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", x.Source, err)
	}
	var train *solver.Data
	if m.Train != nil {
		if train, err = solverData(m.Train); err != nil {
			return nil, fmt.Errorf("model: training data: %w", err)
		}
	}
	so := solver.TransformOptions{MaxIter: opts.MaxIter, Seed: m.Seed, Threads: opts.Threads}
	if m.linked() {
		g := m.Graph
		g.Threads = opts.Threads
		if x.Sparse != nil {
			so.Links, err = graph.SparseLinks(ctx, m.Train.Sparse, x.Sparse, m.Reach, g)
		} else {
			so.Links, err = graph.DenseLinks(ctx, m.Train.Dense, x.Dense, m.Reach, g)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: links to the training samples: %w", x.Source, err)
		}
	}
	if out.V, err = res.Transform(ctx, train, xd, so); err != nil {
		return nil, fmt.Errorf("%s: %w", x.Source, err)
	}
	out.Labels = m.assign(out.V)
	return out, nil
}

// TransformText places raw documents the fit did not see: each text goes
// through the model's own text pipeline (Text: its stripping,
// tokenization, stop words and stemming; no corpus-wide pruning, so that
// a document's terms do not depend on the others), then Transform. Row i
// of the result is texts[i]; a text with no known term gets an all-zero
// row. It is an error for a model fitted on a matrix.
func (m *Model) TransformText(ctx context.Context, texts []string, opts TransformOptions) (*Transformed, error) {
	if m == nil || m.Text == nil {
		return nil, fmt.Errorf("model: TransformText: the model was fitted on a matrix, not on text: its features are not words")
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	if len(texts) == 0 {
		return nil, fmt.Errorf("model: TransformText: no texts")
	}
	t := m.Text.Tokenization()
	docs := make([]dataset.Document, len(texts))
	for i, s := range texts {
		docs[i].Text = t.Strip.Apply(s)
	}
	ds, _, err := dataset.Vectorize(ctx, "new text", docs, t)
	if errors.Is(err, dataset.ErrNoTerms) && len(m.Preparation.Features) > 0 {
		// No text has a word the pipeline keeps: every row is all zero,
		// as it would be beside a text that had one.
		a := &sparse.CSR{Rows: len(texts), Cols: 1, Indptr: make([]int, len(texts)+1)}
		ds, err = &dataset.Dataset{Source: "new text", Sparse: a, Vocabulary: m.Preparation.Features[:1], Text: &t}, nil
	}
	if err != nil {
		return nil, err
	}
	return m.transform(ctx, ds, opts)
}

// checkText refuses new samples whose features cannot be the model's: a
// text corpus for a model of a matrix, or text tokenized otherwise than
// the model's corpus was (its terms would silently miss the model's).
func (m *Model) checkText(ds *dataset.Dataset) error {
	if ds == nil || ds.Text == nil {
		return nil
	}
	if m.Text == nil {
		return fmt.Errorf("%s is text, but the model was fitted on a matrix: its features are not words", ds.Source)
	}
	if got, want := ds.Text.Tokenization(), m.Text.Tokenization(); got != want {
		return fmt.Errorf("%s: tokenized as %+v, but the model's corpus was as %+v: its terms would not meet the model's (TransformText uses the model's own pipeline)", ds.Source, got, want)
	}
	return nil
}

// solverData is the solver's copy of a prepared data set.
func solverData(ds *dataset.Dataset) (*solver.Data, error) {
	if ds.Sparse != nil {
		return solver.NewSparseData(ds.Sparse)
	}
	return solver.NewDenseData(ds.Dense)
}

// minKnownShare: at least 1 in minKnownShare of the stored entries of data
// that Transform places must fall on the model's features.
const minKnownShare = 100

// assign gives each row of v its cluster as the training samples got
// theirs.
func (m *Model) assign(v *mat.Dense) []int {
	n, k := v.Dims()
	labels := make([]int, n)
	if m.Centers != nil {
		c := m.Centers.RawMatrix()
		for i := 0; i < n; i++ {
			row := v.RawRowView(i)
			best, bestD := 0, math.Inf(1)
			for l := 0; l < c.Rows; l++ {
				var d float64
				for j, x := range c.Data[l*c.Stride : l*c.Stride+k] {
					d += (row[j] - x) * (row[j] - x)
				}
				if d < bestD {
					best, bestD = l, d
				}
			}
			labels[i] = best
		}
		return labels
	}
	// The arg max of the row: the fit's U has unit columns, its V the
	// matching scale (solver.Result.Labels), and Transform keeps U.
	for i := 0; i < n; i++ {
		best, bestX := -1, 0.0
		for j, x := range v.RawRowView(i) {
			if x > bestX {
				best, bestX = j, x
			}
		}
		labels[i] = best
	}
	return labels
}

// check reports a model that cannot transform: one built by hand or read
// from damaged files.
func (m *Model) check() error {
	if m == nil || m.Preparation == nil {
		return fmt.Errorf("model: no preparation: a Model comes from Train, FromFit or Load")
	}
	if err := m.Preparation.check(); err != nil {
		return fmt.Errorf("model: preparation: %w", err)
	}
	if mf := len(m.Preparation.Features); mf != m.State.Features {
		return fmt.Errorf("model: %d prepared features, the fit saw %d", mf, m.State.Features)
	}
	if (m.Method.Concept() || m.linked()) != (m.Train != nil) {
		return fmt.Errorf("model: %s (graph weight %v) needs the training data exactly when it has a basis of samples or links", m.Method, m.State.GraphWeight)
	}
	if m.Links && len(m.Reach) != m.State.Samples {
		return fmt.Errorf("model: %d reaches for %d training samples", len(m.Reach), m.State.Samples)
	}
	if m.Train != nil {
		n, mf := m.Train.Dims()
		if n != m.State.Samples || mf != m.State.Features {
			return fmt.Errorf("model: training data is %d samples x %d features, the fit saw %d x %d", n, mf, m.State.Samples, m.State.Features)
		}
	}
	if len(m.Labels) != m.State.Samples {
		return fmt.Errorf("model: %d training labels for %d samples", len(m.Labels), m.State.Samples)
	}
	for i, l := range m.Labels {
		if l < -1 || l >= m.K {
			return fmt.Errorf("model: training label %d of sample %d (1-based) is outside [-1, %d)", l, i+1, m.K)
		}
	}
	if m.Centers != nil {
		if r, c := m.Centers.Dims(); r < 1 || c != m.K {
			return fmt.Errorf("model: centres are %d x %d, want k = %d columns", r, c, m.K)
		}
	}
	if (m.Assign == KMeansAssign) != (m.Centers != nil) {
		return fmt.Errorf("model: assignment %v with %v centres", m.Assign, m.Centers != nil)
	}
	if m.streamedV {
		return nil
	}
	if _, k := m.V.Dims(); k != m.K {
		return fmt.Errorf("model: V has %d columns, k = %d", k, m.K)
	}
	return nil
}

// Term is a feature and its weight in a factor.
type Term struct {
	// Feature is the feature's index, Name its name.
	Feature int    `json:"feature"`
	Name    string `json:"name"`
	// Word is the feature as a person reads it: its most frequent form
	// in the corpus where the feature is a stem (Model.Words), else Name.
	Word   string  `json:"word"`
	Weight float64 `json:"weight"`
}

// TopTerms returns each factor's n strongest features (fewer when fewer
// have a positive weight): the largest entries of its column of U, named
// by the prepared features. Each factor is read alone, as topic models
// read their topics: ranking a cluster's centre instead (U times the
// mean of its samples' rows of V) let the corpus's common terms head
// many topics, with lower diversity on all five text corpora of
// ../shared/data and lower NPMI on most (docs/PERFORMANCE.md, (i)).
func (m *Model) TopTerms(n int) [][]Term {
	terms := TopTerms(m.U, m.Preparation.Features, n)
	for _, c := range terms {
		for i := range c {
			if w, ok := m.Words[c[i].Name]; ok {
				c[i].Word = w
			}
		}
	}
	return terms
}

// TopTerms is Model.TopTerms for the factor u (features x k) and the
// features' names; each Term's Word is its Name.
func TopTerms(u mat.Matrix, names []string, n int) [][]Term {
	mf, k := u.Dims()
	out := make([][]Term, k)
	order := make([]int, mf)
	for c := range out {
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return u.At(order[a], c) > u.At(order[b], c) })
		for _, i := range order[:min(n, mf)] {
			w := u.At(i, c)
			if w <= 0 {
				break
			}
			out[c] = append(out[c], Term{Feature: i, Name: names[i], Word: names[i], Weight: w})
		}
	}
	return out
}

// LargestFactor returns, for each row of v (samples x k), the index of
// its largest entry (the first on a tie): the topic a sample is mostly
// made of.
func LargestFactor(v mat.Matrix) []int {
	n, k := v.Dims()
	out := make([]int, n)
	for j := range out {
		for c := 1; c < k; c++ {
			if v.At(j, c) > v.At(j, out[j]) {
				out[j] = c
			}
		}
	}
	return out
}
