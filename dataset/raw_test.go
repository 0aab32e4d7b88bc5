package dataset

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/matrixio"
	"gonum.org/v1/gonum/mat"
)

// TestRawNewsCorpus: testdata/rawnews is laid out as raw corpora
// circulate (one folder per newsgroup, one extension-less Latin-1 file per
// message, news headers, quotations and signatures): it loads with its 12
// messages in 3 classes of 4, Latin-1 decoded (é is a letter, not a
// separator), with and without stripping; stripping removes the headers'
// and signatures' words and the quoted lines' words, and nothing else.
func TestRawNewsCorpus(t *testing.T) {
	const dir = "../testdata/rawnews"
	plain, err := Load(context.Background(), dir, LoadOptions{Text: TextOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	stripped, err := Load(context.Background(), dir, LoadOptions{Text: TextOptions{Strip: StripHeaders | StripFooters | StripQuotes}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Dataset{plain, stripped} {
		n, _ := d.Dims()
		labels, sizes := d.Classes()
		if n != 12 || len(labels) != 3 || !slices.Equal(sizes, []int{4, 4, 4}) {
			t.Errorf("%d documents, classes %v of sizes %v; want 12 in 3 of 4", n, labels, sizes)
		}
		names := []string{d.ClassNames[1], d.ClassNames[2], d.ClassNames[3]}
		slices.Sort(names)
		if !slices.Equal(names, []string{"rec.autos", "sci.space", "talk.politics"}) {
			t.Errorf("class names %v", names)
		}
		if len(d.Notes) == 0 || !strings.Contains(d.Notes[len(d.Notes)-1], "12 of 12 files are not UTF-8, read as Latin-1") {
			t.Errorf("notes %q", d.Notes)
		}
	}
	has := func(d *Dataset, term string) bool { return slices.Contains(d.Vocabulary, term) }
	// Latin-1 letters stay inside words.
	if !has(plain, "café") || !has(plain, "zetaquux") || has(plain, "caf") {
		t.Errorf("Latin-1 words: café %v, zetaquux %v, caf %v", has(plain, "café"), has(plain, "zetaquux"), has(plain, "caf"))
	}
	for _, gone := range []string{"zetaquux", "organ", "martínez", "sedan", "bald", "gearbox", "magnet"} {
		if !has(plain, gone) {
			t.Errorf("%q missing before stripping", gone)
		}
		if has(stripped, gone) {
			t.Errorf("%q (a header's, signature's or quotation's word) kept after stripping", gone)
		}
	}
	for _, kept := range []string{"café", "rotor", "shuttl", "senat", "telescop"} {
		if !has(stripped, kept) {
			t.Errorf("%q (a body's word) lost by stripping", kept)
		}
	}
}

// TestStripText: each part on its own, and what must not be taken.
func TestStripText(t *testing.T) {
	msg := "From: a@b.c\nSubject: hi\n\nIn article <1@x> b@y writes:\n> quoted\n| also quoted\nbody line\n-- \nsig line\n"
	cases := []struct {
		s    Strip
		text string
		want string
	}{
		{StripHeaders, msg, "In article <1@x> b@y writes:\n> quoted\n| also quoted\nbody line\n-- \nsig line\n"},
		{StripFooters, msg, "From: a@b.c\nSubject: hi\n\nIn article <1@x> b@y writes:\n> quoted\n| also quoted\nbody line"},
		{StripQuotes, msg, "From: a@b.c\nSubject: hi\n\nbody line\n-- \nsig line\n"},
		{StripHeaders | StripFooters | StripQuotes, msg, "body line"},
		// Not a header: the first paragraph stays.
		{StripHeaders, "Dear all,\n\nthe meeting moved.", "Dear all,\n\nthe meeting moved."},
		// A dash line at the top is not a signature.
		{StripFooters, "---\ntext", "---\ntext"},
		// Headers without a blank line after them: all header.
		{StripHeaders, "From: a\nSubject: b", ""},
		{0, msg, msg},
	}
	for _, c := range cases {
		if got := c.s.Apply(c.text); got != c.want {
			t.Errorf("%v of %q: %q, want %q", c.s, c.text, got, c.want)
		}
	}
	for _, in := range []string{"", "headers", "headers,footers,quotes", " quotes , headers "} {
		s, err := parseStrip(in)
		if err != nil {
			t.Fatal(err)
		}
		back, err := parseStrip(s.String())
		if err != nil || back != s {
			t.Errorf("%q: %v round-trips to %v (%v)", in, s, back, err)
		}
	}
	if _, err := parseStrip("headers,sigs"); err == nil || !strings.Contains(err.Error(), `"sigs"`) {
		t.Errorf("unknown part: %v", err)
	}
}

// TestTextLines: one document per line, with or without a label column,
// Latin-1 lines decoded, blank lines skipped; a line without its tab, a
// label column other than the first and a binary line are errors naming
// the file and line.
func TestTextLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "docs.txt")
	text := "sport\tFootball scores rise\n\npolitics\tElection results in the caf\xe9\nsport\tTennis scores\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Load(context.Background(), path, LoadOptions{CSV: CSVOptions{LabelColumn: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := d.Dims(); n != 3 || !slices.Equal(d.Labels, []int{1, 2, 1}) || d.ClassNames[1] != "sport" || !slices.Equal(d.IDs, []string{"1", "3", "4"}) {
		t.Errorf("labelled: %d documents, labels %v, names %v, IDs %v", n, d.Labels, d.ClassNames, d.IDs)
	}
	if !slices.Contains(d.Vocabulary, "café") {
		t.Errorf("Latin-1 line: vocabulary %q", d.Vocabulary)
	}
	u, err := Load(context.Background(), path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := u.Dims(); n != 3 || u.Labels != nil || !slices.Contains(u.Vocabulary, "sport") {
		t.Errorf("unlabelled: %d documents, labels %v", n, u.Labels)
	}
	if _, err := Load(context.Background(), path, LoadOptions{CSV: CSVOptions{LabelColumn: "2"}}); err == nil || !strings.Contains(err.Error(), "column 1") {
		t.Errorf("label column 2: %v", err)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("a\tone\nno tab here\n"), 0o644)
	if _, err := Load(context.Background(), bad, LoadOptions{CSV: CSVOptions{LabelColumn: "1"}}); err == nil || !strings.Contains(err.Error(), "bad.txt:2") {
		t.Errorf("a line without a tab: %v", err)
	}
	// A NUL inside a line of text separates words; a line of control
	// bytes is binary: an error naming it, or left out on request.
	bin := filepath.Join(dir, "bin.txt")
	os.WriteFile(bin, []byte("fine words\nstray\x00nul among many words\n\x01\x02\x03\x04ab\ngood words\n"), 0o644)
	if _, err := Load(context.Background(), bin, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "bin.txt:3") || !strings.Contains(err.Error(), "binary") {
		t.Errorf("a binary line: %v", err)
	}
	d, err = Load(context.Background(), bin, LoadOptions{Text: TextOptions{SkipUnreadable: true}})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := d.Dims(); n != 3 || !slices.Equal(d.Skipped, []string{"line 3"}) || !slices.Contains(d.Vocabulary, "stray") || !slices.Contains(d.Vocabulary, "nul") {
		t.Errorf("skipping: %d documents, skipped %v, vocabulary %v", n, d.Skipped, d.Vocabulary)
	}
}

// TestTextDirPaddingAndBinary: files that end in NUL padding or hold a
// stray control byte are read as text; a binary file among them is
// refused, naming it and the way out, or left out and reported with
// SkipUnreadable.
func TestTextDirPaddingAndBinary(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string, b []byte) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/padded", append([]byte("markets rallied on strong earnings"), make([]byte, 4096)...))
	write("a/escape", []byte("markets fell\x1b[0m as earnings\x00disappointed"))
	write("b/plain", []byte("the striker scored twice in the final"))
	noise := make([]byte, 2000)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	write("b/photo.jpg", noise)
	_, err := Load(context.Background(), dir, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "photo.jpg") || !strings.Contains(err.Error(), "binary") || !strings.Contains(err.Error(), "skip-unreadable") {
		t.Errorf("a binary file: %v", err)
	}
	d, err := Load(context.Background(), dir, LoadOptions{Text: TextOptions{SkipUnreadable: true}})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := d.Dims()
	if n != 3 || !slices.Equal(d.Skipped, []string{"b/photo.jpg"}) || !slices.Contains(d.Vocabulary, "disappoint") || !slices.Contains(d.Vocabulary, "earn") {
		t.Errorf("%d documents, skipped %v, vocabulary %v", n, d.Skipped, d.Vocabulary)
	}
	if !strings.Contains(strings.Join(d.Notes, "\n"), "skipped 1 unreadable files (binary or not readable): b/photo.jpg") {
		t.Errorf("notes %q", d.Notes)
	}
	// The files that hold the others' text, alone: no error at all.
	os.Remove(filepath.Join(dir, "b/photo.jpg"))
	if d, err := Load(context.Background(), dir, LoadOptions{}); err != nil {
		t.Errorf("padded and escaped files: %v", err)
	} else if d.Skipped != nil {
		t.Errorf("padded and escaped files: skipped %v", d.Skipped)
	}
}

// FuzzStripText: no message panics the stripper, and it only removes.
func FuzzStripText(f *testing.F) {
	f.Add("From: a\n\nbody\n> q\n-- \nsig", uint8(7))
	f.Add("", uint8(1))
	f.Add("--\n--\n", uint8(2))
	f.Fuzz(func(t *testing.T, text string, s uint8) {
		out := Strip(s & 7).Apply(text)
		if len(out) > len(strings.ReplaceAll(text, "\r\n", "\n"))+1 {
			t.Fatalf("%q grew to %q", text, out)
		}
	})
}

// FuzzLoadTextLines: no file of lines panics the reader; a corpus it
// returns is valid, with labels exactly when asked for.
func FuzzLoadTextLines(f *testing.F) {
	f.Add([]byte("a\tone two\nb\tthree\n"), true)
	f.Add([]byte("caf\xe9 na\xefve\n\n\nword\r\n"), false)
	f.Add([]byte("\t\t\n"), true)
	f.Fuzz(func(t *testing.T, b []byte, labelled bool) {
		path := filepath.Join(t.TempDir(), "f.txt")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		d, _, err := LoadTextLines(context.Background(), path, labelled, TextOptions{})
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
		if (d.Labels != nil) != labelled {
			t.Fatalf("labels %v, labelled %v", d.Labels, labelled)
		}
	})
}

// TestFormatsEndWhereTheyEnd: bytes after an .npy file's array, or after
// the zlib stream inside a .mat file's compressed element, are an error
// that names the file, where they were dropped without a word.
func TestFormatsEndWhereTheyEnd(t *testing.T) {
	dir := t.TempDir()
	a := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	var npy bytes.Buffer
	if err := matrixio.WriteNPY(&npy, a); err != nil {
		t.Fatal(err)
	}
	good, bad := filepath.Join(dir, "a.npy"), filepath.Join(dir, "b.npy")
	os.WriteFile(good, npy.Bytes(), 0o644)
	os.WriteFile(bad, append(npy.Bytes(), 0, 0, 0, 0, 0, 0, 0, 0), 0o644)
	if _, err := Load(context.Background(), good, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), bad, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "b.npy") || !strings.Contains(err.Error(), "bytes after its 2 x 2 array") {
		t.Errorf("bytes after an .npy array: %v", err)
	}
	var m5 bytes.Buffer
	if err := WriteMAT(&m5, MATWriteVar{Name: "fea", Dense: a}); err != nil {
		t.Fatal(err)
	}
	b := m5.Bytes()
	// The first element follows the 128-byte header: a compressed one,
	// whose size grows by the 8 bytes put after its stream.
	if typ := binary.LittleEndian.Uint32(b[128:]); typ != 15 {
		t.Fatalf("element type %d, want miCOMPRESSED", typ)
	}
	size := binary.LittleEndian.Uint32(b[132:])
	end := 136 + int(size)
	padded := append(append(slices.Clone(b[:end]), 1, 2, 3, 4, 5, 6, 7, 8), b[end:]...)
	binary.LittleEndian.PutUint32(padded[132:], size+8)
	mpath := filepath.Join(dir, "c.mat")
	os.WriteFile(mpath, padded, 0o644)
	if _, err := Load(context.Background(), mpath, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "c.mat") || !strings.Contains(err.Error(), "8 bytes after the end of the compressed stream") {
		t.Errorf("bytes after a compressed stream: %v", err)
	}
}

// TestComposedAndDecomposedAreOneTerm: a word typed with a combining
// accent and its precomposed form count as one term (Unicode NFC).
func TestComposedAndDecomposedAreOneTerm(t *testing.T) {
	docs := []Document{{Text: "caf\u00e9 au lait"}, {Text: "cafe\u0301 noir"}, {Text: "caf\u00e9 noir"}}
	d, _, err := Vectorize(context.Background(), "nfc", docs, TextOptions{NoStem: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(d.Vocabulary, "caf\u00e9") || slices.Contains(d.Vocabulary, "cafe\u0301") || len(d.Vocabulary) != 4 {
		t.Errorf("vocabulary %q", d.Vocabulary)
	}
}

// TestTextLinesEndings: lines end at "\n", "\r\n" or a lone "\r" (old Mac
// files), so a file of 60 documents is 60, not one.
func TestTextLinesEndings(t *testing.T) {
	dir := t.TempDir()
	for name, sep := range map[string]string{"lf.txt": "\n", "crlf.txt": "\r\n", "cr.txt": "\r"} {
		var b strings.Builder
		for i := 0; i < 60; i++ {
			fmt.Fprintf(&b, "document number %c about markets%s", 'a'+i%26, sep)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(b.String()), 0o644)
		d, err := Load(context.Background(), p, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := d.Dims(); n != 60 {
			t.Errorf("%s: %d documents, want 60", name, n)
		}
	}
}

// TestTextDirLinks: a link to a document is read as the document; a link
// to a folder is left out and said so.
func TestTextDirLinks(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "1"), []byte("markets rallied today"), 0o644)
	os.WriteFile(filepath.Join(elsewhere, "2"), []byte("markets fell today"), 0o644)
	if err := os.Symlink(filepath.Join(elsewhere, "2"), filepath.Join(dir, "a", "2")); err != nil {
		t.Skip(err)
	}
	os.Symlink(elsewhere, filepath.Join(dir, "a", "loop"))
	d, err := Load(context.Background(), dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := d.Dims(); n != 2 || !strings.Contains(strings.Join(d.Notes, "\n"), "left out 1 entries") {
		t.Errorf("%d documents, notes %q", n, d.Notes)
	}
}

// TestTextBudget: a small compressed file of a million tiny documents
// holds far more documents than text: it is refused at the bound (64
// times the file, at least 256 MB), not read into memory.
func TestTextBudget(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tiny.txt.gz")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	line := []byte("ab\n")
	for i := 0; i < 600_000; i++ {
		zw.Write(line)
	}
	zw.Close()
	os.WriteFile(p, b.Bytes(), 0o644)
	if _, err := Load(context.Background(), p, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "tiny.txt.gz: its text and documents pass") {
		t.Errorf("600,000 tiny documents in %d bytes: %v", b.Len(), err)
	}
}

// TestReutersFileInATextFolder: a corpus of class folders with one
// Reuters SGML file among them is refused, naming both, where it was read
// as Reuters and its documents vanished; other files beside a Reuters
// directory's SGML are said to be unread.
func TestReutersFileInATextFolder(t *testing.T) {
	sgm, err := os.ReadFile("../testdata/demo/reuters-demo.sgm.gz")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sport"), 0o755)
	os.WriteFile(filepath.Join(dir, "sport", "1"), []byte("the striker scored"), 0o644)
	os.WriteFile(filepath.Join(dir, "reut2-000.sgm.gz"), sgm, 0o644)
	if _, err := Load(context.Background(), dir, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "both Reuters-21578 SGML files and folders (sport)") {
		t.Errorf("class folders and an SGML file: %v", err)
	}
	os.RemoveAll(filepath.Join(dir, "sport"))
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("my notes"), 0o644)
	d, err := Load(context.Background(), dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(d.Notes, "\n"), "1 other files are not read (notes.txt)") {
		t.Errorf("notes %q", d.Notes)
	}
}
