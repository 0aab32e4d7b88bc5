package dataset

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/internal/testenv"
	"gonum.org/v1/gonum/mat"
)

func TestReadCSV(t *testing.T) {
	cases := []struct {
		name   string
		text   string
		opt    CSVOptions
		rows   int
		cols   int
		want   []float64
		labels []int
		vocab  []string
	}{
		{
			name: "plain",
			text: "1,2,3\n4,5,6.5\n",
			rows: 2, cols: 3, want: []float64{1, 2, 3, 4, 5, 6.5},
		},
		{
			name: "header detected",
			text: "a,b, c \n1,2e0,3\r\n\n-4, 5 ,6\n",
			rows: 2, cols: 3, want: []float64{1, 2, 3, -4, 5, 6},
			vocab: []string{"a", "b", "c"},
		},
		{
			name: "label by name, quoted fields, BOM",
			text: "\ufeff\"x, first\",class,\"y\"\"\"\n\"1.5\",2,3\n4,\"-1\",5\n",
			opt:  CSVOptions{LabelColumn: "class"},
			rows: 2, cols: 2, want: []float64{1.5, 3, 4, 5},
			labels: []int{2, -1},
			vocab:  []string{"x, first", `y"`},
		},
		{
			name: "label by position without header",
			text: "1,2,3\n4,5,6\n",
			opt:  CSVOptions{LabelColumn: "3", Header: CSVHeaderNo},
			rows: 2, cols: 2, want: []float64{1, 2, 4, 5},
			labels: []int{3, 6},
		},
		{
			name: "label by position with header",
			text: "l,f\n+1,0.25\n2.0,0.5\n",
			opt:  CSVOptions{LabelColumn: "1"},
			rows: 2, cols: 1, want: []float64{0.25, 0.5},
			labels: []int{1, 2},
			vocab:  []string{"f"},
		},
		{
			name: "numeric header forced",
			text: "1,2\n3,4\n",
			opt:  CSVOptions{Header: CSVHeaderYes},
			rows: 1, cols: 2, want: []float64{3, 4},
			vocab: []string{"1", "2"},
		},
		{
			name: "name wins over position",
			text: "2,1\n7,8\n",
			opt:  CSVOptions{Header: CSVHeaderYes, LabelColumn: "1"},
			rows: 1, cols: 1, want: []float64{7},
			labels: []int{8},
			vocab:  []string{"2"},
		},
		{
			name: "tab separated",
			text: "a\tb\n1\t2\n",
			opt:  CSVOptions{Comma: '\t'},
			rows: 1, cols: 2, want: []float64{1, 2},
			vocab: []string{"a", "b"},
		},
		{
			name: "semicolon, single column",
			text: "7\n8\n",
			opt:  CSVOptions{Comma: ';'},
			rows: 2, cols: 1, want: []float64{7, 8},
		},
		{
			name: "underflow is zero",
			text: "1e-400,1\n",
			rows: 1, cols: 2, want: []float64{0, 1},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ReadCSV(strings.NewReader(tc.text), "x.csv", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Validate(); err != nil {
				t.Fatal(err)
			}
			if d.Dense == nil || !testenv.DenseEqual(d.Dense, tc.rows, tc.cols, tc.want) {
				t.Errorf("got %v, want %d x %d %v", d.Dense, tc.rows, tc.cols, tc.want)
			}
			if !slices.Equal(d.Labels, tc.labels) || (d.Labels == nil) != (tc.labels == nil) {
				t.Errorf("labels %v, want %v", d.Labels, tc.labels)
			}
			if !slices.Equal(d.Vocabulary, tc.vocab) || (d.Vocabulary == nil) != (tc.vocab == nil) {
				t.Errorf("vocabulary %q, want %q", d.Vocabulary, tc.vocab)
			}
		})
	}
}

func TestReadCSVErrors(t *testing.T) {
	cases := []struct {
		text string
		opt  CSVOptions
		want []string
	}{
		{"", CSVOptions{}, []string{"x.csv: empty file"}},
		{"\n\n", CSVOptions{}, []string{"x.csv: empty file"}},
		{"a,b\n", CSVOptions{}, []string{"x.csv: no data rows after the header"}},
		{"1,2\n3\n", CSVOptions{}, []string{"x.csv:2: 1 fields, want 2 as on line 1"}},
		{"a,b\n1,2\n3,4,5\n", CSVOptions{}, []string{"x.csv:3: 3 fields, want 2 as on line 1"}},
		{"1,2\n3,NaN\n", CSVOptions{}, []string{"x.csv:2: column 2: ", `value "NaN" is not finite`}},
		{"a,b\n1,2\n3,-inf\n", CSVOptions{}, []string{"x.csv:3: column 2 (\"b\"): ", "not finite"}},
		{"1,2\n3,x\n", CSVOptions{}, []string{"x.csv:2: column 2: ", `value "x" is not a number`}},
		{"a,b\n1,\n", CSVOptions{}, []string{"x.csv:2: column 2 (\"b\"): empty value"}},
		{"1,2\n1e999,2\n", CSVOptions{}, []string{"x.csv:2: column 1: ", "out of range"}},
		{"a,b\n1,2\n", CSVOptions{Header: CSVHeaderNo}, []string{"x.csv:1: column 1: ", `value "a" is not a number`}},
		{"l,f\n1.5,2\n", CSVOptions{LabelColumn: "l"}, []string{"x.csv:2: column 1 (\"l\"): ", `label "1.5" is not an integer`}},
		{"l,f\n1,2\n", CSVOptions{LabelColumn: "g"}, []string{"x.csv: label column \"g\": no column has that name", `"l", "f"`}},
		{"l,l\n1,2\n", CSVOptions{LabelColumn: "l"}, []string{"x.csv: label column \"l\": the header has it twice (columns 1 and 2)"}},
		{"1,2\n", CSVOptions{LabelColumn: "3"}, []string{"x.csv: label column \"3\": the file has no header and 2 columns"}},
		{"1,2\n", CSVOptions{LabelColumn: "0"}, []string{"the file has no header"}},
		{"l\n1\n", CSVOptions{LabelColumn: "l"}, []string{"x.csv:1: no feature columns"}},
		{"1,2\n\"3,4\n", CSVOptions{}, []string{"x.csv:2: ", "extraneous or missing \" in quoted-field"}},
		{"1,2\n3,4\"x\n", CSVOptions{}, []string{"x.csv:2: ", "bare \""}},
		{"1,2\n", CSVOptions{Comma: '"'}, []string{"x.csv: ", "invalid"}},
	}
	for _, tc := range cases {
		d, err := ReadCSV(strings.NewReader(tc.text), "x.csv", tc.opt)
		if d != nil {
			t.Errorf("%q: got a data set with the error", tc.text)
		}
		testenv.WantErr(t, err, tc.want...)
	}
}

func TestReadCSVLimit(t *testing.T) {
	old := matrixio.MaxDenseElements
	matrixio.MaxDenseElements = 6
	defer func() { matrixio.MaxDenseElements = old }()
	if _, err := ReadCSV(strings.NewReader("1,2,3\n4,5,6\n"), "x.csv", CSVOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := ReadCSV(strings.NewReader("1,2,3\n4,5,6\n7,8,9\n"), "x.csv", CSVOptions{})
	testenv.WantErr(t, err, "x.csv:3: more than the limit of 6 values")
}

func TestCSVRoundTrip(t *testing.T) {
	a := mat.NewDense(3, 4, []float64{
		0.1, -2.5e-300, math.MaxFloat64, 1.0 / 3,
		0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, 7,
		1e21, 123456789012345678, -1, math.Pi,
	})
	for _, header := range [][]string{nil, {"a", "b,c", "d\"e", " f "}} {
		var buf bytes.Buffer
		if err := matrixio.WriteCSV(&buf, a, header); err != nil {
			t.Fatal(err)
		}
		d, err := ReadCSV(&buf, "rt.csv", CSVOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(d.Dense, a) {
			t.Errorf("header %q: got\n%v\nwant\n%v", header, mat.Formatted(d.Dense), mat.Formatted(a))
		}
		if !math.Signbit(d.Dense.At(1, 1)) {
			t.Error("-0 lost its sign")
		}
		want := header
		if want != nil {
			want = []string{"a", "b,c", "d\"e", "f"} // spaces around a name are trimmed
		}
		if !slices.Equal(d.Vocabulary, want) {
			t.Errorf("vocabulary %q, want %q", d.Vocabulary, want)
		}
	}
	// A header of numbers needs CSVHeaderYes to read back.
	var buf bytes.Buffer
	if err := matrixio.WriteCSV(&buf, mat.NewDense(1, 2, []float64{1, 2}), []string{"10", "20"}); err != nil {
		t.Fatal(err)
	}
	d, err := ReadCSV(&buf, "rt.csv", CSVOptions{Header: CSVHeaderYes})
	if err != nil || !slices.Equal(d.Vocabulary, []string{"10", "20"}) || d.Dense.At(0, 1) != 2 {
		t.Errorf("numeric header: %v, %v", d, err)
	}
}

func TestWriteCSVErrors(t *testing.T) {
	var buf bytes.Buffer
	testenv.WantErr(t, matrixio.WriteCSV(&buf, mat.NewDense(1, 2, nil), []string{"a"}), "WriteCSV: 1 header names for 2 columns")
	testenv.WantErr(t, matrixio.WriteCSV(&buf, mat.NewDense(2, 2, []float64{1, 2, 3, math.NaN()}), nil), "value NaN at row 2, column 2")
	testenv.WantErr(t, matrixio.WriteCSV(&buf, mat.NewDense(1, 1, []float64{math.Inf(-1)}), nil), "value -Inf at row 1, column 1")
}

func FuzzReadCSV(f *testing.F) {
	lowerLimits(f)
	for _, s := range []string{
		"1,2,3\n4,5,6.5\n",
		"a,b, c \n1,2e0,3\r\n\n-4, 5 ,6\n",
		"\ufeff\"x, first\",class,\"y\"\"\"\n\"1.5\",2,3\n4,\"-1\",5\n",
		"l\tf\n+1\t0.25\n2.0\t0.5\n",
		"1,2\n3\n",
		"1,NaN\n",
	} {
		f.Add([]byte(s), "class", uint8(0))
		f.Add([]byte(s), "1", uint8(1))
	}
	f.Fuzz(func(t *testing.T, b []byte, label string, mode uint8) {
		opt := CSVOptions{LabelColumn: label, Header: CSVHeader(mode % 3)}
		if mode&4 != 0 {
			opt.Comma = '\t'
		}
		d, err := ReadCSV(bytes.NewReader(b), "fuzz.csv", opt)
		checkLoaded(t, d, err, "fuzz.csv")
		if err != nil {
			return
		}
		n, m := d.Dims()
		if d.Dense == nil || d.Sparse != nil {
			t.Fatal("want a dense data set")
		}
		if d.Vocabulary != nil && len(d.Vocabulary) != m {
			t.Fatalf("%d names for %d features", len(d.Vocabulary), m)
		}
		if (d.Labels != nil) != (label != "") || d.Labels != nil && len(d.Labels) != n {
			t.Fatalf("%d labels for %d samples (label column %q)", len(d.Labels), n, label)
		}
		// What was read writes back and reads back the same.
		var buf bytes.Buffer
		if err := matrixio.WriteCSV(&buf, d.Dense, nil); err != nil {
			t.Fatal(err)
		}
		e, err := ReadCSV(&buf, "again.csv", CSVOptions{Header: CSVHeaderNo})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(e.Dense, d.Dense) {
			t.Fatal("round trip changed the values")
		}
	})
}
