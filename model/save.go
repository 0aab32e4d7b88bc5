package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/internal/fileio"
	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/internal/outdir"
	"github.com/manifactor/manifactor/solver"
)

// The on-disk model is a directory, readable without Go:
//
//	manifest.json  format "manifactor-model", version, the method and
//	               its settings, the preparation, the text pipeline, the
//	               graph's construction and the solver's State
//	features.tsv   one line per prepared feature after a header line:
//	               column (1-based, in the source), name, and where they
//	               apply idf and sum (the training X e, -ncw forms)
//	U.mtx V.mtx    the factors, Matrix Market arrays (W.mtx for cf and
//	               lccf), every value in the shortest form that reads back
//	               to the same float64
//	centers.mtx    the k-means centres of V's rows (KMeansAssign)
//	labels.txt     the training samples' clusters, 0-based, -1 for none
//	train.mtx      the prepared training samples, one row each, when
//	               Transform needs them (Model.Train)
//	reach.txt      with graph links, each training sample's reach
//	               (Model.Reach), one per line
//	words.tsv      for a stemmed text corpus, each feature that reads
//	               otherwise as a word: the feature, a tab and its most
//	               frequent form (Model.Words), sorted by feature
//
// Files are written under temporary names and renamed, so a model
// directory never holds a half-written file under a final name.
const (
	modelFormat  = "manifactor-model"
	modelVersion = 1
	manifestFile = "manifest.json"
	featuresFile = "features.tsv"
	labelsFile   = "labels.txt"
	trainFile    = "train.mtx"
	centersFile  = "centers.mtx"
	reachFile    = "reach.txt"
	wordsFile    = "words.tsv"
	// maxFactorValue bounds a saved factor's entries: those of data
	// within maxValue, with room for a factor's rows to sum a sample's
	// features.
	maxFactorValue = 1e150
	// maxManifestBytes bounds manifest.json, which is read whole: a
	// model's is a few kilobytes.
	maxManifestBytes = 1 << 20
)

type manifest struct {
	Format      string             `json:"format"`
	Version     int                `json:"version"`
	Method      solver.Method      `json:"method"`
	K           int                `json:"k"`
	Formulation solver.Formulation `json:"formulation"`
	Lambda      float64            `json:"lambda"`
	Assign      Assign             `json:"assign"`
	Seed        uint64             `json:"seed"`
	Preparation struct {
		Weighting      Weighting     `json:"weighting"`
		Normalize      Normalization `json:"normalize"`
		SourceFeatures int           `json:"source_features"`
		Named          bool          `json:"named"`
	} `json:"preparation"`
	Text  *textManifest  `json:"text,omitempty"`
	Graph *graphManifest `json:"graph,omitempty"`
	State struct {
		GraphWeight float64           `json:"graph_weight"`
		NCWNorm     float64           `json:"ncw_norm"`
		Kernel      solver.KernelKind `json:"kernel"`
		Degree      int               `json:"degree,omitempty"`
		Coef0       float64           `json:"coef0,omitempty"`
		Sigma       float64           `json:"sigma,omitempty"`
		Samples     int               `json:"samples"`
		Features    int               `json:"features"`
	} `json:"state"`
	Train bool `json:"train"`
}

// textManifest is dataset.TextOptions as saved: what new raw text needs
// (the pruning and weighting options are the training corpus's own and
// are not applied to new text).
type textManifest struct {
	KeepNumbers bool          `json:"keep_numbers"`
	NoStopWords bool          `json:"no_stop_words"`
	NoStem      bool          `json:"no_stem"`
	Strip       dataset.Strip `json:"strip"`
}

type graphManifest struct {
	Neighbors int          `json:"neighbors"`
	Weight    graph.Weight `json:"weight"`
	// Metric is the resolved metric (never auto); a manifest written
	// before metrics existed has none, and its dense samples were compared
	// by Euclidean distance.
	Metric    *graph.Metric  `json:"metric,omitempty"`
	HeatT     float64        `json:"heat_t,omitempty"`
	Symmetry  graph.Symmetry `json:"symmetry"`
	MinShared int            `json:"min_shared,omitempty"`
	Search    graph.Search   `json:"search"`
	Seed      uint64         `json:"seed"`
}

// Save writes the model to the directory dir (created if missing; files
// of an earlier model there are replaced). See the package's files for
// the layout; Load reads it back.
func (m *Model) Save(dir string) error {
	if err := m.check(); err != nil {
		return err
	}
	var mf manifest
	mf.Format, mf.Version = modelFormat, modelVersion
	mf.Method, mf.K, mf.Formulation, mf.Lambda, mf.Assign, mf.Seed = m.Method, m.K, m.Formulation, m.Lambda, m.Assign, m.Seed
	p := m.Preparation
	mf.Preparation.Weighting, mf.Preparation.Normalize = p.Weighting, p.Normalize
	mf.Preparation.SourceFeatures, mf.Preparation.Named = p.SourceFeatures, p.Named
	if m.Text != nil {
		mf.Text = &textManifest{KeepNumbers: m.Text.KeepNumbers, NoStopWords: m.Text.NoStopWords, NoStem: m.Text.NoStem, Strip: m.Text.Strip}
	}
	if m.Links {
		g := m.Graph
		var metric graph.Metric // auto: a model without its training data
		if m.Train != nil {
			metric = graphMetric(m.Train, g)
		}
		mf.Graph = &graphManifest{Neighbors: g.Neighbors, Weight: g.Weight, Metric: &metric, HeatT: g.HeatT, Symmetry: g.Symmetry, MinShared: g.MinShared, Search: g.Search, Seed: g.Seed}
	}
	s := m.State
	mf.State.GraphWeight, mf.State.NCWNorm = s.GraphWeight, s.NCWNorm
	mf.State.Kernel, mf.State.Degree, mf.State.Coef0, mf.State.Sigma = s.Kernel.Kind, s.Kernel.Degree, s.Kernel.Coef0, s.Kernel.Sigma
	mf.State.Samples, mf.State.Features = s.Samples, s.Features
	mf.Train = m.Train != nil
	for _, name := range p.Features {
		if name == "" || strings.ContainsAny(name, "\t\n\r") {
			return fmt.Errorf("model: Save: feature name %q is empty or holds a tab or line break", name)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("model: Save: %w", err)
	}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{manifestFile, func(w io.Writer) error {
			b, err := json.MarshalIndent(&mf, "", "  ")
			if err != nil {
				return err
			}
			_, err = w.Write(append(b, '\n'))
			return err
		}},
		{featuresFile, func(w io.Writer) error { return writeFeatures(w, p, s.FeatureSums) }},
		{"U.mtx", func(w io.Writer) error { return matrixio.WriteMatrixMarketDense(w, m.U) }},
		{labelsFile, func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			for _, l := range m.Labels {
				fmt.Fprintln(bw, l)
			}
			return bw.Flush()
		}},
	}
	add := func(name string, write func(io.Writer) error) {
		files = append(files, struct {
			name  string
			write func(io.Writer) error
		}{name, write})
	}
	if !m.streamedV {
		// A streamed fit wrote V.mtx as it computed V.
		add("V.mtx", func(w io.Writer) error { return matrixio.WriteMatrixMarketDense(w, m.V) })
	}
	if m.W != nil {
		add("W.mtx", func(w io.Writer) error { return matrixio.WriteMatrixMarketDense(w, m.W) })
	}
	if m.Centers != nil {
		add(centersFile, func(w io.Writer) error { return matrixio.WriteMatrixMarketDense(w, m.Centers) })
	}
	if m.Train != nil {
		add(trainFile, func(w io.Writer) error {
			if m.Train.Sparse != nil {
				return matrixio.WriteMatrixMarket(w, m.Train.Sparse)
			}
			return matrixio.WriteMatrixMarketDense(w, m.Train.Dense)
		})
	}
	if m.Links {
		add(reachFile, func(w io.Writer) error {
			var buf []byte
			for _, x := range m.Reach {
				buf = strconv.AppendFloat(buf[:0], x, 'g', -1, 64)
				if _, err := w.Write(append(buf, '\n')); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if len(m.Words) > 0 {
		add(wordsFile, func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			for _, t := range slices.Sorted(maps.Keys(m.Words)) {
				fmt.Fprintf(bw, "%s\t%s\n", t, m.Words[t])
			}
			return bw.Flush()
		})
	}
	for _, f := range files {
		if err := outdir.WriteFile(filepath.Join(dir, f.name), f.write); err != nil {
			return fmt.Errorf("model: Save: %w", err)
		}
	}
	// A file of an earlier model that this one has not would be read as
	// this model's by nothing (the manifest says what exists), but is
	// removed so the directory says what it holds.
	for _, name := range []string{"W.mtx", centersFile, trainFile, reachFile, wordsFile} {
		present := false
		for _, f := range files {
			present = present || f.name == name
		}
		if !present {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("model: Save: %w", err)
			}
		}
	}
	return nil
}

func writeFeatures(w io.Writer, p *Preparation, sums []float64) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("column\tname")
	if p.IDF != nil {
		bw.WriteString("\tidf")
	}
	if sums != nil {
		bw.WriteString("\tsum")
	}
	bw.WriteByte('\n')
	var buf []byte
	for q, name := range p.Features {
		buf = strconv.AppendInt(buf[:0], int64(p.Columns[q]+1), 10)
		buf = append(append(buf, '\t'), name...)
		if p.IDF != nil {
			buf = strconv.AppendFloat(append(buf, '\t'), p.IDF[q], 'g', -1, 64)
		}
		if sums != nil {
			buf = strconv.AppendFloat(append(buf, '\t'), sums[q], 'g', -1, 64)
		}
		bw.Write(append(buf, '\n'))
	}
	return bw.Flush()
}

// Load reads a model that Save wrote to dir. Every file is checked: the
// format and version, the settings, the dimensions of the factors
// against each other and the manifest, finite values. Errors name the
// file and, where there is one, the line.
func Load(dir string) (*Model, error) {
	// A data file or a wrong directory given for a model is the likely
	// mistake: say so, not what opening manifest.json inside it said.
	if st, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("model: %s does not exist (fit --out DIR, or Model.Save, writes a model)", dir)
	} else if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("model: %s is a file, not a model directory (fit --out DIR, or Model.Save, writes one)", dir)
	}
	path := filepath.Join(dir, manifestFile)
	b, err := fileio.ReadFile(path, maxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("model: %s has no %s: not a model directory (fit --out DIR, or Model.Save, writes one)", dir, manifestFile)
	}
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	mf, err := parseManifest(b, path)
	if err != nil {
		return nil, err
	}
	m := &Model{Method: mf.Method, K: mf.K, Formulation: mf.Formulation, Lambda: mf.Lambda, Assign: mf.Assign, Seed: mf.Seed}
	p := &Preparation{Weighting: mf.Preparation.Weighting, Normalize: mf.Preparation.Normalize,
		SourceFeatures: mf.Preparation.SourceFeatures, Named: mf.Preparation.Named}
	m.Preparation = p
	if mf.Text != nil {
		m.Text = &dataset.TextOptions{KeepNumbers: mf.Text.KeepNumbers, NoStopWords: mf.Text.NoStopWords, NoStem: mf.Text.NoStem, Strip: mf.Text.Strip}
	}
	if g := mf.Graph; g != nil {
		m.Links = true
		m.Graph = graph.Options{Neighbors: g.Neighbors, Weight: g.Weight, HeatT: g.HeatT, Symmetry: g.Symmetry, MinShared: g.MinShared, Search: g.Search, Seed: g.Seed}
		if g.Metric != nil {
			m.Graph.Metric = *g.Metric
		}
	}
	m.State = solver.State{Method: mf.Method, GraphWeight: mf.State.GraphWeight, NCWNorm: mf.State.NCWNorm,
		Kernel:  solver.Kernel{Kind: mf.State.Kernel, Degree: mf.State.Degree, Coef0: mf.State.Coef0, Sigma: mf.State.Sigma},
		Samples: mf.State.Samples, Features: mf.State.Features}
	wantIDF := p.Weighting != NoWeighting
	f, err := fileio.Open(filepath.Join(dir, featuresFile))
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	p.Columns, p.Features, p.IDF, m.State.FeatureSums, err = readFeatures(f, filepath.Join(dir, featuresFile), wantIDF, mf.Method.NCW())
	f.Close()
	if err != nil {
		return nil, err
	}
	dense := func(name string, rows, cols int) (*mat.Dense, error) {
		path := filepath.Join(dir, name)
		f, err := fileio.Open(path)
		if err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
		defer f.Close()
		_, a, err := matrixio.ReadMatrixMarket(f, path)
		if err != nil {
			return nil, err
		}
		if a == nil {
			return nil, fmt.Errorf("%s: a coordinate matrix; want an array", path)
		}
		if r, c := a.Dims(); r != rows || c != cols {
			return nil, fmt.Errorf("%s: %d x %d, want %d x %d", path, r, c, rows, cols)
		}
		// Factors a fit writes are non-negative (but U = X W of a concept
		// model on data with negative values) and within the data's
		// bounds; a hand-edited 1e300 overflowed transform's products,
		// and an all-zero basis placed every new sample at zero.
		signed := name == "U.mtx" && mf.Method.Concept()
		var any bool
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				x := a.At(i, j)
				if (x < 0 && !signed) || math.Abs(x) > maxFactorValue {
					return nil, fmt.Errorf("%s: row %d, column %d (1-based): value %v; a fit writes factors in [0, %g]", path, i+1, j+1, x, maxFactorValue)
				}
				any = any || x != 0
			}
		}
		if !any && name == "U.mtx" {
			return nil, fmt.Errorf("%s: every entry is zero; no fit writes such a basis", path)
		}
		return a, nil
	}
	n, mfeat, k := mf.State.Samples, mf.State.Features, mf.K
	if m.U, err = dense("U.mtx", mfeat, k); err != nil {
		return nil, err
	}
	if m.V, err = dense("V.mtx", n, k); err != nil {
		return nil, err
	}
	if mf.Method.Concept() {
		if m.W, err = dense("W.mtx", n, k); err != nil {
			return nil, err
		}
	}
	if mf.Assign == KMeansAssign {
		if m.Centers, err = dense(centersFile, k, k); err != nil {
			return nil, err
		}
	}
	lpath := filepath.Join(dir, labelsFile)
	lf, err := fileio.Open(lpath)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	m.Labels, err = readClusterLabels(lf, lpath, n, k)
	lf.Close()
	if err != nil {
		return nil, err
	}
	if mf.Train {
		tpath := filepath.Join(dir, trainFile)
		tf, err := fileio.Open(tpath)
		if err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
		sp, dn, err := matrixio.ReadMatrixMarket(tf, tpath)
		tf.Close()
		if err != nil {
			return nil, err
		}
		m.Train = &dataset.Dataset{Source: tpath, Sparse: sp, Dense: dn, Vocabulary: p.Features, Weighted: true}
		if r, c := m.Train.Dims(); r != n || c != mfeat {
			return nil, fmt.Errorf("%s: %d x %d, want %d samples x %d features", tpath, r, c, n, mfeat)
		}
		if err := m.Train.Validate(); err != nil {
			return nil, err
		}
	}
	if m.Links && mf.Graph.Metric == nil && m.Train != nil && m.Train.Dense != nil {
		m.Graph.Metric = graph.EuclideanMetric
	}
	if m.Links {
		rpath := filepath.Join(dir, reachFile)
		rf, err := fileio.Open(rpath)
		if err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
		m.Reach, err = readReach(rf, rpath, n, m.Train != nil && m.Train.Sparse != nil)
		rf.Close()
		if err != nil {
			return nil, err
		}
	}
	wpath := filepath.Join(dir, wordsFile)
	if wf, err := fileio.Open(wpath); err == nil {
		m.Words, err = readWords(wf, wpath, p.Features)
		wf.Close()
		if err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("model: %w", err)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if _, err := m.State.Restore(m.U, m.V, m.W); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return m, nil
}

// parseManifest decodes and checks manifest.json (path names it in
// errors, *dataset.ParseError values: at a line for JSON syntax).
func parseManifest(b []byte, path string) (*manifest, error) {
	mf, err := decodeManifest(b)
	if err != nil {
		var pe *dataset.ParseError
		if errors.As(err, &pe) {
			pe.File = path
			return nil, pe
		}
		return nil, &dataset.ParseError{File: path, Offset: -1, Err: err}
	}
	return mf, nil
}

func decodeManifest(b []byte) (*manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var mf manifest
	if err := dec.Decode(&mf); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n"))
			return nil, &dataset.ParseError{Line: line, Offset: -1, Err: err}
		}
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the manifest's object")
	}
	switch {
	case mf.Format != modelFormat:
		return nil, fmt.Errorf("format %q: not a manifactor model (want %q)", mf.Format, modelFormat)
	case mf.Version != modelVersion:
		return nil, fmt.Errorf("version %d: this build reads version %d", mf.Version, modelVersion)
	case !mf.Method.Valid():
		return nil, fmt.Errorf("unknown method")
	case mf.K < 1:
		return nil, fmt.Errorf("k = %d: want at least 1", mf.K)
	case mf.State.Samples < 1 || mf.State.Features < 1:
		return nil, fmt.Errorf("state: %d samples x %d features", mf.State.Samples, mf.State.Features)
	case mf.K > min(mf.State.Samples, mf.State.Features):
		return nil, fmt.Errorf("k = %d is more than %d samples x %d features allow", mf.K, mf.State.Samples, mf.State.Features)
	case !(mf.Lambda >= 0) || math.IsInf(mf.Lambda, 0):
		return nil, fmt.Errorf("lambda %v: want a finite non-negative number", mf.Lambda)
	case mf.Preparation.SourceFeatures < mf.State.Features:
		return nil, fmt.Errorf("preparation: %d source features, fewer than the %d prepared", mf.Preparation.SourceFeatures, mf.State.Features)
	case mf.Graph != nil && (mf.Graph.Neighbors < 0 || mf.Graph.MinShared < 0 || !(mf.Graph.HeatT >= 0) || math.IsInf(mf.Graph.HeatT, 0)):
		return nil, fmt.Errorf("graph: neighbors %d, min_shared %d, heat_t %v out of range", mf.Graph.Neighbors, mf.Graph.MinShared, mf.Graph.HeatT)
	case mf.Graph != nil && !mf.Train:
		return nil, fmt.Errorf("graph links need the training data (train: true)")
	}
	return &mf, nil
}

// readFeatures reads features.tsv.
func readFeatures(r io.Reader, path string, wantIDF, wantSum bool) (cols []int, names []string, idf, sums []float64, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	header := "column\tname"
	if wantIDF {
		header += "\tidf"
	}
	if wantSum {
		header += "\tsum"
	}
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		return nil, nil, nil, nil, fmt.Errorf("%s: empty; want the header %q", path, header)
	}
	if got := sc.Text(); got != header {
		return nil, nil, nil, nil, lineError(path, 1, 0, got, "header %q, want %q (from the manifest's weighting and method)", got, header)
	}
	nf := 2 + btoi(wantIDF) + btoi(wantSum)
	for line := 2; sc.Scan(); line++ {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != nf {
			return nil, nil, nil, nil, lineError(path, line, 0, "", "%d fields, want %d", len(f), nf)
		}
		c, err := strconv.Atoi(f[0])
		if err != nil || c < 1 {
			return nil, nil, nil, nil, lineError(path, line, 1, f[0], "column %q: want a positive integer", f[0])
		}
		cols = append(cols, c-1)
		if f[1] == "" {
			return nil, nil, nil, nil, lineError(path, line, 0, "", "empty feature name")
		}
		names = append(names, f[1])
		at := 2
		if wantIDF {
			x, err := strconv.ParseFloat(f[at], 64)
			if err != nil || !(x >= 0) || math.IsInf(x, 0) {
				return nil, nil, nil, nil, lineError(path, line, at+1, f[at], "field %d: idf %q: want a finite non-negative number", at+1, f[at])
			}
			idf = append(idf, x)
			at++
		}
		if wantSum {
			x, err := strconv.ParseFloat(f[at], 64)
			if err != nil || !(x >= 0) || math.IsInf(x, 0) {
				return nil, nil, nil, nil, lineError(path, line, at+1, f[at], "field %d: sum %q: want a finite non-negative number", at+1, f[at])
			}
			sums = append(sums, x)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return cols, names, idf, sums, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readClusterLabels reads labels.txt: n lines, each a cluster in [-1, k).
func readClusterLabels(r io.Reader, path string, n, k int) ([]int, error) {
	return readPerSample(r, path, n, func(t string) (int, bool) {
		l, err := strconv.Atoi(t)
		return l, err == nil && l >= -1 && l < k
	}, fmt.Sprintf("cluster %%q: want an integer in [-1, %d)", k))
}

// readWords reads words.tsv: lines of a feature among features, a tab and
// the word it stands for, each feature once.
func readWords(r io.Reader, path string, features []string) (map[string]string, error) {
	known := make(map[string]bool, len(features))
	for _, f := range features {
		known[f] = true
	}
	words := make(map[string]string)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		term, word, ok := strings.Cut(sc.Text(), "\t")
		switch {
		case !ok || word == "" || strings.Contains(word, "\t"):
			return nil, &dataset.ParseError{File: path, Line: line, Offset: -1, Value: sc.Text(), Err: errors.New("want a feature, a tab and its word")}
		case !known[term]:
			return nil, &dataset.ParseError{File: path, Line: line, Column: 1, Offset: -1, Value: term, Err: errors.New("not one of the model's features")}
		case words[term] != "":
			return nil, &dataset.ParseError{File: path, Line: line, Column: 1, Offset: -1, Value: term, Err: errors.New("given twice")}
		}
		words[term] = word
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("model: %s: %w", path, err)
	}
	return words, nil
}

// readReach reads reach.txt: n lines, each a cosine similarity in [-1, 1]
// (sparse training data) or a squared distance, non-negative, possibly
// +Inf.
func readReach(r io.Reader, path string, n int, cosine bool) ([]float64, error) {
	return readPerSample(r, path, n, func(t string) (float64, bool) {
		x, err := strconv.ParseFloat(t, 64)
		bad := err != nil || math.IsNaN(x) || x < 0 && !cosine || cosine && (x < -1-1e-9 || x > 1+1e-9)
		return x, !bad
	}, "reach %q: want a cosine in [-1, 1] or a squared distance")
}

// readPerSample reads a file of one value per training sample, n lines,
// each parsed by parse; refused names the refused text with its %q.
func readPerSample[T any](r io.Reader, path string, n int, parse func(t string) (T, bool), refused string) ([]T, error) {
	sc := bufio.NewScanner(r)
	out := make([]T, 0, n)
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		x, ok := parse(t)
		if !ok {
			return nil, lineError(path, line, 1, t, refused, t)
		}
		if len(out) == n {
			return nil, lineError(path, line, 0, "", "more than the model's %d training samples", n)
		}
		out = append(out, x)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) != n {
		return nil, fmt.Errorf("%s: %d lines, want one per training sample (%d): truncated?", path, len(out), n)
	}
	return out, nil
}

// lineError is a *dataset.ParseError at a line of one of the model's text
// files, with the column and value where there is one.
func lineError(path string, line, column int, value, format string, args ...any) error {
	return &dataset.ParseError{File: path, Line: line, Column: column, Offset: -1, Value: value, Err: fmt.Errorf(format, args...)}
}
