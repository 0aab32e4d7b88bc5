package model

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/sparse"
)

// build returns a 3 x 3 data set of the given values, sparse or dense.
func build(t *testing.T, data []float64, dense bool) *dataset.Dataset {
	t.Helper()
	if dense {
		return &dataset.Dataset{Source: "d", Dense: mat.NewDense(3, 3, slices.Clone(data)), Labels: []int{1, 2, 2}}
	}
	var ri, ci []int
	var v []float64
	for p, x := range data {
		if x != 0 {
			ri, ci, v = append(ri, p/3), append(ci, p%3), append(v, x)
		}
	}
	a, err := sparse.FromTriplets(3, 3, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	return &dataset.Dataset{Source: "s", Sparse: a, Labels: []int{1, 2, 2}}
}

func values(d *dataset.Dataset) []float64 {
	n, m := d.Dims()
	out := make([]float64, 0, n*m)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			if d.Sparse != nil {
				out = append(out, d.Sparse.At(i, j))
			} else {
				out = append(out, d.Dense.At(i, j))
			}
		}
	}
	return out
}

// TestPrepareWeighting: auto gives sparse term counts the authors'
// 1 + ln tf and unit length, and leaves other data (dense, fractions,
// data a loader already weighted) alone; explicit choices apply as asked.
func TestPrepareWeighting(t *testing.T) {
	counts := []float64{1, 0, 3, 2, 4, 0, 0, 7, 1}
	fractions := []float64{0.5, 0, 3, 2, 4, 0, 0, 7, 1}
	for _, c := range []struct {
		data      []float64
		dense     bool
		weighted  bool
		w         Weighting
		n         Normalization
		wantW     Weighting
		wantNorm  Normalization
		reference func(*dataset.Dataset) error
	}{
		{counts, false, false, AutoWeighting, AutoNormalization, LogTFIDF, L2, (*dataset.Dataset).LogTFIDF},
		{counts, true, false, AutoWeighting, AutoNormalization, NoWeighting, NoNormalization, nil},
		{fractions, false, false, AutoWeighting, AutoNormalization, NoWeighting, NoNormalization, nil},
		{counts, false, true, AutoWeighting, AutoNormalization, NoWeighting, NoNormalization, nil},
		{counts, false, false, TFIDF, NoNormalization, TFIDF, NoNormalization, (*dataset.Dataset).TFIDF},
		{fractions, true, false, TFIDF, AutoNormalization, TFIDF, L2, (*dataset.Dataset).TFIDF},
		{counts, true, false, LogTFIDF, L2, LogTFIDF, L2, (*dataset.Dataset).LogTFIDF},
		{counts, false, false, NoWeighting, L2, NoWeighting, L2, nil},
	} {
		ds := build(t, c.data, c.dense)
		ds.Weighted = c.weighted
		want := build(t, c.data, c.dense)
		p, err := Prepare(ds, PrepareOptions{Weighting: c.w, Normalize: c.n})
		if err != nil {
			t.Fatal(err)
		}
		if p.Weighting != c.wantW || p.Normalize != c.wantNorm {
			t.Errorf("%v/%v on %v (dense %v): applied %v/%v, want %v/%v", c.w, c.n, c.data, c.dense, p.Weighting, p.Normalize, c.wantW, c.wantNorm)
		}
		if c.reference != nil {
			if err := c.reference(want); err != nil {
				t.Fatal(err)
			}
		}
		if c.wantNorm == L2 {
			want.NormalizeL2()
		}
		want.DropZeroFeatures()
		if g, w := values(p.Data), values(want); !floats.EqualApprox(g, w, 1e-15) {
			t.Errorf("%v/%v on %v (dense %v): got %v, want %v", c.w, c.n, c.data, c.dense, g, w)
		}
		if p.Data.Weighted != (c.weighted || c.wantW != NoWeighting || c.wantNorm != NoNormalization) {
			t.Errorf("%v/%v: Weighted = %v", c.w, c.n, p.Data.Weighted)
		}
	}
	if _, err := Prepare(build(t, fractions, false), PrepareOptions{Weighting: LogTFIDF}); err == nil || !strings.Contains(err.Error(), "0.5") {
		t.Errorf("log tf-idf of 0.5: %v", err)
	}
	if _, err := Prepare(build(t, []float64{1, -2, 0, 0, 1, 0, 1, 0, 1}, false), PrepareOptions{}); err == nil || !strings.Contains(err.Error(), "-2") {
		t.Errorf("negative value: %v", err)
	}
}

// TestPrepareClasses: the class subset is taken after the weighting (the
// whole corpus's idf), then loses the features it does not use; a label
// that does not occur is an error naming it.
func TestPrepareClasses(t *testing.T) {
	data := []float64{1, 0, 3, 0, 4, 2, 0, 7, 0}
	whole, err := Prepare(build(t, data, false), PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := Prepare(build(t, data, false), PrepareOptions{Classes: []int{2}})
	if err != nil {
		t.Fatal(err)
	}
	if n, m := sub.Data.Dims(); n != 2 || m != 2 || sub.ZeroFeatures != 1 {
		t.Fatalf("subset is %d x %d, %d features dropped; want 2 x 2, 1", n, m, sub.ZeroFeatures)
	}
	// Rows 2 and 3 of the whole corpus's weighting, feature 1 dropped.
	w := values(whole.Data)
	if got, want := values(sub.Data), []float64{w[4], w[5], w[7], w[8]}; !floats.Equal(got, want) {
		t.Errorf("subset values %v, want %v", got, want)
	}
	if !slices.Equal(sub.Data.Vocabulary, []string{"f2", "f3"}) {
		t.Errorf("vocabulary %v, want f2 f3", sub.Data.Vocabulary)
	}
	if _, err := Prepare(build(t, data, false), PrepareOptions{Classes: []int{2, 9}}); err == nil || !strings.Contains(err.Error(), "label 9 does not occur") {
		t.Errorf("missing class: %v", err)
	}
	noLabels := build(t, data, true)
	noLabels.Labels = nil
	if _, err := Prepare(noLabels, PrepareOptions{Classes: []int{1}}); err == nil || !strings.Contains(err.Error(), "needs labels") {
		t.Errorf("classes without labels: %v", err)
	}
}

func TestChoiceNames(t *testing.T) {
	for _, a := range []Assign{KMeansAssign, ArgMaxAssign} {
		if got, err := parseAssign(a.String()); err != nil || got != a {
			t.Errorf("assign %v: %v %v", a, got, err)
		}
	}
	for _, w := range []Weighting{AutoWeighting, NoWeighting, TFIDF, LogTFIDF} {
		if got, err := parseWeighting(w.String()); err != nil || got != w {
			t.Errorf("weighting %v: %v %v", w, got, err)
		}
	}
	for _, n := range []Normalization{AutoNormalization, NoNormalization, L2} {
		if got, err := parseNormalization(n.String()); err != nil || got != n {
			t.Errorf("normalization %v: %v %v", n, got, err)
		}
	}
	for _, bad := range []func() error{
		func() error { _, err := parseAssign("vote"); return err },
		func() error { _, err := parseWeighting("bm25"); return err },
		func() error { _, err := parseNormalization("l1"); return err },
	} {
		if bad() == nil {
			t.Error("an unknown name parsed")
		}
	}
}

// TestPrepareMinDF: the floor drops the features of sparse counts in
// fewer samples than MinDF before the weighting, so that the idf is the
// source's and the samples are unit length over the features kept; the
// features no sample uses are still counted as zero (and kept under
// KeepZeroFeatures); the preparation applied to the source again gives
// the same data; a floor on dense data, on data weighted already, that
// drops every feature, or negative is an error.
func TestPrepareMinDF(t *testing.T) {
	// 4 samples; feature 0 in 4 samples, 1 in 1, 2 in 2, 3 in none, 4 in 3.
	rows := [][]float64{{2, 0, 1, 0, 1}, {1, 3, 0, 0, 1}, {1, 0, 2, 0, 0}, {5, 0, 0, 0, 4}}
	source := func() *dataset.Dataset {
		var ri, ci []int
		var v []float64
		for i, r := range rows {
			for j, x := range r {
				if x != 0 {
					ri, ci, v = append(ri, i), append(ci, j), append(v, x)
				}
			}
		}
		a, err := sparse.FromTriplets(4, 5, ri, ci, v)
		if err != nil {
			t.Fatal(err)
		}
		return &dataset.Dataset{Source: "s", Sparse: a}
	}
	p, err := Prepare(source(), PrepareOptions{MinDF: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Feature 0 is in every sample: weight 0, dropped as zero after the
	// weighting with feature 3; feature 1 is rare.
	if p.RareFeatures != 1 || p.ZeroFeatures != 2 || !slices.Equal(p.Preparation.Columns, []int{2, 4}) || !slices.Equal(p.Preparation.Features, []string{"f3", "f5"}) {
		t.Fatalf("rare %d, zero %d, columns %v, features %v", p.RareFeatures, p.ZeroFeatures, p.Preparation.Columns, p.Preparation.Features)
	}
	idf := []float64{math.Log(4.0 / 2), math.Log(4.0 / 3)}
	if !floats.EqualApprox(p.Preparation.IDF, idf, 1e-15) {
		t.Errorf("idf %v, want the source's %v", p.Preparation.IDF, idf)
	}
	// Sample 1 keeps only feature 4: unit length there.
	want := [][]float64{{1, 1}, {0, 1}, {1 + math.Log(2), 0}, {0, 1 + math.Log(4)}}
	for i, r := range want {
		var norm float64
		for q := range r {
			r[q] *= idf[q]
			norm += r[q] * r[q]
		}
		for q := range r {
			if got := p.Data.Sparse.At(i, q); math.Abs(got-r[q]/math.Sqrt(norm)) > 1e-15 {
				t.Errorf("sample %d, feature %d: %v, want %v", i, q, got, r[q]/math.Sqrt(norm))
			}
		}
	}
	again, _, err := p.Preparation.Apply(source())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(values(again), values(p.Data)) {
		t.Errorf("the preparation applied again: %v, prepared %v", values(again), values(p.Data))
	}
	keep, err := Prepare(source(), PrepareOptions{MinDF: 2, KeepZeroFeatures: true})
	if err != nil {
		t.Fatal(err)
	}
	if keep.RareFeatures != 1 || keep.ZeroFeatures != 0 || !slices.Equal(keep.Preparation.Columns, []int{0, 2, 3, 4}) {
		t.Errorf("KeepZeroFeatures: rare %d, zero %d, columns %v", keep.RareFeatures, keep.ZeroFeatures, keep.Preparation.Columns)
	}
	// Dense data and data weighted already: an error, not a floor
	// silently skipped; so is a floor that leaves no feature.
	weighted := source()
	weighted.Weighted = true
	for _, c := range []struct {
		ds   *dataset.Dataset
		min  int
		want string
	}{{build(t, []float64{1, 0, 3, 2, 4, 0, 0, 7, 1}, true), 3, "dense"}, {weighted, 3, "weighted already"}, {source(), 5, "drops every feature"}} {
		if _, err := Prepare(c.ds, PrepareOptions{MinDF: c.min}); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "MinDF") {
			t.Errorf("%s, MinDF %d: error %v, want one saying %q", c.ds.Source, c.min, err, c.want)
		}
	}
	if _, err := Prepare(source(), PrepareOptions{MinDF: -1}); err == nil {
		t.Error("a negative floor accepted")
	}
}
