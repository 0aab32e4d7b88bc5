package matrixio

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// npyMagic opens every .npy file.
const npyMagic = "\x93NUMPY"

// maxNPYHeader is the longest header dictionary ReadNPY accepts; NumPy
// writes fewer than 128 bytes for a 2-D array and refuses to read more
// than 10000 by default.
const maxNPYHeader = 1 << 16

// npyType is the element type of an array.
type npyType struct {
	kind byte // 'f' float, 'i' signed, 'u' unsigned, 'b' bool
	size int  // bytes per element
	bo   binary.ByteOrder
}

// ReadNPY reads a 2-D array from a NumPy .npy file (format versions 1.0,
// 2.0 and 3.0) and returns it as a matrix of the same shape: rows are
// samples. The element type may be float32 or float64 ('<f4', '<f8'),
// signed or unsigned integers of 1 to 8 bytes ('<i1' ... '<u8'; 64-bit
// values above 2^53 are rounded) or bool, in either byte order; the array
// may be in C or Fortran order. A 1-D array is an error, since it does
// not say which of samples and features it lists; so is an empty one.
// Only the array is read: bytes after it are left in r.
//
// name is used in error messages, which have the form "name: byte N: ..."
// with N the offset in the file. Values must be finite; an error names the
// first that is not by its row and column. The shape is checked against
// the bytes that can back it before anything is allocated.
func ReadNPY(r io.Reader, name string) (*mat.Dense, error) {
	return ReadNPYBudget(r, name, SizeOf(r), 0, false)
}

// NPYEnds checks that the array m, just read from the .npy file name, is
// all the file holds: numpy writes one array a file, and bytes after it
// (a second array, a damaged header's shape) would be data dropped
// without a word.
func NPYEnds(r io.Reader, name string, m *mat.Dense) error {
	var b [1]byte
	n, err := io.ReadFull(r, b[:])
	switch {
	case n > 0:
		rows, cols := m.Dims()
		return StreamErr(name, "bytes after its %d x %d array: a file holds one array (a second one, or a damaged header's shape?)", rows, cols)
	case err != nil && err != io.EOF:
		return StreamErr(name, "after the array: %v", err)
	}
	return nil
}

// ReadNPYBudget reads an array from r, which holds size bytes (-1: unknown);
// with nan, NaN values are kept (unknown entries) rather than refused.
func ReadNPYBudget(r io.Reader, name string, size int64, budget int64, nan bool) (*mat.Dense, error) {
	var pre [12]byte
	if n, err := io.ReadFull(r, pre[:10]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, ByteErr(name, int64(n), "not a NumPy .npy file: it ends inside the 10-byte preamble")
		}
		return nil, ByteErr(name, 0, "%v", err)
	}
	if string(pre[:6]) != npyMagic {
		return nil, ByteErr(name, 0, "not a NumPy .npy file: magic %q, want %q", pre[:6], npyMagic)
	}
	major, minor := pre[6], pre[7]
	var hlen, off int64
	switch {
	case major == 1 && minor == 0:
		hlen, off = int64(binary.LittleEndian.Uint16(pre[8:10])), 10
	case (major == 2 || major == 3) && minor == 0:
		if n, err := io.ReadFull(r, pre[10:12]); err != nil {
			return nil, npyReadError(name, int64(10+n), err, "header length")
		}
		hlen, off = int64(binary.LittleEndian.Uint32(pre[8:12])), 12
	default:
		return nil, ByteErr(name, 6, "format version %d.%d not supported, want 1.0, 2.0 or 3.0", major, minor)
	}
	if hlen > maxNPYHeader {
		return nil, ByteErr(name, 8, "header length %d exceeds the limit of %d bytes", hlen, maxNPYHeader)
	}
	if size >= 0 && hlen > size-off {
		return nil, ByteErr(name, int64(off), "header length %d but the file has only %d bytes left (truncated file?)", hlen, size-off)
	}
	h := make([]byte, hlen)
	if n, err := io.ReadFull(r, h); err != nil {
		return nil, npyReadError(name, off+int64(n), err, "header")
	}
	descr, fortran, shape, err := parseNPYHeader(name, h, off)
	if err != nil {
		return nil, err
	}
	typ, err := parseNPYDescr(descr)
	if err != nil {
		return nil, ByteErr(name, int64(off), "header: %v", err)
	}
	off += hlen
	shapeText := npyShapeString(shape)
	switch {
	case len(shape) == 1:
		return nil, ByteErr(name, int64(off), "1-D array of shape %s: want a 2-D array of samples x features (reshape it to (%d, 1) or (1, %d))", shapeText, shape[0], shape[0])
	case len(shape) != 2:
		return nil, ByteErr(name, int64(off), "%d-D array of shape %s: want a 2-D array of samples x features", len(shape), shapeText)
	}
	rows, cols := shape[0], shape[1]
	if rows == 0 || cols == 0 {
		return nil, ByteErr(name, int64(off), "empty array of shape %s", shapeText)
	}
	if cols > MaxDenseElements/rows {
		return nil, ByteErr(name, int64(off), "array of shape %s exceeds the limit of %d elements", shapeText, MaxDenseElements)
	}
	count := rows * cols
	if budget > 0 && count > budget/8 {
		return nil, ByteErr(name, int64(off), "array of shape %s needs %d bytes as float64, above the %d this file may take (%s)", shapeText, count*8, budget, BudgetHint)
	}
	nbytes := count * int64(typ.size)
	if size >= 0 && nbytes > size-off {
		return nil, ByteErr(name, int64(off), "array of shape %s and type %s needs %d bytes but the file has only %d left (truncated file?)", shapeText, descr, nbytes, size-off)
	}
	vals := make([]float64, 0, min(count, 1<<17))
	if size >= 0 {
		vals = make([]float64, 0, count)
	}
	// Chunks end at the end of the array: what follows is not ours.
	chunk := make([]byte, (1<<16)/typ.size*typ.size)
	for done := int64(0); done < nbytes; {
		c := chunk[:min(int64(len(chunk)), nbytes-done)]
		n, err := io.ReadFull(r, c)
		if err != nil {
			return nil, npyReadError(name, off+done+int64(n), err, fmt.Sprintf("data (%d of %d bytes read)", done+int64(n), nbytes))
		}
		k := len(c) / typ.size
		start := len(vals)
		vals = Grow(vals, k, count)
		decodeNPY(vals[start:], c, typ)
		for q, x := range vals[start:] {
			if math.IsInf(x, 0) || (math.IsNaN(x) && !nan) {
				e := int64(start + q)
				i, j := e/cols, e%cols
				if fortran {
					i, j = e%rows, e/rows
				}
				return nil, ByteErr(name, int64(off+e*int64(typ.size)), "row %d, column %d (1-based): value %v is not finite%s", i+1, j+1, x, NaNHint(x))
			}
		}
		done += int64(len(c))
	}
	if fortran {
		// Column-major rows x cols is row-major cols x rows.
		t := make([]float64, count)
		TransposeInto(t, vals, int(cols), int(rows))
		vals = t
	}
	return mat.NewDense(int(rows), int(cols), vals), nil
}

func npyReadError(name string, off int64, err error, what string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return ByteErr(name, int64(off), "truncated file: it ends inside the %s", what)
	}
	return ByteErr(name, int64(off), "%v", err)
}

// decodeNPY converts the len(dst) elements of type t in b.
func decodeNPY(dst []float64, b []byte, t npyType) {
	switch {
	case t.kind == 'f' && t.size == 8:
		for k := range dst {
			dst[k] = math.Float64frombits(t.bo.Uint64(b[8*k:]))
		}
	case t.kind == 'f':
		for k := range dst {
			dst[k] = float64(math.Float32frombits(t.bo.Uint32(b[4*k:])))
		}
	case t.kind == 'b', t.kind == 'u' && t.size == 1:
		for k := range dst {
			dst[k] = float64(b[k])
		}
	case t.kind == 'i' && t.size == 1:
		for k := range dst {
			dst[k] = float64(int8(b[k]))
		}
	case t.kind == 'u' && t.size == 2:
		for k := range dst {
			dst[k] = float64(t.bo.Uint16(b[2*k:]))
		}
	case t.kind == 'i' && t.size == 2:
		for k := range dst {
			dst[k] = float64(int16(t.bo.Uint16(b[2*k:])))
		}
	case t.kind == 'u' && t.size == 4:
		for k := range dst {
			dst[k] = float64(t.bo.Uint32(b[4*k:]))
		}
	case t.kind == 'i' && t.size == 4:
		for k := range dst {
			dst[k] = float64(int32(t.bo.Uint32(b[4*k:])))
		}
	case t.kind == 'u':
		for k := range dst {
			dst[k] = float64(t.bo.Uint64(b[8*k:]))
		}
	default:
		for k := range dst {
			dst[k] = float64(int64(t.bo.Uint64(b[8*k:])))
		}
	}
}

// parseNPYDescr decodes a dtype string such as "<f8".
func parseNPYDescr(descr string) (npyType, error) {
	bad := func(why string) (npyType, error) {
		return npyType{}, fmt.Errorf("descr %q: %s", Truncate([]byte(descr)), why)
	}
	if len(descr) >= 2 && descr[1] == 'O' {
		return bad("object arrays hold pickled Python objects, which are not supported")
	}
	if len(descr) < 3 {
		return bad("want a byte order, a kind and a size, such as '<f8'")
	}
	t := npyType{kind: descr[1]}
	size, err := strconv.Atoi(descr[2:])
	if err != nil {
		return bad("want a byte order, a kind and a size, such as '<f8'")
	}
	t.size = size
	switch {
	case t.kind == 'f' && (size == 4 || size == 8):
	case (t.kind == 'i' || t.kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8):
	case t.kind == 'b' && size == 1:
	default:
		return bad("unsupported type; want float32 or float64 ('f4', 'f8'), integers ('i1' ... 'i8', 'u1' ... 'u8') or bool ('b1')")
	}
	switch descr[0] {
	case '<':
		t.bo = binary.LittleEndian
	case '>':
		t.bo = binary.BigEndian
	case '|', '=':
		if size != 1 {
			return bad("a type of more than one byte needs an explicit byte order, '<' or '>'")
		}
		t.bo = binary.LittleEndian
	default:
		return bad("byte order must be '<', '>' or '|'")
	}
	return t, nil
}

func npyShapeString(shape []int64) string {
	s := make([]string, len(shape))
	for k, x := range shape {
		s[k] = strconv.FormatInt(x, 10)
	}
	if len(shape) == 1 {
		return "(" + s[0] + ",)"
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// npyHeader parses the header of a .npy file: a Python dictionary literal
// with exactly the keys 'descr' (a string), 'fortran_order' (True or
// False) and 'shape' (a tuple of integers).
type npyHeader struct {
	name string
	b    []byte
	pos  int
	off  int64 // file offset of b
}

// parseNPYHeader parses header h, found at file offset off.
func parseNPYHeader(name string, h []byte, off int64) (descr string, fortran bool, shape []int64, err error) {
	p := &npyHeader{name: name, b: h, off: off}
	if err := p.expect('{'); err != nil {
		return "", false, nil, err
	}
	seen := map[string]bool{}
	for {
		if p.peek() == '}' {
			p.pos++
			break
		}
		keyAt := p.pos
		key, err := p.str("a key")
		if err != nil {
			return "", false, nil, err
		}
		if seen[key] {
			return "", false, nil, p.errorf(keyAt, "key %q appears twice", key)
		}
		seen[key] = true
		if err := p.expect(':'); err != nil {
			return "", false, nil, err
		}
		switch key {
		case "descr":
			if p.peek() == '[' {
				return "", false, nil, p.errorf(p.pos, "structured dtypes (a list as 'descr') are not supported")
			}
			descr, err = p.str("a dtype string")
		case "fortran_order":
			fortran, err = p.boolean()
		case "shape":
			shape, err = p.tuple()
		default:
			return "", false, nil, p.errorf(keyAt, "unexpected key %q, want only 'descr', 'fortran_order' and 'shape'", Truncate([]byte(key)))
		}
		if err != nil {
			return "", false, nil, err
		}
		if p.peek() == ',' {
			p.pos++
		} else if p.peek() != '}' {
			return "", false, nil, p.errorf(p.pos, "want ',' or '}', found %s", p.found())
		}
	}
	p.space()
	if p.pos < len(p.b) {
		return "", false, nil, p.errorf(p.pos, "unexpected %s after the dictionary", p.found())
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return "", false, nil, p.errorf(0, "dictionary has no key '%s'", k)
		}
	}
	return descr, fortran, shape, nil
}

func (p *npyHeader) errorf(pos int, format string, args ...any) error {
	return ByteErr(p.name, int64(p.off+int64(pos)), "header: %s", fmt.Sprintf(format, args...))
}

// space skips white space.
func (p *npyHeader) space() {
	for p.pos < len(p.b) && (p.b[p.pos] == ' ' || p.b[p.pos] == '\t' || p.b[p.pos] == '\n' || p.b[p.pos] == '\r') {
		p.pos++
	}
}

// peek skips white space and returns the next byte, 0 at the end.
func (p *npyHeader) peek() byte {
	p.space()
	if p.pos == len(p.b) {
		return 0
	}
	return p.b[p.pos]
}

// found describes the text at the current position for an error message.
func (p *npyHeader) found() string {
	if p.pos >= len(p.b) {
		return "the end of the header"
	}
	return strconv.Quote(strings.TrimRight(string(p.b[p.pos:min(p.pos+16, len(p.b))]), " \n"))
}

func (p *npyHeader) expect(c byte) error {
	if p.peek() != c {
		return p.errorf(p.pos, "want '%c', found %s", c, p.found())
	}
	p.pos++
	return nil
}

// str parses a quoted string without escapes.
func (p *npyHeader) str(what string) (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errorf(p.pos, "want %s in quotes, found %s", what, p.found())
	}
	start := p.pos
	for k := p.pos + 1; k < len(p.b); k++ {
		switch p.b[k] {
		case q:
			p.pos = k + 1
			return string(p.b[start+1 : k]), nil
		case '\\', '\n':
			return "", p.errorf(k, "unsupported character %q in a string", p.b[k])
		}
	}
	return "", p.errorf(start, "unterminated string")
}

func (p *npyHeader) boolean() (bool, error) {
	p.space()
	for _, v := range []string{"True", "False"} {
		if strings.HasPrefix(string(p.b[p.pos:]), v) {
			p.pos += len(v)
			return v == "True", nil
		}
	}
	return false, p.errorf(p.pos, "'fortran_order': want True or False, found %s", p.found())
}

// tuple parses a tuple of non-negative integers such as "(3, 4)", "(3,)"
// or "()"; an integer may carry Python 2's suffix L.
func (p *npyHeader) tuple() ([]int64, error) {
	if err := p.expect('('); err != nil {
		return nil, err
	}
	shape := []int64{}
	for {
		if p.peek() == ')' {
			p.pos++
			return shape, nil
		}
		if len(shape) == 64 {
			return nil, p.errorf(p.pos, "'shape': more than 64 dimensions")
		}
		start := p.pos
		for p.pos < len(p.b) && p.b[p.pos] >= '0' && p.b[p.pos] <= '9' {
			p.pos++
		}
		x, ok := ParseCount(p.b[start:p.pos])
		if !ok {
			p.pos = start
			return nil, p.errorf(start, "'shape': want a non-negative integer of at most 2^62, found %s", p.found())
		}
		if p.pos < len(p.b) && p.b[p.pos] == 'L' {
			p.pos++
		}
		shape = append(shape, x)
		switch p.peek() {
		case ',':
			p.pos++
		case ')':
		default:
			return nil, p.errorf(p.pos, "'shape': want ',' or ')', found %s", p.found())
		}
	}
}

// WriteNPY writes a as a NumPy .npy file (format version 1.0): a 2-D
// array of little-endian float64 ('<f8') in C order, which ReadNPY and
// numpy.load read back exactly. Values must be finite.
func WriteNPY(w io.Writer, a mat.Matrix) error {
	r, c := a.Dims()
	h := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", r, c)
	// NumPy pads the header with spaces and a newline so that the data
	// starts at a multiple of 64 bytes.
	total := 10 + len(h) + 1
	h += strings.Repeat(" ", (64-total%64)%64) + "\n"
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(npyMagic)
	bw.Write([]byte{1, 0})
	bw.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(h))))
	bw.WriteString(h)
	var buf [8]byte
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			x := a.At(i, j)
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("dataset: WriteNPY: value %v at row %d, column %d (1-based) is not finite", x, i+1, j+1)
			}
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
			if _, err := bw.Write(buf[:]); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// NaNHint ends the message about a NaN value with how to read NaN as an
// unknown entry instead; "" for other values.
func NaNHint(x float64) string {
	if math.IsNaN(x) {
		return " (LoadOptions.MissingNaN, --missing nan, reads NaN as an unknown entry)"
	}
	return ""
}
