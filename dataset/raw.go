package dataset

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/manifactor/manifactor/internal/fileio"
	"github.com/manifactor/manifactor/internal/matrixio"
)

// Strip says which parts of e-mail and news messages the text pipeline
// removes before tokenizing, as a set of flags: their headers, their
// signature blocks and the lines they quote from other messages. Without
// them a classifier or a clustering of a newsgroup corpus learns the
// senders and their signatures rather than the subjects. The zero value
// strips nothing.
type Strip uint8

const (
	// StripHeaders removes a leading block of "Name: value" header lines
	// (From:, Subject:, Organization:, ...) up to the first blank line.
	// A document whose first line is not a header keeps everything.
	StripHeaders Strip = 1 << iota
	// StripFooters removes a signature block: everything from the last
	// line made only of dashes ("--", "-----"), unless that line is the
	// first.
	StripFooters
	// StripQuotes removes quoted lines (starting with ">" or "|") and
	// the lines that introduce a quotation ("In article ... writes:",
	// "... wrote:").
	StripQuotes
)

var stripNames = [...]string{"headers", "footers", "quotes"}

// String lists the parts, comma-separated, as parseStrip reads them.
func (s Strip) String() string {
	var parts []string
	for i, name := range stripNames {
		if s&(1<<i) != 0 {
			parts = append(parts, name)
		}
	}
	return strings.Join(parts, ",")
}

// parseStrip reads a comma-separated list of headers, footers and quotes
// ("" for none).
func parseStrip(s string) (Strip, error) {
	var out Strip
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		i := -1
		for j, name := range stripNames {
			if part == name {
				i = j
			}
		}
		if i < 0 {
			return 0, fmt.Errorf("dataset: unknown part to strip %q (want headers, footers or quotes, comma-separated)", part)
		}
		out |= 1 << i
	}
	return out, nil
}

// MarshalText returns String's form.
func (s Strip) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses parseStrip's form.
func (s *Strip) UnmarshalText(b []byte) error {
	v, err := parseStrip(string(b))
	if err == nil {
		*s = v
	}
	return err
}

var (
	headerLine = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*:`)
	// quoteIntro matches the line that introduces a quotation.
	quoteIntro = regexp.MustCompile(`(?i)(^in article|writes:\s*$|wrote:\s*$|writes in\b|says:\s*$|said:\s*$|^quoted from)`)
)

// Apply removes the parts of a message that s names from text.
func (s Strip) Apply(text string) string {
	if s == 0 {
		return text
	}
	if s&StripHeaders != 0 && headerLine.MatchString(text) {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		if i := strings.Index(text, "\n\n"); i >= 0 {
			text = text[i+2:]
		} else {
			text = ""
		}
	}
	if s&StripFooters != 0 {
		lines := strings.Split(strings.TrimRight(text, "\r\n \t"), "\n")
		for i := len(lines) - 1; i > 0; i-- {
			if t := strings.TrimSpace(lines[i]); t != "" && strings.Trim(t, "-") == "" {
				text = strings.Join(lines[:i], "\n")
				break
			}
		}
	}
	if s&StripQuotes != 0 {
		var b strings.Builder
		for _, line := range strings.SplitAfter(text, "\n") {
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, ">") || strings.HasPrefix(t, "|") || quoteIntro.MatchString(t) {
				continue
			}
			b.WriteString(line)
		}
		text = b.String()
	}
	return text
}

// decodeText returns a file's bytes as text: UTF-8 when they are valid
// UTF-8 (a byte-order mark dropped), Latin-1 (ISO 8859-1, each byte its
// own code point) otherwise, the encoding of most older corpora, with
// latin1 reporting which. Control bytes are not letters, so the tokenizer
// takes them for separators, and a run of NUL bytes at the end (padding
// that some sources add) is dropped. A file is binary by the rule of
// isBinary, and an error naming it, so that an image or an archive left
// in a corpus is not read as words.
func decodeText(b []byte, name string) (text string, latin1 bool, err error) {
	b = bytes.TrimRight(b, "\x00")
	if n, binary := isBinary(b); binary {
		return "", false, &matrixio.ParseError{File: name, Offset: -1, Err: fmt.Errorf("%w: %d of its %d bytes are control bytes", errBinary, n, len(b))}
	}
	if utf8.Valid(b) {
		return strings.TrimPrefix(string(b), "\ufeff"), false, nil
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r), true, nil
}

// noteSkipped records what SkipUnreadable left out of the corpus at
// source (files or lines, what): in Skipped, and in a note that counts
// them and names the first few.
func (d *Dataset) noteSkipped(source, what string, skipped []string) {
	if len(skipped) == 0 {
		return
	}
	d.Skipped = skipped
	names := skipped[:min(len(skipped), 5)]
	more := ""
	if len(skipped) > len(names) {
		more = ", ..."
	}
	d.Notes = append(d.Notes, fmt.Sprintf("%s: skipped %d unreadable %s (binary or not readable): %s%s", source, len(skipped), what, strings.Join(names, ", "), more))
}

// errBinary is the cause of the error for a file that isBinary.
var errBinary = errors.New("binary, not text (at most 1 byte in 20 may be a control byte; SkipUnreadable, --skip-unreadable, leaves such files out)")

// isBinary counts the control bytes of b (those below 0x20 other than
// tab, line feed, vertical tab, form feed and carriage return, and 0x7F)
// and reports whether they are more than 1 in 20 of its bytes: compressed
// and image data have about 1 in 9, text in any 8-bit encoding or UTF-8
// next to none, and UTF-16 text (which this reader does not decode) 1 in
// 2.
func isBinary(b []byte) (control int, binary bool) {
	for _, c := range b {
		if c < 0x20 && (c < '\t' || c > '\r') || c == 0x7f {
			control++
		}
	}
	return control, control*20 > len(b)
}

// LoadTextLines reads a file of documents, one per line (a .txt file,
// or .txt.gz compressed; blank lines are skipped; a line ends at "\n",
// "\r\n" or a lone "\r", as old Mac files end them; at most 64 MB a
// line), each decoded as
// decodeText says, and vectorizes them with Vectorize. With labelled, a
// line is "label<TAB>text": the label is the class name. IDs are the
// line numbers. Errors name the file and line.
func LoadTextLines(ctx context.Context, path string, labelled bool, opt TextOptions) (*Dataset, *CorpusStats, error) {
	stats := &CorpusStats{}
	if err := opt.check(); err != nil {
		return nil, stats, err
	}
	start := time.Now()
	f, err := fileio.Open(path)
	if err != nil {
		return nil, stats, fmt.Errorf("%s: %v", path, pathErr(err))
	}
	defer f.Close()
	var r io.Reader = &matrixio.CtxReader{Ctx: ctx, R: f}
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		zr, err := matrixio.NewGzip(r, path)
		if err != nil {
			return nil, stats, err
		}
		r = zr
	}
	tb := newTextBudget(path, matrixio.SizeOf(f))
	sc := bufio.NewScanner(tb.reader(r))
	sc.Buffer(make([]byte, 0, 1<<16), maxDocumentBytes)
	sc.Split(scanLines)
	var docs []Document
	var skipped []string
	latin1 := 0
	line := 0
	for sc.Scan() {
		line++
		if b := sc.Bytes(); len(b) > 0 {
			text, lat, derr := decodeText(b, path)
			if derr != nil {
				if opt.SkipUnreadable {
					skipped = append(skipped, fmt.Sprintf("line %d", line))
					continue
				}
				return nil, stats, &matrixio.ParseError{File: path, Line: line, Offset: -1, Err: derr.(*matrixio.ParseError).Err}
			}
			if lat {
				latin1++
			}
			label := ""
			if labelled {
				l, rest, ok := strings.Cut(text, "\t")
				if !ok || strings.TrimSpace(l) == "" {
					if strings.TrimSpace(text) == "" {
						continue
					}
					return nil, stats, matrixio.ValueErr(path, line, 1, text, "%q: want a label, a tab and the text", matrixio.Truncate([]byte(text)))
				}
				label, text = strings.TrimSpace(l), opt.Strip.Apply(rest)
			} else {
				text = opt.Strip.Apply(text)
			}
			if strings.TrimSpace(text) != "" || labelled {
				if err := tb.spend(len(text)); err != nil {
					return nil, stats, err
				}
				docs = append(docs, Document{ID: fmt.Sprint(line), Label: label, Text: text})
			}
		}
	}
	if err := sc.Err(); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, stats, cerr
		}
		var pe *matrixio.ParseError
		if errors.As(err, &pe) {
			return nil, stats, err
		}
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, stats, matrixio.LineErr(path, line+1, "a line of more than %d bytes: not one document", maxDocumentBytes)
		}
		return nil, stats, matrixio.LineErr(path, line+1, "%w", err)
	}
	stats.Articles = len(docs)
	if len(docs) == 0 {
		return nil, stats, fmt.Errorf("%s: no documents (one per line)", path)
	}
	stats.Read = time.Since(start)
	d, err := vectorize(ctx, path, docs, opt, stats)
	if err == nil && latin1 > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("%s: %d of %d lines are not UTF-8, read as Latin-1", path, latin1, len(docs)))
	}
	if err == nil {
		d.noteSkipped(path, "lines", skipped)
	}
	return d, stats, err
}

// scanLines is bufio.ScanLines with a lone carriage return ending a line
// too: a file whose lines end in "\r" alone is as many documents as it
// has lines, not one.
func scanLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	for i, c := range data {
		switch c {
		case '\n':
			return i + 1, data[:i], nil
		case '\r':
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if atEOF {
				return i + 1, data[:i], nil
			}
			return 0, nil, nil // a "\n" may follow
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// textBudget bounds the text a corpus file may make the reader hold: the
// bytes read (decompressed), and each document's text and keeping
// (docCost), against 64 times the file's size, at least 256 MB, as the
// readers of numbers bound their values. A small compressed file of ten
// million tiny documents, or one that grows while it is read, stops
// there with an error instead of exhausting memory.
type textBudget struct {
	name        string
	total, left int64
}

// docCost is what a document costs besides its text: its Document or
// Article, its ID and its share of the vectorizer's work (a Reuters
// article measured about 480 bytes in all).
const docCost = 512

func newTextBudget(name string, size int64) *textBudget {
	total := defaultBudget(size)
	return &textBudget{name: name, total: total, left: total}
}

func (b *textBudget) err() error {
	return matrixio.StreamErr(b.name, "its text and documents pass the %d bytes a text file of its size may make the reader hold (64 times the file, at least 256 MB): far more text, or far more and smaller documents, than such a file holds", b.total)
}

// spend accounts for a document of n bytes of text.
func (b *textBudget) spend(n int) error {
	if b.left -= int64(n) + docCost; b.left < 0 {
		return b.err()
	}
	return nil
}

// reader charges what r reads to the budget.
func (b *textBudget) reader(r io.Reader) io.Reader { return &textBudgetReader{b: b, r: r} }

type textBudgetReader struct {
	b *textBudget
	r io.Reader
}

func (t *textBudgetReader) Read(p []byte) (int, error) {
	if t.b.left <= 0 {
		return 0, t.b.err()
	}
	if int64(len(p)) > t.b.left {
		p = p[:t.b.left]
	}
	n, err := t.r.Read(p)
	t.b.left -= int64(n)
	return n, err
}
