package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/sparse"
)

// maxSVMLightLine is the longest line ReadSVMLight accepts. A line holds
// one sample, so it is long for dense data; the bound keeps a stream of
// unknown size (say, a gzip bomb of digits) from growing one line without
// end. A variable so that tests can lower it.
var maxSVMLightLine = 1 << 26

// SVMLightNotes states what ReadSVMLight inferred from a file.
type SVMLightNotes struct {
	// ZeroBased reports that some feature index is 0, so every index was
	// read as 0-based (index j is feature column j). Otherwise indices are
	// 1-based, as SVMlight writes them (index j is column j-1).
	ZeroBased bool
	// QIDLines counts the lines with a qid: token; query ids are skipped.
	QIDLines int
}

// String states the inferred indexing, for a log line.
func (n SVMLightNotes) String() string {
	s := "feature indices are 1-based (no index 0)"
	if n.ZeroBased {
		s = "feature indices are 0-based (index 0 occurs)"
	}
	if n.QIDLines > 0 {
		s += fmt.Sprintf("; qid tokens on %d lines skipped", n.QIDLines)
	}
	return s
}

// ReadSVMLight reads a sparse data set in the SVMlight / LIBSVM format:
// one sample per line, "label index:value index:value ... # comment".
// Labels are integers ("+1" and "1.0" are read as 1; other non-integer
// labels are an error). Indices are non-negative integers, strictly
// increasing within a line; if any index is 0 the file is taken as
// 0-based, otherwise as 1-based, and the returned notes say which. The
// number of features is the largest index (plus one when 0-based). Values
// must be finite. Blank lines and comment lines are skipped, and so are
// qid: tokens. A line with a label and no features is a sample that is
// all zero.
//
// name is used in error messages, which have the form "name:LINE: ..." and
// quote the offending text. The result is valid (see Dataset.Validate)
// with at least one sample and one feature.
func ReadSVMLight(r io.Reader, name string) (*Dataset, SVMLightNotes, error) {
	var notes SVMLightNotes
	lr := matrixio.NewLines(bufio.NewReaderSize(r, 1<<16), name, maxSVMLightLine)
	indptr := []int{0}
	var (
		ind     []int
		val     []float64
		labels  []int
		toks    [][]byte
		maxIdx  int64 = -1
		maxLine int
	)
	for {
		b, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, notes, err
		}
		if k := bytes.IndexByte(b, '#'); k >= 0 {
			b = b[:k]
		}
		toks = matrixio.SplitFields(b, toks[:0])
		if len(toks) == 0 {
			continue
		}
		label, err := parseLabel(toks[0])
		if err != nil {
			return nil, notes, lr.Errorf("%v", err)
		}
		prev := int64(-1)
		qid := false
		for _, t := range toks[1:] {
			c := bytes.IndexByte(t, ':')
			if c < 0 {
				return nil, notes, lr.Errorf("feature %q: want index:value", matrixio.Truncate(t))
			}
			key, value := t[:c], t[c+1:]
			if string(key) == "qid" {
				if _, err := strconv.ParseInt(string(value), 10, 64); err != nil {
					return nil, notes, lr.Errorf("%q: query id %q is not an integer", matrixio.Truncate(t), matrixio.Truncate(value))
				}
				qid = true
				continue
			}
			j, ok := matrixio.ParseCount(key)
			if !ok {
				return nil, notes, lr.Errorf("feature %q: index %q is not a non-negative integer of at most 2^62", matrixio.Truncate(t), matrixio.Truncate(key))
			}
			if j <= prev {
				return nil, notes, lr.Errorf("feature %q: index %d after index %d; indices must increase within a line", matrixio.Truncate(t), j, prev)
			}
			x, err := matrixio.ParseValue(value, "real")
			if err != nil {
				return nil, notes, lr.Errorf("feature %q: %v", matrixio.Truncate(t), err)
			}
			prev = j
			if j == 0 {
				notes.ZeroBased = true
			}
			if j > maxIdx {
				maxIdx, maxLine = j, lr.Line()
			}
			ind, val = append(ind, int(j)), append(val, x)
		}
		if qid {
			notes.QIDLines++
		}
		labels = append(labels, label)
		indptr = append(indptr, len(ind))
	}
	if len(labels) == 0 {
		return nil, notes, matrixio.StreamErr(name, "no samples (every line is blank or a comment)")
	}
	cols := maxIdx
	if notes.ZeroBased {
		cols++
	} else {
		for p := range ind {
			ind[p]--
		}
	}
	if cols <= 0 {
		return nil, notes, matrixio.StreamErr(name, "no features (every sample is empty)")
	}
	if nnz := int64(len(ind)); cols > matrixio.MaxEmptyDim && cols > matrixio.SparseDimFactor*(nnz+1) {
		return nil, notes, matrixio.LineErr(name, maxLine, "feature index %d is implausible for %d stored values in the file", maxIdx, nnz)
	}
	a := &sparse.CSR{Rows: len(labels), Cols: int(cols), Indptr: indptr, Ind: ind, Val: val}
	return &Dataset{Source: name, Sparse: a, Labels: labels}, notes, nil
}

// parseLabel parses an integer class label: a decimal integer with an
// optional sign, or a number with an integer value such as "1.0".
func parseLabel(b []byte) (int, error) {
	s := string(b)
	if l, err := strconv.Atoi(s); err == nil {
		return l, nil
	}
	if matrixio.PlainNumber(b) {
		x, err := strconv.ParseFloat(s, 64)
		if err == nil && x == math.Trunc(x) && math.Abs(x) <= 1<<53 {
			return int(x), nil
		}
	}
	if bytes.IndexByte(b, ',') >= 0 {
		return 0, fmt.Errorf("label %q: multi-label samples are not supported", matrixio.Truncate(b))
	}
	return 0, fmt.Errorf("label %q is not an integer", matrixio.Truncate(b))
}
