package dataset

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"math"
)

// This file holds a small MAT-file writer used only to build test fixtures.

type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// matWriter says how fixtures are written.
type matWriter struct {
	bo       byteOrder
	compress bool // wrap each variable in a miCOMPRESSED element
	small    bool // use the small data element form for data of at most 4 bytes
}

// mvar is a variable to write. Its fields map directly onto the sub-elements
// of a miMATRIX element.
type mvar struct {
	name   string
	class  uint32 // mxXXX class
	flags  uint32 // flagComplex, flagLogical
	nzmax  uint32
	dims   []int32
	typ    uint32    // data type of the real part (pr)
	data   []float64 // real part; for sparse, pr
	imag   []float64 // imaginary part, written when flags has flagComplex
	ir, jc []int32   // sparse indices
	idxTyp uint32    // data type of ir and jc; 0 means miINT32
	nopr   bool      // sparse without pr
	extra  [][]byte  // raw sub-elements written after the name instead of data
}

// element encodes one data element with its tag and padding.
func (w matWriter) element(typ uint32, data []byte) []byte {
	if w.small && len(data) <= 4 {
		b := make([]byte, 8)
		w.bo.PutUint32(b, uint32(len(data))<<16|typ)
		copy(b[4:], data)
		return b
	}
	b := make([]byte, 8, 8+len(data)+7)
	w.bo.PutUint32(b, typ)
	w.bo.PutUint32(b[4:], uint32(len(data)))
	b = append(b, data...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

// encode stores vals as data type typ.
func (w matWriter) encode(typ uint32, vals []float64) []byte {
	var b []byte
	for _, x := range vals {
		switch typ {
		case miINT8:
			b = append(b, byte(int8(x)))
		case miUINT8:
			b = append(b, byte(x))
		case miINT16:
			b = w.bo.AppendUint16(b, uint16(int16(x)))
		case miUINT16:
			b = w.bo.AppendUint16(b, uint16(x))
		case miINT32:
			b = w.bo.AppendUint32(b, uint32(int32(x)))
		case miUINT32:
			b = w.bo.AppendUint32(b, uint32(x))
		case miINT64:
			b = w.bo.AppendUint64(b, uint64(int64(x)))
		case miUINT64:
			b = w.bo.AppendUint64(b, uint64(x))
		case miSINGLE:
			b = w.bo.AppendUint32(b, math.Float32bits(float32(x)))
		case miDOUBLE:
			b = w.bo.AppendUint64(b, math.Float64bits(x))
		default:
			panic("encode: bad type")
		}
	}
	return b
}

func (w matWriter) int32s(v []int32) []byte {
	var b []byte
	for _, x := range v {
		b = w.bo.AppendUint32(b, uint32(x))
	}
	return b
}

// matrix encodes v as a complete miMATRIX element.
func (w matWriter) matrix(v mvar) []byte {
	var body []byte
	fl := w.bo.AppendUint32(nil, v.class|v.flags<<8)
	fl = w.bo.AppendUint32(fl, v.nzmax)
	body = append(body, w.element(miUINT32, fl)...)
	body = append(body, w.element(miINT32, w.int32s(v.dims))...)
	body = append(body, w.element(miINT8, []byte(v.name))...)
	switch {
	case v.extra != nil:
		for _, e := range v.extra {
			body = append(body, e...)
		}
	case v.class == mxSPARSE:
		it := v.idxTyp
		if it == 0 {
			it = miINT32
		}
		for _, idx := range [][]int32{v.ir, v.jc} {
			f := make([]float64, len(idx))
			for k, x := range idx {
				f[k] = float64(x)
			}
			body = append(body, w.element(it, w.encode(it, f))...)
		}
		if !v.nopr {
			body = append(body, w.element(v.typ, w.encode(v.typ, v.data))...)
		}
	default:
		body = append(body, w.element(v.typ, w.encode(v.typ, v.data))...)
	}
	if v.flags&flagComplex != 0 {
		body = append(body, w.element(v.typ, w.encode(v.typ, v.imag))...)
	}
	out := make([]byte, 8, 8+len(body))
	w.bo.PutUint32(out, miMATRIX)
	w.bo.PutUint32(out[4:], uint32(len(body)))
	return append(out, body...)
}

// header returns a 128-byte MAT-file header.
func (w matWriter) header() []byte {
	h := bytes.Repeat([]byte{' '}, 128)
	copy(h, "MATLAB 5.0 MAT-file, written by the dataset package tests")
	for k := 116; k < 124; k++ {
		h[k] = 0
	}
	w.bo.PutUint16(h[124:], 0x0100)
	w.bo.PutUint16(h[126:], 'M'<<8|'I')
	return h
}

// compressed wraps an element in a miCOMPRESSED element.
func (w matWriter) compressed(elem []byte) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(elem)
	zw.Close()
	out := make([]byte, 8, 8+z.Len())
	w.bo.PutUint32(out, miCOMPRESSED)
	w.bo.PutUint32(out[4:], uint32(z.Len()))
	return append(out, z.Bytes()...)
}

// file encodes a whole MAT-file holding vars.
func (w matWriter) file(vars ...mvar) []byte {
	b := w.header()
	for _, v := range vars {
		e := w.matrix(v)
		if w.compress {
			e = w.compressed(e)
		}
		b = append(b, e...)
	}
	return b
}

// denseVar is a 2-D variable of class double (stored as typ) holding the
// column-major data of a rows x cols matrix.
func denseVar(name string, rows, cols int, typ uint32, data []float64) mvar {
	return mvar{name: name, class: mxDOUBLE, dims: []int32{int32(rows), int32(cols)}, typ: typ, data: data}
}

// sparseVar is a sparse double variable from column-major dense data
// (zeros left out).
func sparseVar(name string, rows, cols int, data []float64) mvar {
	v := mvar{name: name, class: mxSPARSE, dims: []int32{int32(rows), int32(cols)}, typ: miDOUBLE, jc: []int32{0}}
	for j := 0; j < cols; j++ {
		for i := 0; i < rows; i++ {
			if x := data[j*rows+i]; x != 0 {
				v.ir = append(v.ir, int32(i))
				v.data = append(v.data, x)
			}
		}
		v.jc = append(v.jc, int32(len(v.ir)))
	}
	v.nzmax = uint32(max(len(v.ir), 1))
	return v
}

// charVar, cellVar and structVar are variables of kinds a reader skips.
func (w matWriter) charVar(name, text string) mvar {
	var u []float64
	for _, r := range text {
		u = append(u, float64(r))
	}
	return mvar{name: name, class: mxCHAR, dims: []int32{1, int32(len(u))}, extra: [][]byte{w.element(miUINT16, w.encode(miUINT16, u))}}
}

func (w matWriter) cellVar(name string, cells ...mvar) mvar {
	v := mvar{name: name, class: mxCELL, dims: []int32{1, int32(len(cells))}, extra: [][]byte{}}
	for _, c := range cells {
		v.extra = append(v.extra, w.matrix(c))
	}
	return v
}

func (w matWriter) structVar(name string, field string, value mvar) mvar {
	fn := make([]byte, 32)
	copy(fn, field)
	return mvar{name: name, class: mxSTRUCT, dims: []int32{1, 1}, extra: [][]byte{
		w.element(miINT32, w.bo.AppendUint32(nil, 32)),
		w.element(miINT8, fn),
		w.matrix(value),
	}}
}

func bigEndian() byteOrder { return binary.BigEndian }
