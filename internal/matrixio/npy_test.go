package matrixio

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/testenv"
	"gonum.org/v1/gonum/mat"
)

// numpyFiles were written by NumPy 1.24 (numpy.lib.format.write_array) from
// [[1, -2, 3], [4, 5, -6]] (unsigned: [[1, 2, 3], [4, 5, 250]]; bool: its
// values mod 2), as named: type, byte order, C or Fortran order, version.
var numpyFiles = map[string]string{
	"f8_le_C_v1.npy": "934e554d5059010076007b276465736372273a20273c6638272c2027666f727472616e5f6f72646572273a2046616c73" +
		"652c20277368617065273a2028322c2033292c207d202020202020202020202020202020202020202020202020202020" +
		"202020202020202020202020202020202020202020202020202020202020200a000000000000f03f00000000000000c0" +
		"00000000000008400000000000001040000000000000144000000000000018c0",
	"f4_be_F_v3.npy": "934e554d50590300740000007b276465736372273a20273e6634272c2027666f727472616e5f6f72646572273a205472" +
		"75652c20277368617065273a2028322c2033292c207d2020202020202020202020202020202020202020202020202020" +
		"202020202020202020202020202020202020202020202020202020202020200a3f80000040800000c000000040a00000" +
		"40400000c0c00000",
	"i2_be_C_v2.npy": "934e554d50590200740000007b276465736372273a20273e6932272c2027666f727472616e5f6f72646572273a204661" +
		"6c73652c20277368617065273a2028322c2033292c207d20202020202020202020202020202020202020202020202020" +
		"202020202020202020202020202020202020202020202020202020202020200a0001fffe000300040005fffa",
	"u8_le_F_v1.npy": "934e554d5059010076007b276465736372273a20273c7538272c2027666f727472616e5f6f72646572273a2054727565" +
		"2c20277368617065273a2028322c2033292c207d20202020202020202020202020202020202020202020202020202020" +
		"202020202020202020202020202020202020202020202020202020202020200a01000000000000000400000000000000" +
		"020000000000000005000000000000000300000000000000fa00000000000000",
	"b1_le_C_v1.npy": "934e554d5059010076007b276465736372273a20277c6231272c2027666f727472616e5f6f72646572273a2046616c73" +
		"652c20277368617065273a2028322c2033292c207d202020202020202020202020202020202020202020202020202020" +
		"202020202020202020202020202020202020202020202020202020202020200a010001000100",
}

func TestReadNPYNumPyFiles(t *testing.T) {
	for name, h := range numpyFiles {
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{1, -2, 3, 4, 5, -6}
		switch name[0] {
		case 'u':
			want = []float64{1, 2, 3, 4, 5, 250}
		case 'b':
			want = []float64{1, 0, 1, 0, 1, 0}
		}
		for _, r := range []io.Reader{bytes.NewReader(b), io.MultiReader(bytes.NewReader(b))} {
			a, err := ReadNPY(r, name)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if !testenv.DenseEqual(a, 2, 3, want) {
				t.Errorf("%s: got %v, want %v", name, mat.Formatted(a), want)
			}
		}
	}
}

// npyFile builds a .npy file of the given version with header dict h and
// data; the header is padded as NumPy pads it.
func npyFile(major byte, h string, data []byte) []byte {
	pre := 10
	if major > 1 {
		pre = 12
	}
	h += strings.Repeat(" ", (64-(pre+len(h)+1)%64)%64) + "\n"
	b := append([]byte(npyMagic), major, 0)
	if major == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(h)))
	}
	b = append(b, h...)
	return append(b, data...)
}

func npyDict(descr string, fortran bool, shape string) string {
	f := "False"
	if fortran {
		f = "True"
	}
	return fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, f, shape)
}

// npyEncode stores vals as the element type of descr.
func npyEncode(descr string, vals []float64) []byte {
	t, err := parseNPYDescr(descr)
	if err != nil {
		panic(err)
	}
	var bo binary.AppendByteOrder = binary.LittleEndian
	if t.bo == binary.BigEndian {
		bo = binary.BigEndian
	}
	var b []byte
	for _, x := range vals {
		switch {
		case t.kind == 'f' && t.size == 8:
			b = bo.AppendUint64(b, math.Float64bits(x))
		case t.kind == 'f':
			b = bo.AppendUint32(b, math.Float32bits(float32(x)))
		case t.kind == 'i' && t.size == 1, t.kind == 'u' && t.size == 1, t.kind == 'b':
			b = append(b, byte(int8(x)))
		case t.kind == 'i' && t.size == 2, t.kind == 'u' && t.size == 2:
			b = bo.AppendUint16(b, uint16(int16(x)))
		case t.kind == 'i' && t.size == 4, t.kind == 'u' && t.size == 4:
			b = bo.AppendUint32(b, uint32(int32(x)))
		default:
			b = bo.AppendUint64(b, uint64(int64(x)))
		}
	}
	return b
}

func TestReadNPYTypes(t *testing.T) {
	// 3 x 2, row-major; values fit every type (bool: 0 and 1).
	rowMajor := []float64{1, 0, 127, 3, 0, 1}
	signed := []float64{-1, 0, 127, -128, 5, 1}
	colMajor := func(v []float64) []float64 { return []float64{v[0], v[2], v[4], v[1], v[3], v[5]} }
	for _, descr := range []string{"<f8", ">f8", "<f4", ">f4", "|i1", "<i1", "|u1", "|b1",
		"<i2", ">i2", "<u2", ">u2", "<i4", ">i4", "<u4", ">u4", "<i8", ">i8", "<u8", ">u8"} {
		want := rowMajor
		if descr[1] == 'f' || descr[1] == 'i' {
			want = signed
		}
		if descr[1] == 'b' {
			want = []float64{1, 0, 1, 1, 0, 1}
		}
		for _, fortran := range []bool{false, true} {
			data := want
			if fortran {
				data = colMajor(want)
			}
			for _, major := range []byte{1, 2, 3} {
				b := npyFile(major, npyDict(descr, fortran, "(3, 2)"), npyEncode(descr, data))
				for _, r := range []io.Reader{bytes.NewReader(b), io.MultiReader(bytes.NewReader(b))} {
					a, err := ReadNPY(r, "x.npy")
					if err != nil {
						t.Errorf("%s fortran=%v v%d: %v", descr, fortran, major, err)
						continue
					}
					if !testenv.DenseEqual(a, 3, 2, want) {
						t.Errorf("%s fortran=%v v%d: got %v, want %v", descr, fortran, major, a.RawMatrix().Data, want)
					}
				}
			}
		}
	}
}

func TestReadNPYExtremes(t *testing.T) {
	for _, tc := range []struct {
		descr string
		data  []byte
		want  float64
	}{
		{"<u8", binary.LittleEndian.AppendUint64(nil, math.MaxUint64), math.MaxUint64},
		{"<i8", binary.LittleEndian.AppendUint64(nil, 1<<63), math.MinInt64},
		{">u4", binary.BigEndian.AppendUint32(nil, math.MaxUint32), math.MaxUint32},
		{"<i2", binary.LittleEndian.AppendUint16(nil, 0x8000), math.MinInt16},
		{"<f4", binary.LittleEndian.AppendUint32(nil, math.Float32bits(math.MaxFloat32)), math.MaxFloat32},
	} {
		a, err := ReadNPY(bytes.NewReader(npyFile(1, npyDict(tc.descr, false, "(1, 1)"), tc.data)), "x.npy")
		if err != nil || a.At(0, 0) != tc.want {
			t.Errorf("%s: got %v, %v; want %v", tc.descr, a, err, tc.want)
		}
	}
}

func TestReadNPYHeaderVariants(t *testing.T) {
	data := npyEncode("<f8", []float64{1, 2})
	for _, h := range []string{
		`{"descr":"<f8","fortran_order":False,"shape":(1,2)}`,
		"{'shape': (1L, 2L), 'fortran_order': False, 'descr': '<f8'}",
		"{ 'descr' : '<f8' ,\n 'fortran_order' : False , 'shape' : ( 1 , 2 , ) , }",
		"{'descr': '<f8', 'fortran_order': True, 'shape': (1, 2)}",
	} {
		a, err := ReadNPY(bytes.NewReader(npyFile(1, h, data)), "x.npy")
		if err != nil || !testenv.DenseEqual(a, 1, 2, []float64{1, 2}) {
			t.Errorf("%q: %v, %v", h, a, err)
		}
	}
	// Bytes after the array are left in the reader.
	b := append(npyFile(1, npyDict("<f8", false, "(1, 2)"), data), "rest"...)
	r := bytes.NewReader(b)
	if _, err := ReadNPY(r, "x.npy"); err != nil {
		t.Fatal(err)
	}
	if rest, _ := io.ReadAll(r); string(rest) != "rest" {
		t.Errorf("left %q, want \"rest\"", rest)
	}
}

func TestReadNPYErrors(t *testing.T) {
	f8 := func(shape string, n int) []byte {
		return npyFile(1, npyDict("<f8", false, shape), npyEncode("<f8", make([]float64, n)))
	}
	good := f8("(2, 3)", 6)
	nan := npyFile(1, npyDict("<f8", false, "(2, 3)"), npyEncode("<f8", []float64{0, 0, 0, 0, math.NaN(), 0}))
	infF := npyFile(1, npyDict(">f4", true, "(2, 3)"), npyEncode(">f4", []float64{0, 0, 0, math.Inf(1), 0, 0}))
	hdr := func(h string) []byte { return npyFile(1, h, nil) }
	cases := []struct {
		name string
		b    []byte
		want []string
	}{
		{"empty", nil, []string{"x.npy: byte 0: not a NumPy .npy file: it ends inside the 10-byte preamble"}},
		{"short", []byte("\x93NUMPY\x01"), []string{"byte 7: not a NumPy .npy file"}},
		{"magic", []byte("\x93NUMPX\x01\x00\x10\x00{}"), []string{"x.npy: byte 0: not a NumPy .npy file: magic \"\\x93NUMPX\""}},
		{"version", []byte("\x93NUMPY\x04\x00\x10\x00"), []string{"x.npy: byte 6: format version 4.0 not supported"}},
		{"minor", []byte("\x93NUMPY\x01\x01\x10\x00"), []string{"format version 1.1 not supported"}},
		{"v2 short length", []byte("\x93NUMPY\x02\x00\x10\x00"), []string{"x.npy: byte 10: truncated file: it ends inside the header length"}},
		{"huge header", []byte("\x93NUMPY\x02\x00\x00\x00\x02\x00"), []string{"x.npy: byte 8: header length 131072 exceeds the limit of 65536 bytes"}},
		{"truncated header", good[:60], []string{"x.npy: byte 10: header length 118 but the file has only 50 bytes left"}},
		{"not a dict", hdr("['descr']"), []string{"x.npy: byte 10: header: want '{', found \"['descr']"}},
		{"unquoted key", hdr("{descr: 1}"), []string{"x.npy: byte 11: header: want a key in quotes"}},
		{"unterminated", hdr("{'descr"), []string{"x.npy: byte 63: header: unsupported character '\\n' in a string"}},
		{"unterminated at the end", []byte("\x93NUMPY\x01\x00\x07\x00{'descr"), []string{"x.npy: byte 11: header: unterminated string"}},
		{"missing colon", hdr("{'descr' '<f8'}"), []string{"x.npy: byte 19: header: want ':'"}},
		{"missing key", hdr("{'descr': '<f8', 'shape': (1, 2)}"), []string{"dictionary has no key 'fortran_order'"}},
		{"extra key", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), 'x': 1}"), []string{"x.npy: byte 68: header: unexpected key \"x\", want only 'descr', 'fortran_order' and 'shape'"}},
		{"twice", hdr("{'descr': '<f8', 'descr': '<f8'}"), []string{"key \"descr\" appears twice"}},
		{"bad bool", hdr("{'fortran_order': 0}"), []string{"'fortran_order': want True or False, found \"0}"}},
		{"bad shape", hdr("{'shape': (1, -2)}"), []string{"'shape': want a non-negative integer of at most 2^62, found \"-2)}"}},
		{"shape list", hdr("{'shape': [1, 2]}"), []string{"want '('"}},
		{"shape sep", hdr("{'shape': (1 2)}"), []string{"'shape': want ',' or ')'"}},
		{"huge dim", hdr("{'shape': (99999999999999999999, 1)}"), []string{"at most 2^62"}},
		{"many dims", hdr("{'shape': (" + strings.Repeat("1,", 65) + ")}"), []string{"more than 64 dimensions"}},
		{"no comma", hdr("{'descr': '<f8' 'shape': (1, 2)}"), []string{"want ',' or '}'"}},
		{"trailing", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2)} x"), []string{"x.npy: byte 68: header: unexpected \"x\" after the dictionary"}},
		{"structured", hdr("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1, 2)}"), []string{"structured dtypes"}},
		{"complex", hdr(npyDict("<c16", false, "(1, 2)")), []string{"x.npy: byte 10: header: descr \"<c16\": unsupported type"}},
		{"half", hdr(npyDict("<f2", false, "(1, 2)")), []string{"descr \"<f2\": unsupported type"}},
		{"object", hdr(npyDict("|O", false, "(1, 2)")), []string{"object arrays"}},
		{"native order", hdr(npyDict("=f8", false, "(1, 2)")), []string{"needs an explicit byte order"}},
		{"bad order", hdr(npyDict("!f8", false, "(1, 2)")), []string{"byte order must be"}},
		{"short descr", hdr(npyDict("f", false, "(1, 2)")), []string{"want a byte order, a kind and a size"}},
		{"1-D", f8("(6,)", 6), []string{"x.npy: byte 128: 1-D array of shape (6,): want a 2-D array", "(6, 1) or (1, 6)"}},
		{"0-D", f8("()", 1), []string{"0-D array of shape ()"}},
		{"3-D", f8("(1, 2, 3)", 6), []string{"3-D array of shape (1, 2, 3)"}},
		{"empty array", f8("(0, 3)", 0), []string{"x.npy: byte 128: empty array of shape (0, 3)"}},
		{"too many elements", f8("(4611686018427387904, 4611686018427387904)", 0), []string{"exceeds the limit of"}},
		{"huge shape", f8("(1000, 1000)", 6), []string{"x.npy: byte 128: array of shape (1000, 1000) and type <f8 needs 8000000 bytes but the file has only 48 left"}},
		{"truncated data", good[:len(good)-3], []string{"needs 48 bytes but the file has only 45 left"}},
		{"NaN", nan, []string{"x.npy: byte 160: row 2, column 2 (1-based): value NaN is not finite"}},
		{"Inf Fortran", infF, []string{"x.npy: byte 140: row 2, column 2 (1-based): value +Inf is not finite"}},
	}
	for _, tc := range cases {
		a, err := ReadNPY(bytes.NewReader(tc.b), "x.npy")
		if a != nil {
			t.Errorf("%s: got a matrix with the error", tc.name)
		}
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		testenv.WantErr(t, err, tc.want...)
	}
	// A stream of unknown size finds truncation when the data ends.
	_, err := ReadNPY(io.MultiReader(bytes.NewReader(good[:len(good)-3])), "x.npy")
	testenv.WantErr(t, err, "x.npy: byte 173: truncated file: it ends inside the data (45 of 48 bytes read)")
	_, err = ReadNPY(io.MultiReader(bytes.NewReader(good[:60])), "x.npy")
	testenv.WantErr(t, err, "x.npy: byte 60: truncated file: it ends inside the header")
}

func TestReadNPYUnknownSizeHugeShape(t *testing.T) {
	// A huge claim in a stream of unknown size allocates little before
	// the data runs out.
	b := npyFile(1, npyDict("<f8", false, "(20000, 100000)"), make([]byte, 64))
	var err error
	n := testenv.Allocated(func() { _, err = ReadNPY(io.MultiReader(bytes.NewReader(b)), "x.npy") })
	testenv.WantErr(t, err, "truncated file")
	if n > 8<<20 {
		t.Errorf("allocated %d bytes for a 192-byte stream", n)
	}
}

func TestNPYRoundTrip(t *testing.T) {
	for _, dims := range [][2]int{{1, 1}, {3, 4}, {7, 1}, {1, 9}, {300, 50}} {
		r, c := dims[0], dims[1]
		a := mat.NewDense(r, c, nil)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				a.Set(i, j, math.Sin(float64(i*c+j))*math.Pow(10, float64(j%40-20)))
			}
		}
		var buf bytes.Buffer
		if err := WriteNPY(&buf, a); err != nil {
			t.Fatal(err)
		}
		if (buf.Len()-8*r*c)%64 != 0 {
			t.Errorf("%d x %d: data starts at %d, not a multiple of 64", r, c, buf.Len()-8*r*c)
		}
		// A transposed view goes through At.
		got, err := ReadNPY(&buf, "rt.npy")
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got, a) {
			t.Errorf("%d x %d: round trip differs", r, c)
		}
		buf.Reset()
		if err := WriteNPY(&buf, a.T()); err != nil {
			t.Fatal(err)
		}
		got, err = ReadNPY(&buf, "rt.npy")
		if err != nil || !mat.Equal(got, a.T()) {
			t.Errorf("%d x %d transposed: round trip differs (%v)", r, c, err)
		}
	}
	// The file is what NumPy writes for the same array.
	var buf bytes.Buffer
	WriteNPY(&buf, mat.NewDense(2, 3, []float64{1, -2, 3, 4, 5, -6}))
	want, _ := hex.DecodeString(numpyFiles["f8_le_C_v1.npy"])
	got := buf.Bytes()
	if !bytes.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	testenv.WantErr(t, WriteNPY(&buf, mat.NewDense(1, 2, []float64{0, math.NaN()})), "dataset: WriteNPY: value NaN at row 1, column 2 (1-based) is not finite")
}

func FuzzReadNPY(f *testing.F) {
	old := MaxDenseElements
	MaxDenseElements = 1 << 16
	f.Cleanup(func() { MaxDenseElements = old })
	for _, h := range numpyFiles {
		b, _ := hex.DecodeString(h)
		f.Add(b)
	}
	f.Add(npyFile(2, npyDict("<i8", true, "(2, 2)"), npyEncode("<i8", []float64{1, 2, 3, 4})))
	f.Add(npyFile(3, npyDict(">u2", false, "(1, 3)"), npyEncode(">u2", []float64{1, 2, 3})))
	f.Add(npyFile(1, npyDict("<f8", false, "(3,)"), npyEncode("<f8", []float64{1, 2, 3})))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, r := range []io.Reader{bytes.NewReader(b), io.MultiReader(bytes.NewReader(b))} {
			a, err := ReadNPY(r, "fuzz.npy")
			if err != nil {
				if a != nil {
					t.Fatal("a matrix with the error")
				}
				if !strings.HasPrefix(err.Error(), "fuzz.npy: byte ") {
					t.Fatalf("error %q does not start with the file name and offset", err)
				}
				continue
			}
			if r, c := a.Dims(); r == 0 || c == 0 {
				t.Fatalf("empty matrix %d x %d", r, c)
			}
			for _, x := range a.RawMatrix().Data {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("value %v read", x)
				}
			}
			// What was read writes back and reads back the same.
			var buf bytes.Buffer
			if err := WriteNPY(&buf, a); err != nil {
				t.Fatal(err)
			}
			again, err := ReadNPY(&buf, "again.npy")
			if err != nil || !mat.Equal(again, a) {
				t.Fatalf("round trip: %v", err)
			}
		}
	})
}

// TestReadNPYNaN: NaN is refused, naming the option that reads it as an
// unknown entry, unless asked for; infinities are refused either way.
func TestReadNPYNaN(t *testing.T) {
	b := npyFile(1, npyDict("<f8", false, "(1, 3)"), npyEncode("<f8", []float64{1, math.NaN(), 2}))
	if _, err := ReadNPYBudget(bytes.NewReader(b), "x.npy", int64(len(b)), 0, false); err == nil || !strings.Contains(err.Error(), "--missing nan") {
		t.Errorf("NaN without nan: %v", err)
	}
	m, err := ReadNPYBudget(bytes.NewReader(b), "x.npy", int64(len(b)), 0, true)
	if err != nil || !math.IsNaN(m.At(0, 1)) || m.At(0, 2) != 2 {
		t.Errorf("NaN with nan: %v, %v", m, err)
	}
	inf := npyFile(1, npyDict("<f8", false, "(1, 2)"), npyEncode("<f8", []float64{1, math.Inf(1)}))
	if _, err := ReadNPYBudget(bytes.NewReader(inf), "x.npy", int64(len(inf)), 0, true); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("an infinity with nan: %v", err)
	}
}
