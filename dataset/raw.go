package dataset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
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
// latin1 reporting which. A NUL byte means the file is not text: an error
// naming the file and the byte's offset, so that a stray binary file is
// not read as words.
func decodeText(b []byte, name string) (text string, latin1 bool, err error) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return "", false, byteErr(name, int64(i), "NUL: not a text file")
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

// LoadTextLines reads a file of documents, one per line (a .txt file,
// or .txt.gz compressed; blank lines are skipped), each decoded as
// decodeText says, and vectorizes them with Vectorize. With labelled, a
// line is "label<TAB>text": the label is the class name. IDs are the
// line numbers. Errors name the file and line.
func LoadTextLines(ctx context.Context, path string, labelled bool, opt TextOptions) (*Dataset, *CorpusStats, error) {
	stats := &CorpusStats{}
	if err := opt.check(); err != nil {
		return nil, stats, err
	}
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		return nil, stats, fmt.Errorf("%s: %v", path, pathErr(err))
	}
	defer f.Close()
	var r io.Reader = &ctxReader{ctx: ctx, r: f}
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		zr, err := newGzip(r, path)
		if err != nil {
			return nil, stats, err
		}
		r = zr
	}
	br := bufio.NewReaderSize(r, 1<<16)
	var docs []Document
	latin1 := 0
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			b = bytes.TrimRight(b, "\r\n")
			text, lat, derr := decodeText(b, path)
			if derr != nil {
				// The line, and the NUL's byte within it.
				pe := derr.(*ParseError)
				return nil, stats, &ParseError{File: path, Line: line, Column: int(pe.Offset) + 1, Offset: -1, Err: fmt.Errorf("byte %d of the line is NUL: not text", pe.Offset+1)}
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
					return nil, stats, valueErr(path, line, 1, text, "%q: want a label, a tab and the text", truncate([]byte(text)))
				}
				label, text = strings.TrimSpace(l), opt.Strip.Apply(rest)
			} else {
				text = opt.Strip.Apply(text)
			}
			if strings.TrimSpace(text) != "" || labelled {
				docs = append(docs, Document{ID: fmt.Sprint(line), Label: label, Text: text})
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, stats, cerr
			}
			return nil, stats, lineErr(path, line, "%w", err)
		}
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
	return d, stats, err
}

// gzipStream decompresses a gzip file member by member (files made by
// concatenating gzip files hold several), and tells data after the last
// member, which is neither gzip nor a truncation, from the end.
type gzipStream struct {
	br *bufio.Reader
	zr *gzip.Reader
}

// newGzip opens the gzip stream of r; name is for errors.
func newGzip(r io.Reader, name string) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("%s: bad gzip stream: %v", name, err)
	}
	zr.Multistream(false)
	return &gzipStream{br: br, zr: zr}, nil
}

func (g *gzipStream) Read(p []byte) (int, error) {
	for {
		n, err := g.zr.Read(p)
		if err != io.EOF || n > 0 {
			if err == io.EOF {
				err = nil // the data first; the member's end on the next call
			}
			return n, err
		}
		next, _ := g.br.Peek(2)
		switch {
		case len(next) == 0:
			return 0, io.EOF
		case len(next) == 2 && next[0] == 0x1f && next[1] == 0x8b:
			if err := g.zr.Reset(g.br); err != nil {
				return 0, fmt.Errorf("bad gzip member: %w", err)
			}
			g.zr.Multistream(false)
		default:
			return 0, errors.New("data after the end of the gzip stream: not gzip, and not a truncation")
		}
	}
}
