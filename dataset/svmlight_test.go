package dataset

import (
	"bytes"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/testenv"
)

// atDims is what a dense or sparse matrix offers for element access.

func TestReadSVMLight(t *testing.T) {
	cases := []struct {
		name   string
		text   string
		rows   int
		cols   int
		want   []float64
		labels []int
		notes  SVMLightNotes
	}{
		{
			name: "1-based with comments",
			text: "# a comment line\n+1 1:0.5 3:2 # trailing comment\n\n-1 2:-1e-3\r\n   \n2 qid:7 1:1 4:4\n0\n",
			rows: 4, cols: 4,
			want:   []float64{0.5, 0, 2, 0, 0, -1e-3, 0, 0, 1, 0, 0, 4, 0, 0, 0, 0},
			labels: []int{1, -1, 2, 0},
			notes:  SVMLightNotes{QIDLines: 1},
		},
		{
			name: "0-based",
			text: "1 0:1 2:3\n2.0 1:5\n",
			rows: 2, cols: 3,
			want:   []float64{1, 0, 3, 0, 5, 0},
			labels: []int{1, 2},
			notes:  SVMLightNotes{ZeroBased: true},
		},
		{
			name: "tabs and no final newline",
			text: "3\t2:7\t5:1",
			rows: 1, cols: 5,
			want:   []float64{0, 7, 0, 0, 1},
			labels: []int{3},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.text), io.MultiReader(strings.NewReader(tc.text))} {
				d, notes, err := ReadSVMLight(r, "x.svm")
				if err != nil {
					t.Fatal(err)
				}
				if err := d.Validate(); err != nil {
					t.Fatal(err)
				}
				if d.Sparse == nil || !testenv.DenseEqual(d.Sparse, tc.rows, tc.cols, tc.want) {
					t.Errorf("got %v, want %d x %d %v", d.Sparse, tc.rows, tc.cols, tc.want)
				}
				if !slices.Equal(d.Labels, tc.labels) {
					t.Errorf("labels %v, want %v", d.Labels, tc.labels)
				}
				if notes != tc.notes {
					t.Errorf("notes %+v, want %+v", notes, tc.notes)
				}
				if d.Source != "x.svm" {
					t.Errorf("source %q", d.Source)
				}
			}
		})
	}
}

func TestSVMLightNotesString(t *testing.T) {
	for _, tc := range []struct {
		n    SVMLightNotes
		want string
	}{
		{SVMLightNotes{}, "feature indices are 1-based (no index 0)"},
		{SVMLightNotes{ZeroBased: true, QIDLines: 3}, "feature indices are 0-based (index 0 occurs); qid tokens on 3 lines skipped"},
	} {
		if got := tc.n.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestReadSVMLightErrors(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"1 1:1\n1.5 2:1\n", []string{"x.svm:2: ", `label "1.5" is not an integer`}},
		{"abc 1:1\n", []string{"x.svm:1: ", `label "abc" is not an integer`}},
		{"1,2 1:1\n", []string{"x.svm:1: ", "multi-label"}},
		{"1 3:1 2:1\n", []string{"x.svm:1: ", `feature "2:1": index 2 after index 3`, "increase"}},
		{"1 2:1 2:1\n", []string{"x.svm:1: ", "index 2 after index 2"}},
		{"# c\n1 1:nan\n", []string{"x.svm:2: ", `feature "1:nan"`, "not finite"}},
		{"1 1:Inf\n", []string{"x.svm:1: ", "not finite"}},
		{"1 1:1e999\n", []string{"x.svm:1: ", "out of range"}},
		{"1 1:x\n", []string{"x.svm:1: ", `value "x" is not a number`}},
		{"1 1:\n", []string{"x.svm:1: ", `value "" is not a number`}},
		{"1 7\n", []string{"x.svm:1: ", `feature "7": want index:value`}},
		{"1 -1:2\n", []string{"x.svm:1: ", `index "-1" is not a non-negative integer`}},
		{"1 a:2\n", []string{"x.svm:1: ", `index "a"`}},
		{"1 qid:x 1:2\n", []string{"x.svm:1: ", `query id "x" is not an integer`}},
		{"", []string{"x.svm: no samples"}},
		{"# only\n\n", []string{"x.svm: no samples"}},
		{"1\n2 # none\n", []string{"x.svm: no features"}},
		{"1 1:1\n1 4611686018427387904:1\n", []string{"x.svm:2: ", "feature index 4611686018427387904 is implausible"}},
		{"1 99999999999999999999:1\n", []string{"x.svm:1: ", "not a non-negative integer of at most 2^62"}},
	}
	for _, tc := range cases {
		d, _, err := ReadSVMLight(strings.NewReader(tc.text), "x.svm")
		if d != nil {
			t.Errorf("%q: got a data set with the error", tc.text)
		}
		testenv.WantErr(t, err, tc.want...)
	}
}

func TestReadSVMLightLongLine(t *testing.T) {
	old := maxSVMLightLine
	maxSVMLightLine = 100
	defer func() { maxSVMLightLine = old }()
	var b strings.Builder
	b.WriteString("1 1:1\n1")
	for j := 1; j <= 30; j++ {
		b.WriteString(" 1:1")
	}
	_, _, err := ReadSVMLight(strings.NewReader(b.String()), "x.svm")
	testenv.WantErr(t, err, "x.svm:2: line longer than 100 bytes")
	// A line longer than the read buffer but within the limit is fine.
	maxSVMLightLine = 1 << 20
	b.Reset()
	b.WriteString("1")
	for j := 1; j <= 20000; j++ {
		b.WriteString(" 000" + strconv.Itoa(j) + ":1")
	}
	b.WriteString("\n2 5:1\n")
	d, _, err := ReadSVMLight(strings.NewReader(b.String()), "x.svm")
	if err != nil {
		t.Fatal(err)
	}
	if n, m := d.Dims(); n != 2 || m != 20000 || d.Sparse.NNZ() != 20001 {
		t.Errorf("got %d x %d with %d values", n, m, d.Sparse.NNZ())
	}
}

func FuzzReadSVMLight(f *testing.F) {
	lowerLimits(f)
	for _, s := range []string{
		"+1 1:0.5 3:2 # c\n-1 2:-1e-3\r\n\n2 qid:7 1:1 4:4\n0\n",
		"1 0:1 2:3\n2.0 1:5\n",
		"# only a comment\n",
		"3\t2:7\t5:1",
		"1 3:1 2:1\n",
		"1 1:nan\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, r := range []io.Reader{bytes.NewReader(b), io.MultiReader(bytes.NewReader(b))} {
			d, notes, err := ReadSVMLight(r, "fuzz.svm")
			checkLoaded(t, d, err, "fuzz.svm")
			if err != nil {
				continue
			}
			if d.Sparse == nil || d.Dense != nil {
				t.Fatal("want a sparse data set")
			}
			if n, _ := d.Dims(); len(d.Labels) != n {
				t.Fatalf("%d labels for %d samples", len(d.Labels), n)
			}
			// The widest column is used: 1-based files end at index m.
			_, m := d.Dims()
			top := -1
			for _, j := range d.Sparse.Ind {
				top = max(top, j)
			}
			if top != m-1 {
				t.Fatalf("%d features but the largest column used is %d (notes %v)", m, top, notes)
			}
		}
	})
}
