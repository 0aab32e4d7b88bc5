package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/manifactor/manifactor/internal/matrixio"
	"gonum.org/v1/gonum/mat"
)

// CSVHeader says whether the first row of a CSV file names the columns.
type CSVHeader int

const (
	// CSVHeaderAuto takes the first row as a header when some field of it
	// is not a number.
	CSVHeaderAuto CSVHeader = iota
	// CSVHeaderYes takes the first row as a header.
	CSVHeaderYes
	// CSVHeaderNo takes the first row as data.
	CSVHeaderNo
)

// CSVOptions says how to read a CSV file. The zero value reads
// comma-separated numbers, detects a header and takes no label column.
type CSVOptions struct {
	// Comma is the field separator; 0 means ','. Use '\t' for
	// tab-separated files.
	Comma rune
	// Header says whether the first row names the columns.
	Header CSVHeader
	// LabelColumn is the column of integer labels: its name in the header
	// or its 1-based position as decimal text ("1" is the first column);
	// "" means the file has no label column. A name takes precedence over
	// a position.
	LabelColumn string
	// nan reads fields NaN as NaN values (LoadOptions.MissingNaN).
	nan bool
}

// ReadCSV reads a dense data set from CSV text: one sample per record,
// one feature per field, fields parsed as finite numbers (spaces around a
// number are ignored), quoted as encoding/csv allows. Every record must
// have as many fields as the first. A header row gives the feature names
// (Vocabulary); the label column, if any, gives integer labels and is not
// a feature. A UTF-8 byte order mark at the start is skipped.
//
// name is used in error messages, which have the form "name:LINE: ..." and
// give the column (1-based, with its header name) and the offending text.
// The result is valid (see Dataset.Validate) with at least one sample and
// one feature.
func ReadCSV(r io.Reader, name string, opt CSVOptions) (*Dataset, error) {
	br := bufio.NewReaderSize(&lineCap{r: r, name: name, line: 1}, 1<<16)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	if opt.Comma != 0 {
		cr.Comma = opt.Comma
	}
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	rec, err := cr.Read()
	if err == io.EOF {
		return nil, matrixio.StreamErr(name, "empty file")
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, matrixio.LineErr(name, 1, "the data end in the middle of the file (truncated or damaged): %w", err)
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	ncol := len(rec)
	firstLine, _ := cr.FieldPos(0)
	header := opt.Header == CSVHeaderYes
	if opt.Header == CSVHeaderAuto {
		for _, f := range rec {
			if _, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
				header = true
				break
			}
		}
	}
	var names []string
	if header {
		names = make([]string, ncol)
		for j, f := range rec {
			names[j] = strings.TrimSpace(f)
		}
	}
	labelCol, err := csvLabelColumn(name, opt.LabelColumn, names, ncol)
	if err != nil {
		return nil, err
	}
	nfeat := ncol
	if labelCol >= 0 {
		nfeat--
	}
	if nfeat == 0 {
		return nil, matrixio.LineErr(name, firstLine, "no feature columns: the only column holds the labels")
	}
	d := &Dataset{Source: name}
	if names != nil {
		// Features are matched by name (a model's transform): a name
		// given twice would make two columns one.
		d.Vocabulary = make([]string, 0, nfeat)
		first := make(map[string]int, nfeat)
		for j, s := range names {
			if j == labelCol {
				continue
			}
			if k, ok := first[s]; ok {
				return nil, matrixio.ValueErr(name, firstLine, j+1, s, "column name %q repeats column %d's: feature names must differ", s, k+1)
			}
			first[s] = j
			d.Vocabulary = append(d.Vocabulary, s)
		}
	}
	if labelCol >= 0 {
		d.Labels = []int{}
	}
	colName := func(j int) string {
		if names == nil {
			return fmt.Sprintf("column %d", j+1)
		}
		return fmt.Sprintf("column %d (%q)", j+1, matrixio.Truncate([]byte(names[j])))
	}
	var vals []float64
	rows := 0
	addRow := func(rec []string) error {
		line, _ := cr.FieldPos(0)
		if len(rec) != ncol {
			return matrixio.LineErr(name, line, "%d fields, want %d as on line %d", len(rec), ncol, firstLine)
		}
		if int64(rows+1)*int64(nfeat) > matrixio.MaxDenseElements {
			return matrixio.LineErr(name, line, "more than the limit of %d values", matrixio.MaxDenseElements)
		}
		for j, f := range rec {
			line, _ := cr.FieldPos(j)
			s := strings.TrimSpace(f)
			if j == labelCol {
				l, err := parseLabel([]byte(s))
				if err != nil {
					return matrixio.ValueErr(name, line, j+1, s, "%s: %v", colName(j), err)
				}
				d.Labels = append(d.Labels, l)
				continue
			}
			if s == "" {
				return matrixio.ValueErr(name, line, j+1, s, "%s: empty value", colName(j))
			}
			x, err := matrixio.ParseValue([]byte(s), "real")
			if err != nil && strings.EqualFold(s, "nan") {
				if !opt.nan {
					return matrixio.ValueErr(name, line, j+1, s, "%s: %v%s", colName(j), err, matrixio.NaNHint(math.NaN()))
				}
				x, err = math.NaN(), nil
			}
			if err != nil {
				if hasLetters(s) {
					// Words in a matrix file: a column of documents.
					return matrixio.ValueErr(name, line, j+1, s, "%s: %v; a CSV holds numbers (documents are read from a .txt file of one per line, label<TAB>text, or a directory of files)", colName(j), err)
				}
				return matrixio.ValueErr(name, line, j+1, s, "%s: %v", colName(j), err)
			}
			vals = append(vals, x)
		}
		rows++
		return nil
	}
	if !header {
		if err := addRow(rec); err != nil {
			return nil, err
		}
	}
	for {
		last, _ := cr.FieldPos(0)
		rec, err = cr.Read()
		if err == io.EOF {
			break
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			// The stream under the reader (a .csv.gz) ended early.
			return nil, matrixio.LineErr(name, last+1, "the data end in the middle of the file (truncated or damaged): %w", err)
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		if err := addRow(rec); err != nil {
			return nil, err
		}
	}
	if rows == 0 {
		return nil, matrixio.StreamErr(name, "no data rows after the header")
	}
	d.Dense = mat.NewDense(rows, nfeat, vals)
	return d, nil
}

// csvLabelColumn finds the 0-based label column named by spec (a header
// name or a 1-based position); -1 when spec is "".
func csvLabelColumn(name, spec string, names []string, ncol int) (int, error) {
	if spec == "" {
		return -1, nil
	}
	found := -1
	for j, s := range names {
		if s == spec {
			if found >= 0 {
				return -1, matrixio.StreamErr(name, "label column %q: the header has it twice (columns %d and %d)", spec, found+1, j+1)
			}
			found = j
		}
	}
	if found >= 0 {
		return found, nil
	}
	if k, err := strconv.Atoi(spec); err == nil && k >= 1 && k <= ncol {
		return k - 1, nil
	}
	if names != nil {
		return -1, matrixio.StreamErr(name, "label column %q: no column has that name and it is not a position in [1,%d] (the header has %s)", spec, ncol, strings.Join(quoteAll(names, 20), ", "))
	}
	return -1, matrixio.StreamErr(name, "label column %q: the file has no header and %d columns, want a position in [1,%d]", spec, ncol, ncol)
}

// quoteAll quotes the first max strings of s for an error message.
func quoteAll(s []string, max int) []string {
	out := make([]string, 0, min(len(s), max)+1)
	for k, x := range s {
		if k == max {
			out = append(out, fmt.Sprintf("... (%d in all)", len(s)))
			break
		}
		out = append(out, strconv.Quote(matrixio.Truncate([]byte(x))))
	}
	return out
}

// csvError formats an error of encoding/csv with the file name first.
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &matrixio.ParseError{File: name, Line: pe.Line, Column: pe.Column, Offset: -1, Err: fmt.Errorf("byte %d of the line: %w", pe.Column, pe.Err)}
	}
	var own *matrixio.ParseError
	if errors.As(err, &own) {
		return own // from the readers under it (a budget, a line too long)
	}
	return matrixio.StreamErr(name, "%v", err)
}

// maxCSVLine is the longest CSV line accepted: 250,000 features of 16
// characters each. A longer line is most likely not data, and encoding/csv
// would hold all of it, split into strings, before any check.
var maxCSVLine = 1 << 22

// lineCap fails a read that would make a line longer than maxCSVLine.
type lineCap struct {
	r    io.Reader
	name string
	line int
	run  int // bytes of the current line so far
}

func (l *lineCap) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for _, c := range p[:n] {
		if c == '\n' {
			l.line++
			l.run = 0
			continue
		}
		if l.run++; l.run > maxCSVLine {
			return 0, matrixio.LineErr(l.name, l.line, "line longer than %d bytes", maxCSVLine)
		}
	}
	return n, err
}

// hasLetters reports whether s holds a run of three letters: words, not
// a malformed number.
func hasLetters(s string) bool {
	run := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			if run++; run == 3 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}
