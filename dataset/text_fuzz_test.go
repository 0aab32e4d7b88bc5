package dataset

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"unicode"
	"unicode/utf8"
)

// readReutersAll reads every article of b, or the error.
func readReutersAll(t *testing.T, b []byte, oneByte bool) ([]*Article, error) {
	var arts []*Article
	r := bytes.NewReader(b)
	var rd interface{ Read([]byte) (int, error) } = r
	if oneByte {
		rd = iotest.OneByteReader(r)
	}
	err := ReadReuters(rd, "fuzz.sgm", func(a *Article) error {
		checkArticle(t, a)
		arts = append(arts, a)
		return nil
	})
	if err != nil && !strings.HasPrefix(err.Error(), "fuzz.sgm:") {
		t.Fatalf("error %q does not start with the file name", err)
	}
	return arts, err
}

// checkArticle reports how a breaks the guarantees of ReadReuters.
func checkArticle(t *testing.T, a *Article) {
	t.Helper()
	if a.NewID <= 0 || a.Line < 1 {
		t.Fatalf("NEWID %d at line %d", a.NewID, a.Line)
	}
	if a.Type != strings.ToUpper(a.Type) {
		t.Fatalf("type %q not in upper case", a.Type)
	}
	fields := append([]string{a.Title, a.Dateline, a.Body, a.LewisSplit, a.CGISplit, a.Type}, a.Topics...)
	fields = append(fields, a.Places...)
	for _, s := range fields {
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 in %q", s)
		}
	}
	for _, s := range append(append([]string{a.Title, a.Dateline, a.Body}, a.Topics...), a.Places...) {
		if s != strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
			t.Fatalf("field %q not trimmed", s)
		}
	}
	for _, s := range append(append([]string(nil), a.Topics...), a.Places...) {
		if s == "" {
			t.Fatal("empty topic or place")
		}
	}
}

func FuzzReadReuters(f *testing.F) {
	old := [...]int{maxReutersArticle, maxSGMLTag}
	maxReutersArticle, maxSGMLTag = 1<<16, 512
	f.Cleanup(func() { maxReutersArticle, maxSGMLTag = old[0], old[1] })
	for _, s := range []string{
		reutersSnippet,
		reutersArticle(1, "TRAIN", "grain &amp; corn &lt;x&gt; &#3;", "grain", "corn"),
		"<REUTERS NEWID=\"5\"><TEXT TYPE=\"BRIEF\">&#2;\n***<TITLE>BRIEF ITEM\n</TITLE>Blah.\n&#3;</TEXT></REUTERS>\n",
		"<REUTERS NEWID='6'><TEXT TYPE=UNPROC>&#2;\nRAW &#x41; TEXT\xe9\n&#3;\n</TEXT></REUTERS>",
		"<!DOCTYPE lewis SYSTEM \"lewis.dtd\">\n<reuters newid=7><topics></topics><places><d>usa</d></places><text><dateline> NEW YORK, March 1 - </dateline><body>a < b &c &#0; &quot;q&apos;</body></text></reuters>",
		"<REUTERS NEWID=\"8\"><TOPICS>earn</TOPICS></REUTERS>",
		"<REUTERS NEWID=\"9\"><TEXT><BODY>x &#55296; y</BODY></TEXT></REUTERS>",
		"<REUTERS NEWID=\"x\"></REUTERS>",
		"<REUTERS NEWID=\"10\"><TEXT><BODY>unclosed",
		"<REUTERS NEWID=\"11\"><TEXT <BODY>x</BODY></TEXT></REUTERS>",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		arts, err := readReutersAll(t, b, false)
		// Byte by byte, the buffer boundaries fall everywhere.
		arts1, err1 := readReutersAll(t, b, true)
		if !reflect.DeepEqual(arts, arts1) || (err == nil) != (err1 == nil) || err != nil && err.Error() != err1.Error() {
			t.Fatalf("one byte at a time: %d articles, %v; at once: %d articles, %v", len(arts1), err1, len(arts), err)
		}
		// Compressed, the same articles and the same verdict (unless b is
		// itself compressed, and read decompressed).
		if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			return
		}
		artsZ, errZ := readReutersAll(t, gzipPooled(b), false)
		if !reflect.DeepEqual(arts, artsZ) || (err == nil) != (errZ == nil) {
			t.Fatalf("gzip: %d articles, %v; plain: %d articles, %v", len(artsZ), errZ, len(arts), err)
		}
	})
}

// gzipWriters keeps compressors between fuzz inputs: a new one costs more
// than the rest of a run.
var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// gzipPooled is gzipBytes with a pooled compressor.
func gzipPooled(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(&buf)
	zw.Write(b)
	zw.Close()
	gzipWriters.Put(zw)
	return buf.Bytes()
}

// referenceTokens is Tokenize written the obvious way.
func referenceTokens(text string, keepNumbers bool) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsMark(r) && !unicode.IsDigit(r)
	}) {
		if keepNumbers || !strings.ContainsFunc(f, unicode.IsDigit) {
			out = append(out, strings.Map(unicode.ToLower, f))
		}
	}
	return out
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"Hello, World! 1987", "U.S. don't", "Straße ÉCOLE 東京 İ x٣ ½", "ab\xffcd\xc3", "cafe\u0301"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, keepNumbers bool) {
		got := tokens(text, keepNumbers)
		if want := referenceTokens(text, keepNumbers); !reflect.DeepEqual(got, want) {
			t.Fatalf("Tokenize(%q) = %q, want %q", text, got, want)
		}
		for _, tok := range got {
			if tok == "" || !utf8.ValidString(tok) {
				t.Fatalf("token %q", tok)
			}
		}
	})
}

func FuzzVectorize(f *testing.F) {
	f.Add("The oil prices rose", "oil", "banks and banking", "bank", "the of 1987", "", uint8(0))
	f.Add("a b c", "x", "Grain GRAINS grain", "x", "", "y", uint8(0xff))
	f.Add("naïve café", "", "東京 İstanbul", "", "x² 3", "", uint8(0x55))
	f.Fuzz(func(t *testing.T, t1, l1, t2, l2, t3, l3 string, flags uint8) {
		docs := []Document{{ID: "1", Label: l1, Text: t1}, {ID: "2", Label: l2, Text: t2}, {ID: "3", Label: l3, Text: t3}}
		opt := TextOptions{
			KeepNumbers: flags&1 != 0, NoStopWords: flags&2 != 0, NoStem: flags&4 != 0,
			DropEmpty: flags&32 != 0,
			MinDF:     2 * int(flags>>6&1), MaxDF: float64(flags>>7) * 0.7,
		}
		d, st, err := Vectorize(context.Background(), "fuzz", docs, opt)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz: ") {
				t.Fatalf("error %q does not start with the name", err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
		n, m := d.Dims()
		if m == 0 || n == 0 || len(d.Vocabulary) != m || len(d.IDs) != n || st.Features != m || st.NNZ != d.NNZ() || st.Kept != 3 {
			t.Fatalf("%d x %d, %d terms, %d IDs, stats %+v", n, m, len(d.Vocabulary), len(d.IDs), st)
		}
		if !sort.StringsAreSorted(d.Vocabulary) {
			t.Fatalf("vocabulary not sorted: %q", d.Vocabulary)
		}
		for j, w := range d.Vocabulary {
			if w == "" || j > 0 && w == d.Vocabulary[j-1] || !utf8.ValidString(w) {
				t.Fatalf("term %d: %q", j, w)
			}
		}
		zero := 0
		a := d.Sparse
		for i := 0; i < n; i++ {
			for _, v := range a.Val[a.Indptr[i]:a.Indptr[i+1]] {
				if !(v >= 1) || v != math.Trunc(v) {
					t.Fatalf("row %d: value %v is not a term count", i, v)
				}
			}
			if a.Indptr[i] == a.Indptr[i+1] {
				zero++
			}
		}
		if opt.DropEmpty && (zero != 0 || n+st.Empty != 3) || !opt.DropEmpty && (zero != st.Empty || n != 3) {
			t.Fatalf("%d rows, %d of them empty; stats %+v", n, zero, st)
		}
		labelled := false
		for i, id := range d.IDs {
			want := docs[idIndex(id)].Label
			labelled = labelled || want != ""
			if d.Labels == nil {
				continue
			}
			if l := d.Labels[i]; want == "" && l != 0 || want != "" && d.ClassNames[l] != want {
				t.Fatalf("document %s: label %d, names %v, want %q", id, l, d.ClassNames, want)
			}
		}
		if labelled != (d.Labels != nil) {
			t.Fatalf("labels %v for documents %+v", d.Labels, docs)
		}
	})
}

// idIndex returns the position of document ID "1", "2" or "3".
func idIndex(id string) int { return int(id[0] - '1') }

// FuzzLoadTextDir writes the fuzzed bytes as documents of a small labelled
// directory tree (and as a file name's worth of text) and loads it: never
// a panic; a loaded corpus is valid, labelled from its folders, with one
// row per file.
func FuzzLoadTextDir(f *testing.F) {
	f.Add([]byte("Oil prices rose sharply.\nOPEC met in Vienna."), []byte("Wheat and corn exports."))
	f.Add([]byte(""), []byte("\x00\xff\xfe not utf-8 \xc3"))
	f.Add([]byte("1987 123 45.6"), []byte("the and of"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		dir := t.TempDir()
		for _, c := range []struct {
			class string
			body  []byte
		}{{"oil", a}, {"grain", b}, {"grain", append(append([]byte{}, a...), b...)}} {
			sub := filepath.Join(dir, c.class)
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(sub, fmt.Sprintf("doc%d.txt", len(c.body)))
			if _, err := os.Stat(name); err == nil {
				name = filepath.Join(sub, fmt.Sprintf("doc%d-b.txt", len(c.body)))
			}
			if err := os.WriteFile(name, c.body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		d, _, err := LoadTextDir(context.Background(), dir, TextOptions{})
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error does not name the directory: %v", err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("invalid corpus: %v", err)
		}
		n, m := d.Dims()
		if n != 3 || len(d.Labels) != 3 || len(d.Vocabulary) != m {
			t.Fatalf("%d samples, %d labels, %d terms for %d features", n, len(d.Labels), len(d.Vocabulary), m)
		}
	})
}
