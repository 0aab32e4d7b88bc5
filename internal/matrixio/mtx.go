package matrixio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/fileio"
	"github.com/manifactor/manifactor/sparse"
)

// MaxMTXLine is the longest line a Matrix Market reader accepts.
const MaxMTXLine = 1 << 16

// ReadMatrixMarket reads a matrix in the Matrix Market exchange format:
// "coordinate" with field real, integer or pattern and symmetry general,
// symmetric or skew-symmetric, or "array" real or integer general. It
// returns a CSR for a coordinate file, with duplicate entries summed and a
// symmetric matrix expanded to both triangles (pattern entries are ones),
// and a dense matrix for an array file; the other result is nil.
//
// name is used in error messages, which have the form "name:LINE: ..." and
// quote the offending text. Sizes claimed on the size line are checked
// against the bytes that can back them before anything is allocated.
func ReadMatrixMarket(r io.Reader, name string) (*sparse.CSR, *mat.Dense, error) {
	return readMTX(r, name, SizeOf(r))
}

// mtxReader reads a Matrix Market file line by line.
type mtxReader struct {
	Lines
	// summed counts the coordinate entries added to an earlier one at the
	// same position.
	summed int
	toks   [][]byte
}

// newMTXReader returns a reader of r's lines, named name in errors.
func newMTXReader(r io.Reader, name string) *mtxReader {
	return &mtxReader{Lines: *NewLines(bufio.NewReaderSize(r, MaxMTXLine), name, MaxMTXLine)}
}

// nextData returns the fields of the next line that is neither blank nor
// a comment, or io.EOF.
func (m *mtxReader) nextData() ([][]byte, error) {
	for {
		b, err := m.Next()
		if err != nil {
			return nil, err
		}
		m.toks = SplitFields(b, m.toks[:0])
		if len(m.toks) > 0 && m.toks[0][0] != '%' {
			return m.toks, nil
		}
	}
}

// eachData calls fn with the fields of every remaining line that is
// neither blank nor a comment.
func (m *mtxReader) eachData(fn func(toks [][]byte) error) error {
	for {
		toks, err := m.nextData()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(toks); err != nil {
			return err
		}
	}
}

// SplitFields appends the space- or tab-separated fields of b to dst.
func SplitFields(b []byte, dst [][]byte) [][]byte {
	for len(b) > 0 {
		k := 0
		for k < len(b) && (b[k] == ' ' || b[k] == '\t') {
			k++
		}
		b = b[k:]
		k = 0
		for k < len(b) && b[k] != ' ' && b[k] != '\t' {
			k++
		}
		if k > 0 {
			dst = append(dst, b[:k])
		}
		b = b[k:]
	}
	return dst
}

// ParseCount parses a non-negative decimal integer of at most 2^62.
func ParseCount(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var x int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		x = x*10 + int64(c-'0')
	}
	return x, x <= 1<<62
}

func readMTX(r io.Reader, name string, size int64) (*sparse.CSR, *mat.Dense, error) {
	a, d, _, err := ReadMTXSummed(r, name, size)
	return a, d, err
}

// ReadMTXSummed is readMTX that also returns how many entries of a
// coordinate file were added to an earlier entry at the same position.
func ReadMTXSummed(r io.Reader, name string, size int64) (*sparse.CSR, *mat.Dense, int, error) {
	m := newMTXReader(r, name)
	format, field, sym, err := m.header()
	if err != nil {
		return nil, nil, 0, err
	}
	if format == "coordinate" {
		a, err := readMTXCoordinate(m, size, field, sym)
		return a, nil, m.summed, err
	}
	a, err := readMTXArray(m, size, field)
	return nil, a, 0, err
}

// header reads and checks the header line: the format (coordinate or
// array), field and symmetry.
func (m *mtxReader) header() (format, field, sym string, err error) {
	hdr, err := m.Next()
	if err == io.EOF {
		return "", "", "", fmt.Errorf("%s:1: empty file, want a %%%%MatrixMarket header", m.name)
	}
	if err != nil {
		return "", "", "", err
	}
	f := strings.Fields(strings.ToLower(string(hdr)))
	if len(f) == 0 || f[0] != "%%matrixmarket" {
		return "", "", "", m.Errorf("not a Matrix Market file: first line %q, want %%%%MatrixMarket ...", Truncate(hdr))
	}
	if len(f) != 5 {
		return "", "", "", m.Errorf("header %q: want %%%%MatrixMarket matrix FORMAT FIELD SYMMETRY", Truncate(hdr))
	}
	object, format, field, sym := f[1], f[2], f[3], f[4]
	if object != "matrix" {
		return "", "", "", m.Errorf("object %q not supported, want matrix", object)
	}
	switch field {
	case "real", "double", "integer", "pattern":
	case "complex":
		return "", "", "", m.Errorf("field complex: complex not supported")
	default:
		return "", "", "", m.Errorf("unknown field %q, want real, integer or pattern", field)
	}
	switch sym {
	case "general", "symmetric", "skew-symmetric":
	default:
		return "", "", "", m.Errorf("symmetry %q not supported, want general, symmetric or skew-symmetric", sym)
	}
	switch format {
	case "coordinate":
	case "array":
		if field == "pattern" {
			return "", "", "", m.Errorf("field pattern is not allowed in array format")
		}
		if sym != "general" {
			return "", "", "", m.Errorf("array format with symmetry %s not supported, want general", sym)
		}
	default:
		return "", "", "", m.Errorf("unknown format %q, want coordinate or array", format)
	}
	return format, field, sym, nil
}

// sizeLine reads the size line and its k counts.
func (m *mtxReader) sizeLine(k int) ([]int64, error) {
	toks, err := m.nextData()
	if err == io.EOF {
		return nil, m.Errorf("file ends before the size line")
	}
	if err != nil {
		return nil, err
	}
	if len(toks) != k {
		return nil, m.Errorf("size line %q: want %d numbers", Truncate(bytes.Join(toks, []byte{' '})), k)
	}
	out := make([]int64, k)
	for q, t := range toks {
		x, ok := ParseCount(t)
		if !ok {
			return nil, m.Errorf("size line: %q is not a non-negative integer of at most 2^62", Truncate(t))
		}
		out[q] = x
	}
	return out, nil
}

func readMTXCoordinate(m *mtxReader, size int64, field, sym string) (*sparse.CSR, error) {
	c, err := m.coordinateSize(size, field, sym)
	if err != nil {
		return nil, err
	}
	nnz := c.nnz
	n := int(min(nnz, 1<<16))
	if size >= 0 {
		n = int(nnz)
	}
	ri, ci, v := make([]int, 0, n), make([]int, 0, n), make([]float64, 0, n)
	var count int64
	err = m.eachData(func(toks [][]byte) error {
		if count == nnz {
			return m.Errorf("entry %q: more entries than the %d on the size line", Truncate(bytes.Join(toks, []byte{' '})), nnz)
		}
		count++
		return c.entry(m, toks, func(i, j int, x float64) {
			ri, ci, v = append(ri, i), append(ci, j), append(v, x)
		})
	})
	if err != nil {
		return nil, err
	}
	rows, cols := c.rows, c.cols
	if count < nnz {
		return nil, m.Errorf("file ends after %d of the %d entries on the size line", count, nnz)
	}
	a, err := sparse.FromTriplets(int(rows), int(cols), ri, ci, v)
	if err != nil {
		return nil, StreamErr(m.name, "%v", err)
	}
	m.summed = len(v) - a.NNZ()
	if err := finiteSums(a, m.name, 0); err != nil {
		return nil, err
	}
	return a, nil
}

// finiteSums checks the sums of the entries at one position: finite
// entries can sum past the largest float64. a's rows are the file's from
// row0 (0-based).
func finiteSums(a *sparse.CSR, name string, row0 int) error {
	for i := 0; i < a.Rows; i++ {
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			if x := a.Val[p]; math.IsInf(x, 0) || math.IsNaN(x) {
				return StreamErr(name, "the entries at row %d, column %d (1-based) sum to %v", row0+i+1, a.Ind[p]+1, x)
			}
		}
	}
	return nil
}

// mtxCoord is what a coordinate file's header and size line say.
type mtxCoord struct {
	rows, cols, nnz int64
	field, sym      string
	fields          int // per entry line: 2 for pattern, else 3
}

// coordinateSize reads the size line of a coordinate file of size bytes
// (-1 if unknown) and checks it can be backed by the file.
func (m *mtxReader) coordinateSize(size int64, field, sym string) (*mtxCoord, error) {
	dims, err := m.sizeLine(3)
	if err != nil {
		return nil, err
	}
	rows, cols, nnz := dims[0], dims[1], dims[2]
	if sym != "general" && rows != cols {
		return nil, m.Errorf("%s matrix must be square, size line says %d x %d", sym, rows, cols)
	}
	// The shortest entry line, "1 1\n", has 4 bytes.
	if nnz > 1<<56 || size >= 0 && nnz > size/4 {
		return nil, m.Errorf("size line claims %d entries but the file has only %d bytes", nnz, size)
	}
	for _, dd := range [...]struct {
		what string
		n    int64
	}{{"rows", rows}, {"columns", cols}} {
		if dd.n > MaxEmptyDim && dd.n > SparseDimFactor*(nnz+1) {
			return nil, m.Errorf("size line: %d %s is implausible for %d entries", dd.n, dd.what, nnz)
		}
	}
	c := &mtxCoord{rows: rows, cols: cols, nnz: nnz, field: field, sym: sym, fields: 3}
	if field == "pattern" {
		c.fields = 2
	}
	return c, nil
}

// entry parses the fields of an entry line and calls emit with its
// 0-based row, column and value, and again with its mirror in a
// symmetric or skew-symmetric matrix.
func (c *mtxCoord) entry(m *mtxReader, toks [][]byte, emit func(i, j int, x float64)) error {
	text := func() string { return Truncate(bytes.Join(toks, []byte{' '})) }
	if len(toks) != c.fields {
		return m.Errorf("entry %q: want %d fields", text(), c.fields)
	}
	i, ok := ParseCount(toks[0])
	if !ok {
		return m.Errorf("entry %q: row index %q is not a whole number from 1 to %d", text(), Truncate(toks[0]), c.rows)
	}
	if i < 1 || i > c.rows {
		return m.Errorf("entry %q: row index %q out of range [1,%d]", text(), Truncate(toks[0]), c.rows)
	}
	j, ok := ParseCount(toks[1])
	if !ok {
		return m.Errorf("entry %q: column index %q is not a whole number from 1 to %d", text(), Truncate(toks[1]), c.cols)
	}
	if j < 1 || j > c.cols {
		return m.Errorf("entry %q: column index %q out of range [1,%d]", text(), Truncate(toks[1]), c.cols)
	}
	x := 1.0
	if c.fields == 3 {
		var err error
		if x, err = ParseValue(toks[2], c.field); err != nil {
			return m.Errorf("entry %q: %v", text(), err)
		}
	}
	switch {
	case c.sym == "symmetric" && i < j:
		return m.Errorf("entry %q above the diagonal of a symmetric matrix (the format stores the lower triangle)", text())
	case c.sym == "skew-symmetric" && i <= j:
		return m.Errorf("entry %q on or above the diagonal of a skew-symmetric matrix (the format stores the strict lower triangle)", text())
	}
	emit(int(i-1), int(j-1), x)
	switch {
	case c.sym == "symmetric" && i != j:
		emit(int(j-1), int(i-1), x)
	case c.sym == "skew-symmetric":
		emit(int(j-1), int(i-1), -x)
	}
	return nil
}

func readMTXArray(m *mtxReader, size int64, field string) (*mat.Dense, error) {
	dims, err := m.sizeLine(2)
	if err != nil {
		return nil, err
	}
	rows, cols := dims[0], dims[1]
	if rows == 0 || cols == 0 {
		return nil, m.Errorf("empty array matrix (%d x %d) not supported", rows, cols)
	}
	if cols > MaxDenseElements/rows {
		return nil, m.Errorf("size line: dense %d x %d matrix exceeds the limit of %d elements", rows, cols, MaxDenseElements)
	}
	total := rows * cols
	// The shortest value line, "0\n", has 2 bytes.
	if size >= 0 && total > size/2 {
		return nil, m.Errorf("size line claims %d x %d values but the file has only %d bytes", rows, cols, size)
	}
	c := min(total, 1<<16)
	if size >= 0 {
		c = total
	}
	vals := make([]float64, 0, c)
	err = m.eachData(func(toks [][]byte) error {
		for _, t := range toks {
			if int64(len(vals)) == total {
				return m.Errorf("value %q: more values than the %d x %d on the size line", Truncate(t), rows, cols)
			}
			x, err := ParseValue(t, field)
			if err != nil {
				return m.Errorf("%v", err)
			}
			vals = append(vals, x)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if int64(len(vals)) < total {
		return nil, m.Errorf("file ends after %d of the %d x %d values on the size line", len(vals), rows, cols)
	}
	a := mat.NewDense(int(rows), int(cols), nil)
	// Column-major rows x cols is row-major cols x rows.
	TransposeInto(a.RawMatrix().Data, vals, int(cols), int(rows))
	return a, nil
}

// ParseValue parses a real or integer value and checks that it is finite.
func ParseValue(b []byte, field string) (float64, error) {
	if field == "integer" {
		x, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("value %q is not an integer", Truncate(b))
		}
		return float64(x), nil
	}
	if !PlainNumber(b) {
		return 0, fmt.Errorf("value %q is not a number (decimal digits, a point and an exponent only)", Truncate(b))
	}
	x, err := strconv.ParseFloat(string(b), 64)
	var ne *strconv.NumError
	switch {
	case errors.As(err, &ne) && ne.Err == strconv.ErrRange && !math.IsInf(x, 0):
		// Underflow to zero or a subnormal is harmless.
	case err != nil:
		if math.IsInf(x, 0) {
			return 0, fmt.Errorf("value %q is out of range", Truncate(b))
		}
		return 0, fmt.Errorf("value %q is not a number", Truncate(b))
	case math.IsNaN(x) || math.IsInf(x, 0):
		return 0, fmt.Errorf("value %q is not finite", Truncate(b))
	}
	return x, nil
}

// Truncate shortens text quoted in an error message.
func Truncate(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

// WriteMatrixMarket writes a as a Matrix Market "coordinate real general"
// file. Values are written in the shortest form that reads back to the
// same float64, so a round trip through ReadMatrixMarket is exact.
func WriteMatrixMarket(w io.Writer, a *sparse.CSR) error {
	if err := a.Validate(); err != nil {
		return fmt.Errorf("dataset: WriteMatrixMarket: %v", err)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", a.Rows, a.Cols, a.NNZ())
	buf := make([]byte, 0, 64)
	for i := 0; i < a.Rows; i++ {
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			buf = strconv.AppendInt(buf[:0], int64(i+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(a.Ind[p]+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, a.Val[p], 'g', -1, 64)
			buf = append(buf, '\n')
			bw.Write(buf)
		}
	}
	return bw.Flush()
}

// WriteMatrixMarketDense writes a as a Matrix Market "array real general"
// file: one value per line, column by column as the format requires, each
// in the shortest form that reads back to the same float64. Values must be
// finite.
func WriteMatrixMarketDense(w io.Writer, a mat.Matrix) error {
	r, c := a.Dims()
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "%%%%MatrixMarket matrix array real general\n%d %d\n", r, c)
	buf := make([]byte, 0, 32)
	for j := 0; j < c; j++ {
		for i := 0; i < r; i++ {
			x := a.At(i, j)
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("dataset: WriteMatrixMarketDense: value %v at row %d, column %d (1-based) is not finite", x, i+1, j+1)
			}
			buf = strconv.AppendFloat(buf[:0], x, 'g', -1, 64)
			buf = append(buf, '\n')
			bw.Write(buf)
		}
	}
	return bw.Flush()
}

// ReadMatrixMarketFile is ReadMatrixMarket on the file at path, which
// may be gzip-compressed (a name ending in .gz). Errors name the file.
func ReadMatrixMarketFile(path string) (*sparse.CSR, *mat.Dense, error) {
	f, err := fileio.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if !strings.HasSuffix(strings.ToLower(path), ".gz") {
		return readMTX(f, path, SizeOf(f))
	}
	zr, err := NewGzip(f, path)
	if err != nil {
		return nil, nil, err
	}
	return readMTX(zr, path, -1)
}

// PlainNumber reports whether b is spelled as a decimal number of the data
// files of the field: digits, sign, point, exponent, or the words inf and
// nan (which the callers reject as not finite). Go's ParseFloat would
// also take "1_000" and hexadecimal "0x1p3", which no data file means.
func PlainNumber(b []byte) bool {
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9', c == '+', c == '-', c == '.', c == 'e', c == 'E':
		case c == 'i' || c == 'n' || c == 'f' || c == 'a' || c == 'I' || c == 'N' || c == 'F' || c == 'A' || c == 't' || c == 'y' || c == 'T' || c == 'Y':
			// inf, infinity, nan
		default:
			return false
		}
	}
	return len(b) > 0
}
