package dataset

import (
	"bufio"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/internal/sysmem"
)

// MAT-file level 5 data types (the spec's miXXX constants).
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15
	miUTF8       = 16
	miUTF16      = 17
	miUTF32      = 18
)

// MAT-file array classes (the spec's mxXXX_CLASS constants).
const (
	mxCELL   = 1
	mxSTRUCT = 2
	mxOBJECT = 3
	mxCHAR   = 4
	mxSPARSE = 5
	mxDOUBLE = 6
	mxUINT64 = 15
)

// Array flag bits, in the second byte of the first flags word.
const (
	flagComplex = 0x08
	flagLogical = 0x02
)

// Limits on what a file may claim, checked before anything is allocated.
// They are variables so that tests and fuzzing can lower them.
var (
	// maxDecodedBytes caps the decompressed size of one miCOMPRESSED
	// element (MATLAB's -v7 format cannot hold variables past 2 GiB).
	maxDecodedBytes int64 = 8 << 30
)

// deflateMaxRatio bounds how many bytes a deflate stream can expand to per
// compressed byte (258-byte matches coded in about two bits).
const deflateMaxRatio = 1032

// compressRatioHint times the compressed size of an element is how much a
// reader preallocates for its contents; more is allocated as it arrives.
const compressRatioHint = 64

// matVar is one numeric variable of a MAT-file, as stored: dense values
// column-major, sparse ones in MATLAB's compressed-column form (which is the
// CSR form of the transpose).
type matVar struct {
	Name string
	// Class is the MATLAB class of the values: "double", "single", "int8",
	// "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64" or
	// "logical".
	Class      string
	Rows, Cols int
	Sparse     bool
	// Data holds the Rows*Cols values of a dense variable, column-major:
	// element (i, j) is Data[j*Rows+i]. Nil when Sparse.
	Data []float64
	// Jc, Ir and Pr hold a sparse variable: column j has the 0-based row
	// indices Ir[Jc[j]:Jc[j+1]], strictly increasing, with the values in Pr
	// at the same positions. len(Jc) = Cols+1, Jc[0] = 0, Jc[Cols] = len(Ir)
	// = len(Pr).
	Jc, Ir []int
	Pr     []float64
}

// readMAT reads a MATLAB level-5 MAT-file (as written by MATLAB's -v6 and
// -v7 options, with or without compression, in either byte order) and
// returns its 2-D numeric, logical and sparse variables by name. With want,
// only the named variables are decoded and a wanted variable of another kind
// (cell, struct, char, complex, more than two dimensions) is an error;
// without, every variable of a supported kind is returned and the others are
// skipped. A wanted name absent from the file is not an error: it is absent
// from the map.
//
// name is used in error messages, which give the byte offset of structural
// problems and the row, column and value of bad data (NaN or Inf values are
// rejected). Sizes claimed by the file are checked against the bytes that
// can back them before anything is allocated.
func readMAT(r io.Reader, name string, want ...string) (map[string]*matVar, error) {
	vars, _, err := decodeMAT(r, name, matrixio.SizeOf(r), want, 0, false)
	return vars, err
}

// matStream is one byte stream of elements: the file itself, or the
// decompressed contents of one miCOMPRESSED element.
type matStream struct {
	r      io.Reader
	off    int64 // bytes consumed so far
	budget int64 // at most this many bytes remain
	exact  bool  // budget is the exact remaining size, so claims within it are backed by data
	// prealloc is how many bytes a claim may make the reader allocate
	// before the data arrives, when the stream is not exact: a multiple of
	// the compressed size for a compressed element.
	prealloc int64
	outer    int64 // file offset of the compressed element holding this stream; -1 for the file
}

// matElem is a miMATRIX element being read: left bytes of it remain.
type matElem struct {
	s    *matStream
	left int64
}

// matTag is a data element tag.
type matTag struct {
	typ    uint32
	size   int64
	small  bool
	inline [4]byte // the data of a small element
	off    int64   // offset of the tag in its stream
}

type matDecoder struct {
	// budget bounds the bytes of the data as float64 (and indices); 0
	// for none.
	budget int64
	nan    bool // NaN values are kept (unknown entries), not refused
	name   string
	bo     binary.ByteOrder
	want   map[string]bool // nil: every supported variable
	vars   map[string]*matVar
	names  []string // every variable name met, for error messages
	chunk  []byte   // scratch space for payloads, grown up to 64 KiB as needed
}

func decodeMAT(r io.Reader, name string, size int64, want []string, budget int64, nan bool) (map[string]*matVar, []string, error) {
	d := &matDecoder{name: name, vars: make(map[string]*matVar), budget: budget, nan: nan}
	if len(want) > 0 {
		d.want = make(map[string]bool, len(want))
		for _, w := range want {
			d.want[w] = true
		}
	}
	if _, ok := r.(io.ByteReader); !ok {
		r = bufio.NewReaderSize(r, 1<<16)
	}
	var hdr [128]byte
	n, err := io.ReadFull(r, hdr[:])
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, nil, matrixio.StreamErr(name, "not a MATLAB level-5 MAT-file: %d bytes, shorter than the 128-byte header", n)
		}
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	switch string(hdr[126:128]) {
	case "IM":
		d.bo = binary.LittleEndian
	case "MI":
		d.bo = binary.BigEndian
	default:
		if strings.HasPrefix(string(hdr[:]), "MATLAB 7.3") {
			return nil, nil, fmt.Errorf("%s: MAT-file version 7.3 (HDF5) is not supported; save with -v7", name)
		}
		return nil, nil, matrixio.StreamErr(name, "not a MATLAB level-5 MAT-file: endian indicator at byte 126 is %q, want \"IM\" or \"MI\"", hdr[126:128])
	}
	if v := d.bo.Uint16(hdr[124:126]); v != 0x0100 {
		if v == 0x0200 {
			return nil, nil, fmt.Errorf("%s: MAT-file version 7.3 (HDF5) is not supported; save with -v7", name)
		}
		if v == 0x0001 {
			// 0x0100 in the other byte order.
			return nil, nil, matrixio.ByteErr(name, 124, "MAT-file version %#04x, want 0x0100: the endian indicator %q at byte 126 does not match the byte order of the header", v, hdr[126:128])
		}
		return nil, nil, matrixio.ByteErr(name, 124, "MAT-file version %#04x, want 0x0100", v)
	}
	// Tags hold 32-bit sizes, so a file of unknown size needs no budget of
	// its own; what it makes the reader preallocate is bounded.
	s := &matStream{r: r, off: 128, budget: math.MaxInt64, outer: -1, prealloc: 1 << 20}
	if size >= 0 {
		s.budget, s.exact = size-128, true
	}
	if err := d.decodeFile(s); err != nil {
		return nil, d.names, err
	}
	return d.vars, d.names, nil
}

// decodeFile reads the top-level elements of the file.
func (d *matDecoder) decodeFile(s *matStream) error {
	for {
		if s.exact && s.budget == 0 {
			return nil
		}
		var b [8]byte
		n, err := io.ReadFull(s.r, b[:])
		if n == 0 && err == io.EOF {
			return nil
		}
		t, err := d.parseTag(s, b[:], n, err, s.budget)
		if err != nil {
			return err
		}
		if t.small {
			return d.errorf(s, t.off, "unexpected small data element of type %s at top level", typeName(t.typ))
		}
		switch t.typ {
		case miMATRIX:
			e := &matElem{s: s, left: t.size}
			if err := d.matrix(e); err != nil {
				return err
			}
			if err := d.discard(s, e.left); err != nil {
				return err
			}
			if pad := padding(t.size); pad > 0 && (!s.exact || s.budget > 0) {
				// Tolerate a missing pad at the very end of the file.
				m, err := io.CopyN(io.Discard, s.r, pad)
				s.off += m
				s.budget -= m
				if err != nil && err != io.EOF {
					return d.readError(s, err)
				}
			}
		case miCOMPRESSED:
			if err := d.compressed(s, t); err != nil {
				return err
			}
		default:
			return d.errorf(s, t.off, "unexpected element of type %s at top level (want miMATRIX or miCOMPRESSED)", typeName(t.typ))
		}
	}
}

// compressed reads one miCOMPRESSED element: a zlib stream holding one more
// element, a miMATRIX. A variable that is not wanted is not decompressed
// past its name.
func (d *matDecoder) compressed(s *matStream, t matTag) error {
	lr := &io.LimitedReader{R: s.r, N: t.size}
	// The zlib reader reads through a buffer of ours, so that what it
	// left of the element is known.
	br := bufio.NewReader(lr)
	whole, err := d.inflate(br, t)
	if err != nil {
		return err
	}
	if left := int64(br.Buffered()) + lr.N; whole && left > 0 {
		return d.errorf(s, s.off+t.size-left, "%d bytes after the end of the compressed stream of the element at byte %d: what they hold would be lost", left, t.off)
	}
	_, err = io.Copy(io.Discard, br)
	s.off += t.size - lr.N
	s.budget -= t.size - lr.N
	if err != nil {
		return d.readError(s, err)
	}
	if lr.N > 0 {
		return d.errorf(s, s.off, "truncated file: compressed element at byte %d needs %d more bytes", t.off, lr.N)
	}
	return nil
}

// inflate reads the element a compressed element holds, through r, and
// reports whether it read the zlib stream to its end (it stops after the
// name of a variable that is not wanted).
func (d *matDecoder) inflate(r io.Reader, t matTag) (whole bool, err error) {
	zr, err := zlib.NewReader(r)
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return false, matrixio.ByteErr(d.name, int64(t.off), "truncated compressed element")
		}
		return false, matrixio.ByteErr(d.name, int64(t.off), "compressed element: bad zlib stream: %v", err)
	}
	budget := t.size*deflateMaxRatio + 64
	if budget > maxDecodedBytes || budget < 0 {
		budget = maxDecodedBytes
	}
	// Data compresses a few times over, rarely more than compressRatioHint.
	in := &matStream{r: zr, budget: budget, outer: t.off, prealloc: min(budget, t.size*compressRatioHint)}
	var b [8]byte
	n, err := io.ReadFull(in.r, b[:])
	it, err := d.parseTag(in, b[:], n, err, in.budget)
	if err != nil {
		return false, err
	}
	if it.small || it.typ != miMATRIX {
		return false, d.errorf(in, it.off, "compressed element holds an element of type %s, want miMATRIX", typeName(it.typ))
	}
	e := &matElem{s: in, left: it.size}
	before := len(d.vars)
	if err := d.matrix(e); err != nil {
		return false, err
	}
	if len(d.vars) == before {
		return false, nil
	}
	// A variable was kept: read the rest of the stream so that its checksum
	// is verified.
	if err := d.discard(in, e.left); err != nil {
		return false, err
	}
	m, err := io.CopyN(io.Discard, in.r, 8)
	switch {
	case err == io.EOF:
		return true, nil
	case err != nil:
		return false, d.readError(in, err)
	}
	return false, d.errorf(in, in.off+m, "compressed element continues after its matrix")
}

// matrix reads the body of a miMATRIX element whose tag was just read. It
// returns early, leaving e.left bytes unread, for a variable that is
// skipped.
func (d *matDecoder) matrix(e *matElem) error {
	s := e.s
	start := s.off - 8 // the element's tag, just read
	if e.left == 0 {
		return nil // an empty placeholder
	}
	// Array flags.
	t, err := d.next(e)
	if err != nil {
		return err
	}
	if t.typ != miUINT32 && t.typ != miINT32 || t.size != 8 {
		return d.errorf(s, t.off, "array flags: element of type %s and %d bytes, want miUINT32 of 8 bytes", typeName(t.typ), t.size)
	}
	fl, err := d.bytes(e, t)
	if err != nil {
		return err
	}
	w := d.bo.Uint32(fl[:4])
	class, flags := int(w&0xff), int(w>>8&0xff)
	if class < mxCELL || class > mxUINT64 {
		return nil // function handles, opaque objects and unknown classes: skip
	}
	// Dimensions.
	t, err = d.next(e)
	if err != nil {
		return err
	}
	if integerSize(t.typ) == 0 || t.size > 64*8 {
		return d.errorf(s, t.off, "dimensions: element of type %s and %d bytes, want at most 64 integers", typeName(t.typ), t.size)
	}
	dims, err := d.ints(e, t, "dimensions", 64)
	if err != nil {
		return err
	}
	// Name.
	t, err = d.next(e)
	if err != nil {
		return err
	}
	if t.typ != miINT8 && t.typ != miUINT8 && t.typ != miUTF8 || t.size > 4096 {
		return d.errorf(s, t.off, "array name: element of type %s and %d bytes, want miINT8 text of at most 4096 bytes", typeName(t.typ), t.size)
	}
	nb, err := d.bytes(e, t)
	if err != nil {
		return err
	}
	name := string(nb)
	d.names = append(d.names, name)
	if d.want != nil && !d.want[name] {
		return nil
	}
	kind := ""
	switch class {
	case mxCELL:
		kind = "a cell array"
	case mxSTRUCT:
		kind = "a struct"
	case mxOBJECT:
		kind = "an object"
	case mxCHAR:
		kind = "a char array"
	}
	if kind != "" {
		if d.want == nil {
			return nil
		}
		return d.errorf(s, start, "variable %q is %s; want a numeric, logical or sparse matrix", name, kind)
	}
	if _, dup := d.vars[name]; dup {
		return d.errorf(s, start, "variable %q appears twice", name)
	}
	if flags&flagComplex != 0 {
		return d.errorf(s, start, "variable %q is complex: complex not supported", name)
	}
	if len(dims) < 2 {
		return d.errorf(s, start, "variable %q has %d dimensions, want 2", name, len(dims))
	}
	for _, k := range dims {
		if k > math.MaxInt32 {
			return d.errorf(s, start, "variable %q: dimension %d exceeds the MAT-file limit of %d", name, k, math.MaxInt32)
		}
	}
	for _, k := range dims[2:] {
		if k != 1 {
			return d.errorf(s, start, "variable %q has %d dimensions %v: only 2-D matrices are supported", name, len(dims), dims)
		}
	}
	v := &matVar{Name: name, Rows: dims[0], Cols: dims[1], Sparse: class == mxSPARSE}
	switch {
	case flags&flagLogical != 0:
		v.Class = "logical"
	case class == mxSPARSE:
		v.Class = "double"
	default:
		v.Class = classNames[class]
	}
	if v.Sparse {
		err = d.sparseData(e, v, flags&flagLogical != 0)
	} else {
		err = d.denseData(e, v)
	}
	if err != nil {
		return err
	}
	d.vars[name] = v
	return nil
}

var classNames = [...]string{6: "double", 7: "single", 8: "int8", 9: "uint8", 10: "int16", 11: "uint16", 12: "int32", 13: "uint32", 14: "int64", 15: "uint64"}

func (d *matDecoder) denseData(e *matElem, v *matVar) error {
	s := e.s
	rows, cols := int64(v.Rows), int64(v.Cols)
	if rows != 0 && cols > matrixio.MaxDenseElements/rows {
		return d.errorf(s, s.off, "variable %q: dense %d x %d matrix exceeds the limit of %d elements", v.Name, rows, cols, matrixio.MaxDenseElements)
	}
	count := rows * cols
	if d.budget > 0 && count > d.budget/8 {
		return d.errorf(s, s.off, "variable %q: dense %d x %d matrix needs %d bytes as float64, above the %d this file may take (%s)", v.Name, rows, cols, count*8, d.budget, matrixio.BudgetHint)
	}
	if e.left == 0 {
		if count == 0 {
			v.Data = []float64{}
			return nil
		}
		return d.errorf(s, s.off, "variable %q: missing real part", v.Name)
	}
	t, err := d.next(e)
	if err != nil {
		return err
	}
	ts := numericSize(t.typ)
	if ts == 0 {
		return d.errorf(s, t.off, "variable %q: real part stored as unsupported data type %s", v.Name, typeName(t.typ))
	}
	if t.size != count*ts {
		return d.errorf(s, t.off, "variable %q: real part has %d bytes of %s, want %d values (%d bytes) for %d x %d", v.Name, t.size, typeName(t.typ), count, count*ts, rows, cols)
	}
	v.Data, err = d.floats(e, t)
	if err != nil {
		return err
	}
	for k, x := range v.Data {
		if math.IsInf(x, 0) || (math.IsNaN(x) && !d.nan) {
			return matrixio.StreamErr(d.name, "variable %q: row %d, column %d: value %v is not finite%s", v.Name, k%v.Rows+1, k/v.Rows+1, x, matrixio.NaNHint(x))
		}
	}
	return nil
}

func (d *matDecoder) sparseData(e *matElem, v *matVar, logical bool) error {
	s := e.s
	// Row indices; MATLAB may store up to nzmax of them.
	t, err := d.next(e)
	if err != nil {
		return err
	}
	if integerSize(t.typ) == 0 {
		return d.errorf(s, t.off, "variable %q: row indices (ir) stored as %s, want an integer type", v.Name, typeName(t.typ))
	}
	// Each row index becomes an index and a value of 8 bytes each.
	if n := t.size / int64(integerSize(t.typ)); d.budget > 0 && n > d.budget/16 {
		return d.errorf(s, t.off, "variable %q: %d row indices (ir) need %d bytes with their values, above the %d this file may take (%s)", v.Name, n, n*16, d.budget, matrixio.BudgetHint)
	}
	ir, err := d.ints(e, t, "row indices (ir)", -1)
	if err != nil {
		return err
	}
	// Column pointers.
	t, err = d.next(e)
	if err != nil {
		return err
	}
	ts := integerSize(t.typ)
	if ts == 0 {
		return d.errorf(s, t.off, "variable %q: column pointers (jc) stored as %s, want an integer type", v.Name, typeName(t.typ))
	}
	if want := (int64(v.Cols) + 1) * ts; t.size != want {
		return d.errorf(s, t.off, "variable %q: column pointers (jc) have %d bytes of %s, want %d values for %d columns", v.Name, t.size, typeName(t.typ), v.Cols+1, v.Cols)
	}
	jc, err := d.ints(e, t, "column pointers (jc)", -1)
	if err != nil {
		return err
	}
	if jc[0] != 0 {
		return d.errorf(s, t.off, "variable %q: first column pointer (jc) is %d, want 0", v.Name, jc[0])
	}
	for j := 0; j < v.Cols; j++ {
		if jc[j+1] < jc[j] {
			return d.errorf(s, t.off, "variable %q: column pointers (jc) decrease at column %d (%d then %d)", v.Name, j+1, jc[j], jc[j+1])
		}
	}
	nnz := jc[v.Cols]
	if nnz > len(ir) {
		return d.errorf(s, t.off, "variable %q: column pointers (jc) end at %d but there are only %d row indices (ir)", v.Name, nnz, len(ir))
	}
	if r := int64(v.Rows); r > matrixio.MaxEmptyDim && r > matrixio.SparseDimFactor*(int64(nnz)+int64(v.Cols)+1) {
		return d.errorf(s, t.off, "variable %q: %d rows is implausible for a sparse matrix with %d columns and %d non-zeros", v.Name, v.Rows, v.Cols, nnz)
	}
	ir = ir[:nnz:nnz]
	// Values; a logical sparse matrix may omit them.
	var pr []float64
	if e.left == 0 {
		if !logical && nnz > 0 {
			return d.errorf(s, s.off, "variable %q: missing values (pr) of a sparse matrix", v.Name)
		}
		pr = make([]float64, nnz)
		for p := range pr {
			pr[p] = 1
		}
	} else {
		t, err = d.next(e)
		if err != nil {
			return err
		}
		ts := numericSize(t.typ)
		if ts == 0 {
			return d.errorf(s, t.off, "variable %q: values (pr) stored as unsupported data type %s", v.Name, typeName(t.typ))
		}
		if t.size%ts != 0 || t.size/ts < int64(nnz) {
			return d.errorf(s, t.off, "variable %q: values (pr) have %d bytes of %s, want %d values", v.Name, t.size, typeName(t.typ), nnz)
		}
		pr, err = d.floats(e, t)
		if err != nil {
			return err
		}
		pr = pr[:nnz:nnz]
	}
	for j := 0; j < v.Cols; j++ {
		prev := -1
		for p := jc[j]; p < jc[j+1]; p++ {
			i := ir[p]
			if i >= v.Rows {
				return matrixio.StreamErr(d.name, "variable %q: column %d: row index %d out of range [1,%d]", v.Name, j+1, i+1, v.Rows)
			}
			if i <= prev {
				return matrixio.StreamErr(d.name, "variable %q: column %d: row indices not strictly increasing (%d after %d)", v.Name, j+1, i+1, prev+1)
			}
			prev = i
			if x := pr[p]; math.IsInf(x, 0) || (math.IsNaN(x) && !d.nan) {
				return matrixio.StreamErr(d.name, "variable %q: row %d, column %d: value %v is not finite%s", v.Name, i+1, j+1, x, matrixio.NaNHint(x))
			}
		}
	}
	v.Jc, v.Ir, v.Pr = jc, ir, pr
	return nil
}

// parseTag decodes a tag from the n bytes in b that a read returned with
// err; limit is how many bytes the enclosing element has left, tag
// included.
func (d *matDecoder) parseTag(s *matStream, b []byte, n int, err error, limit int64) (matTag, error) {
	t := matTag{off: s.off}
	s.off += int64(n)
	s.budget -= int64(n)
	if err != nil {
		return t, d.readError(s, err)
	}
	if limit < 8 {
		return t, d.errorf(s, t.off, "element tag needs 8 bytes, only %d left", limit)
	}
	w := d.bo.Uint32(b[:4])
	if w>>16 != 0 {
		t.small, t.typ, t.size = true, w&0xffff, int64(w>>16)
		if t.size > 4 {
			return t, d.errorf(s, t.off, "small data element claims %d bytes, at most 4 fit", t.size)
		}
		copy(t.inline[:], b[4:8])
		return t, nil
	}
	t.typ, t.size = w, int64(d.bo.Uint32(b[4:8]))
	if t.size > limit-8 {
		var why string
		switch {
		case limit != s.budget+8:
			why = fmt.Sprintf("the enclosing element has only %d bytes left", limit-8)
		case s.exact:
			why = fmt.Sprintf("the file has only %d bytes left (truncated or corrupt)", limit-8)
		default:
			why = fmt.Sprintf("the compressed element can expand to at most %d bytes", limit-8)
		}
		return t, d.errorf(s, t.off, "element of type %s claims %d bytes but %s", typeName(t.typ), t.size, why)
	}
	return t, nil
}

// next reads the tag of the next sub-element of e.
func (d *matDecoder) next(e *matElem) (matTag, error) {
	var b [8]byte
	if e.left < 8 {
		return matTag{}, d.errorf(e.s, e.s.off, "matrix element ends inside a sub-element tag (%d bytes left)", e.left)
	}
	n, err := io.ReadFull(e.s.r, b[:])
	t, err := d.parseTag(e.s, b[:], n, err, e.left)
	if err != nil {
		return t, err
	}
	e.left -= 8
	return t, nil
}

// payload feeds the data of sub-element t to fn in chunks whose lengths are
// multiples of 8 (but for the last), then skips the padding.
func (d *matDecoder) payload(e *matElem, t matTag, fn func([]byte) error) error {
	if t.small {
		return fn(t.inline[:t.size])
	}
	s := e.s
	for left := t.size; left > 0; {
		if want := min(left, 1<<16); int64(len(d.chunk)) < want {
			d.chunk = make([]byte, want)
		}
		c := d.chunk
		if int64(len(c)) > left {
			c = c[:left]
		}
		n, err := io.ReadFull(s.r, c)
		s.off += int64(n)
		s.budget -= int64(n)
		e.left -= int64(n)
		if err != nil {
			return d.readError(s, err)
		}
		if err := fn(c); err != nil {
			return err
		}
		left -= int64(n)
	}
	pad := min(padding(t.size), e.left)
	e.left -= pad
	return d.discard(s, pad)
}

// bytes returns a copy of the data of a small sub-element (at most a few
// kilobytes, checked by the caller).
func (d *matDecoder) bytes(e *matElem, t matTag) ([]byte, error) {
	b := make([]byte, 0, t.size)
	err := d.payload(e, t, func(c []byte) error { b = append(b, c...); return nil })
	return b, err
}

// capHint is how many values to preallocate for a claim of count values:
// all of them when the stream's size backs the claim, otherwise what its
// preallocation bound allows; the rest grows as data arrives.
func capHint(s *matStream, count int64) int {
	if s.exact {
		return int(count)
	}
	return int(min(count, s.prealloc/8))
}

// floats decodes a numeric sub-element to float64.
func (d *matDecoder) floats(e *matElem, t matTag) ([]float64, error) {
	ts := numericSize(t.typ)
	count := t.size / ts
	out := make([]float64, 0, capHint(e.s, count))
	sysmem.HugePages(out[:cap(out)]) // fresh memory, written once (see sysmem)
	// Its pages are mapped by all the threads before the one decoding
	// goroutine writes them: mapping fresh memory, not decoding, was most
	// of a large file's read (sysmem.Touch).
	sysmem.Touch(out[:cap(out)], parallel.Threads(0))
	err := d.payload(e, t, func(b []byte) error {
		k := len(b) / int(ts)
		out = matrixio.Grow(out, k, count)
		decodeFloats(out[len(out)-k:], b, t.typ, d.bo)
		return nil
	})
	return out, err
}

// ints decodes an integer sub-element to non-negative ints; limit > 0 caps
// the count.
func (d *matDecoder) ints(e *matElem, t matTag, what string, limit int) ([]int, error) {
	ts := integerSize(t.typ)
	if t.size%ts != 0 {
		return nil, d.errorf(e.s, t.off, "%s: %d bytes is not a whole number of %s values", what, t.size, typeName(t.typ))
	}
	count := t.size / ts
	if limit > 0 && count > int64(limit) {
		return nil, d.errorf(e.s, t.off, "%s: %d values, at most %d allowed", what, count, limit)
	}
	out := make([]int, 0, capHint(e.s, count))
	sysmem.HugePages(out[:cap(out)])                  // fresh memory, written once (see sysmem)
	sysmem.Touch(out[:cap(out)], parallel.Threads(0)) // as in floats
	err := d.payload(e, t, func(b []byte) error {
		k := len(b) / int(ts)
		out = matrixio.Grow(out, k, count)
		if q, bad := decodeInts(out[len(out)-k:], b, t.typ, d.bo); q >= 0 {
			return d.errorf(e.s, t.off, "%s: value %s at position %d is negative or too large", what, bad, len(out)-k+q+1)
		}
		return nil
	})
	return out, err
}

// decodeFloats converts the len(dst) values of type typ in b.
func decodeFloats(dst []float64, b []byte, typ uint32, bo binary.ByteOrder) {
	switch typ {
	case miDOUBLE:
		for k := range dst {
			dst[k] = math.Float64frombits(bo.Uint64(b[8*k:]))
		}
	case miSINGLE:
		for k := range dst {
			dst[k] = float64(math.Float32frombits(bo.Uint32(b[4*k:])))
		}
	case miINT8:
		for k := range dst {
			dst[k] = float64(int8(b[k]))
		}
	case miUINT8:
		for k := range dst {
			dst[k] = float64(b[k])
		}
	case miINT16:
		for k := range dst {
			dst[k] = float64(int16(bo.Uint16(b[2*k:])))
		}
	case miUINT16:
		for k := range dst {
			dst[k] = float64(bo.Uint16(b[2*k:]))
		}
	case miINT32:
		for k := range dst {
			dst[k] = float64(int32(bo.Uint32(b[4*k:])))
		}
	case miUINT32:
		for k := range dst {
			dst[k] = float64(bo.Uint32(b[4*k:]))
		}
	case miINT64:
		for k := range dst {
			dst[k] = float64(int64(bo.Uint64(b[8*k:])))
		}
	case miUINT64:
		for k := range dst {
			dst[k] = float64(bo.Uint64(b[8*k:]))
		}
	}
}

// decodeInts converts the len(dst) integers of type typ in b. At a
// negative value, or one past the int range, it stops and returns its
// position and the value formatted as bad; otherwise the position is -1.
func decodeInts(dst []int, b []byte, typ uint32, bo binary.ByteOrder) (pos int, bad string) {
	switch typ {
	case miINT8:
		for k := range dst {
			dst[k] = int(int8(b[k]))
		}
	case miUINT8:
		for k := range dst {
			dst[k] = int(b[k])
		}
	case miINT16:
		for k := range dst {
			dst[k] = int(int16(bo.Uint16(b[2*k:])))
		}
	case miUINT16:
		for k := range dst {
			dst[k] = int(bo.Uint16(b[2*k:]))
		}
	case miINT32:
		for k := range dst {
			dst[k] = int(int32(bo.Uint32(b[4*k:])))
		}
	case miUINT32:
		for k := range dst {
			dst[k] = int(bo.Uint32(b[4*k:]))
		}
	case miINT64, miUINT64:
		for k := range dst {
			u := bo.Uint64(b[8*k:])
			if typ == miUINT64 && u > math.MaxInt64 {
				return k, strconv.FormatUint(u, 10)
			}
			dst[k] = int(int64(u))
		}
	}
	for k, x := range dst {
		if x < 0 {
			return k, strconv.Itoa(x)
		}
	}
	return -1, ""
}

// numericSize is the byte size of a numeric data type, 0 for others.
func numericSize(typ uint32) int64 {
	switch typ {
	case miINT8, miUINT8:
		return 1
	case miINT16, miUINT16:
		return 2
	case miINT32, miUINT32, miSINGLE:
		return 4
	case miDOUBLE, miINT64, miUINT64:
		return 8
	}
	return 0
}

// integerSize is the byte size of an integer data type, 0 for others.
func integerSize(typ uint32) int64 {
	if typ == miSINGLE || typ == miDOUBLE {
		return 0
	}
	return numericSize(typ)
}

var typeNames = map[uint32]string{
	miINT8: "miINT8", miUINT8: "miUINT8", miINT16: "miINT16", miUINT16: "miUINT16",
	miINT32: "miINT32", miUINT32: "miUINT32", miSINGLE: "miSINGLE", miDOUBLE: "miDOUBLE",
	miINT64: "miINT64", miUINT64: "miUINT64", miMATRIX: "miMATRIX", miCOMPRESSED: "miCOMPRESSED",
	miUTF8: "miUTF8", miUTF16: "miUTF16", miUTF32: "miUTF32",
}

func typeName(typ uint32) string {
	if n, ok := typeNames[typ]; ok {
		return n
	}
	return fmt.Sprintf("unknown (%d)", typ)
}

func padding(size int64) int64 { return (8 - size%8) % 8 }

// discard skips n bytes of s.
func (d *matDecoder) discard(s *matStream, n int64) error {
	if n <= 0 {
		return nil
	}
	m, err := io.CopyN(io.Discard, s.r, n)
	s.off += m
	s.budget -= m
	if err != nil {
		return d.readError(s, err)
	}
	return nil
}

// errorf formats a structural error at offset off of stream s.
func (d *matDecoder) errorf(s *matStream, off int64, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if s.outer < 0 {
		return matrixio.ByteErr(d.name, off, "%s", msg)
	}
	// The element's offset in the file, then the offset in its
	// decompressed bytes: no single byte of the file to give.
	return matrixio.StreamErr(d.name, "compressed element at byte %d: decompressed byte %d: %s", s.outer, off, msg)
}

func (d *matDecoder) readError(s *matStream, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		if s.outer >= 0 {
			return d.errorf(s, s.off, "truncated compressed data")
		}
		return d.errorf(s, s.off, "truncated file")
	}
	var ce flate.CorruptInputError
	if s.outer >= 0 && (errors.As(err, &ce) || errors.Is(err, zlib.ErrChecksum) || errors.Is(err, zlib.ErrHeader) || errors.Is(err, zlib.ErrDictionary)) {
		return d.errorf(s, s.off, "bad zlib stream: %v", err)
	}
	return d.errorf(s, s.off, "%v", err)
}

// variableList formats the names met in a file for an error message.
func variableList(names []string) string {
	if len(names) == 0 {
		return "the file has none"
	}
	s := append([]string(nil), names...)
	sort.Strings(s)
	return "the file has " + strings.Join(s, ", ")
}
