package dataset

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/sparse"
)

// MATWriteVar is one variable for WriteMAT. Exactly one of Dense, Sparse
// and Strings is set.
type MATWriteVar struct {
	// Name is the MATLAB variable name: a letter followed by at most 62
	// letters, digits and underscores.
	Name string
	// Dense is written as a double matrix of the same shape.
	Dense mat.Matrix
	// Sparse is written as a sparse double matrix of the same shape.
	Sparse *sparse.CSR
	// Strings is written as a len(Strings) x 1 cell array of char row
	// vectors, the way MATLAB keeps a vocabulary. Load skips such a
	// variable (and refuses it if asked for it by name).
	Strings []string
	// Uncompressed stores the variable as is (MATLAB's -v6) instead of in
	// a zlib-compressed element (-v7, the default).
	Uncompressed bool
}

// matNameMax is MATLAB's longest variable name (namelengthmax).
const matNameMax = 63

// WriteMAT writes a MATLAB level-5 MAT-file holding vars, in order, in
// little-endian byte order: dense matrices as double arrays (values
// column-major, as MATLAB keeps them), sparse ones as sparse double arrays
// and strings as cell arrays of char. Each variable is compressed with
// zlib unless it says otherwise, as MATLAB's default -v7 format does.
// Load reads back exactly the numbers written.
//
// Every variable is checked before anything is written: names must be
// valid MATLAB names and distinct, values finite, a CSR valid, and each
// variable small enough for the format (its element size is a 32-bit
// count, so at most about 4 GiB; MATLAB itself stops at 2 GiB and needs
// -v7.3 beyond).
func WriteMAT(w io.Writer, vars ...MATWriteVar) error {
	seen := make(map[string]bool, len(vars))
	for k := range vars {
		if err := checkMATWriteVar(&vars[k], k); err != nil {
			return err
		}
		if seen[vars[k].Name] {
			return fmt.Errorf("dataset: WriteMAT: variable %q appears twice", vars[k].Name)
		}
		seen[vars[k].Name] = true
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(matFileHeader())
	var z bytes.Buffer
	for k := range vars {
		v := &vars[k]
		if v.Uncompressed {
			e := &matEncoder{w: bw}
			e.variable(v)
			if e.err != nil {
				return e.err
			}
			continue
		}
		z.Reset()
		zw := zlib.NewWriter(&z)
		e := &matEncoder{w: zw}
		e.variable(v)
		if e.err != nil {
			return e.err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		if z.Len() > math.MaxUint32 {
			return fmt.Errorf("dataset: WriteMAT: variable %q compresses to %d bytes, more than a MAT-file element holds", v.Name, z.Len())
		}
		var tag [8]byte
		binary.LittleEndian.PutUint32(tag[:], miCOMPRESSED)
		binary.LittleEndian.PutUint32(tag[4:], uint32(z.Len()))
		bw.Write(tag[:])
		// A compressed element has no padding.
		if _, err := bw.Write(z.Bytes()); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// matFileHeader returns the 128-byte header of a little-endian level-5
// MAT-file: descriptive text, no subsystem data, version 0x0100 and the
// endian indicator "IM".
func matFileHeader() []byte {
	h := bytes.Repeat([]byte{' '}, 128)
	copy(h, "MATLAB 5.0 MAT-file, written by manifactor")
	for k := 116; k < 124; k++ {
		h[k] = 0
	}
	binary.LittleEndian.PutUint16(h[124:], 0x0100)
	h[126], h[127] = 'I', 'M'
	return h
}

// checkMATWriteVar checks the k-th variable (0-based) for WriteMAT.
func checkMATWriteVar(v *MATWriteVar, k int) error {
	if !validMATName(v.Name) {
		return fmt.Errorf("dataset: WriteMAT: variable %d: name %q is not a MATLAB name (a letter, then at most %d letters, digits or underscores)", k+1, v.Name, matNameMax-1)
	}
	set := 0
	for _, ok := range []bool{v.Dense != nil, v.Sparse != nil, v.Strings != nil} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return fmt.Errorf("dataset: WriteMAT: variable %q: set exactly one of Dense, Sparse and Strings (%d are set)", v.Name, set)
	}
	var rows, cols int
	switch {
	case v.Dense != nil:
		rows, cols = v.Dense.Dims()
	case v.Sparse != nil:
		if err := v.Sparse.Validate(); err != nil {
			return fmt.Errorf("dataset: WriteMAT: variable %q: %v", v.Name, err)
		}
		rows, cols = v.Sparse.Dims()
		if nnz := v.Sparse.NNZ(); nnz > math.MaxInt32 {
			return fmt.Errorf("dataset: WriteMAT: variable %q: %d stored values exceed the %d that 32-bit indices allow", v.Name, nnz, math.MaxInt32)
		}
	default:
		rows, cols = len(v.Strings), 1
	}
	if rows > math.MaxInt32 || cols > math.MaxInt32 {
		return fmt.Errorf("dataset: WriteMAT: variable %q: %d x %d exceeds the MAT-file limit of %d per dimension", v.Name, rows, cols, math.MaxInt32)
	}
	if size := matVariableSize(v); size > math.MaxUint32 {
		return fmt.Errorf("dataset: WriteMAT: variable %q needs %d bytes, more than a level-5 MAT-file element holds (%d); save it in parts", v.Name, size, uint32(math.MaxUint32))
	}
	if v.Dense == nil {
		return nil
	}
	var data []float64
	stride := 0
	if raw, ok := v.Dense.(mat.RawMatrixer); ok {
		m := raw.RawMatrix()
		data, stride = m.Data, m.Stride
	}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			var x float64
			if data != nil {
				x = data[i*stride+j]
			} else {
				x = v.Dense.At(i, j)
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("dataset: WriteMAT: variable %q: value %v at row %d, column %d (1-based) is not finite", v.Name, x, i+1, j+1)
			}
		}
	}
	return nil
}

// validMATName reports whether s is a valid MATLAB variable name.
func validMATName(s string) bool {
	if len(s) == 0 || len(s) > matNameMax {
		return false
	}
	for k := 0; k < len(s); k++ {
		c := s[k]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (k == 0 || c != '_' && (c < '0' || c > '9')) {
			return false
		}
	}
	return true
}

// matElemSize is the size of a data element with n bytes of data: tag,
// data and padding to a multiple of 8 bytes.
func matElemSize(n int64) int64 { return 8 + n + padding(n) }

// matHeadSize is the size of the sub-elements that open every array:
// flags, two dimensions and the name.
func matHeadSize(name string) int64 {
	return matElemSize(8) + matElemSize(8) + matElemSize(int64(len(name)))
}

// matCharText returns s as the data of a MATLAB char row vector: valid
// UTF-8 (invalid bytes become U+FFFD), stored as miUTF8 the way SciPy
// writes it, and its length in characters.
func matCharText(s string) ([]byte, int) {
	r := []rune(s)
	return []byte(string(r)), len(r)
}

// matCharSize is the size of the body of a miMATRIX element holding s as
// an unnamed char row vector.
func matCharSize(s string) int64 {
	b, _ := matCharText(s)
	return matHeadSize("") + matElemSize(int64(len(b)))
}

// matVariableSize is the size of the body of v's miMATRIX element.
func matVariableSize(v *MATWriteVar) int64 {
	size := matHeadSize(v.Name)
	switch {
	case v.Dense != nil:
		r, c := v.Dense.Dims()
		size += matElemSize(8 * int64(r) * int64(c))
	case v.Sparse != nil:
		nnz := int64(v.Sparse.NNZ())
		size += matElemSize(4*nnz) + matElemSize(4*(int64(v.Sparse.Cols)+1)) + matElemSize(8*nnz)
	default:
		for _, s := range v.Strings {
			size += 8 + matCharSize(s)
		}
	}
	return size
}

// matEncoder writes the elements of a little-endian MAT-file. The first
// write error sticks and ends the writing.
type matEncoder struct {
	w   io.Writer
	err error
	buf []byte // data waiting to be written
}

func (e *matEncoder) flush() {
	if e.err == nil && len(e.buf) > 0 {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

// need makes room for n more bytes in the buffer.
func (e *matEncoder) need(n int) {
	if len(e.buf)+n > 1<<16 {
		e.flush()
	}
}

func (e *matEncoder) uint32(x uint32) {
	e.need(4)
	e.buf = binary.LittleEndian.AppendUint32(e.buf, x)
}

func (e *matEncoder) float64(x float64) {
	e.need(8)
	e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(x))
}

func (e *matEncoder) bytes(b []byte) {
	e.need(len(b))
	e.buf = append(e.buf, b...)
}

// tag starts a data element of type typ with n bytes of data.
func (e *matEncoder) tag(typ uint32, n int64) {
	e.uint32(typ)
	e.uint32(uint32(n))
}

// pad ends a data element of n bytes.
func (e *matEncoder) pad(n int64) {
	e.need(8)
	for k := padding(n); k > 0; k-- {
		e.buf = append(e.buf, 0)
	}
}

// arrayHead writes the tag of a miMATRIX element with body bytes and its
// flags, dimensions and name.
func (e *matEncoder) arrayHead(body int64, class byte, nzmax, rows, cols int, name string) {
	e.tag(miMATRIX, body)
	e.tag(miUINT32, 8)
	e.uint32(uint32(class))
	e.uint32(uint32(nzmax))
	e.tag(miINT32, 8)
	e.uint32(uint32(rows))
	e.uint32(uint32(cols))
	e.tag(miINT8, int64(len(name)))
	e.bytes([]byte(name))
	e.pad(int64(len(name)))
}

// variable writes v as a miMATRIX element and flushes.
func (e *matEncoder) variable(v *MATWriteVar) {
	body := matVariableSize(v)
	switch {
	case v.Dense != nil:
		r, c := v.Dense.Dims()
		e.arrayHead(body, mxDOUBLE, 0, r, c, v.Name)
		n := 8 * int64(r) * int64(c)
		e.tag(miDOUBLE, n)
		if raw, ok := v.Dense.(mat.RawMatrixer); ok {
			m := raw.RawMatrix()
			for j := 0; j < c; j++ {
				for i := 0; i < r; i++ {
					e.float64(m.Data[i*m.Stride+j])
				}
			}
		} else {
			for j := 0; j < c; j++ {
				for i := 0; i < r; i++ {
					e.float64(v.Dense.At(i, j))
				}
			}
		}
		e.pad(n)
	case v.Sparse != nil:
		a := v.Sparse
		nnz := a.NNZ()
		e.arrayHead(body, mxSPARSE, nnz, a.Rows, a.Cols, v.Name)
		// MATLAB's compressed columns of a are the compressed rows of a^T.
		t := a.T()
		e.tag(miINT32, 4*int64(nnz))
		for _, i := range t.Ind {
			e.uint32(uint32(i))
		}
		e.pad(4 * int64(nnz))
		e.tag(miINT32, 4*int64(a.Cols+1))
		for _, p := range t.Indptr {
			e.uint32(uint32(p))
		}
		e.pad(4 * int64(a.Cols+1))
		e.tag(miDOUBLE, 8*int64(nnz))
		for _, x := range t.Val {
			e.float64(x)
		}
	default:
		e.arrayHead(body, mxCELL, 0, len(v.Strings), 1, v.Name)
		for _, s := range v.Strings {
			b, chars := matCharText(s)
			rows := 1
			if chars == 0 {
				rows = 0 // MATLAB's '' is 0 x 0
			}
			e.arrayHead(matCharSize(s), mxCHAR, 0, rows, chars, "")
			e.tag(miUTF8, int64(len(b)))
			e.bytes(b)
			e.pad(int64(len(b)))
		}
	}
	e.flush()
}
