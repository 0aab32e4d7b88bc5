package dataset

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/testenv"
	"github.com/manifactor/manifactor/sparse"
)

// counts is a 4 x 5 term-count matrix: feature 1 occurs nowhere, feature 4
// everywhere but in the empty last document.
var counts = []float64{
	1, 0, 2, 0, 1,
	0, 0, 3, 4, 2,
	5, 0, 0, 6, 3,
	0, 0, 0, 0, 0,
}

// both returns the same data set in sparse and in dense form.
func both(t *testing.T, rows, cols int, data []float64, labels []int) []*Dataset {
	t.Helper()
	var ri, ci []int
	var v []float64
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if x := data[i*cols+j]; x != 0 {
				ri, ci, v = append(ri, i), append(ci, j), append(v, x)
			}
		}
	}
	a, err := sparse.FromTriplets(rows, cols, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	return []*Dataset{
		{Source: "sparse", Sparse: a, Labels: append([]int(nil), labels...)},
		{Source: "dense", Dense: mat.NewDense(rows, cols, append([]float64(nil), data...)), Labels: append([]int(nil), labels...)},
	}
}

func TestTFIDF(t *testing.T) {
	ln2, ln43 := math.Log(2), math.Log(4.0/3)
	// Hand computation: n = 4, df = (2, 0, 2, 2, 3).
	want := []float64{
		1 * ln2, 0, 2 * ln2, 0, 1 * ln43,
		0, 0, 3 * ln2, 4 * ln2, 2 * ln43,
		5 * ln2, 0, 0, 6 * ln2, 3 * ln43,
		0, 0, 0, 0, 0,
	}
	for _, d := range both(t, 4, 5, counts, nil) {
		if err := d.TFIDF(); err != nil {
			t.Fatal(err)
		}
		if got := denseOf(d); !floats.EqualApprox(got, want, 1e-15) {
			t.Errorf("%s: got %v, want %v", d.Source, got, want)
		}
	}
	// A feature in every document gets weight zero.
	for _, d := range both(t, 2, 2, []float64{1, 2, 3, 0}, nil) {
		if err := d.TFIDF(); err != nil {
			t.Fatal(err)
		}
		if got, want := denseOf(d), []float64{0, 2 * ln2, 0, 0}; !floats.EqualApprox(got, want, 1e-15) {
			t.Errorf("%s: got %v, want %v", d.Source, got, want)
		}
	}
}

func TestLogTFIDF(t *testing.T) {
	ln2, ln43 := math.Log(2), math.Log(4.0/3)
	l := func(tf float64) float64 { return 1 + math.Log(tf) }
	// Hand computation: n = 4, df = (2, 0, 2, 2, 3), tf -> 1 + ln tf.
	want := []float64{
		1 * ln2, 0, l(2) * ln2, 0, 1 * ln43,
		0, 0, l(3) * ln2, l(4) * ln2, l(2) * ln43,
		l(5) * ln2, 0, 0, l(6) * ln2, l(3) * ln43,
		0, 0, 0, 0, 0,
	}
	for _, d := range both(t, 4, 5, counts, nil) {
		if err := d.LogTFIDF(); err != nil {
			t.Fatal(err)
		}
		if got := denseOf(d); !floats.EqualApprox(got, want, 1e-15) {
			t.Errorf("%s: got %v, want %v", d.Source, got, want)
		}
	}
	// Counts of one are weighted as TFIDF weights them.
	ones := []float64{1, 0, 1, 1, 1, 0}
	for i, d := range both(t, 2, 3, ones, nil) {
		e := both(t, 2, 3, ones, nil)[i]
		if err := d.LogTFIDF(); err != nil {
			t.Fatal(err)
		}
		if err := e.TFIDF(); err != nil {
			t.Fatal(err)
		}
		if got, want := denseOf(d), denseOf(e); !floats.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", d.Source, got, want)
		}
	}
	// A non-zero below 1 is no count (1 + ln tf would be negative or
	// small), and a negative value is named as for TFIDF.
	for _, bad := range []struct {
		v    float64
		want string
	}{{0.25, "0.25"}, {-3, "-3"}} {
		data := append([]float64(nil), counts...)
		data[1*5+3] = bad.v
		for _, d := range both(t, 4, 5, data, nil) {
			testenv.WantErr(t, d.LogTFIDF(), d.Source, "sample 2, feature 4", bad.want)
		}
	}
}

func TestNormalizeL2(t *testing.T) {
	for _, d := range both(t, 4, 5, counts, nil) {
		if zero := d.NormalizeL2(); zero != 1 {
			t.Errorf("%s: %d zero samples, want 1", d.Source, zero)
		}
		got := denseOf(d)
		for i := 0; i < 3; i++ {
			if norm := floats.Norm(got[i*5:i*5+5], 2); math.Abs(norm-1) > 1e-15 {
				t.Errorf("%s: sample %d has norm %v", d.Source, i, norm)
			}
		}
		// Directions are kept: row 0 was (1, 0, 2, 0, 1) / sqrt(6).
		if want := 2 / math.Sqrt(6); math.Abs(got[2]-want) > 1e-15 {
			t.Errorf("%s: got %v, want %v", d.Source, got[2], want)
		}
		if floats.Norm(got[15:], 2) != 0 {
			t.Errorf("%s: zero sample changed", d.Source)
		}
	}
}

func TestDropZeroFeatures(t *testing.T) {
	for _, d := range both(t, 4, 5, counts, []int{1, 2, 1, 2}) {
		kept := d.DropZeroFeatures()
		if !reflect.DeepEqual(kept, []int{0, 2, 3, 4}) {
			t.Errorf("%s: kept %v", d.Source, kept)
		}
		want := []float64{1, 2, 0, 1, 0, 3, 4, 2, 5, 0, 6, 3, 0, 0, 0, 0}
		if got := denseOf(d); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", d.Source, got, want)
		}
		if err := d.Validate(); err != nil {
			t.Error(err)
		}
		// Nothing more to drop.
		if kept := d.DropZeroFeatures(); !reflect.DeepEqual(kept, []int{0, 1, 2, 3}) {
			t.Errorf("%s: second call kept %v", d.Source, kept)
		}
	}
	// A stored zero does not count as an occurrence.
	a := &sparse.CSR{Rows: 1, Cols: 2, Indptr: []int{0, 2}, Ind: []int{0, 1}, Val: []float64{0, 1}}
	d := &Dataset{Sparse: a}
	if kept := d.DropZeroFeatures(); !reflect.DeepEqual(kept, []int{1}) {
		t.Errorf("stored zero: kept %v", kept)
	}
	// All zero.
	for _, d := range both(t, 2, 2, []float64{0, 0, 0, 0}, nil) {
		if kept := d.DropZeroFeatures(); len(kept) != 0 {
			t.Errorf("%s: kept %v", d.Source, kept)
		}
		if n, m := d.Dims(); n != 2 || m != 0 {
			t.Errorf("%s: dims %d x %d", d.Source, n, m)
		}
		if err := d.Validate(); err != nil {
			t.Error(err)
		}
	}
}

func TestCheckNonNegative(t *testing.T) {
	data := append([]float64(nil), counts...)
	data[1*5+3] = -3
	data[2*5+1] = -1
	for _, d := range both(t, 4, 5, data, nil) {
		err := d.CheckNonNegative()
		testenv.WantErr(t, err, d.Source, "sample 2, feature 4", "-3")
		testenv.WantErr(t, d.TFIDF(), d.Source, "sample 2, feature 4", "-3")
	}
	for _, d := range both(t, 4, 5, counts, nil) {
		if err := d.CheckNonNegative(); err != nil {
			t.Error(err)
		}
	}
}

func TestClassesNNZSelect(t *testing.T) {
	for _, d := range both(t, 4, 5, counts, []int{3, 1, 3, 3}) {
		labels, sizes := d.Classes()
		if !reflect.DeepEqual(labels, []int{1, 3}) || !reflect.DeepEqual(sizes, []int{1, 3}) {
			t.Errorf("%s: classes %v sizes %v", d.Source, labels, sizes)
		}
		if nnz := d.NNZ(); nnz != 9 {
			t.Errorf("%s: nnz %d, want 9", d.Source, nnz)
		}
		s := d.SelectSamples([]int{2, 0, 2})
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		want := append(append(append([]float64(nil), counts[10:15]...), counts[0:5]...), counts[10:15]...)
		if got := denseOf(s); !reflect.DeepEqual(got, want) || !reflect.DeepEqual(s.Labels, []int{3, 3, 3}) {
			t.Errorf("%s: selected %v labels %v", d.Source, got, s.Labels)
		}
		// The selection is a copy.
		s.NormalizeL2()
		if !reflect.DeepEqual(denseOf(d), counts) {
			t.Errorf("%s: SelectSamples shares data with its source", d.Source)
		}
	}
	d := &Dataset{Dense: mat.NewDense(1, 1, []float64{1})}
	if l, s := d.Classes(); l != nil || s != nil {
		t.Errorf("no labels: classes %v %v", l, s)
	}
}

func TestValidate(t *testing.T) {
	bad := []*Dataset{
		{Source: "none"},
		{Source: "both", Sparse: &sparse.CSR{Indptr: []int{0}}, Dense: mat.NewDense(1, 1, nil)},
		{Source: "csr", Sparse: &sparse.CSR{Rows: 1, Cols: 1, Indptr: []int{0, 1}, Ind: []int{3}, Val: []float64{1}}},
		{Source: "nan", Dense: mat.NewDense(1, 2, []float64{0, math.NaN()})},
		{Source: "labels", Dense: mat.NewDense(1, 1, nil), Labels: []int{1, 2}},
	}
	for _, d := range bad {
		testenv.WantErr(t, d.Validate(), d.Source)
	}
}

func TestVocabularyAndIDsFollowSelections(t *testing.T) {
	for _, d := range both(t, 3, 4, []float64{1, 0, 2, 0, 0, 0, 3, 0, 4, 0, 0, 0}, []int{1, 2, 1}) {
		d.Vocabulary = []string{"a", "b", "c", "d"}
		d.IDs = []string{"x", "y", "z"}
		kept := d.DropZeroFeatures()
		if len(kept) != 2 || strings.Join(d.Vocabulary, ",") != "a,c" {
			t.Fatalf("kept %v, vocabulary %v", kept, d.Vocabulary)
		}
		s := d.SelectSamples([]int{2, 0})
		if strings.Join(s.IDs, ",") != "z,x" || strings.Join(s.Vocabulary, ",") != "a,c" {
			t.Fatalf("selected ids %v vocabulary %v", s.IDs, s.Vocabulary)
		}
	}
}

// TestNewAndValidate: New takes any mat.Matrix (a sparse.Matrix stays
// sparse and shared), checks it as Load's results are checked, and
// Validate refuses names, labels or IDs out of step with the data.
func TestNewAndValidate(t *testing.T) {
	a, err := sparse.FromTriplets(3, 4, []int{0, 1, 2}, []int{0, 3, 1}, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := New("mine", a.Matrix(), []int{1, 2, 1})
	if err != nil || ds.Sparse != a || ds.Dense != nil {
		t.Fatalf("sparse: %v", err)
	}
	dense := a.ToDense()
	if ds, err := New("mine", dense, nil); err != nil || ds.Dense != dense {
		t.Fatalf("dense: %v", err)
	}
	if ds, err := New("mine", dense.T(), nil); err != nil || ds.Dense == nil {
		t.Fatalf("a transpose: %v", err)
	} else if n, m := ds.Dims(); n != 4 || m != 3 {
		t.Errorf("a transpose: %d x %d", n, m)
	}
	for _, c := range []struct {
		m      func() *Dataset
		want   string
		labels []int
	}{
		{func() *Dataset { d := *ds; d.Vocabulary = []string{"a"}; return &d }, "1 feature names (Vocabulary) for 4 features", nil},
		{func() *Dataset { d := *ds; d.IDs = []string{"a", "b"}; return &d }, "2 sample IDs for 3 samples", nil},
		{func() *Dataset { d := *ds; d.Labels = []int{1}; return &d }, "1 labels for 3 samples", nil},
	} {
		if err := c.m().Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate: %v, want %q", err, c.want)
		}
	}
	nan := mat.NewDense(2, 2, []float64{1, 2, math.NaN(), 3})
	if _, err := New("mine", nan, nil); err == nil || !strings.Contains(err.Error(), "sample 2, feature 1") {
		t.Errorf("NaN: %v", err)
	}
	if _, err := New("mine", a.Matrix(), []int{1}); err == nil || !strings.Contains(err.Error(), "1 labels for 3 samples") {
		t.Errorf("labels: %v", err)
	}
	if _, err := New("mine", nil, nil); err == nil {
		t.Error("nil matrix accepted")
	}
}

// TestFirstParallel: the parallel search for the first bad entry finds
// the one a plain scan in row order finds, on a corpus of many blocks of
// rows with empty rows, bad entries placed at block edges and inside, and
// none.
func TestFirstParallel(t *testing.T) {
	const rows, cols = 5*prepareRows + 77, 50
	var ri, ci []int
	var v []float64
	for i := range rows {
		if i%13 == 5 {
			continue // an empty row
		}
		for j := i % 7; j < cols; j += 9 {
			ri, ci, v = append(ri, i), append(ci, j), append(v, float64(1+(i+j)%4))
		}
	}
	a, err := sparse.FromTriplets(rows, cols, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	d := &Dataset{Sparse: a, Source: "gen"}
	plain := func() (int, int, float64, bool) {
		for i := 0; i < a.Rows; i++ {
			for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
				if a.Val[p] < 0 {
					return i, a.Ind[p], a.Val[p], true
				}
			}
		}
		return 0, 0, 0, false
	}
	nnz := len(a.Val)
	for _, bad := range [][]int{nil, {0}, {nnz - 1}, {nnz / 2, nnz - 1}, {a.Indptr[prepareRows], a.Indptr[3*prepareRows] - 1, 17}, {a.Indptr[4*prepareRows+3]}} {
		for _, p := range bad {
			a.Val[p] = -float64(p + 1)
		}
		i, j, x, found := d.firstNegative()
		wi, wj, wx, wfound := plain()
		if i != wi || j != wj || x != wx || found != wfound {
			t.Errorf("bad entries %v: first (%d, %d, %v, %v), plain scan (%d, %d, %v, %v)", bad, i, j, x, found, wi, wj, wx, wfound)
		}
		for _, p := range bad {
			a.Val[p] = 1
		}
	}
}

// TestSublinearTable: log tf-idf's weights of whole counts from the table
// equal the logarithm's bit for bit, across the table's edge, and other
// values still go to the logarithm.
func TestSublinearTable(t *testing.T) {
	var tfs []float64
	for n := 0; n <= len(sublinearTF)+3; n++ {
		tfs = append(tfs, float64(n))
	}
	tfs = append(tfs, 1.5, 2.25, 1e6, 1e300)
	ri := make([]int, len(tfs))
	ci := make([]int, len(tfs))
	for i := range tfs {
		ri[i], ci[i] = i, 0
	}
	a, err := sparse.FromTriplets(len(tfs), 1, ri, ci, tfs)
	if err != nil {
		t.Fatal(err)
	}
	d := &Dataset{Sparse: a, Source: "gen"}
	d.WeighTerms([]float64{1}, true)
	for i, tf := range tfs {
		want := 0.0
		if tf != 0 {
			want = 1 + math.Log(tf)
		}
		if g := a.At(i, 0); math.Float64bits(g) != math.Float64bits(want) {
			t.Errorf("tf %v: weight %v, want 1 + ln tf = %v", tf, g, want)
		}
	}
}

// TestCheckLogCounts: log tf-idf's check names the first negative value
// when there is one anywhere (even after a fraction), else the first value
// that is neither 0 nor at least 1.
func TestCheckLogCounts(t *testing.T) {
	for _, c := range []struct {
		vals []float64
		want string // "" for no error
	}{
		{[]float64{1, 2, 3, 7, 1}, ""},
		{[]float64{1, 2, 0.5, 7, 1}, "value 0.5 at sample 3, feature 3: log tf-idf needs term counts"},
		{[]float64{1, 0.5, 3, -2, 1}, "tf-idf needs term counts: gen: negative value -2 at sample 4, feature 4"},
		{[]float64{-1, 2, 3, 4, 5}, "negative value -1 at sample 1, feature 1"},
	} {
		n := len(c.vals)
		ri, ci := make([]int, n), make([]int, n)
		for i := range ri {
			ri[i], ci[i] = i, i
		}
		a, err := sparse.FromTriplets(n, n, ri, ci, c.vals)
		if err != nil {
			t.Fatal(err)
		}
		err = (&Dataset{Sparse: a, Source: "gen"}).CheckLogCounts()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.vals, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: error %v, want one containing %q", c.vals, err, c.want)
		}
	}
}
