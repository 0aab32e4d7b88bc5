package model

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/testenv"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/solver/minibatch"
	"github.com/manifactor/manifactor/sparse"
)

// partsOf writes ds as a parts directory of the given number of parts
// and opens it.
func partsOf(t testing.TB, ds *dataset.Dataset, n int) *dataset.Parts {
	t.Helper()
	dir := t.TempDir()
	err := dataset.WritePartsDir(dir, ds, dataset.PartsOptions{Parts: n})
	if err != nil {
		t.Fatal(err)
	}
	p, err := dataset.OpenParts(dir, dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// streamCorpus is countCorpus with a term in every document (its idf is
// 0), a term in none and a term in one document, so that every rule of
// Prepare's drops has something to drop.
func streamCorpus(t testing.TB) *dataset.Dataset {
	raw := countCorpus(t, 5, 150, 200, 4)
	a := raw.Sparse
	n, m := a.Rows, a.Cols
	var ri, ci []int
	var val []float64
	for i := 0; i < n; i++ {
		for q := a.Indptr[i]; q < a.Indptr[i+1]; q++ {
			ri, ci, val = append(ri, i), append(ci, a.Ind[q]), append(val, a.Val[q])
		}
		ri, ci, val = append(ri, i), append(ci, m), append(val, float64(1+i%3))
	}
	ri, ci, val = append(ri, 7), append(ci, m+2), append(val, 2)
	b, err := sparse.FromTriplets(n, m+3, ri, ci, val)
	if err != nil {
		t.Fatal(err)
	}
	raw.Sparse = b
	raw.Vocabulary = append(raw.Vocabulary, "everywhere", "nowhere", "once")
	return raw
}

// TestPreparePartsIsPrepare: the statistics pass over a parts directory
// learns Prepare's preparation of the whole corpus, and Apply then gives
// each part as Prepare gave its samples, bit for bit, under every
// weighting and drop rule.
func TestPreparePartsIsPrepare(t *testing.T) {
	raw := streamCorpus(t)
	text := cloneDS(raw)
	text.Text = &dataset.TextOptions{}
	for _, c := range []struct {
		name string
		ds   *dataset.Dataset
		opt  PrepareOptions
	}{
		{"auto", raw, PrepareOptions{}},
		{"text", text, PrepareOptions{}},
		{"none", raw, PrepareOptions{Weighting: NoWeighting}},
		{"none-l2", raw, PrepareOptions{Weighting: NoWeighting, Normalize: L2}},
		{"tfidf-none", raw, PrepareOptions{Weighting: TFIDF, Normalize: NoNormalization}},
		{"mindf", raw, PrepareOptions{MinDF: 3}},
		{"keep", raw, PrepareOptions{KeepZeroFeatures: true}},
		{"mindf-keep", raw, PrepareOptions{MinDF: 2, KeepZeroFeatures: true}},
	} {
		want, err := Prepare(cloneDS(c.ds), c.opt)
		if err != nil {
			t.Fatal(err)
		}
		parts := partsOf(t, c.ds, 3)
		pp, err := prepareParts(context.Background(), parts, c.opt, nil)
		if err != nil {
			t.Fatal(c.name, err)
		}
		w, got := want.Preparation, pp.prep
		if w.Weighting != got.Weighting || w.Normalize != got.Normalize || !slices.Equal(w.IDF, got.IDF) ||
			!slices.Equal(w.Features, got.Features) || !slices.Equal(w.Columns, got.Columns) ||
			w.SourceFeatures != got.SourceFeatures || w.Named != got.Named {
			t.Fatalf("%s: streamed preparation %+v, Prepare's %+v", c.name, got, w)
		}
		if pp.zeroFeatures != want.ZeroFeatures || pp.rareFeatures != want.RareFeatures {
			t.Fatalf("%s: dropped %d zero and %d rare features, Prepare %d and %d", c.name, pp.zeroFeatures, pp.rareFeatures, want.ZeroFeatures, want.RareFeatures)
		}
		wa := want.Data.Sparse
		for i := range parts.NumParts() {
			ds, err := parts.Part(context.Background(), i)
			if err != nil {
				t.Fatal(err)
			}
			out, err := pp.applyPart(ds)
			if err != nil {
				t.Fatal(err)
			}
			first, rows, _ := parts.Span(i)
			if !out.Sparse.Equal(wa.RowSlice(first, first+rows)) {
				t.Fatalf("%s: part %d differs from Prepare's samples %d-%d", c.name, i+1, first+1, first+rows)
			}
		}
	}
}

// TestPreparePartsRefuses: what the statistics pass cannot do is
// refused by name.
func TestPreparePartsRefuses(t *testing.T) {
	raw := streamCorpus(t)
	parts := partsOf(t, raw, 2)
	_, err := prepareParts(context.Background(), parts, PrepareOptions{Classes: []int{1}}, nil)
	testenv.WantErr(t, err, "class selection")
	_, err = prepareParts(context.Background(), parts, PrepareOptions{MinDF: 1000}, nil)
	testenv.WantErr(t, err, "MinDF 1000 drops every feature")
	frac := cloneDS(raw)
	frac.Sparse.Val[5] = 0.5
	_, err = prepareParts(context.Background(), partsOf(t, frac, 2), PrepareOptions{Weighting: LogTFIDF}, nil)
	testenv.WantErr(t, err, "0.5")
	neg := cloneDS(raw)
	neg.Sparse.Val[len(neg.Sparse.Val)-1] = -2
	_, err = prepareParts(context.Background(), partsOf(t, neg, 2), PrepareOptions{}, nil)
	testenv.WantErr(t, err, "-2")
}

// TestFitParts: a streamed fit writes a model that Load reads, whose V
// and U give the objective reported; the threads change no byte of it;
// it clusters a planted corpus as well as the fit in memory; and
// k-means on a sample of V's rows assigns every sample.
func TestFitParts(t *testing.T) {
	raw := countCorpus(t, 11, 900, 300, 5)
	truth := slices.Clone(raw.Labels)
	parts := partsOf(t, raw, 4)
	inMemory, err := Fit(context.Background(), mustPrepare(t, cloneDS(raw)).Data, Options{K: 5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	memAcc, _, _ := cluster.Accuracy(truth, inMemory.Labels)
	var first []byte
	for _, threads := range []int{1, 3} {
		dir := t.TempDir()
		opts := Options{K: 5, Seed: 3, Threads: threads}
		opts.Solver.BatchSize = 100
		res, err := FitParts(context.Background(), parts, PrepareOptions{}, opts, dir)
		if err != nil {
			t.Fatal(err)
		}
		v, err := os.ReadFile(filepath.Join(dir, "V.mtx"))
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = v
		} else if !slices.Equal(first, v) {
			t.Fatalf("%d threads: V.mtx differs from 1 thread's", threads)
		}
		md, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(md.Labels, res.Model.Labels) || !mat.Equal(md.U, res.Model.U) {
			t.Fatal("the loaded model's labels or U differ from the fit's")
		}
		x := mustPrepare(t, cloneDS(raw)).Data.Sparse
		if obj := minibatch.Objective(x, md.U, md.V); !relClose(obj, res.Objective, 1e-9) {
			t.Fatalf("objective of the written factors %v, reported %v", obj, res.Objective)
		}
		acc, _, _ := cluster.Accuracy(truth, res.Model.Labels)
		if acc < memAcc-0.02 {
			t.Errorf("streamed accuracy %.3f, in memory %.3f", acc, memAcc)
		}
		if len(res.PassLoss) < 2 || res.Samples != 900 {
			t.Errorf("%d passes, %d samples", len(res.PassLoss), res.Samples)
		}
	}
	// k-means on a sample: every sample takes its nearest centre.
	defer func(s int) { streamSample = s }(streamSample)
	streamSample = 300
	dir := t.TempDir()
	res, err := FitParts(context.Background(), parts, PrepareOptions{}, Options{K: 5, Seed: 3}, dir)
	if err != nil {
		t.Fatal(err)
	}
	md, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := md.assign(md.V); !slices.Equal(want, res.Model.Labels) {
		t.Error("sampled k-means: a sample is not at its nearest centre")
	}
	if acc, _, _ := cluster.Accuracy(truth, res.Model.Labels); acc < memAcc-0.02 {
		t.Errorf("sampled k-means: accuracy %.3f, in memory %.3f", acc, memAcc)
	}
}

// TestFitPartsKL: a streamed nmf-kl fit writes factors whose divergence
// is the one reported, U's columns at unit sum as Fit leaves them, a
// model that Load reads as nmf-kl; the best of four seeds is within 1% of
// the batch solver's best divergence and 2 points of its accuracy (each
// solver ends in a local minimum, a planted class split, from some
// starts: the batch solver from one of eight here, the streamed fit
// from two).
func TestFitPartsKL(t *testing.T) {
	raw := countCorpus(t, 11, 900, 300, 5)
	truth := slices.Clone(raw.Labels)
	parts := partsOf(t, raw, 4)
	x := mustPrepare(t, cloneDS(raw)).Data.Sparse
	bestMem, bestStreamed := math.Inf(1), math.Inf(1)
	var memAcc, acc float64
	for seed := uint64(1); seed <= 4; seed++ {
		opts := Options{Method: solver.NMFKL, K: 5, Seed: seed}
		inMemory, err := Fit(context.Background(), mustPrepare(t, cloneDS(raw)).Data, opts)
		if err != nil {
			t.Fatal(err)
		}
		if obj := inMemory.Objective[len(inMemory.Objective)-1]; obj < bestMem {
			bestMem = obj
			memAcc, _, _ = cluster.Accuracy(truth, inMemory.Labels)
		}
		dir := t.TempDir()
		opts.Solver.BatchSize = 100
		res, err := FitParts(context.Background(), parts, PrepareOptions{}, opts, dir)
		if err != nil {
			t.Fatal(err)
		}
		if res.Objective < bestStreamed {
			bestStreamed = res.Objective
			acc, _, _ = cluster.Accuracy(truth, res.Model.Labels)
		}
		if seed > 1 {
			continue
		}
		md, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if md.Method != solver.NMFKL {
			t.Fatalf("the loaded model's method is %v", md.Method)
		}
		for c := 0; c < 5; c++ {
			if s := mat.Sum(md.U.ColView(c)); math.Abs(s-1) > 1e-9 {
				t.Errorf("U's column %d sums to %v", c, s)
			}
		}
		if obj := minibatch.KLObjective(x, md.U, md.V); !relClose(obj, res.Objective, 1e-9) {
			t.Fatalf("divergence of the written factors %v, reported %v", obj, res.Objective)
		}
	}
	t.Logf("best of four: streamed %v (accuracy %.3f), in memory %v (%.3f)", bestStreamed, acc, bestMem, memAcc)
	if bestStreamed > 1.01*bestMem || acc < memAcc-0.02 {
		t.Errorf("streamed divergence %v and accuracy %.3f; in memory %v and %.3f", bestStreamed, acc, bestMem, memAcc)
	}
}

// TestFitPartsBadInput: a part changed, truncated or of the wrong shape
// during a streamed fit is an error naming its file, and options a
// streamed fit cannot run are refused.
func TestFitPartsBadInput(t *testing.T) {
	raw := countCorpus(t, 12, 200, 80, 3)
	opts := Options{K: 3}
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"gnmf", Options{K: 3, Method: solver.GNMF}, "runs nmf or nmf-kl, not gnmf"},
		{"cd", Options{K: 3, Solver: solver.Control{Algorithm: solver.CD}}, "minibatch solver, not cd"},
		{"restarts", Options{K: 3, Solver: solver.Control{Restarts: 3}}, "one start"},
		{"nndsvd", Options{K: 3, Start: solver.NNDSVDStart}, "starts at random"},
		{"meanfit", Options{K: 3, Solver: solver.Control{StopRule: solver.MeanFit}}, "not by meanfit"},
		{"k", Options{K: 500}, "k = 500 is more than the data allows"},
	} {
		_, err := FitParts(context.Background(), partsOf(t, raw, 2), PrepareOptions{}, c.o, t.TempDir())
		testenv.WantErr(t, err, c.want)
	}
	// A part rewritten after the directory was opened.
	parts := partsOf(t, raw, 3)
	path := filepath.Join(parts.Dir, "part-00001.mtx")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	_, err := FitParts(context.Background(), parts, PrepareOptions{}, opts, t.TempDir())
	testenv.WantErr(t, err, "part-00001.mtx", "changed during the run")
	// A truncated part.
	parts = partsOf(t, raw, 3)
	path = filepath.Join(parts.Dir, "part-00002.mtx")
	b, _ := os.ReadFile(path)
	os.WriteFile(path, b[:len(b)/2], 0o644)
	parts, err = dataset.OpenParts(parts.Dir, dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = FitParts(context.Background(), parts, PrepareOptions{}, opts, t.TempDir())
	testenv.WantErr(t, err, "part-00002.mtx")
	// A part of another corpus's shape.
	other := partsOf(t, countCorpus(t, 13, 200, 90, 3), 3)
	parts = partsOf(t, raw, 3)
	b, _ = os.ReadFile(filepath.Join(other.Dir, "part-00000.mtx"))
	os.WriteFile(filepath.Join(parts.Dir, "part-00000.mtx"), b, 0o644)
	parts, err = dataset.OpenParts(parts.Dir, dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = FitParts(context.Background(), parts, PrepareOptions{}, opts, t.TempDir())
	testenv.WantErr(t, err, "part-00000.mtx", "x 90", "says")
	// A part gone.
	parts = partsOf(t, raw, 3)
	os.Remove(filepath.Join(parts.Dir, "part-00002.mtx"))
	_, err = dataset.OpenParts(parts.Dir, dataset.LoadOptions{})
	testenv.WantErr(t, err, "part 3 of 3")
}

// mustPrepare is Prepare with the default options.
func mustPrepare(t testing.TB, ds *dataset.Dataset) *Prepared {
	t.Helper()
	p, err := Prepare(ds, PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// relClose reports |a - b| <= tol max(|a|, |b|).
func relClose(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

// TestPartsIDs: a data set's sample ids go through a parts directory:
// each part carries its samples' ids, and LoadRows gives them too.
func TestPartsIDs(t *testing.T) {
	raw := countCorpus(t, 14, 30, 20, 2)
	raw.IDs = make([]string, 30)
	for i := range raw.IDs {
		raw.IDs[i] = "doc " + strconv.Itoa(100+i)
	}
	parts := partsOf(t, raw, 3)
	if !slices.Equal(parts.IDs, raw.IDs) {
		t.Fatalf("ids %v", parts.IDs)
	}
	d, err := parts.Part(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	first, rows, _ := parts.Span(1)
	if !slices.Equal(d.IDs, raw.IDs[first:first+rows]) {
		t.Errorf("part 2's ids %v", d.IDs)
	}
	rowsDS, err := dataset.LoadRows(context.Background(), parts.Dir, 5, 25, dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rowsDS.IDs, raw.IDs[5:25]) {
		t.Errorf("LoadRows's ids %v", rowsDS.IDs)
	}
	bad := cloneDS(raw)
	bad.IDs = slices.Clone(raw.IDs)
	bad.IDs[3] = "two\nlines"
	err = dataset.WriteParts(bad, dataset.PartsOptions{Parts: 2}, func(string, func(io.Writer) error) error { return nil })
	testenv.WantErr(t, err, "sample 4's id")
}
