package dataset

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/testenv"
)

func tokens(text string, keepNumbers bool) []string {
	var out []string
	Tokenize(text, keepNumbers, func(tok string) { out = append(out, tok) })
	return out
}

func TestTokenize(t *testing.T) {
	for _, c := range []struct {
		in          string
		want, withN []string
	}{
		{"", nil, nil},
		{"  ,.;  ", nil, nil},
		{"Hello, World!", []string{"hello", "world"}, nil},
		{"U.S. don't co-operate", []string{"u", "s", "don", "t", "co", "operate"}, nil},
		{"abc123 456 7up x 1,750 dlrs", []string{"x", "dlrs"}, []string{"abc123", "456", "7up", "x", "1", "750", "dlrs"}},
		{"snake_case tab\tnew\nline\x03end\x1fx", []string{"snake", "case", "tab", "new", "line", "end", "x"}, nil},
		{"Straße ÉCOLE naïve Ωmega 東京 İstanbul", []string{"straße", "école", "naïve", "ωmega", "東京", "istanbul"}, nil},
		{"cafe\u0301 e\u0301", []string{"cafe\u0301", "e\u0301"}, nil},
		{"٣٤ x٣ ½ x²", []string{"x"}, []string{"٣٤", "x٣", "x"}},
		{"ab\xffcd\xc3", []string{"ab", "cd"}, nil},
		{"a\u00a0b\u2014c\u3000d", []string{"a", "b", "c", "d"}, nil},
		{"<Cominco Ltd> &amp; &#3;", []string{"cominco", "ltd", "amp", "3"}[:3], []string{"cominco", "ltd", "amp", "3"}},
	} {
		if c.withN == nil {
			c.withN = c.want
		}
		if got := tokens(c.in, false); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := tokens(c.in, true); !reflect.DeepEqual(got, c.withN) {
			t.Errorf("Tokenize(%q, keepNumbers) = %q, want %q", c.in, got, c.withN)
		}
	}
}

func TestStopWords(t *testing.T) {
	sw := StopWords()
	if len(sw) < 250 || len(sw) > 350 || !sort.StringsAreSorted(sw) {
		t.Errorf("%d stop words, sorted %v", len(sw), sort.StringsAreSorted(sw))
	}
	for _, w := range sw {
		if got := tokens(w, true); len(got) != 1 || got[0] != w {
			t.Errorf("stop word %q is not one lower-case token", w)
		}
	}
	for _, w := range []string{"the", "and", "of", "would", "themselves", "s", "don"} {
		if !contains(sw, w) {
			t.Errorf("%q is not a stop word", w)
		}
	}
	for _, w := range []string{"said", "oil", "bank", "price"} {
		if contains(sw, w) {
			t.Errorf("%q is a stop word", w)
		}
	}
}

// vocab vectorizes texts and returns the vocabulary.
func vocab(t *testing.T, opt TextOptions, texts ...string) []string {
	t.Helper()
	d, _, err := Vectorize(context.Background(), "test", textDocs(texts...), opt)
	if err != nil {
		t.Fatal(err)
	}
	return d.Vocabulary
}

func textDocs(texts ...string) []Document {
	docs := make([]Document, len(texts))
	for i, s := range texts {
		docs[i].Text = s
	}
	return docs
}

func TestVectorizeTerms(t *testing.T) {
	text := "The companies were running and the company runs; it ran 3 times in 1987. Earnings, dividends!"
	for _, c := range []struct {
		opt  TextOptions
		want []string
	}{
		{TextOptions{}, []string{"compani", "dividend", "earn", "ran", "run", "time"}},
		{TextOptions{NoStem: true}, []string{"companies", "company", "dividends", "earnings", "ran", "running", "runs", "times"}},
		{TextOptions{NoStopWords: true}, []string{"and", "compani", "dividend", "earn", "in", "it", "ran", "run", "the", "time", "were"}},
		{TextOptions{KeepNumbers: true}, []string{"1987", "3", "compani", "dividend", "earn", "ran", "run", "time"}},
	} {
		if got := vocab(t, c.opt, text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: vocabulary %q, want %q", c.opt, got, c.want)
		}
	}
	// Words too long to be English are not stemmed.
	long := strings.Repeat("ab", 40) + "ing"
	if got := vocab(t, TextOptions{}, long, "jumping"); !reflect.DeepEqual(got, []string{long, "jump"}) {
		t.Errorf("long word: %q", got)
	}
}

func TestVectorizeDocumentFrequency(t *testing.T) {
	texts := []string{"apple banana cherry", "apple banana", "apple date", "apple egg egg egg"}
	opt := TextOptions{NoStem: true}
	for _, c := range []struct {
		minDF int
		maxDF float64
		want  []string
	}{
		{0, 0, []string{"apple", "banana", "cherry", "date", "egg"}},
		{1, 1, []string{"apple", "banana", "cherry", "date", "egg"}},
		{2, 0, []string{"apple", "banana"}},
		{0, 0.75, []string{"banana", "cherry", "date", "egg"}},
		{0, 0.5, []string{"banana", "cherry", "date", "egg"}},
		{0, 0.49, []string{"cherry", "date", "egg"}},
		{2, 0.5, []string{"banana"}},
	} {
		opt.MinDF, opt.MaxDF = c.minDF, c.maxDF
		if got := vocab(t, opt, texts...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("MinDF %d, MaxDF %v: %q, want %q", c.minDF, c.maxDF, got, c.want)
		}
	}
	opt.MinDF = 5
	_, _, err := Vectorize(context.Background(), "tiny", textDocs(texts...), opt)
	testenv.WantErr(t, err, "tiny: no terms left", "4 documents, 5 distinct terms")
}

// TestVectorizeCounts: the values are the term counts, and the data set
// records the pipeline (weighing is model.Prepare's).
func TestVectorizeCounts(t *testing.T) {
	texts := []string{"red red blue", "blue green", "green green green red", "red"}
	terms := []string{"blue", "green", "red"}
	counts := [][]float64{{1, 0, 2}, {1, 1, 0}, {0, 3, 1}, {0, 0, 1}}
	for _, opt := range []TextOptions{{}, {NoStem: true, MinDF: 1}} {
		d, st, err := Vectorize(context.Background(), "colours", textDocs(texts...), opt)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d.Vocabulary, terms) || d.Labels != nil || d.IDs != nil || d.ClassNames != nil {
			t.Fatalf("%+v: vocabulary %q, labels %v, IDs %q", opt, d.Vocabulary, d.Labels, d.IDs)
		}
		if st.Tokens != 10 || st.Terms != 3 || st.Features != 3 || st.NNZ != 7 || st.Kept != 4 || st.Articles != 4 {
			t.Errorf("stats %+v", st)
		}
		if d.Text == nil || *d.Text != opt || d.Weighted {
			t.Errorf("%+v: Text %v, Weighted %v", opt, d.Text, d.Weighted)
		}
		// Weighing or scaling them by hand says so, for a preparation
		// that must not weigh them again.
		w := d.SelectSamples([]int{0, 1, 2, 3})
		if err := w.TFIDF(); err != nil || !w.Weighted {
			t.Errorf("%+v: TFIDF: %v, Weighted %v", opt, err, w.Weighted)
		}
		if w := d.SelectSamples([]int{0, 1}); w.NormalizeL2() >= 0 && !w.Weighted {
			t.Errorf("%+v: NormalizeL2 left Weighted false", opt)
		}
		for i, row := range counts {
			for j, tf := range row {
				if got := d.Sparse.At(i, j); got != tf {
					t.Errorf("%+v: x[%d][%s] = %v, want %v", opt, i, terms[j], got, tf)
				}
			}
		}
	}
}

func TestVectorizeEmpty(t *testing.T) {
	docs := []Document{
		{ID: "a", Label: "x", Text: "alpha beta"},
		{ID: "b", Label: "y", Text: "the of and 1987"},
		{ID: "c", Label: "y", Text: "beta gamma"},
		{ID: "d", Label: "y", Text: ""},
		{ID: "e", Label: "z", Text: "gamma"},
	}
	d, st, err := Vectorize(context.Background(), "t", docs, TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := d.Dims(); n != 5 || st.Empty != 2 || !reflect.DeepEqual(st.EmptyDocs, []int{1, 3}) || !reflect.DeepEqual(st.EmptyIDs, []string{"b", "d"}) {
		t.Errorf("%d rows, stats %+v", n, st)
	}
	if !reflect.DeepEqual(d.Labels, []int{2, 1, 1, 1, 3}) || !reflect.DeepEqual(d.ClassNames, map[int]string{1: "y", 2: "x", 3: "z"}) {
		t.Errorf("labels %v %v", d.Labels, d.ClassNames)
	}
	if want := []string{"t: 2 of 5 documents have no term left after the text pipeline, kept as all-zero rows (b, d)"}; !reflect.DeepEqual(d.Notes, want) {
		t.Errorf("notes %q, want %q", d.Notes, want)
	}
	if zero := d.NormalizeL2(); zero != 2 {
		t.Errorf("%d all-zero rows, want 2", zero)
	}

	d, st, err = Vectorize(context.Background(), "t", docs, TextOptions{DropEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	// Without the empty documents, y has one document: classes renumbered.
	if n, _ := d.Dims(); n != 3 || st.Empty != 2 || st.Kept != 5 || !reflect.DeepEqual(d.IDs, []string{"a", "c", "e"}) ||
		!reflect.DeepEqual(d.Labels, []int{1, 2, 3}) || !reflect.DeepEqual(d.ClassNames, map[int]string{1: "x", 2: "y", 3: "z"}) {
		t.Errorf("DropEmpty: %d rows, IDs %q, labels %v %v, stats %+v", n, d.IDs, d.Labels, d.ClassNames, st)
	}
	if zero := d.NormalizeL2(); zero != 0 {
		t.Errorf("DropEmpty: %d all-zero rows", zero)
	}

	// tf-idf over the rows left: gamma is in 2 of 3 documents.
	if got := d.Sparse.At(2, 2); math.Abs(got-1) > 1e-15 {
		t.Errorf("x[e][gamma] = %v, want 1", got)
	}
	_, _, err = Vectorize(context.Background(), "t", docs[1:2], TextOptions{DropEmpty: true})
	testenv.WantErr(t, err, "t: no terms left")
	_, _, err = Vectorize(context.Background(), "t", nil, TextOptions{})
	testenv.WantErr(t, err, "t: no documents")
}

func TestVectorizeLabels(t *testing.T) {
	docs := []Document{{Label: "b", Text: "word"}, {Label: "a", Text: "word"}, {Text: "word"}, {Label: "c", Text: "word"}, {Label: "c", Text: "word"}, {Label: "b", Text: "word"}}
	d, _, err := Vectorize(context.Background(), "t", docs, TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Sizes b 2, c 2, a 1: ties by name.
	if !reflect.DeepEqual(d.Labels, []int{1, 3, 0, 2, 2, 1}) || !reflect.DeepEqual(d.ClassNames, map[int]string{1: "b", 2: "c", 3: "a"}) {
		t.Errorf("labels %v, names %v", d.Labels, d.ClassNames)
	}
}

func TestVectorizeOptions(t *testing.T) {
	for _, c := range []struct {
		opt  TextOptions
		want string
	}{
		{TextOptions{MinDF: -1}, "MinDF -1 is negative"},
		{TextOptions{MaxDF: -0.5}, "MaxDF -0.5"},
		{TextOptions{MaxDF: 1.5}, "MaxDF 1.5"},
		{TextOptions{MaxDF: math.NaN()}, "MaxDF NaN"},
	} {
		_, _, err := Vectorize(context.Background(), "t", textDocs("a b"), c.opt)
		testenv.WantErr(t, err, c.want)
		_, _, err = LoadTextDir(context.Background(), t.TempDir(), c.opt)
		testenv.WantErr(t, err, c.want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := Vectorize(ctx, "t", textDocs("a b"), TextOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// randomCorpus makes n documents of words drawn from a small vocabulary
// with a skewed distribution, some numbers and stop words.
func randomCorpus(rng *rand.Rand, n int) []Document {
	words := []string{"oil", "prices", "price", "rose", "rising", "the", "of", "bank", "banks", "banking", "1987", "x2", "Grain", "GRAINS", "é", "naïve", "shares"}
	docs := make([]Document, n)
	for i := range docs {
		var b strings.Builder
		for k := rng.IntN(30); k > 0; k-- {
			b.WriteString(words[int(float64(len(words))*rng.Float64()*rng.Float64())])
			b.WriteString(", ")
		}
		docs[i] = Document{ID: fmt.Sprint(i), Label: string(rune('a' + rng.IntN(4))), Text: b.String()}
	}
	return docs
}

// TestVectorizeWorkers checks that the result does not depend on the
// number of workers, against a plain one-document-at-a-time reference.
func TestVectorizeWorkers(t *testing.T) {
	docs := randomCorpus(rand.New(rand.NewPCG(1, 2)), 3000)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	opt := TextOptions{MinDF: 2, MaxDF: 0.9}
	var first *Dataset
	for _, procs := range []int{1, 2, 3, 8} {
		runtime.GOMAXPROCS(procs)
		d, st, err := Vectorize(context.Background(), "t", docs, opt)
		if err != nil {
			t.Fatal(err)
		}
		if st.Empty == 0 {
			t.Fatal("no empty document in the test corpus")
		}
		if first == nil {
			first = d
			continue
		}
		if !reflect.DeepEqual(d, first) {
			t.Errorf("%d workers: result differs from 1 worker", procs)
		}
	}
	runtime.GOMAXPROCS(2)

	// Reference: count each document's terms with Tokenize and a map.
	stem := map[string]string{"prices": "price", "rising": "rise", "banks": "bank", "banking": "bank", "grains": "grain", "shares": "share", "naïve": "naïv"}
	counts := make([]map[string]float64, len(docs))
	df := make(map[string]int)
	for i, doc := range docs {
		counts[i] = make(map[string]float64)
		Tokenize(doc.Text, false, func(w string) {
			if w == "the" || w == "of" {
				return
			}
			if s, ok := stem[w]; ok {
				w = s
			}
			if counts[i][w] == 0 {
				df[w]++
			}
			counts[i][w]++
		})
	}
	var terms []string
	for w, f := range df {
		if f >= 2 && float64(f) <= 0.9*float64(len(docs)) {
			terms = append(terms, w)
		}
	}
	sort.Strings(terms)
	if !reflect.DeepEqual(first.Vocabulary, terms) {
		t.Fatalf("vocabulary %q, want %q", first.Vocabulary, terms)
	}
	for i := range docs {
		for j, w := range terms {
			if got := first.Sparse.At(i, j); got != counts[i][w] {
				t.Fatalf("doc %d, %q: %v, want %v", i, w, got, counts[i][w])
			}
		}
	}
}

func TestLoadTextDir(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"sport/a.txt":          "Football scores rise",
		"sport/b.TXT":          "football again",
		"sport/deep/c.txt":     "tennis scores",
		"politics/d.txt":       "election results",
		"politics/notes.md":    "not a document",
		".hidden/e.txt":        "hidden",
		"sport/.f.txt":         "hidden too",
		"weather/readme":       "no document",
		"politics/empty.txt":   "",
		"politics/numbers.txt": "1987 2024",
	}
	for name, text := range files {
		os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755)
		testenv.WriteFile(t, root, name, []byte(text))
	}
	d, st, err := LoadTextDir(context.Background(), root, TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Every file but the hidden ones, whatever its extension.
	wantIDs := []string{"politics/d.txt", "politics/empty.txt", "politics/notes.md", "politics/numbers.txt", "sport/a.txt", "sport/b.TXT", "sport/deep/c.txt", "weather/readme"}
	if !reflect.DeepEqual(d.IDs, wantIDs) || !reflect.DeepEqual(d.Labels, []int{1, 1, 1, 1, 2, 2, 2, 3}) ||
		!reflect.DeepEqual(d.ClassNames, map[int]string{1: "politics", 2: "sport", 3: "weather"}) {
		t.Errorf("IDs %q, labels %v, names %v", d.IDs, d.Labels, d.ClassNames)
	}
	if !reflect.DeepEqual(d.Vocabulary, []string{"document", "elect", "footbal", "result", "rise", "score", "tenni"}) {
		t.Errorf("vocabulary %q", d.Vocabulary)
	}
	if st.Articles != 8 || st.Empty != 2 || !reflect.DeepEqual(st.EmptyIDs, []string{"politics/empty.txt", "politics/numbers.txt"}) || d.Source != root {
		t.Errorf("stats %+v, source %q", st, d.Source)
	}
	checkTextDatasetRows(t, d)

	// Unlabelled: every file in the root.
	flat := t.TempDir()
	testenv.WriteFile(t, flat, "one.txt", []byte("alpha beta"))
	testenv.WriteFile(t, flat, "two.txt", []byte("beta gamma"))
	d, _, err = LoadTextDir(context.Background(), flat, TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Labels != nil || d.ClassNames != nil || !reflect.DeepEqual(d.IDs, []string{"one.txt", "two.txt"}) {
		t.Errorf("flat: labels %v, IDs %q", d.Labels, d.IDs)
	}

	// A file beside class folders.
	testenv.WriteFile(t, root, "stray.txt", []byte("lost"))
	_, _, err = LoadTextDir(context.Background(), root, TextOptions{})
	testenv.WantErr(t, err, filepath.Join(root, "stray.txt")+": file directly in", "beside class folders")

	_, _, err = LoadTextDir(context.Background(), filepath.Join(root, "missing"), TextOptions{})
	testenv.WantErr(t, err, "missing: ", "no such file")
	_, _, err = LoadTextDir(context.Background(), filepath.Join(flat, "one.txt"), TextOptions{})
	testenv.WantErr(t, err, "one.txt: not a directory")
	empty := t.TempDir()
	os.Mkdir(filepath.Join(empty, "class"), 0o755)
	_, _, err = LoadTextDir(context.Background(), empty, TextOptions{})
	testenv.WantErr(t, err, empty+": no files")
	stops := t.TempDir()
	testenv.WriteFile(t, stops, "a.txt", []byte("the and of"))
	_, _, err = LoadTextDir(context.Background(), stops, TextOptions{})
	testenv.WantErr(t, err, stops+": no terms left")
	if os.Geteuid() != 0 {
		testenv.WriteFile(t, stops, "b.txt", []byte("x"))
		os.Chmod(filepath.Join(stops, "b.txt"), 0)
		_, _, err = LoadTextDir(context.Background(), stops, TextOptions{})
		testenv.WantErr(t, err, "b.txt: permission denied")
	}
}

// checkTextDatasetRows checks unit length of the non-empty rows.
func checkTextDatasetRows(t *testing.T, d *Dataset) {
	t.Helper()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.Text == nil || d.Weighted {
		t.Errorf("Text %v, Weighted %v: want the pipeline recorded, counts", d.Text, d.Weighted)
	}
	for q, v := range d.Sparse.Val {
		if !(v >= 1) || v != math.Trunc(v) {
			t.Errorf("entry %d: %v is not a term count", q, v)
		}
	}
}

// tokensMatchCounts checks that d's token sequences hold each sample's
// term counts: feature j occurs in sample i's tokens as often as the
// count d holds at (i, j).
func tokensMatchCounts(t *testing.T, d *Dataset) {
	t.Helper()
	n, m := d.Dims()
	if len(d.Tokens) != n {
		t.Fatalf("%d token sequences for %d samples", len(d.Tokens), n)
	}
	for i, seq := range d.Tokens {
		count := make([]float64, m)
		for _, f := range seq {
			if f < -1 || int(f) >= m {
				t.Fatalf("sample %d: token %d outside [-1, %d)", i, f, m)
			}
			if f >= 0 {
				count[f]++
			}
		}
		for j, c := range count {
			if got := d.Sparse.At(i, j); got != c {
				t.Fatalf("sample %d, feature %d: %v tokens, count %v", i, j, c, got)
			}
		}
	}
}

func TestVectorizeTokens(t *testing.T) {
	docs := randomCorpus(rand.New(rand.NewPCG(3, 4)), 2000)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	opt := TextOptions{MinDF: 2, MaxDF: 0.5, DropEmpty: true, Tokens: true}
	var first *Dataset
	for _, procs := range []int{1, 2, 5} {
		runtime.GOMAXPROCS(procs)
		d, _, err := Vectorize(context.Background(), "t", docs, opt)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = d
		} else if !reflect.DeepEqual(d.Tokens, first.Tokens) {
			t.Fatalf("%d workers: tokens differ from 1 worker's", procs)
		}
	}
	d := first
	tokensMatchCounts(t, d)

	// Reference: each kept document's tokens, in order, by Tokenize, with
	// the stop words dropped and the terms pruned as -1.
	col := map[string]int32{}
	for j, w := range d.Vocabulary {
		col[w] = int32(j)
	}
	pruned := 0
	q := 0
	for _, doc := range docs {
		var want []int32
		kept := false
		Tokenize(doc.Text, false, func(w string) {
			one, _, err := Vectorize(context.Background(), "w", []Document{{Text: w}}, TextOptions{})
			if err != nil {
				return // a stop word
			}
			if j, ok := col[one.Vocabulary[0]]; ok {
				want = append(want, j)
				kept = true
			} else {
				want = append(want, -1)
				pruned++
			}
		})
		if !kept {
			continue // dropped as empty
		}
		if !reflect.DeepEqual(d.Tokens[q], want) {
			t.Fatalf("document %d: tokens %v, want %v", q, d.Tokens[q], want)
		}
		q++
	}
	if q != len(d.Tokens) || pruned == 0 {
		t.Fatalf("%d documents kept of %d sequences; %d pruned tokens", q, len(d.Tokens), pruned)
	}

	// Selecting samples and renumbering features keep them in step, and
	// leave the original as it was.
	before := slices.Clone(d.Tokens[1])
	sub := d.SelectSamples([]int{5, 1, 9})
	sub.DropZeroFeatures()
	tokensMatchCounts(t, sub)
	_, m := sub.Dims()
	to := make([]int, m)
	for j := range to {
		to[j] = m - 2 - j // reversed, the last feature dropped
	}
	names := slices.Clone(sub.Vocabulary[:m-1])
	slices.Reverse(names)
	sub.MapFeatures(to, m-1, names)
	tokensMatchCounts(t, sub)
	if !slices.Equal(d.Tokens[1], before) {
		t.Error("renumbering a selection changed the original's tokens")
	}
	if (TextOptions{Tokens: true}).Tokenization().Tokens {
		t.Error("Tokenization keeps Tokens")
	}
}
