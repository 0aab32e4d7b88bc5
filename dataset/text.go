package dataset

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"

	"github.com/manifactor/manifactor/internal/fileio"
	"github.com/manifactor/manifactor/sparse"
)

//go:embed stopwords_en.txt
var stopWordsFile string

// stopWordSet is the embedded stop word list as a set.
var stopWordSet = sync.OnceValue(func() map[string]struct{} {
	set := make(map[string]struct{}, 320)
	for _, line := range strings.Split(stopWordsFile, "\n") {
		if w := strings.TrimSpace(line); w != "" && w[0] != '#' {
			set[w] = struct{}{}
		}
	}
	return set
})

// StopWords returns the English stop words that Vectorize drops, sorted:
// function words (articles, pronouns, auxiliaries, prepositions,
// conjunctions, common adverbs), the fragments that Tokenize leaves of
// contractions (don, ll, ve), and the single letters.
func StopWords() []string {
	set := stopWordSet()
	words := make([]string, 0, len(set))
	for w := range set {
		words = append(words, w)
	}
	sort.Strings(words)
	return words
}

// TextOptions says how Vectorize turns texts into term counts. The zero
// value is the papers' practice: stop words removed, words stemmed
// (model.Prepare then weighs the counts by x = tf log(n/df) and scales
// the documents to unit length).
type TextOptions struct {
	// KeepNumbers keeps tokens that contain a digit (dropped by default).
	KeepNumbers bool `json:"keep_numbers,omitempty"`
	// NoStopWords keeps the stop words (see StopWords), dropped by default.
	NoStopWords bool `json:"no_stop_words,omitempty"`
	// NoStem turns off Porter2 (Snowball English) stemming.
	NoStem bool `json:"no_stem,omitempty"`
	// MinDF drops the terms that occur in fewer documents; 0 means 1
	// (keep every term).
	MinDF int `json:"min_df,omitempty"`
	// MaxDF drops the terms that occur in more than this fraction of the
	// documents, in (0, 1]; 0 means no limit.
	MaxDF float64 `json:"max_df,omitempty"`
	// DropEmpty removes the documents left without any term; otherwise
	// they stay as all-zero rows. Either way they are counted and listed
	// in CorpusStats.
	DropEmpty bool `json:"drop_empty,omitempty"`
	// Strip removes the headers, signatures or quoted lines of e-mail
	// and news messages before tokenizing (see Strip), in the
	// directory and line corpora (LoadTextDir, LoadTextLines).
	Strip Strip `json:"strip,omitempty"`
	// SkipUnreadable leaves out the files of a directory corpus (the
	// lines of a line corpus) that cannot be read or are binary, rather
	// than failing on the first; Dataset.Skipped and Notes name them. It
	// is a choice of what to read, not of the pipeline, so a model does
	// not keep it.
	SkipUnreadable bool `json:"-"`
	// Tokens keeps each document's terms in text order (Dataset.Tokens),
	// for measures that count sliding windows. Like SkipUnreadable, it
	// is a choice of what to keep, not of the pipeline.
	Tokens bool `json:"-"`
}

// Tokenization returns the options that act on each document alone
// (tokens, stop words, stemming, stripping), without those that depend on
// the corpus (MinDF, MaxDF, DropEmpty) and of what is read
// (SkipUnreadable): the pipeline that new documents
// go through to meet a vocabulary learned from a corpus.
func (o TextOptions) Tokenization() TextOptions {
	o.MinDF, o.MaxDF, o.DropEmpty, o.SkipUnreadable, o.Tokens = 0, 0, false, false, false
	return o
}

// check reports options out of range.
func (o *TextOptions) check() error {
	if o.MinDF < 0 {
		return fmt.Errorf("dataset: MinDF %d is negative", o.MinDF)
	}
	if !(o.MaxDF >= 0 && o.MaxDF <= 1) {
		return fmt.Errorf("dataset: MaxDF %v is not a fraction in [0, 1]", o.MaxDF)
	}
	return nil
}

// maxDocumentBytes bounds one document: a file of a directory corpus,
// which is read whole, or a line of a line corpus. A larger one (a single
// 200 MB word, a log) is not a document.
const maxDocumentBytes = 64 << 20

// ErrNoTerms is the error, wrapped, of Vectorize and the text loaders
// when the text pipeline leaves no term in any document.
var ErrNoTerms = errors.New("no terms left after the text pipeline")

// Document is one text to vectorize.
type Document struct {
	ID    string // identifies the document (a NEWID, a file path); "" when none
	Label string // class name; "" for an unlabelled document
	Text  string
}

// CorpusStats counts what a text loader read, kept and produced.
type CorpusStats struct {
	Articles int // documents read: Reuters articles, text files, or documents given to Vectorize
	Kept     int // documents selected and vectorized (before DropEmpty)
	// Empty counts the kept documents left without a term (all stop
	// words, numbers, or pruned terms). EmptyDocs are their positions
	// among the kept documents (the rows of the data set unless
	// DropEmpty), EmptyIDs their IDs when the documents have some.
	Empty     int
	EmptyDocs []int
	EmptyIDs  []string
	Tokens    int // tokens counted into the matrix (after stop words)
	Terms     int // distinct terms before document-frequency pruning
	Features  int // terms kept: the columns of the data set
	NNZ       int // stored entries of the matrix

	// Reuters-21578 only, over all articles read.
	Bodies      int // articles with a non-empty <BODY> (TEXT of no TYPE)
	Brief       int // articles with <TEXT TYPE="BRIEF"> (title only)
	Unproc      int // articles with <TEXT TYPE="UNPROC"> (no <BODY>)
	SingleLabel int // articles with exactly one TOPICS label

	Read      time.Duration // reading and decoding the files
	Vectorize time.Duration // the text pipeline, to the finished data set
}

// Tokenize calls emit with each token of text, in order: a maximal run of
// Unicode letters, marks and decimal digits, in lower case. Everything
// else (punctuation, white space, symbols, invalid UTF-8) separates
// tokens, so "U.S." gives "u", "s" and "don't" gives "don", "t". A token
// that contains a digit is dropped unless keepNumbers.
func Tokenize(text string, keepNumbers bool, emit func(token string)) {
	scanTokens(text, keepNumbers, nil, func(tok []byte) { emit(string(tok)) })
}

// ASCII classes for scanTokens.
const (
	asciiSep = iota
	asciiLower
	asciiUpper
	asciiDigit
)

var asciiClass = func() (c [utf8.RuneSelf]uint8) {
	for b := 'a'; b <= 'z'; b++ {
		c[b] = asciiLower
	}
	for b := 'A'; b <= 'Z'; b++ {
		c[b] = asciiUpper
	}
	for b := '0'; b <= '9'; b++ {
		c[b] = asciiDigit
	}
	return c
}()

// scanTokens is Tokenize without allocation: it builds each token in buf
// (returned for reuse) and passes emit a slice that is valid only during
// the call.
func scanTokens(text string, keepNumbers bool, buf []byte, emit func([]byte)) []byte {
	buf = buf[:0]
	digit := false
	flush := func() {
		if len(buf) > 0 && (keepNumbers || !digit) {
			emit(buf)
		}
		buf, digit = buf[:0], false
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			switch asciiClass[c] {
			case asciiLower:
				buf = append(buf, c)
			case asciiUpper:
				buf = append(buf, c+'a'-'A')
			case asciiDigit:
				buf, digit = append(buf, c), true
			default:
				flush()
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case unicode.IsLetter(r) || unicode.IsMark(r):
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		case unicode.IsDigit(r):
			buf, digit = utf8.AppendRune(buf, r), true
		default: // including utf8.RuneError for invalid bytes
			flush()
		}
	}
	flush()
	return buf
}

// maxStemBytes is the longest word that is stemmed; longer ones are no
// English words and are kept as they are.
const maxStemBytes = 64

// Vectorize turns documents into a term-document data set: one row per
// document, one column per term. The pipeline: Tokenize; drop stop words
// (unless opt.NoStopWords); stem with Snowball English (Porter2, unless
// opt.NoStem), each distinct word once; count terms; drop the terms
// outside [MinDF, MaxDF]; drop the documents left empty (opt.DropEmpty).
// The values are term counts: weighing them (tf-idf) and scaling the
// documents is model.Prepare's, which keeps the idf for new documents.
// Dataset.Text records opt, the pipeline new text must go through.
//
// The Vocabulary is sorted. Notes say how many documents were left
// empty. IDs are the document IDs (nil when no
// document has one). Labels number the distinct non-empty Label values 1,
// 2, ... by decreasing class size, ties by name, with ClassNames mapping
// them back; documents without a label get 0; Labels is nil when no
// document has a label. Documents are processed in parallel, one worker
// per core; the result does not depend on the number of workers.
//
// name is the Source of the data set and starts every error message. It is
// an error when no term is left; the statistics are filled in as far as
// the work went.
func Vectorize(ctx context.Context, name string, docs []Document, opt TextOptions) (*Dataset, *CorpusStats, error) {
	stats := &CorpusStats{Articles: len(docs)}
	if err := opt.check(); err != nil {
		return nil, stats, err
	}
	d, err := vectorize(ctx, name, docs, opt, stats)
	return d, stats, err
}

// vecChunk turns a run of documents into rows of local term counts.
type vecChunk struct {
	opt   *TextOptions
	stop  map[string]struct{}
	words map[string]int32 // token -> its index in wordTerm
	// wordTerm is each distinct token's local term (-1 when dropped),
	// wordList the token and wordCount its occurrences: what names each
	// stem by its most frequent form.
	wordTerm  []int32
	wordList  []string
	wordCount []int32
	termIDs   map[string]int32 // term -> local term
	terms     []string         // local term -> term
	df        []int32          // documents of the chunk holding each term
	seen      []int32          // 1 + the last document that held each term
	pos       []int32          // position of the term among that document's entries
	indptr    []int            // entries of document i are ent[indptr[i]:indptr[i+1]]
	ent       []uint64         // local term << 32 | count
	tokens    int
	// seq holds the documents' local terms in text order (TextOptions.Tokens),
	// document i's at seq[seqptr[i]:seqptr[i+1]].
	seq    []int32
	seqptr []int
}

// run fills the chunk from docs.
func (c *vecChunk) run(ctx context.Context, docs []Document) error {
	c.words = make(map[string]int32)
	c.termIDs = make(map[string]int32)
	c.indptr = make([]int, 1, len(docs)+1)
	if c.opt.Tokens {
		c.seqptr = make([]int, 1, len(docs)+1)
	}
	var buf []byte
	var doc int32
	var start int
	emit := func(tok []byte) {
		wi, ok := c.words[string(tok)]
		if !ok {
			wi = c.addWord(string(tok))
		}
		id := c.wordTerm[wi]
		if id < 0 {
			return
		}
		c.wordCount[wi]++
		c.tokens++
		if c.opt.Tokens {
			c.seq = append(c.seq, id)
		}
		if c.seen[id] != doc {
			c.seen[id] = doc
			c.pos[id] = int32(len(c.ent) - start)
			c.ent = append(c.ent, uint64(id)<<32|1)
			c.df[id]++
		} else if e := &c.ent[start+int(c.pos[id])]; uint32(*e) != math.MaxUint32 {
			*e++
		}
	}
	for i := range docs {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		doc, start = int32(i+1), len(c.ent)
		buf = scanTokens(docs[i].Text, c.opt.KeepNumbers, buf, emit)
		c.indptr = append(c.indptr, len(c.ent))
		if c.opt.Tokens {
			c.seqptr = append(c.seqptr, len(c.seq))
		}
	}
	return nil
}

// addWord decides once what a distinct token becomes, a local term or -1
// for a stop word, and returns the token's index in wordTerm.
func (c *vecChunk) addWord(token string) int32 {
	// One word, one term, however its letters were encoded: "café" typed
	// with a combining accent is the precomposed "café" (Unicode NFC).
	w := token
	if !norm.NFC.IsNormalString(w) {
		w = norm.NFC.String(w)
	}
	id := int32(-1)
	if _, stop := c.stop[w]; c.opt.NoStopWords || !stop {
		term := w
		if !c.opt.NoStem && len(w) <= maxStemBytes {
			if s := english.Stem(w, false); s != "" {
				term = s
			}
		}
		var ok bool
		if id, ok = c.termIDs[term]; !ok {
			id = int32(len(c.terms))
			c.termIDs[term] = id
			c.terms = append(c.terms, term)
			c.df = append(c.df, 0)
			c.seen = append(c.seen, 0)
			c.pos = append(c.pos, 0)
		}
	}
	wi := int32(len(c.wordTerm))
	c.words[token] = wi
	c.wordTerm, c.wordList, c.wordCount = append(c.wordTerm, id), append(c.wordList, w), append(c.wordCount, 0)
	return wi
}

// wordForms names each kept term by the token that most often became it
// over all the chunks (the lexically first among equals), where that
// token is not the term itself: the word a reader expects for a stem. A
// stem has few forms, so each term's are counted in a short list.
func wordForms(chunks []vecChunk, local [][]int32, terms []string, col []int32) map[string]string {
	type form struct {
		word string
		n    int
	}
	forms := make([][]form, len(terms))
	for w := range chunks {
		c := &chunks[w]
		for i, t := range c.wordTerm {
			if t < 0 || c.wordCount[i] == 0 {
				continue
			}
			g := local[w][t]
			if col[g] < 0 {
				continue
			}
			word, list := c.wordList[i], forms[g]
			k := 0
			for k < len(list) && list[k].word != word {
				k++
			}
			if k == len(list) {
				forms[g] = append(list, form{word: word})
			}
			forms[g][k].n += int(c.wordCount[i])
		}
	}
	var out map[string]string
	for g, list := range forms {
		if len(list) == 0 {
			continue
		}
		best := list[0]
		for _, f := range list[1:] {
			if f.n > best.n || f.n == best.n && f.word < best.word {
				best = f
			}
		}
		if best.word != terms[g] {
			if out == nil {
				out = make(map[string]string)
			}
			out[terms[g]] = best.word
		}
	}
	return out
}

// splitByBytes cuts docs into at most k contiguous runs of similar text
// length and returns the boundaries (first 0, last len(docs)).
func splitByBytes(docs []Document, k int) []int {
	total := 0
	for i := range docs {
		total += len(docs[i].Text) + 1
	}
	bounds := []int{0}
	sum := 0
	for i := range docs {
		sum += len(docs[i].Text) + 1
		if len(bounds) < k && sum*k >= total*len(bounds) && i+1 < len(docs) {
			bounds = append(bounds, i+1)
		}
	}
	return append(bounds, len(docs))
}

// vectorize is Vectorize with checked options, filling stats.
func vectorize(ctx context.Context, name string, docs []Document, opt TextOptions, stats *CorpusStats) (*Dataset, error) {
	start := time.Now()
	defer func() { stats.Vectorize = time.Since(start) }()
	stats.Kept = len(docs)
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: no documents", name)
	}
	workers := min(runtime.GOMAXPROCS(0), (len(docs)+255)/256)
	bounds := splitByBytes(docs, workers)
	chunks := make([]vecChunk, len(bounds)-1)
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	for w := range chunks {
		chunks[w].opt, chunks[w].stop = &opt, stopWordSet()
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = chunks[w].run(ctx, docs[bounds[w]:bounds[w+1]])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}

	// Merge the chunks' terms and document frequencies.
	global := make(map[string]int32)
	var terms []string
	var df []int
	local := make([][]int32, len(chunks)) // local term -> global term
	for w := range chunks {
		c := &chunks[w]
		stats.Tokens += c.tokens
		local[w] = make([]int32, len(c.terms))
		for l, t := range c.terms {
			g, ok := global[t]
			if !ok {
				g = int32(len(terms))
				global[t] = g
				terms = append(terms, t)
				df = append(df, 0)
			}
			df[g] += int(c.df[l])
			local[w][l] = g
		}
	}
	stats.Terms = len(terms)

	// Prune by document frequency and number the kept terms in order.
	minDF := max(opt.MinDF, 1)
	maxDF := float64(len(docs))
	if opt.MaxDF > 0 {
		maxDF = opt.MaxDF * float64(len(docs))
	}
	var vocab []int32 // global terms kept
	for g, f := range df {
		if f >= minDF && float64(f) <= maxDF {
			vocab = append(vocab, int32(g))
		}
	}
	slices.SortFunc(vocab, func(a, b int32) int { return strings.Compare(terms[a], terms[b]) })
	col := make([]int32, len(terms))
	for g := range col {
		col[g] = -1
	}
	vocabulary := make([]string, len(vocab))
	for j, g := range vocab {
		col[g] = int32(j)
		vocabulary[j] = terms[g]
	}
	stats.Features = len(vocabulary)

	// Build the CSR: each row remapped to columns, sorted.
	nnz := 0
	for w := range chunks {
		nnz += len(chunks[w].ent)
	}
	indptr := make([]int, 1, len(docs)+1)
	ind := make([]int, 0, nnz)
	val := make([]float64, 0, nnz)
	var kept []int // documents that make rows
	var row []uint64
	var seq []int32  // the kept documents' features in text order (opt.Tokens)
	var seqptr []int // document q's are seq[seqptr[q]:seqptr[q+1]]
	if opt.Tokens {
		total := 0
		for w := range chunks {
			total += len(chunks[w].seq)
		}
		seq, seqptr = make([]int32, 0, total), make([]int, 1, len(docs)+1)
	}
	for w := range chunks {
		c := &chunks[w]
		for i := 0; i+1 < len(c.indptr); i++ {
			row = row[:0]
			for _, e := range c.ent[c.indptr[i]:c.indptr[i+1]] {
				if j := col[local[w][e>>32]]; j >= 0 {
					row = append(row, uint64(j)<<32|e&math.MaxUint32)
				}
			}
			doc := bounds[w] + i
			if len(row) == 0 {
				stats.Empty++
				stats.EmptyDocs = append(stats.EmptyDocs, doc)
				if docs[doc].ID != "" {
					stats.EmptyIDs = append(stats.EmptyIDs, docs[doc].ID)
				}
				if opt.DropEmpty {
					continue
				}
			}
			slices.Sort(row)
			for _, e := range row {
				ind = append(ind, int(e>>32))
				val = append(val, float64(uint32(e)))
			}
			indptr = append(indptr, len(ind))
			kept = append(kept, doc)
			if opt.Tokens {
				for _, l := range c.seq[c.seqptr[i]:c.seqptr[i+1]] {
					seq = append(seq, col[local[w][l]])
				}
				seqptr = append(seqptr, len(seq))
			}
		}
	}
	stats.NNZ = len(ind)
	switch {
	case len(vocabulary) == 0:
		return nil, fmt.Errorf("%s: %w (%d documents, %d distinct terms before pruning)", name, ErrNoTerms, len(docs), stats.Terms)
	case len(kept) == 0:
		return nil, fmt.Errorf("%s: every document is empty after the text pipeline", name)
	}
	d := &Dataset{
		Source:     name,
		Sparse:     &sparse.CSR{Rows: len(kept), Cols: len(vocabulary), Indptr: indptr, Ind: ind, Val: val},
		Vocabulary: vocabulary,
		Words:      wordForms(chunks, local, terms, col),
	}
	if opt.Tokens {
		d.Tokens = make([][]int32, len(kept))
		for q := range d.Tokens {
			d.Tokens[q] = seq[seqptr[q]:seqptr[q+1]:seqptr[q+1]]
		}
	}
	labels := make([]string, len(kept))
	hasID := false
	for q, i := range kept {
		labels[q] = docs[i].Label
		hasID = hasID || docs[i].ID != ""
	}
	d.Labels, d.ClassNames = numberClasses(labels)
	if hasID {
		d.IDs = make([]string, len(kept))
		for q, i := range kept {
			d.IDs[q] = docs[i].ID
		}
	}
	if stats.Empty > 0 {
		what := "kept as all-zero rows"
		if opt.DropEmpty {
			what = "dropped"
		}
		d.Notes = append(d.Notes, fmt.Sprintf("%s: %d of %d documents have no term left after the text pipeline, %s%s", name, stats.Empty, len(docs), what, idSample(stats.EmptyIDs)))
	}
	text := opt
	d.Text = &text
	return d, nil
}

// idSample lists the first few IDs for a message.
func idSample(ids []string) string {
	const n = 5
	switch {
	case len(ids) == 0:
		return ""
	case len(ids) > n:
		return fmt.Sprintf(" (%s, ...)", strings.Join(ids[:n], ", "))
	}
	return fmt.Sprintf(" (%s)", strings.Join(ids, ", "))
}

// classesBySize returns the class names by decreasing size, ties by name.
func classesBySize(size map[string]int) []string {
	names := make([]string, 0, len(size))
	for c := range size {
		names = append(names, c)
	}
	sort.Slice(names, func(a, b int) bool {
		if size[names[a]] != size[names[b]] {
			return size[names[a]] > size[names[b]]
		}
		return names[a] < names[b]
	})
	return names
}

// numberClasses numbers the non-empty names 1, 2, ... by decreasing class
// size (ties by name); "" gets 0. Both results are nil when every name is
// "".
func numberClasses(names []string) ([]int, map[int]string) {
	size := make(map[string]int)
	for _, c := range names {
		if c != "" {
			size[c]++
		}
	}
	if len(size) == 0 {
		return nil, nil
	}
	number := make(map[string]int, len(size))
	classNames := make(map[int]string, len(size))
	for k, c := range classesBySize(size) {
		number[c] = k + 1
		classNames[k+1] = c
	}
	labels := make([]int, len(names))
	for i, c := range names {
		labels[i] = number[c]
	}
	return labels, classNames
}

// LoadTextDir reads a directory of plain-text documents, one per file,
// whatever its extension or none (hidden files and folders are skipped),
// as the raw corpora circulate (20 Newsgroups: one folder per group, one
// extension-less file per message), and vectorizes them with Vectorize.
// Each file is decoded on its own, as UTF-8 when it is valid UTF-8 and as
// Latin-1 otherwise (the Notes count those); control bytes separate
// words, trailing NUL padding is dropped, and a binary file (more than 1
// byte in 20 a control byte) is an error unless opt.SkipUnreadable leaves
// it out. opt.Strip removes message headers, signatures
// and quotations first. The IDs are the paths relative to dir, with
// forward slashes, in lexical order.
func LoadTextDir(ctx context.Context, dir string, opt TextOptions) (*Dataset, *CorpusStats, error) {
	stats := &CorpusStats{}
	if err := opt.check(); err != nil {
		return nil, stats, err
	}
	start := time.Now()
	info, err := os.Stat(dir)
	if err != nil {
		return nil, stats, fmt.Errorf("%s: %v", dir, pathErr(err))
	}
	if !info.IsDir() {
		return nil, stats, fmt.Errorf("%s: not a directory", dir)
	}
	var docs []Document
	var skipped []string
	notFiles := 0
	var rootFile, classFile string
	latin1 := 0
	err = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %v", path, pathErr(err))
		}
		if path != dir && strings.HasPrefix(e.Name(), ".") {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			return nil
		}
		if !e.Type().IsRegular() {
			// A link to a file is read as the file (fileio follows it);
			// anything else (a link to a folder, which could loop, a
			// pipe, a device) is left out and counted.
			if st, err := os.Stat(path); e.Type()&fs.ModeSymlink == 0 || err != nil || !st.Mode().IsRegular() {
				notFiles++
				return nil
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		rel = filepath.ToSlash(rel)
		label, _, inFolder := strings.Cut(rel, "/")
		if !inFolder {
			label = ""
			if rootFile == "" {
				rootFile = path
			}
		} else if classFile == "" {
			classFile = path
		}
		var text string
		lat := false
		b, err := fileio.ReadFile(path, maxDocumentBytes)
		if err != nil {
			err = fmt.Errorf("%s: %v", path, pathErr(err))
		} else {
			text, lat, err = decodeText(b, path)
		}
		if err != nil {
			if opt.SkipUnreadable {
				skipped = append(skipped, rel)
				return nil
			}
			return err
		}
		if lat {
			latin1++
		}
		docs = append(docs, Document{ID: rel, Label: label, Text: opt.Strip.Apply(text)})
		return nil
	})
	stats.Articles = len(docs)
	switch {
	case err != nil:
		return nil, stats, err
	case len(docs) == 0:
		return nil, stats, fmt.Errorf("%s: no files", dir)
	case rootFile != "" && classFile != "":
		return nil, stats, fmt.Errorf("%s: file directly in %s beside class folders (such as the one of %s); put every file in a class folder, or none", rootFile, dir, classFile)
	}
	stats.Read = time.Since(start)
	d, err := vectorize(ctx, dir, docs, opt, stats)
	if err == nil && latin1 > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("%s: %d of %d files are not UTF-8, read as Latin-1", dir, latin1, len(docs)))
	}
	if err == nil {
		d.noteSkipped(dir, "files", skipped)
		if notFiles > 0 {
			d.Notes = append(d.Notes, fmt.Sprintf("%s: left out %d entries that are not files or links to files (links to folders, pipes, devices)", dir, notFiles))
		}
	}
	return d, stats, err
}
