package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

// countCorpus returns n documents of term counts over m named terms drawn
// from k topics, labelled by topic, as a loader gives them (unweighted).
func countCorpus(t testing.TB, seed uint64, n, m, k int) *dataset.Dataset {
	t.Helper()
	a, labels := plantedCounts(t, seed, 2, n, m, k, 0.3, func(rng *rand.Rand, _ int) int { return rng.IntN(k) })
	voc := make([]string, m)
	for j := range voc {
		voc[j] = "term" + string(rune('a'+j%26)) + strings.Repeat("x", j/26)
	}
	return &dataset.Dataset{Source: "counts", Sparse: a, Labels: labels, Vocabulary: voc}
}

func cloneDS(ds *dataset.Dataset) *dataset.Dataset {
	c := *ds
	if ds.Sparse != nil {
		c.Sparse = ds.Sparse.Clone()
	}
	if ds.Dense != nil {
		c.Dense = mat.DenseCopyOf(ds.Dense)
	}
	c.Vocabulary = slices.Clone(ds.Vocabulary)
	c.Labels = slices.Clone(ds.Labels)
	return &c
}

// TestPreparationApplyIsPrepare: the fitted preparation applied to the
// training corpus gives what Prepare gave, bit for bit, for every
// weighting; new samples are aligned by name whatever their feature order.
func TestPreparationApplyIsPrepare(t *testing.T) {
	raw := countCorpus(t, 1, 120, 260, 4)
	// A term no document uses, so that Prepare drops one.
	raw.Sparse.Cols++
	raw.Vocabulary = append(raw.Vocabulary, "unused")
	for _, w := range []Weighting{AutoWeighting, NoWeighting, TFIDF, LogTFIDF} {
		p, err := Prepare(cloneDS(raw), PrepareOptions{Weighting: w})
		if err != nil {
			t.Fatal(err)
		}
		if p.ZeroFeatures != 1 || len(p.Preparation.Features) != 260 || slices.Contains(p.Preparation.Features, "unused") {
			t.Fatalf("%v: dropped %d features, kept %d", w, p.ZeroFeatures, len(p.Preparation.Features))
		}
		got, al, err := p.Preparation.Apply(cloneDS(raw))
		if err != nil {
			t.Fatal(err)
		}
		if !al.ByName || al.Unknown != 1 || al.UnknownEntries != 0 {
			t.Errorf("%v: alignment %+v, want by name with the unused term unknown", w, al)
		}
		if !slices.Equal(got.Sparse.Val, p.Data.Sparse.Val) || !slices.Equal(got.Sparse.Ind, p.Data.Sparse.Ind) || !slices.Equal(got.Sparse.Indptr, p.Data.Sparse.Indptr) {
			t.Errorf("%v: Apply to the training corpus differs from Prepare", w)
		}
		// The same documents with the terms in reverse order, one new
		// term added and one training term missing from the vocabulary.
		m0 := raw.Sparse.Cols
		rev := cloneDS(raw)
		to := make([]int, m0)
		names := make([]string, m0+1)
		for j := range to {
			to[j] = m0 - 1 - j
			names[m0-1-j] = raw.Vocabulary[j]
		}
		names[m0] = "brand-new"
		rev.MapFeatures(to, m0+1, names)
		// Give the new term an entry in document 0.
		r := rev.Sparse
		r.Ind = slices.Insert(r.Ind, r.Indptr[1], m0)
		r.Val = slices.Insert(r.Val, r.Indptr[1], 2.0)
		for i := 1; i <= r.Rows; i++ {
			r.Indptr[i]++
		}
		got, al, err = p.Preparation.Apply(rev)
		if err != nil {
			t.Fatal(err)
		}
		if al.Unknown != 2 || al.UnknownEntries != 1 {
			t.Errorf("%v: reversed: %d unknown features with %d entries, want 2 and 1", w, al.Unknown, al.UnknownEntries)
		}
		for i := 1; i < r.Rows; i++ {
			a, b := got.Sparse.Val[got.Sparse.Indptr[i]:got.Sparse.Indptr[i+1]], p.Data.Sparse.Val[p.Data.Sparse.Indptr[i]:p.Data.Sparse.Indptr[i+1]]
			if !slices.Equal(a, b) {
				t.Fatalf("%v: reversed vocabulary: document %d differs", w, i)
			}
		}
	}
}

// TestPreparationApplyErrors: by column, the feature counts must agree;
// the weighting's conditions hold for new data; data weighed already is
// refused.
func TestPreparationApplyErrors(t *testing.T) {
	raw := countCorpus(t, 2, 60, 100, 3)
	unnamed := cloneDS(raw)
	unnamed.Vocabulary = nil
	p, err := Prepare(cloneDS(unnamed), PrepareOptions{Weighting: LogTFIDF})
	if err != nil {
		t.Fatal(err)
	}
	short := cloneDS(unnamed)
	short.Sparse = short.Sparse.SelectCols([]int{0, 1, 2})
	if _, _, err := p.Preparation.Apply(short); err == nil || !strings.Contains(err.Error(), "3 features") || !strings.Contains(err.Error(), "100") {
		t.Errorf("3 of 100 features: %v", err)
	}
	frac := cloneDS(unnamed)
	frac.Sparse.Val[5] = 0.5
	if _, _, err := p.Preparation.Apply(frac); err == nil || !strings.Contains(err.Error(), "0.5") {
		t.Errorf("a count of 0.5 under log tf-idf: %v", err)
	}
	neg := cloneDS(unnamed)
	neg.Sparse.Val[7] = -1
	if _, _, err := p.Preparation.Apply(neg); err == nil || !strings.Contains(err.Error(), "-1") {
		t.Errorf("a negative count: %v", err)
	}
	w := cloneDS(unnamed)
	w.Weighted = true
	if _, _, err := p.Preparation.Apply(w); err == nil || !strings.Contains(err.Error(), "already weighed") {
		t.Errorf("weighed data: %v", err)
	}
	// A training corpus weighed before (prepared twice) cannot make a
	// model: its idf is lost.
	tw := cloneDS(raw)
	tw.Weighted = true
	pw, err := Prepare(tw, PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Fit(context.Background(), pw.Data, Options{Method: solver.NMF, K: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FromFit(pw, res, Options{Method: solver.NMF, K: 3, Seed: 1}); err == nil || !strings.Contains(err.Error(), "weighed already") {
		t.Errorf("FromFit of a corpus weighed before: %v", err)
	}
}

// TestModelSaveLoadTransform: for every family of method, a model saved
// and loaded transforms new samples to the same V bit for bit as the
// model in memory, with the same labels; the loaded model equals the
// saved one.
func TestModelSaveLoadTransform(t *testing.T) {
	ctx := context.Background()
	train := countCorpus(t, 3, 150, 240, 4)
	fresh := countCorpus(t, 4, 40, 240, 4)
	cases := []struct {
		method solver.Method
		lambda solver.Lambda
		assign Assign
	}{
		{solver.NMF, solver.Lambda{}, KMeansAssign},
		{solver.NMF, solver.Lambda{}, ArgMaxAssign},
		{solver.GNMF, solver.Fixed(10), KMeansAssign},
		{solver.GNMF, solver.Lambda{}, KMeansAssign},
		{solver.CF, solver.Lambda{}, KMeansAssign},
		{solver.LCCF, solver.Fixed(10), ArgMaxAssign},
		{solver.NMFKL, solver.Lambda{}, KMeansAssign},
		{solver.LPNMF, solver.Fixed(10), KMeansAssign},
		{solver.NMFNCW, solver.Lambda{}, KMeansAssign},
		{solver.GNMFNCW, solver.Fixed(10), KMeansAssign},
	}
	for _, c := range cases {
		opts := Options{Method: c.method, K: 4, Seed: 7, Lambda: c.lambda, Assign: c.assign}
		opts.Solver.MaxIter = 60
		m, res, err := Train(ctx, cloneDS(train), PrepareOptions{}, opts)
		if err != nil {
			t.Fatalf("%v: %v", c.method, err)
		}
		name := c.method.String() + "-" + c.assign.String()
		if (m.Train != nil) != (c.method.Concept() || (c.method.TakesGraph() && m.State.GraphWeight > 0)) {
			t.Errorf("%s: training data kept: %v", name, m.Train != nil)
		}
		if !slices.Equal(m.Labels, res.Labels) {
			t.Errorf("%s: model labels differ from the fit's", name)
		}
		t1, err := m.Transform(ctx, cloneDS(fresh), TransformOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dir := filepath.Join(t.TempDir(), name)
		if err := m.Save(dir); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		l, err := Load(dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t2, err := l.Transform(ctx, cloneDS(fresh), TransformOptions{Threads: 3})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(t1.V.RawMatrix().Data, t2.V.RawMatrix().Data) || !slices.Equal(t1.Labels, t2.Labels) {
			t.Errorf("%s: transform after Save and Load differs", name)
		}
		if !mat.Equal(m.U, l.U) || !mat.Equal(m.V, l.V) || !slices.Equal(m.Labels, l.Labels) || m.Lambda != l.Lambda ||
			!slices.Equal(m.Preparation.IDF, l.Preparation.IDF) || !slices.Equal(m.Preparation.Features, l.Preparation.Features) ||
			!slices.Equal(m.State.FeatureSums, l.State.FeatureSums) || m.State.GraphWeight != l.State.GraphWeight {
			t.Errorf("%s: the loaded model differs from the saved one", name)
		}
		// Every row positive somewhere, labels in range.
		for i, lab := range t1.Labels {
			if lab < 0 || lab >= 4 {
				t.Errorf("%s: new sample %d label %d", name, i, lab)
				break
			}
		}
	}
}

// TestModelTransformTraining: transforming the training corpus again
// gives back the fit's clusters (the acceptance bar is 99 % on Reuters;
// the planted corpus here is easy), and new samples of the same topics
// are clustered about as well as the training samples.
func TestModelTransformTraining(t *testing.T) {
	ctx := context.Background()
	train := countCorpus(t, 5, 300, 300, 5)
	fresh := countCorpus(t, 6, 100, 300, 5)
	for _, method := range []solver.Method{solver.NMF, solver.GNMF} {
		m, res, err := Train(ctx, cloneDS(train), PrepareOptions{}, Options{Method: method, K: 5, Seed: 1, Lambda: solver.Fixed(10)})
		if err != nil {
			t.Fatal(err)
		}
		again, err := m.Transform(ctx, cloneDS(train), TransformOptions{})
		if err != nil {
			t.Fatal(err)
		}
		same := 0
		for i, l := range again.Labels {
			if l == res.Labels[i] {
				same++
			}
		}
		if float64(same) < 0.99*float64(len(res.Labels)) {
			t.Errorf("%v: transform of the training corpus keeps %d of %d labels", method, same, len(res.Labels))
		}
		trainAcc, _, _ := cluster.Accuracy(train.Labels, res.Labels)
		nt, err := m.Transform(ctx, cloneDS(fresh), TransformOptions{})
		if err != nil {
			t.Fatal(err)
		}
		newAcc, _, _ := cluster.Accuracy(fresh.Labels, nt.Labels)
		if newAcc < trainAcc-0.05 {
			t.Errorf("%v: accuracy %.3f on new samples, %.3f on the training ones", method, newAcc, trainAcc)
		}
		t.Logf("%v: labels kept %d/%d, accuracy train %.3f new %.3f", method, same, len(res.Labels), trainAcc, newAcc)
	}
}

// TestLoadErrors: a damaged model directory is an error naming the file
// and what is wrong, never a model.
func TestLoadErrors(t *testing.T) {
	ctx := context.Background()
	m, _, err := Train(ctx, countCorpus(t, 8, 60, 90, 3), PrepareOptions{}, Options{Method: solver.GNMF, K: 3, Seed: 1, Lambda: solver.Fixed(10)})
	if err != nil {
		t.Fatal(err)
	}
	good := t.TempDir()
	if err := m.Save(good); err != nil {
		t.Fatal(err)
	}
	damage := []struct {
		file, want string
		edit       func(string) string
	}{
		{"manifest.json", "version", func(s string) string { return strings.Replace(s, `"version": 1`, `"version": 9`, 1) }},
		{"manifest.json", "manifest.json", func(s string) string { return s[:len(s)/2] }},
		{"manifest.json", "unknown field", func(s string) string { return strings.Replace(s, `"k": 3`, `"k": 3, "extra": 1`, 1) }},
		{"manifest.json", "k = 90", func(s string) string { return strings.Replace(s, `"k": 3`, `"k": 90`, 1) }},
		{"manifest.json", "unknown method", func(s string) string { return strings.Replace(s, `"gnmf"`, `"gnmx"`, 1) }},
		{"manifest.json", "lambda", func(s string) string { return strings.Replace(s, `"lambda": 10`, `"lambda": -1`, 1) }},
		{"labels.txt", "truncated", func(s string) string { return s[:strings.Index(s, "\n")+1] }},
		{"labels.txt", "labels.txt:2", func(s string) string { return strings.Replace(s, "\n", "\n7\n", 1) }},
		{"features.tsv", "features.tsv:3", func(s string) string {
			lines := strings.Split(s, "\n")
			lines[2] = "x\ty"
			return strings.Join(lines, "\n")
		}},
		{"features.tsv", "header", func(s string) string { return strings.Replace(s, "\tidf", "", 1) }},
		{"U.mtx", "U.mtx", func(s string) string { return strings.Replace(s, "\n", "\nNaN\n", 2)[:len(s)] }},
		{"V.mtx", "V.mtx", func(s string) string { return s[:len(s)/2] }},
		// Values no fit writes: they overflowed transform or placed every
		// new sample at zero.
		{"U.mtx", "row 1, column 1 (1-based): value 1e+300", func(s string) string { return mtxValues(s, firstValue("1e300")) }},
		{"U.mtx", "every entry is zero", func(s string) string { return mtxValues(s, func(int, string) string { return "0" }) }},
		{"centers.mtx", "row 1, column 1 (1-based): value -1", func(s string) string { return mtxValues(s, firstValue("-1")) }},
		{"train.mtx", "train.mtx", func(s string) string { return s[:len(s)-40] }},
		{"reach.txt", "truncated", func(s string) string { return s[:strings.Index(s, "\n")+1] }},
		{"reach.txt", "reach.txt:1", func(s string) string { return "2\n" + s[strings.Index(s, "\n")+1:] }},
	}
	for _, d := range damage {
		dir := t.TempDir()
		for _, f := range []string{"manifest.json", "features.tsv", "U.mtx", "V.mtx", "labels.txt", "centers.mtx", "train.mtx", "reach.txt"} {
			b, err := os.ReadFile(filepath.Join(good, f))
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			if f == d.file {
				s = d.edit(s)
			}
			if err := os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, err := Load(dir)
		if err == nil || !strings.Contains(err.Error(), d.want) {
			t.Errorf("%s damaged: %v, want an error naming %q", d.file, err, d.want)
		}
		// A line of a text file is a position a program can read.
		if file, line, ok := strings.Cut(d.want, ":"); ok && strings.HasSuffix(file, d.file) {
			var pe *dataset.ParseError
			if !errors.As(err, &pe) || filepath.Base(pe.File) != d.file || fmt.Sprint(pe.Line) != line {
				t.Errorf("%s damaged: %v is not a *dataset.ParseError at line %s", d.file, err, line)
			}
		}
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "manifest.json") {
		t.Errorf("empty directory: %v", err)
	}
}

// mtxValues rewrites the values of a Matrix Market array file: value q
// (in the file's order) becomes edit(q, its text).
func mtxValues(s string, edit func(q int, v string) string) string {
	lines := strings.Split(s, "\n")
	q, sized := 0, false
	for i, l := range lines {
		switch {
		case l == "" || strings.HasPrefix(l, "%"):
		case !sized:
			sized = true // the size line
		default:
			lines[i] = edit(q, l)
			q++
		}
	}
	return strings.Join(lines, "\n")
}

// firstValue is an edit for mtxValues that sets the first value to x.
func firstValue(x string) func(int, string) string {
	return func(q int, v string) string {
		if q == 0 {
			return x
		}
		return v
	}
}

// FuzzParseManifest: no manifest panics the reader; one it accepts has
// settings in range.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"format":"manifactor-model","version":1,"method":"gnmf","k":3,"formulation":"invariant","lambda":10,"assign":"kmeans","seed":1,"preparation":{"weighting":"log-tfidf","normalize":"l2","source_features":90,"named":true},"graph":{"neighbors":5,"weight":"cosine","symmetry":"either","search":"auto","seed":1},"state":{"graph_weight":1,"ncw_norm":1,"kernel":"linear","samples":60,"features":90},"train":true}`))
	f.Add([]byte(`{"format":"manifactor-model","version":1}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, b []byte) {
		mf, err := parseManifest(b, "manifest.json")
		if err != nil {
			return
		}
		if mf.K < 1 || mf.K > mf.State.Samples || mf.K > mf.State.Features || !mf.Method.Valid() {
			t.Fatalf("accepted %+v", mf)
		}
	})
}

// FuzzReadFeatures: no features file panics the reader.
func FuzzReadFeatures(f *testing.F) {
	f.Add([]byte("column\tname\tidf\n1\ta\t0.5\n3\tb\t1\n"), true, false)
	f.Add([]byte("column\tname\tidf\tsum\n1\ta\t0.5\t2\n"), true, true)
	f.Add([]byte("column\tname\n1\ta\n"), false, false)
	f.Fuzz(func(t *testing.T, b []byte, idf, sum bool) {
		cols, names, w, s, err := readFeatures(strings.NewReader(string(b)), "features.tsv", idf, sum)
		if err != nil {
			return
		}
		if len(cols) != len(names) || (idf && len(w) != len(names)) || (sum && len(s) != len(names)) {
			t.Fatalf("%d columns, %d names, %d idf, %d sums", len(cols), len(names), len(w), len(s))
		}
	})
}

// TestTransformRealData: on Reuters-21578 (single-label articles of the 10
// largest topics, read as counts), a model fitted on a random 70 % of the
// articles clusters the other 30 % within 3 points of its training
// accuracy, and transforming the training articles again gives back at
// least 99 % of the fit's clusters, for NMF and for GNMF, whose new
// samples are linked to the training graph (docs/PERFORMANCE.md has the
// Lewis split and more seeds).
func TestTransformRealData(t *testing.T) {
	if testing.Short() {
		t.Skip("factorizations of a real corpus")
	}
	path := "../../shared/data/reuters21578"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not found: the real data sets live in ../shared/data beside the project", path)
	}
	ctx := context.Background()
	ds, err := dataset.Load(context.Background(), path, dataset.LoadOptions{Reuters: dataset.ReutersOptions{SingleLabel: true, Largest: 10}})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := ds.Dims()
	perm := rand.New(rand.NewPCG(1, 9)).Perm(n)
	cut := n * 7 / 10
	for _, lambda := range []solver.Lambda{solver.Fixed(0), solver.Fixed(10)} {
		train, test := ds.SelectSamples(perm[:cut]), ds.SelectSamples(perm[cut:])
		classes := slices.Clone(train.Labels)
		again := ds.SelectSamples(perm[:cut])
		m, res, err := Train(ctx, train, PrepareOptions{Weighting: TFIDF}, Options{Method: solver.GNMF, K: 10, Seed: 1, Lambda: lambda})
		if err != nil {
			t.Fatal(err)
		}
		trainAcc, _, _ := cluster.Accuracy(classes, res.Labels)
		tt, err := m.Transform(ctx, test, TransformOptions{})
		if err != nil {
			t.Fatal(err)
		}
		testAcc, _, _ := cluster.Accuracy(tt.Data.Labels, tt.Labels)
		ta, err := m.Transform(ctx, again, TransformOptions{})
		if err != nil {
			t.Fatal(err)
		}
		same := 0
		for i, l := range ta.Labels {
			if l == res.Labels[i] {
				same++
			}
		}
		t.Logf("lambda %v: training accuracy %.4f, test %.4f, training labels given back %d of %d", lambda, trainAcc, testAcc, same, cut)
		if math.Abs(testAcc-trainAcc) > 0.03 {
			t.Errorf("lambda %v: test accuracy %.4f, training %.4f", lambda, testAcc, trainAcc)
		}
		if float64(same) < 0.99*float64(cut) {
			t.Errorf("lambda %v: transform of the training articles gives back %d of %d labels", lambda, same, cut)
		}
	}
}

// TestModelGraphMetric: a dense model links new samples by the metric its
// graph was built with, saved resolved in the manifest; a manifest from
// before metrics existed (none given) means Euclidean distance, the only
// one then.
func TestModelGraphMetric(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(4, 4))
	const n, m = 90, 24
	x := mat.NewDense(n+10, m, nil)
	labels := make([]int, n+10)
	for i := range labels {
		labels[i] = i % 3
		scale := 0.5 + rng.Float64()
		for j := 0; j < m; j++ {
			v := rng.Float64()
			if j%3 == labels[i] {
				v += 2
			}
			x.Set(i, j, scale*v)
		}
	}
	train := &dataset.Dataset{Source: "profiles", Dense: mat.DenseCopyOf(x.Slice(0, n, 0, m)), Labels: labels[:n]}
	fresh := &dataset.Dataset{Source: "new", Dense: mat.DenseCopyOf(x.Slice(n, n+10, 0, m)), Labels: labels[n:]}
	for _, c := range []struct {
		metric graph.Metric
		want   string
	}{{graph.AutoMetric, "correlation"}, {graph.EuclideanMetric, "euclidean"}, {graph.CosineMetric, "cosine"}} {
		opts := Options{Method: solver.GNMF, K: 3, Seed: 2, Lambda: solver.Fixed(10)}
		opts.Graph.Metric = c.metric
		opts.Solver.MaxIter = 40
		md, _, err := Train(ctx, cloneDS(train), PrepareOptions{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		t1, err := md.Transform(ctx, cloneDS(fresh), TransformOptions{})
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), c.want)
		if err := md.Save(dir); err != nil {
			t.Fatal(err)
		}
		manifest, err := os.ReadFile(filepath.Join(dir, manifestFile))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(manifest), `"metric": "`+c.want+`"`) {
			t.Errorf("%v: manifest without the resolved metric %s:\n%s", c.metric, c.want, manifest)
		}
		l, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if l.Graph.Metric.ForDense(m) != c.metric.ForDense(m) {
			t.Errorf("%v: loaded metric %v", c.metric, l.Graph.Metric)
		}
		t2, err := l.Transform(ctx, cloneDS(fresh), TransformOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(t1.V.RawMatrix().Data, t2.V.RawMatrix().Data) {
			t.Errorf("%v: transform after Save and Load differs", c.metric)
		}
		// The manifest of an earlier build: no metric.
		old := strings.Replace(string(manifest), `"metric": "`+c.want+`",`, "", 1)
		if err := os.WriteFile(filepath.Join(dir, manifestFile), []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		if l, err = Load(dir); err != nil {
			t.Fatal(err)
		}
		if l.Graph.Metric != graph.EuclideanMetric {
			t.Errorf("a manifest without a metric loads as %v, want euclidean", l.Graph.Metric)
		}
	}
}

// TestPreparedReadGraph: a graph file is read for the prepared data's
// samples, and one of another size is refused with both counts named.
func TestPreparedReadGraph(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.mtx")
	if err := os.WriteFile(path, []byte("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n3 2 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &Prepared{Data: &dataset.Dataset{Dense: mat.NewDense(3, 2, nil)}}
	g, _, err := p.ReadGraph(path)
	if err != nil || g.W.NNZ() != 4 {
		t.Fatalf("ReadGraph: %v", err)
	}
	p.Data = &dataset.Dataset{Dense: mat.NewDense(4, 2, nil)}
	if _, _, err := p.ReadGraph(path); err == nil || !strings.Contains(err.Error(), "3") || !strings.Contains(err.Error(), "4") {
		t.Errorf("a graph of 3 for 4 samples: %v", err)
	}
}

// TestModelTransformMissing: new samples with unknown entries are placed
// from their known entries alone: the values at the unknown entries do
// not matter, and hiding a tenth of the entries keeps most labels; cf
// refuses them.
func TestModelTransformMissing(t *testing.T) {
	ctx := context.Background()
	train := countCorpus(t, 7, 300, 300, 5)
	fresh := countCorpus(t, 8, 100, 300, 5)
	n, m := fresh.Dims()
	rng := rand.New(rand.NewPCG(9, 9))
	var ri, ci []int
	var one []float64
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			if rng.Float64() < 0.1 {
				ri, ci, one = append(ri, j), append(ci, i), append(one, 1)
			}
		}
	}
	hidden, err := sparse.FromTriplets(n, m, ri, ci, one)
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []solver.Method{solver.NMF, solver.GNMF, solver.NMFKL, solver.CF} {
		mod, _, err := Train(ctx, cloneDS(train), PrepareOptions{}, Options{Method: method, K: 5, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		plain, err := mod.Transform(ctx, cloneDS(fresh), TransformOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// The unknown entries once as the data's values, once as 1000s.
		masked, err := cloneDS(fresh).WithMissing(hidden)
		if err != nil {
			t.Fatal(err)
		}
		got, err := mod.Transform(ctx, masked, TransformOptions{})
		if method == solver.CF {
			if err == nil || !strings.Contains(err.Error(), "cannot leave entries out") {
				t.Errorf("cf placed samples with unknown entries: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(method, err)
		}
		loud := cloneDS(fresh)
		for q := range loud.Sparse.Val {
			loud.Sparse.Val[q] = 1000
		}
		for j := 0; j < n; j++ {
			for q := fresh.Sparse.Indptr[j]; q < fresh.Sparse.Indptr[j+1]; q++ {
				c := fresh.Sparse.Ind[q]
				if !slices.Contains(hidden.Ind[hidden.Indptr[j]:hidden.Indptr[j+1]], c) {
					loud.Sparse.Val[q] = fresh.Sparse.Val[q]
				}
			}
		}
		if loud, err = loud.WithMissing(hidden); err != nil {
			t.Fatal(err)
		}
		again, err := mod.Transform(ctx, loud, TransformOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got.V, again.V) {
			t.Errorf("%v: the values at unknown entries changed the placement", method)
		}
		same := 0
		for i, l := range got.Labels {
			if l == plain.Labels[i] {
				same++
			}
		}
		if float64(same) < 0.9*float64(n) {
			t.Errorf("%v: %d of %d labels kept with a tenth of the entries unknown", method, same, n)
		}
	}
}
