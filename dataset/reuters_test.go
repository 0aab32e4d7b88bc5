package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/manifactor/manifactor/internal/testenv"
)

// reutersSnippet is a small file in the layout of the corpus: a normal
// story, a BRIEF, an UNPROC item and an article with several topics.
const reutersSnippet = `<!DOCTYPE lewis SYSTEM "lewis.dtd">
<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="5544" NEWID="1">
<DATE>26-FEB-1987 15:01:01.79</DATE>
<TOPICS><D>cocoa</D></TOPICS>
<PLACES><D>el-salvador</D><D>usa</D></PLACES>
<PEOPLE></PEOPLE>
<UNKNOWN> 
&#5;&#5;&#5;C T
&#22;&#22;&#1;f0704&#31;reute</UNKNOWN>
<TEXT>&#2;
<TITLE>BAHIA COCOA REVIEW</TITLE>
<DATELINE>    SALVADOR, Feb 26 - </DATELINE><BODY>Showers continued in
the Bahia cocoa zone, said &lt;Comissaria Smith> &amp; Co in S` + "\xe3o" + ` Paulo.
 Reuter
&#3;</BODY></TEXT>
</REUTERS>
<REUTERS TOPICS="NO" LEWISSPLIT="TEST" CGISPLIT="PUBLISHED-TESTSET" OLDID="5545" NEWID="2">
<TOPICS></TOPICS>
<PLACES><D>usa</D></PLACES>
<TEXT TYPE="BRIEF">&#2;
******<TITLE>ASSETS OF MONEY MARKET FUNDS ROSE
</TITLE>Blah blah blah.
&#3;

</TEXT>
</REUTERS>
<REUTERS TOPICS="YES" LEWISSPLIT="NOT-USED" CGISPLIT="TRAINING-SET" OLDID="5546" NEWID="3">
<TOPICS><D>money-supply</D></TOPICS>
<TEXT TYPE="UNPROC">&#2;
FEDERAL RESERVE WEEKLY REPORT
 Bank borrowings...............680 vs.......425
 Reuter
&#3;
</TEXT>
</REUTERS>
<reuters newid='14'><topics><d>earn</d><d>acq</d></topics><text><title>a &#x41; b</title><body>x < y</body></text></reuters>
`

func readReutersString(t *testing.T, s string) ([]*Article, error) {
	t.Helper()
	var arts []*Article
	err := ReadReuters(strings.NewReader(s), "test.sgm", func(a *Article) error {
		arts = append(arts, a)
		return nil
	})
	return arts, err
}

func TestReadReuters(t *testing.T) {
	want := []*Article{{
		NewID: 1, Line: 2, Topics: []string{"cocoa"}, Places: []string{"el-salvador", "usa"},
		Title: "BAHIA COCOA REVIEW", Dateline: "SALVADOR, Feb 26 -",
		Body:       "Showers continued in\nthe Bahia cocoa zone, said <Comissaria Smith> & Co in São Paulo.\n Reuter",
		LewisSplit: "TRAIN", CGISplit: "TRAINING-SET",
	}, {
		NewID: 2, Line: 17, Places: []string{"usa"}, Title: "ASSETS OF MONEY MARKET FUNDS ROSE",
		LewisSplit: "TEST", CGISplit: "PUBLISHED-TESTSET", Type: "BRIEF",
	}, {
		NewID: 3, Line: 27, Topics: []string{"money-supply"},
		Body:       "FEDERAL RESERVE WEEKLY REPORT\n Bank borrowings...............680 vs.......425\n Reuter",
		LewisSplit: "NOT-USED", CGISplit: "TRAINING-SET", Type: "UNPROC",
	}, {
		NewID: 14, Line: 36, Topics: []string{"earn", "acq"}, Title: "a A b", Body: "x < y",
	}}
	for _, gz := range []bool{false, true} {
		s := reutersSnippet
		if gz {
			s = string(testenv.Gzip([]byte(s)))
		}
		got, err := readReutersString(t, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("gzip %v: %d articles, want %d", gz, len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("gzip %v: article %d:\n got %+v\nwant %+v", gz, i, got[i], want[i])
			}
		}
	}
	if got, want := want[0].Text(), "BAHIA COCOA REVIEW\n"+want[0].Body; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	if got := want[1].Text(); got != want[1].Title {
		t.Errorf("Text() of a brief = %q", got)
	}
	if got := want[2].Text(); got != want[2].Body {
		t.Errorf("Text() without title = %q", got)
	}
}

func TestReadReutersCallbackError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := ReadReuters(strings.NewReader(reutersSnippet), "test.sgm", func(*Article) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("got %v after %d articles, want the callback's error after 1", err, n)
	}
}

func TestReadReutersErrors(t *testing.T) {
	const head = "<REUTERS NEWID=\"7\">\n"
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"unclosed element", head + "<TEXT><TITLE>x</TITLE>\n<BODY>abc\n", []string{"test.sgm:3:", "<BODY> not closed at end of file"}},
		{"unclosed article", head + "<TOPICS></TOPICS>\n", []string{"test.sgm:1:", "<REUTERS> not closed"}},
		{"mismatched end", head + "<TEXT><TITLE>x</BODY>", []string{"test.sgm:2:", "</BODY> closes <TITLE> opened at line 2"}},
		{"end without start", "</REUTERS>", []string{"test.sgm:1:", "</REUTERS> without a start tag"}},
		{"unclosed tag", head + "<TEXT <TITLE>x</TITLE></TEXT></REUTERS>", []string{"test.sgm:2:", "'<' inside tag"}},
		{"tag at end", head + "<TEXT", []string{"test.sgm:2:", "not closed by '>'"}},
		{"nested article", head + "\n" + head, []string{"test.sgm:3:", "inside the <REUTERS> of line 1"}},
		{"no NEWID", "<REUTERS OLDID=\"5\"></REUTERS>", []string{"test.sgm:1:", "without a NEWID"}},
		{"bad NEWID", "\n<REUTERS NEWID=\"12a\"></REUTERS>", []string{"test.sgm:2:", `bad NEWID "12a"`}},
		{"zero NEWID", "<REUTERS NEWID=\"0\"></REUTERS>", []string{"bad NEWID \"0\""}},
		{"negative NEWID", "<REUTERS NEWID=-3></REUTERS>", []string{"bad NEWID \"-3\""}},
		{"bad attributes", "<REUTERS NEWID=\"1></REUTERS>", []string{"test.sgm:1:", "unterminated value of attribute NEWID"}},
		{"attribute without value", "<REUTERS NEWID></REUTERS>", []string{"attribute NEWID without a value"}},
		{"TOPICS without D", head + "<TOPICS>earn</TOPICS></REUTERS>", []string{"test.sgm:2:", `<TOPICS> holds text "earn" outside <D> elements`}},
		{"text outside", "hello\n<REUTERS NEWID=\"1\"></REUTERS>", []string{"test.sgm:1:", `text "hello" outside <REUTERS>`}},
		{"tag outside", "\n\n<TITLE>x</TITLE>", []string{"test.sgm:3:", "<TITLE> outside <REUTERS>"}},
		{"bad char ref", head + "<TEXT><BODY>a\nb &#3x; c</BODY></TEXT></REUTERS>", []string{"test.sgm:3:", `bad character reference "&#3x"`}},
		{"empty char ref", head + "<TEXT><TITLE>&#;</TITLE></TEXT></REUTERS>", []string{"test.sgm:2:", "bad character reference"}},
		{"char ref too big", head + "<TEXT><TITLE>&#99999999;</TITLE></TEXT></REUTERS>", []string{"test.sgm:2:", `character reference out of range "&#99999999;"`}},
		{"char ref too long", head + "<TEXT><TITLE>&#000000001;</TITLE></TEXT></REUTERS>", []string{"test.sgm:2:", "bad character reference"}},
		{"surrogate", head + "<TEXT><TITLE>&#55296;</TITLE></TEXT></REUTERS>", []string{"test.sgm:2:", "out of range"}},
		{"unknown entity", head + "<TEXT>\n\n<TITLE>&nbsp;</TITLE></TEXT></REUTERS>", []string{"test.sgm:4:", `unknown entity "&nbsp;"`}},
		{"bad char ref in D", head + "<TOPICS><D>&#a;</D></TOPICS></REUTERS>", []string{"test.sgm:2:", "bad character reference"}},
		{"deep nesting", head + strings.Repeat("<X>", 20), []string{"nested more than 16 deep"}},
		{"bad end tag", head + "</ REUTERS x>", []string{"test.sgm:2:", "bad end tag"}},
	} {
		_, err := readReutersString(t, c.in)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, p := range c.want {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("%s: error %q does not contain %q", c.name, err, p)
			}
		}
	}
}

func TestReadReutersLenient(t *testing.T) {
	// A literal '<' or '&', empty <D>, unknown elements and tags in any
	// case are accepted.
	arts, err := readReutersString(t, "<reuters NEWID=9 x='y z'>\n<Topics><D> </D><d>grain</d></TOPICS><NEW a=\"b\">skip &bogus</NEW><TEXT><BODY>AT&T < 5 &amp c</BODY></TEXT></REUTERS>\n<")
	if err == nil || !strings.Contains(err.Error(), `text "<" outside <REUTERS>`) {
		t.Errorf("trailing '<': error %v", err)
	}
	if len(arts) != 1 {
		t.Fatalf("%d articles", len(arts))
	}
	a := arts[0]
	if a.NewID != 9 || !reflect.DeepEqual(a.Topics, []string{"grain"}) || a.Body != "AT&T < 5 &amp c" {
		t.Errorf("got %+v", a)
	}
}

func TestReadReutersTruncated(t *testing.T) {
	z := testenv.Gzip([]byte(reutersSnippet))
	for _, n := range []int{1, 5, 20, len(z) / 2, len(z) - 4} {
		_, err := readReutersString(t, string(z[:n]))
		if err == nil {
			t.Errorf("gzip stream cut at %d of %d bytes: no error", n, len(z))
			continue
		}
		if !strings.HasPrefix(err.Error(), "test.sgm:") {
			t.Errorf("cut at %d: error %q does not name the file", n, err)
		}
	}
	_, err := readReutersString(t, string(z[:len(z)/2]))
	testenv.WantErr(t, err, "test.sgm:", "unexpected end of data (truncated file?)")
	// Plain text cut inside an article.
	_, err = readReutersString(t, reutersSnippet[:200])
	testenv.WantErr(t, err, "test.sgm:", "not closed")
}

// endless yields prefix and then repeat for ever.
type endless struct {
	prefix, repeat string
	off            int
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.prefix)
	e.prefix = e.prefix[n:]
	for ; n < len(p); n++ {
		p[n] = e.repeat[e.off]
		e.off = (e.off + 1) % len(e.repeat)
	}
	return n, nil
}

func TestReadReutersBounded(t *testing.T) {
	defer func(a, b int) { maxReutersArticle, maxSGMLTag = a, b }(maxReutersArticle, maxSGMLTag)
	maxReutersArticle, maxSGMLTag = 1<<20, 4096
	for _, c := range []struct {
		name string
		r    io.Reader
		want string
	}{
		{"endless tag", &endless{prefix: "<REUTERS NEWID=\"1\" ", repeat: "a"}, "big.sgm:1: tag \"<REUTERS NEWID=\\\"1\\\" aaaaaaaaaaaaaaaaaaaaa\"... longer than 4096 bytes"},
		{"endless text", &endless{prefix: "<REUTERS NEWID=\"1\"><TEXT><BODY>", repeat: "a"}, "big.sgm:1: article longer than 1048576 bytes"},
		{"endless lines", &endless{prefix: "\n<REUTERS NEWID=\"1\"><TEXT><BODY>", repeat: "\n"}, "big.sgm:2: article longer than 1048576 bytes"},
		{"endless skipped text", &endless{prefix: "<REUTERS NEWID=\"1\"><UNKNOWN>", repeat: "ab\n"}, "article longer than"},
		{"endless elements", &endless{prefix: "<REUTERS NEWID=\"1\">", repeat: "<X>&#3;</X>"}, "article longer than"},
		{"endless text outside", &endless{prefix: "\n\n", repeat: "b"}, "big.sgm:3: text \"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"... outside <REUTERS>"},
		{"endless blank", &endless{repeat: " \n"}, ""},
	} {
		if c.want == "" {
			c.r = io.LimitReader(c.r, 8<<20)
		}
		var err error
		n := testenv.Allocated(func() { err = ReadReuters(c.r, "big.sgm", func(*Article) error { return nil }) })
		if c.want != "" {
			testenv.WantErr(t, err, "big.sgm:", c.want)
		} else if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if n > 8<<20 {
			t.Errorf("%s: %d bytes allocated", c.name, n)
		}
	}
}

func TestReutersFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"reut2-001.sgm.gz", "reut2-000.sgm", "lewis.dtd", "README.txt"} {
		testenv.WriteFile(t, dir, f, nil)
	}
	os.Mkdir(filepath.Join(dir, "sub.sgm"), 0o755)
	want := []string{filepath.Join(dir, "reut2-000.sgm"), filepath.Join(dir, "reut2-001.sgm.gz")}
	for _, args := range [][]string{
		{dir},
		{filepath.Join(dir, "reut2-*")},
		{want[1], want[0], dir},
	} {
		got, err := ReutersFiles(args...)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ReutersFiles(%q) = %q, %v; want %q", args, got, err, want)
		}
	}
	_, err := ReutersFiles(filepath.Join(dir, "missing"))
	testenv.WantErr(t, err, "missing: ", "no such file")
	_, err = ReutersFiles(filepath.Join(dir, "x*.sgm"))
	testenv.WantErr(t, err, "x*.sgm: no files match")
	_, err = ReutersFiles(t.TempDir())
	testenv.WantErr(t, err, "no .sgm or .sgm.gz files")
	_, err = ReutersFiles()
	testenv.WantErr(t, err, "no Reuters-21578 paths")
	testenv.WriteFile(t, dir, "reut2-000.sgm.gz", nil)
	_, err = ReutersFiles(dir)
	testenv.WantErr(t, err, "reut2-000.sgm.gz: the same articles as")
}

// reutersArticle writes one article for the loader tests.
func reutersArticle(id int, split, text string, topics ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<REUTERS LEWISSPLIT=%q NEWID=\"%d\">\n<TOPICS>", split, id)
	for _, tp := range topics {
		fmt.Fprintf(&b, "<D>%s</D>", tp)
	}
	fmt.Fprintf(&b, "</TOPICS>\n<TEXT><TITLE>T%d</TITLE><BODY>%s</BODY></TEXT>\n</REUTERS>\n", id, text)
	return b.String()
}

func TestLoadReuters(t *testing.T) {
	dir := t.TempDir()
	var f0, f1 strings.Builder
	// Class sizes among single-label articles: grain 3, corn 2, wheat 2, oil 1.
	f0.WriteString(reutersArticle(1, "TRAIN", "grain harvest", "grain"))
	f0.WriteString(reutersArticle(2, "TEST", "wheat harvest", "wheat"))
	f0.WriteString(reutersArticle(3, "TRAIN", "corn and wheat", "corn", "wheat"))
	f0.WriteString(reutersArticle(4, "TRAIN", "nothing filed", ""))
	f1.WriteString(reutersArticle(5, "TRAIN", "grain prices", "grain"))
	f1.WriteString(reutersArticle(6, "TEST", "corn prices", "corn"))
	f1.WriteString(reutersArticle(7, "TRAIN", "wheat crop", "wheat"))
	f1.WriteString(reutersArticle(8, "NOT-USED", "oil prices", "oil"))
	f1.WriteString(reutersArticle(9, "TRAIN", "grain crop", "grain"))
	f1.WriteString(reutersArticle(10, "TRAIN", "corn crop", "corn"))
	testenv.WriteFile(t, dir, "reut2-000.sgm", []byte(f0.String()))
	testenv.WriteFile(t, dir, "reut2-001.sgm.gz", testenv.Gzip([]byte(f1.String())))
	ctx := context.Background()

	for _, c := range []struct {
		opt     ReutersOptions
		ids     []string
		classes []string // ClassNames[1], [2], ...
		labels  []int
	}{
		{ReutersOptions{}, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}, []string{"corn", "grain", "wheat", "oil"}, []int{2, 3, 1, 0, 2, 1, 3, 4, 2, 1}},
		{ReutersOptions{SingleLabel: true}, []string{"1", "2", "5", "6", "7", "8", "9", "10"}, []string{"grain", "corn", "wheat", "oil"}, []int{1, 3, 1, 2, 3, 4, 1, 2}},
		{ReutersOptions{SingleLabel: true, MinClassSize: 3}, []string{"1", "5", "9"}, []string{"grain"}, []int{1, 1, 1}},
		{ReutersOptions{SingleLabel: true, Largest: 2}, []string{"1", "5", "6", "9", "10"}, []string{"grain", "corn"}, []int{1, 1, 2, 1, 2}},
		{ReutersOptions{MinClassSize: 1}, []string{"1", "2", "3", "5", "6", "7", "8", "9", "10"}, []string{"corn", "grain", "wheat", "oil"}, []int{2, 3, 1, 2, 1, 3, 4, 2, 1}},
		{ReutersOptions{LewisSplit: "test"}, []string{"2", "6"}, []string{"corn", "wheat"}, []int{2, 1}},
	} {
		d, st, err := LoadReuters(ctx, []string{dir}, c.opt)
		if err != nil {
			t.Fatalf("%+v: %v", c.opt, err)
		}
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
		var classes []string
		for l := 1; l <= len(d.ClassNames); l++ {
			classes = append(classes, d.ClassNames[l])
		}
		if !reflect.DeepEqual(d.IDs, c.ids) || !reflect.DeepEqual(classes, c.classes) || !reflect.DeepEqual(d.Labels, c.labels) {
			t.Errorf("%+v: IDs %q classes %q labels %v; want %q %q %v", c.opt, d.IDs, classes, d.Labels, c.ids, c.classes, c.labels)
		}
		if st.Articles != 10 || st.Kept != len(c.ids) || st.SingleLabel != 8 || st.Bodies != 10 {
			t.Errorf("%+v: stats %+v", c.opt, st)
		}
		if d.Source != dir {
			t.Errorf("Source %q, want %q", d.Source, dir)
		}
	}

	// The title counts as text.
	d, _, err := LoadReuters(ctx, []string{filepath.Join(dir, "reut2-000.sgm")}, ReutersOptions{Text: TextOptions{KeepNumbers: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !sort.StringsAreSorted(d.Vocabulary) || !contains(d.Vocabulary, "t1") || !contains(d.Vocabulary, "harvest") {
		t.Errorf("vocabulary %q", d.Vocabulary)
	}

	for _, c := range []struct {
		opt  ReutersOptions
		want string
	}{
		{ReutersOptions{LewisSplit: "DEV"}, `LewisSplit "DEV"`},
		{ReutersOptions{Largest: -1}, "negative"},
		{ReutersOptions{Text: TextOptions{MaxDF: 2}}, "MaxDF 2"},
		{ReutersOptions{SingleLabel: true, MinClassSize: 4}, "no articles left after selection (of 10 read)"},
	} {
		_, _, err := LoadReuters(ctx, []string{dir}, c.opt)
		testenv.WantErr(t, err, c.want)
	}
	_, _, err = LoadReuters(ctx, []string{filepath.Join(dir, "nope")}, ReutersOptions{})
	testenv.WantErr(t, err, "nope: ")

	// Duplicate NEWIDs across files; an error in the second file.
	dup := t.TempDir()
	testenv.WriteFile(t, dup, "a.sgm", []byte(reutersArticle(1, "TRAIN", "x", "a")))
	testenv.WriteFile(t, dup, "b.sgm", []byte(reutersArticle(1, "TRAIN", "y", "b")))
	_, _, err = LoadReuters(ctx, []string{dup}, ReutersOptions{})
	testenv.WantErr(t, err, "b.sgm:1: NEWID 1 already used at ", "a.sgm:1")
	testenv.WriteFile(t, dup, "b.sgm", []byte("\n<REUTERS NEWID=\"x\">"))
	_, _, err = LoadReuters(ctx, []string{dup}, ReutersOptions{})
	testenv.WantErr(t, err, "b.sgm:2: bad NEWID")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, _, err = LoadReuters(cancelled, []string{dir}, ReutersOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// TestReutersRealData checks the reader against the published facts of
// Reuters-21578 (../shared/data/README.md).
func TestReutersRealData(t *testing.T) {
	dir := realData(t, "reuters21578")
	ctx := context.Background()

	files, err := ReutersFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 22 {
		t.Fatalf("%d files, want 22", len(files))
	}
	arts, err := readReutersFiles(ctx, files)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range arts {
		if a.NewID != i+1 {
			t.Fatalf("article %d has NEWID %d (line %d)", i+1, a.NewID, a.Line)
		}
	}
	// The selections of the papers, on the articles read once.
	for _, c := range []struct {
		opt           ReutersOptions
		docs, classes int
	}{
		{ReutersOptions{SingleLabel: true}, 9494, 66},
		{ReutersOptions{SingleLabel: true, MinClassSize: 5}, 9465, 51},
		{ReutersOptions{SingleLabel: true, MinClassSize: 10}, 9411, 43},
		{ReutersOptions{SingleLabel: true, Largest: 30}, 9210, 30},
	} {
		kept := selectArticles(arts, "", c.opt)
		size := make(map[string]int)
		for _, a := range kept {
			size[a.Topics[0]]++
		}
		if len(kept) != c.docs || len(size) != c.classes {
			t.Errorf("%+v: %d articles in %d classes, want %d in %d", c.opt, len(kept), len(size), c.docs, c.classes)
		}
	}

	start := time.Now()
	d, st, err := LoadReuters(ctx, []string{dir}, ReutersOptions{})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	n, m := d.Dims()
	t.Logf("all articles: %v (read %v, vectorize %v); %d x %d, %d non-zeros, %d empty (NEWID %q)", elapsed, st.Read, st.Vectorize, n, m, d.NNZ(), st.Empty, st.EmptyIDs)
	if st.Articles != 21578 || st.Bodies != 19043 || st.Brief != 1798 || st.Unproc != 737 || st.SingleLabel != 9494 || n != 21578 {
		t.Errorf("stats %+v, %d rows; want 21578 articles, 19043 bodies, 1798 BRIEF, 737 UNPROC, 9494 single-label", st, n)
	}
	checkTextDataset(t, d)

	d, st, err = LoadReuters(ctx, []string{dir}, ReutersOptions{SingleLabel: true, MinClassSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	n, m = d.Dims()
	t.Logf("single-label topics with 5 or more articles: %d x %d, %d classes", n, m, len(d.ClassNames))
	if n != 9465 || st.Kept != 9465 || len(d.ClassNames) != 51 {
		t.Errorf("%d documents in %d classes, want 9465 in 51", n, len(d.ClassNames))
	}
	labels, sizes := d.Classes()
	if labels[0] != 1 || labels[len(labels)-1] != 51 {
		t.Errorf("labels %d..%d for 51 classes", labels[0], labels[len(labels)-1])
	}
	for k, name := range []string{"earn", "acq", "crude", "trade", "money-fx"} {
		if want := []int{3945, 2362, 408, 361, 307}[k]; d.ClassNames[k+1] != name || sizes[k] != want {
			t.Errorf("class %d is %q with %d articles, want %q with %d", k+1, d.ClassNames[k+1], sizes[k], name, want)
		}
	}
	if d.IDs[0] != "1" || d.ClassNames[d.Labels[0]] != "cocoa" {
		t.Errorf("first document NEWID %s, topic %q; want 1, cocoa", d.IDs[0], d.ClassNames[d.Labels[0]])
	}
	checkTextDataset(t, d)
}

// checkTextDataset checks what Vectorize promises of a tf-idf, unit-length
// data set.
func checkTextDataset(t *testing.T, d *Dataset) {
	t.Helper()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	n, m := d.Dims()
	if len(d.Vocabulary) != m || len(d.IDs) != n {
		t.Fatalf("%d terms, %d IDs for %d x %d", len(d.Vocabulary), len(d.IDs), n, m)
	}
	for j := 1; j < m; j++ {
		if d.Vocabulary[j-1] >= d.Vocabulary[j] {
			t.Fatalf("vocabulary not sorted and unique at %d: %q, %q", j, d.Vocabulary[j-1], d.Vocabulary[j])
		}
	}
	checkTextDatasetRows(t, d)
	a := d.Sparse
	for j, c := range a.ColNNZ() {
		if c == 0 {
			t.Fatalf("term %q in no document", d.Vocabulary[j])
		}
	}
}
