package dataset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/manifactor/manifactor/internal/fileio"
	"github.com/manifactor/manifactor/internal/matrixio"
)

// Article is one <REUTERS> element of the Reuters-21578 corpus. Text fields
// are decoded (character references such as &#3; and &lt; replaced, Latin-1
// bytes turned into UTF-8) and trimmed of surrounding white space and
// control characters.
type Article struct {
	NewID      int      // NEWID attribute: 1..21578 in the corpus
	Line       int      // line of the <REUTERS> start tag in its file
	Topics     []string // the <D> entries of <TOPICS>, in file order
	Places     []string // the <D> entries of <PLACES>, in file order
	Title      string   // <TITLE>
	Dateline   string   // <DATELINE>: place and date, e.g. "SALVADOR, Feb 26 -"
	Body       string   // <BODY>, or for TYPE="UNPROC" the text content of <TEXT>
	LewisSplit string   // LEWISSPLIT attribute: TRAIN, TEST or NOT-USED
	CGISplit   string   // CGISPLIT attribute: TRAINING-SET or PUBLISHED-TESTSET
	// Type is the TYPE attribute of <TEXT>: "" for a normal story with a
	// <BODY>, "BRIEF" for a title-only item, "UNPROC" for unprocessed text
	// without <BODY> (Body then holds that text).
	Type string
}

// Text returns the text that LoadReuters vectorizes: the title and the
// body, one line apart. The dateline is left out: it holds a place and a
// date, which would leak the PLACES labels and add dates to the
// vocabulary.
func (a *Article) Text() string {
	switch {
	case a.Title == "":
		return a.Body
	case a.Body == "":
		return a.Title
	}
	return a.Title + "\n" + a.Body
}

// Limits on one article and one tag, so that a damaged or hostile file
// cannot make the reader hold more than a few megabytes (the largest
// article of Reuters-21578 is 14 kB, the longest tag under 200 bytes).
// Variables so that tests and fuzzing can lower them.
var (
	maxReutersArticle = 4 << 20
	maxSGMLTag        = 4096
)

// maxSGMLDepth bounds the nesting of elements (the corpus nests three deep).
const maxSGMLDepth = 16

// ReadReuters reads the Reuters-21578 SGML file r and calls fn with each
// article in file order, one at a time (the file is never held whole). r
// may be gzip-compressed: the stream is decompressed when it starts with
// the gzip magic bytes. fn may keep the article; an error from fn stops
// the reading and is returned as it is.
//
// The markup must be well formed: every element closed by a matching end
// tag, no '<' inside a tag (a '<' not followed by a letter, '/' or '!' is
// text), nothing but white space and declarations (<!DOCTYPE ...>) between
// articles, a positive integer NEWID on every <REUTERS>, only white space
// beside the <D> elements of <TOPICS> and <PLACES>, and valid character
// references (&#n;, &#xh;, &lt;, &gt;, &amp;, &quot;, &apos;; an & that
// does not start a reference is kept as it is). Element names are case
// insensitive; unknown elements are skipped with their content.
//
// name is used in error messages, which have the form "name:LINE: ..."
// and say what is wrong.
func ReadReuters(r io.Reader, name string, fn func(*Article) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	src := br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return matrixio.StreamErr(name, "bad gzip stream: %v", err)
		}
		src = bufio.NewReaderSize(zr, 64<<10)
	}
	p := reutersParser{lx: sgmlLexer{br: src, line: 1}, name: name, fn: fn}
	return p.run()
}

// sgmlKind is the kind of an SGML token.
type sgmlKind uint8

const (
	sgmlText  sgmlKind = iota // character data
	sgmlStart                 // <NAME attributes>
	sgmlEnd                   // </NAME>
	sgmlDecl                  // <!...>
)

// sgmlToken is one token of the lexer. Its byte slices are valid until the
// next call of next.
type sgmlToken struct {
	kind  sgmlKind
	line  int    // line on which the token starts
	name  []byte // element name of a start or end tag
	attrs []byte // attribute text of a start tag
	text  []byte // character data kept (see sgmlTextMode), or the whole tag
	size  int    // bytes the token spans in the file
}

// sgmlTextMode says what the parser needs of the next run of text.
type sgmlTextMode uint8

const (
	textSkip  sgmlTextMode = iota // nothing: the run is counted and dropped
	textBlank                     // only white space is allowed: text is the first other chunk
	textKeep                      // the whole run
)

// sgmlLexer splits a stream into tags and runs of text, counting lines.
type sgmlLexer struct {
	br   *bufio.Reader
	line int
	buf  []byte // text run gathered across buffer refills
}

// isSGMLTagStart says whether c after '<' opens markup; otherwise the '<'
// is text, as in SGML.
func isSGMLTagStart(c byte) bool {
	return c == '/' || c == '!' || isSGMLNameByte(c) && !('0' <= c && c <= '9') && c != '-' && c != '.'
}

// isSGMLNameByte says whether c may appear in an element or attribute name.
func isSGMLNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == ':'
}

// errorf returns an error naming the file and the given line.
func (p *reutersParser) errorf(line int, format string, args ...any) error {
	return matrixio.LineErr(p.name, line, "%s", fmt.Sprintf(format, args...))
}

// readError wraps a failure of the underlying reader (a truncated or
// corrupt gzip stream, an I/O error).
func (p *reutersParser) readError(err error) error {
	if err == io.ErrUnexpectedEOF {
		return p.errorf(p.lx.line, "unexpected end of data (truncated file?)")
	}
	return p.errorf(p.lx.line, "read error: %v", err)
}

// next reads the next token into tok; it returns io.EOF at the end.
func (p *reutersParser) next(tok *sgmlToken) error {
	lx := &p.lx
	tok.line = lx.line
	b, err := lx.br.Peek(2)
	if len(b) == 0 {
		if err == io.EOF {
			return io.EOF
		}
		return p.readError(err)
	}
	if b[0] == '<' && len(b) == 2 && isSGMLTagStart(b[1]) {
		return p.tag(tok)
	}
	if b[0] == '<' && len(b) < 2 && err != io.EOF {
		return p.readError(err)
	}
	return p.textRun(tok, p.textMode())
}

// tag reads a tag: "<", a name or "/" name or "!", anything, ">".
func (p *reutersParser) tag(tok *sgmlToken) error {
	lx := &p.lx
	s, err := lx.br.ReadSlice('>')
	switch {
	case err == bufio.ErrBufferFull:
		return p.errorf(tok.line, "tag %s longer than %d bytes (unclosed tag?)", quoteStart(s), maxSGMLTag)
	case err == io.EOF:
		return p.errorf(tok.line, "tag %s not closed by '>' at end of file", quoteStart(s))
	case err != nil:
		return p.readError(err)
	}
	if len(s) > maxSGMLTag {
		return p.errorf(tok.line, "tag %s longer than %d bytes (unclosed tag?)", quoteStart(s), maxSGMLTag)
	}
	lx.line += bytes.Count(s, []byte{'\n'})
	tok.text, tok.size = s, len(s)
	inner := s[1 : len(s)-1]
	if inner[0] != '!' && bytes.IndexByte(inner, '<') >= 0 {
		return p.errorf(tok.line, "'<' inside tag %s (unclosed tag?)", quoteStart(s))
	}
	switch inner[0] {
	case '!':
		tok.kind = sgmlDecl
		return nil
	case '/':
		tok.kind = sgmlEnd
		tok.name = bytes.TrimSpace(inner[1:])
		if len(tok.name) == 0 || !isSGMLName(tok.name) {
			return p.errorf(tok.line, "bad end tag %s", quoteStart(s))
		}
		return nil
	}
	tok.kind = sgmlStart
	n := 0
	for n < len(inner) && isSGMLNameByte(inner[n]) {
		n++
	}
	tok.name, tok.attrs = inner[:n], inner[n:]
	if len(tok.attrs) > 0 && !isSGMLSpace(tok.attrs[0]) && tok.attrs[0] != '/' {
		return p.errorf(tok.line, "bad start tag %s", quoteStart(s))
	}
	return nil
}

// textRun reads character data up to the next tag or the end of the
// data, keeping of it what mode says. Nothing grows without bound: kept
// text counts against the size of the article, and other text is looked
// at one buffer at a time.
func (p *reutersParser) textRun(tok *sgmlToken, mode sgmlTextMode) error {
	lx := &p.lx
	tok.kind, tok.text, tok.size = sgmlText, nil, 0
	lx.buf = lx.buf[:0]
	// take files a piece of the run; false means non-blank text where only
	// blanks may be, which the caller reports.
	take := func(s []byte, line int) bool {
		switch mode {
		case textKeep:
			lx.buf = append(lx.buf, s...)
		case textBlank:
			if k := firstNonBlank(s); k >= 0 {
				tok.line = line + bytes.Count(s[:k], []byte{'\n'})
				tok.text = append(lx.buf[:0], s[k:]...)
				return false
			}
		}
		return true
	}
	for {
		line := lx.line
		s, err := lx.br.ReadSlice('<')
		if err == nil {
			lx.br.UnreadByte()
			s = s[:len(s)-1]
		}
		lx.line += bytes.Count(s, []byte{'\n'})
		tok.size += len(s)
		if !take(s, line) {
			return nil
		}
		if len(p.stack) > 0 && p.size+tok.size > maxReutersArticle {
			return p.errorf(p.stack[0].line, "article longer than %d bytes (missing </REUTERS>?)", maxReutersArticle)
		}
		switch {
		case err == nil:
			b, perr := lx.br.Peek(2)
			if len(b) < 2 && perr != io.EOF {
				return p.readError(perr)
			}
			if len(b) == 2 && isSGMLTagStart(b[1]) {
				tok.text = lx.buf
				return nil
			}
			// A '<' that opens no tag is text.
			lx.br.ReadByte()
			tok.size++
			if !take([]byte{'<'}, lx.line) {
				return nil
			}
		case err == bufio.ErrBufferFull:
		case err == io.EOF:
			tok.text = lx.buf
			return nil
		default:
			return p.readError(err)
		}
	}
}

// isSGMLName says whether b is a non-empty run of name bytes.
func isSGMLName(b []byte) bool {
	for _, c := range b {
		if !isSGMLNameByte(c) {
			return false
		}
	}
	return len(b) > 0
}

func isSGMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// firstNonBlank returns the index of the first byte of b that is not
// white space, or -1.
func firstNonBlank(b []byte) int {
	for i, c := range b {
		if !isSGMLSpace(c) {
			return i
		}
	}
	return -1
}

// quoteStart quotes the start of b for an error message.
func quoteStart(b []byte) string {
	const n = 40
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "..."
	}
	return strconv.Quote(string(b))
}

// reutersElem is an element of the corpus that the reader looks into.
type reutersElem uint8

const (
	elemOther reutersElem = iota
	elemReuters
	elemTopics
	elemPlaces
	elemD
	elemText
	elemTitle
	elemDateline
	elemBody
)

var reutersElems = map[string]reutersElem{
	"REUTERS": elemReuters, "TOPICS": elemTopics, "PLACES": elemPlaces, "D": elemD,
	"TEXT": elemText, "TITLE": elemTitle, "DATELINE": elemDateline, "BODY": elemBody,
}

// reutersElemOf returns the element a tag name stands for, ignoring case.
func reutersElemOf(name []byte) reutersElem {
	var up [8]byte
	if len(name) > len(up) {
		return elemOther
	}
	for i, c := range name {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		up[i] = c
	}
	return reutersElems[string(up[:len(name)])]
}

// sgmlOpen is an element whose end tag has not been seen yet.
type sgmlOpen struct {
	elem reutersElem
	name string // as written, for messages
	line int
}

// reutersParser turns the tokens of one file into articles.
type reutersParser struct {
	lx    sgmlLexer
	name  string
	fn    func(*Article) error
	stack []sgmlOpen
	art   *Article
	size  int // bytes of the current article so far
	// Decoded content of the current article.
	title, dateline, body, text, d []byte
}

// run reads the whole stream.
func (p *reutersParser) run() error {
	var tok sgmlToken
	for {
		err := p.next(&tok)
		if err == io.EOF {
			if n := len(p.stack); n > 0 {
				top := p.stack[n-1]
				return p.errorf(top.line, "<%s> not closed at end of file", top.name)
			}
			return nil
		}
		if err != nil {
			return err
		}
		if len(p.stack) > 0 {
			p.size += tok.size
			if p.size > maxReutersArticle {
				return p.errorf(p.stack[0].line, "article longer than %d bytes (missing </REUTERS>?)", maxReutersArticle)
			}
		}
		switch tok.kind {
		case sgmlText:
			err = p.textToken(&tok)
		case sgmlStart:
			err = p.startTag(&tok)
		case sgmlEnd:
			err = p.endTag(&tok)
		}
		if err != nil {
			return err
		}
	}
}

// textMode says what the parser needs of text under the open element, and
// textDst where kept text goes.
func (p *reutersParser) textMode() sgmlTextMode {
	mode, _ := p.textDst()
	return mode
}

func (p *reutersParser) textDst() (sgmlTextMode, *[]byte) {
	n := len(p.stack)
	if n == 0 {
		return textBlank, nil
	}
	switch p.stack[n-1].elem {
	case elemTopics, elemPlaces:
		return textBlank, nil
	case elemD:
		if parent := p.stack[n-2].elem; parent == elemTopics || parent == elemPlaces {
			return textKeep, &p.d
		}
	case elemTitle:
		return textKeep, &p.title
	case elemDateline:
		return textKeep, &p.dateline
	case elemBody:
		return textKeep, &p.body
	case elemText:
		return textKeep, &p.text
	}
	return textSkip, nil
}

// textToken files character data under the open element.
func (p *reutersParser) textToken(tok *sgmlToken) error {
	mode, dst := p.textDst()
	switch {
	case mode == textBlank && len(tok.text) > 0 && len(p.stack) == 0:
		return p.errorf(tok.line, "text %s outside <REUTERS>", quoteStart(bytes.TrimSpace(tok.text)))
	case mode == textBlank && len(tok.text) > 0:
		return p.errorf(tok.line, "<%s> holds text %s outside <D> elements", p.stack[len(p.stack)-1].name, quoteStart(bytes.TrimSpace(tok.text)))
	case mode != textKeep:
		return nil
	}
	var err error
	*dst, err = p.decode(*dst, tok.text, tok.line)
	return err
}

// startTag opens an element.
func (p *reutersParser) startTag(tok *sgmlToken) error {
	elem := reutersElemOf(tok.name)
	switch {
	case len(p.stack) == 0 && elem != elemReuters:
		return p.errorf(tok.line, "<%s> outside <REUTERS>", tok.name)
	case len(p.stack) > 0 && elem == elemReuters:
		return p.errorf(tok.line, "<REUTERS> inside the <REUTERS> of line %d (missing </REUTERS>?)", p.stack[0].line)
	case len(p.stack) >= maxSGMLDepth:
		return p.errorf(tok.line, "elements nested more than %d deep", maxSGMLDepth)
	}
	switch elem {
	case elemReuters:
		if err := p.begin(tok); err != nil {
			return err
		}
	case elemText:
		err := p.eachAttr(tok, func(key, val []byte) error {
			if strings.EqualFold(string(key), "TYPE") {
				v, err := p.decode(nil, val, tok.line)
				p.art.Type = strings.ToUpper(string(v))
				return err
			}
			return nil
		})
		if err != nil {
			return err
		}
	case elemD:
		p.d = p.d[:0]
	}
	p.stack = append(p.stack, sgmlOpen{elem: elem, name: string(tok.name), line: tok.line})
	return nil
}

// begin starts an article at its <REUTERS> tag.
func (p *reutersParser) begin(tok *sgmlToken) error {
	p.art = &Article{Line: tok.line}
	p.size = tok.size
	p.title, p.dateline, p.body, p.text = p.title[:0], p.dateline[:0], p.body[:0], p.text[:0]
	var newID []byte
	err := p.eachAttr(tok, func(key, val []byte) error {
		var dst *string
		switch strings.ToUpper(string(key)) {
		case "NEWID":
			newID = val
			return nil
		case "LEWISSPLIT":
			dst = &p.art.LewisSplit
		case "CGISPLIT":
			dst = &p.art.CGISplit
		default:
			return nil
		}
		v, err := p.decode(nil, val, tok.line)
		*dst = string(v)
		return err
	})
	if err != nil {
		return err
	}
	if newID == nil {
		return p.errorf(tok.line, "<REUTERS> without a NEWID attribute")
	}
	id, ok := parsePositive(newID)
	if !ok {
		return p.errorf(tok.line, "bad NEWID %s (want a positive integer)", quoteStart(newID))
	}
	p.art.NewID = id
	return nil
}

// parsePositive parses a decimal integer in 1..999999999.
func parsePositive(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n > 0
}

// eachAttr calls fn with the name and raw value of each attribute of a
// start tag: NAME="value", NAME='value' or NAME=value.
func (p *reutersParser) eachAttr(tok *sgmlToken, fn func(key, val []byte) error) error {
	a := tok.attrs
	bad := func(what string) error {
		return p.errorf(tok.line, "%s in tag %s", what, quoteStart(tok.text))
	}
	for {
		for len(a) > 0 && isSGMLSpace(a[0]) {
			a = a[1:]
		}
		if len(a) == 0 || len(a) == 1 && a[0] == '/' {
			return nil
		}
		n := 0
		for n < len(a) && isSGMLNameByte(a[n]) {
			n++
		}
		if n == 0 {
			return bad("bad attribute syntax")
		}
		key := a[:n]
		a = a[n:]
		for len(a) > 0 && isSGMLSpace(a[0]) {
			a = a[1:]
		}
		if len(a) == 0 || a[0] != '=' {
			return bad(fmt.Sprintf("attribute %s without a value", key))
		}
		a = a[1:]
		for len(a) > 0 && isSGMLSpace(a[0]) {
			a = a[1:]
		}
		var val []byte
		if len(a) > 0 && (a[0] == '"' || a[0] == '\'') {
			end := bytes.IndexByte(a[1:], a[0])
			if end < 0 {
				return bad(fmt.Sprintf("unterminated value of attribute %s", key))
			}
			val, a = a[1:1+end], a[end+2:]
		} else {
			n := 0
			for n < len(a) && !isSGMLSpace(a[n]) {
				n++
			}
			if n == 0 {
				return bad(fmt.Sprintf("attribute %s without a value", key))
			}
			val, a = a[:n], a[n:]
		}
		if err := fn(key, val); err != nil {
			return err
		}
	}
}

// endTag closes the innermost element, which must have the same name.
func (p *reutersParser) endTag(tok *sgmlToken) error {
	n := len(p.stack)
	if n == 0 {
		return p.errorf(tok.line, "</%s> without a start tag", tok.name)
	}
	top := p.stack[n-1]
	if !bytes.EqualFold([]byte(top.name), tok.name) {
		return p.errorf(tok.line, "</%s> closes <%s> opened at line %d", tok.name, top.name, top.line)
	}
	p.stack = p.stack[:n-1]
	switch top.elem {
	case elemD:
		s := cleanText(p.d)
		if s == "" {
			return nil
		}
		switch p.stack[n-2].elem {
		case elemTopics:
			p.art.Topics = append(p.art.Topics, s)
		case elemPlaces:
			p.art.Places = append(p.art.Places, s)
		}
	case elemReuters:
		a := p.art
		p.art = nil
		a.Title, a.Dateline = cleanText(p.title), cleanText(p.dateline)
		if a.Type == "UNPROC" {
			a.Body = cleanText(p.text)
		} else {
			a.Body = cleanText(p.body)
		}
		return p.fn(a)
	}
	return nil
}

// cleanText returns b without surrounding white space and control
// characters (the corpus wraps stories in &#2; ... &#3;).
func cleanText(b []byte) string {
	return string(bytes.TrimFunc(b, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }))
}

// decode appends the text raw to dst with character references replaced
// and Latin-1 bytes converted to UTF-8. line is the line raw starts on.
func (p *reutersParser) decode(dst, raw []byte, line int) ([]byte, error) {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c >= utf8.RuneSelf:
			dst = utf8.AppendRune(dst, rune(c))
			i++
		case c != '&':
			j := i + 1
			for j < len(raw) && raw[j] != '&' && raw[j] < utf8.RuneSelf {
				j++
			}
			dst = append(dst, raw[i:j]...)
			i = j
		default:
			r, n, bad := parseCharRef(raw[i:])
			if bad != "" {
				return dst, p.errorf(line+bytes.Count(raw[:i], []byte{'\n'}), "%s %s", bad, quoteStart(raw[i:i+max(n, 1)]))
			}
			if n == 0 {
				dst = append(dst, '&')
				i++
				continue
			}
			dst = utf8.AppendRune(dst, r)
			i += n
		}
	}
	return dst, nil
}

// parseCharRef reads the reference at the start of b (b[0] is '&'). It
// returns the character and the length of the reference, n = 0 when the &
// starts no reference, or a description of what is wrong with n bytes to
// quote.
func parseCharRef(b []byte) (r rune, n int, bad string) {
	if len(b) > 1 && b[1] == '#' {
		j, base := 2, int64(10)
		if j < len(b) && (b[j] == 'x' || b[j] == 'X') {
			j, base = 3, 16
		}
		start := j
		var v int64
		for ; j < len(b) && j-start < 8; j++ {
			d := hexDigit(b[j])
			if d < 0 || d >= base {
				break
			}
			v = v*base + d
		}
		if j == start || j >= len(b) || b[j] != ';' {
			return 0, min(j+1, len(b)), "bad character reference"
		}
		if v > unicode.MaxRune || 0xD800 <= v && v <= 0xDFFF {
			return 0, j + 1, "character reference out of range"
		}
		return rune(v), j + 1, ""
	}
	j := 1
	for j < len(b) && j <= 8 && ('a' <= b[j] && b[j] <= 'z' || 'A' <= b[j] && b[j] <= 'Z') {
		j++
	}
	if j == 1 || j >= len(b) || b[j] != ';' {
		return 0, 0, ""
	}
	switch string(b[1:j]) {
	case "lt":
		return '<', j + 1, ""
	case "gt":
		return '>', j + 1, ""
	case "amp":
		return '&', j + 1, ""
	case "quot":
		return '"', j + 1, ""
	case "apos":
		return '\'', j + 1, ""
	}
	return 0, j + 1, "unknown entity"
}

// hexDigit returns the value of a hexadecimal digit, or -1.
func hexDigit(c byte) int64 {
	switch {
	case '0' <= c && c <= '9':
		return int64(c - '0')
	case 'a' <= c && c <= 'f':
		return int64(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int64(c-'A') + 10
	}
	return -1
}

// ReutersFiles expands paths into the sorted list of SGML files they
// name: a directory stands for its *.sgm and *.sgm.gz files (e.g.
// reut2-000.sgm.gz ... reut2-021.sgm.gz), a pattern with * ? or [ for
// its matches (filepath.Glob), and any other path for itself. Duplicates
// are removed. It is an error when a path does not exist, a directory or
// pattern yields no file, or one file is present both plain and
// gzip-compressed.
func ReutersFiles(paths ...string) ([]string, error) {
	if len(paths) == 0 {
		return nil, errors.New("dataset: no Reuters-21578 paths given")
	}
	seen := make(map[string]bool)
	var files []string
	add := func(f string) {
		f = filepath.Clean(f)
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	for _, p := range paths {
		if strings.ContainsAny(p, "*?[") {
			m, err := filepath.Glob(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", p, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("%s: no files match", p)
			}
			for _, f := range m {
				add(f)
			}
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, pathErr(err))
		}
		if !info.IsDir() {
			add(p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, pathErr(err))
		}
		found := false
		for _, e := range entries {
			lower := strings.ToLower(e.Name())
			if !e.IsDir() && (strings.HasSuffix(lower, ".sgm") || strings.HasSuffix(lower, ".sgm.gz")) {
				add(filepath.Join(p, e.Name()))
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: no .sgm or .sgm.gz files in the directory", p)
		}
	}
	sort.Strings(files)
	for _, f := range files {
		if strings.HasSuffix(strings.ToLower(f), ".gz") && seen[f[:len(f)-3]] {
			return nil, fmt.Errorf("%s: the same articles as %s; keep one of the two", f, f[:len(f)-3])
		}
	}
	return files, nil
}

// pathErr strips the operation and path from a file system error, for
// messages that already start with the path.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReutersOptions selects articles of Reuters-21578 and says how to turn
// them into vectors. The zero value keeps every article.
//
// Selection runs in the order of the fields: split, single label, class
// size, largest classes. The label of an article is its TOPICS label
// (the first one when it has several); articles without a topic are
// unlabelled (label 0), and are dropped when MinClassSize or Largest is
// set.
type ReutersOptions struct {
	// LewisSplit keeps the articles of one LEWISSPLIT: "TRAIN", "TEST" or
	// "NOT-USED" (any case); "" keeps all.
	LewisSplit string
	// SingleLabel keeps the articles with exactly one TOPICS label (9,494
	// in the corpus: the set of the NMF document clustering paper).
	SingleLabel bool
	// MinClassSize drops the classes with fewer articles; 0 keeps all.
	MinClassSize int
	// Largest keeps the articles of the Largest largest classes (ties
	// broken by topic name); 0 keeps all.
	Largest int
	// Text says how the texts become vectors (see Vectorize).
	Text TextOptions
}

// LoadReuters reads the Reuters-21578 SGML files named by paths (see
// ReutersFiles: a directory, files or patterns, plain or gzip-compressed),
// selects articles as opt says and vectorizes their text (Article.Text:
// title and body) with Vectorize. Files are decoded in parallel, one
// worker per core.
//
// The data set has one row per kept article in file order; IDs are the
// NEWIDs, labels number the topics 1, 2, ... by decreasing class size
// (ties by name) and ClassNames maps them back. The statistics count the
// articles read and kept; on error they hold what was counted so far.
// NEWIDs must be unique across the files.
func LoadReuters(ctx context.Context, paths []string, opt ReutersOptions) (*Dataset, *CorpusStats, error) {
	start := time.Now()
	stats := &CorpusStats{}
	split := strings.ToUpper(opt.LewisSplit)
	switch {
	case split != "" && split != "TRAIN" && split != "TEST" && split != "NOT-USED":
		return nil, stats, fmt.Errorf("dataset: LewisSplit %q: want TRAIN, TEST or NOT-USED", opt.LewisSplit)
	case opt.MinClassSize < 0 || opt.Largest < 0:
		return nil, stats, fmt.Errorf("dataset: negative MinClassSize (%d) or Largest (%d)", opt.MinClassSize, opt.Largest)
	}
	if err := opt.Text.check(); err != nil {
		return nil, stats, err
	}
	files, err := ReutersFiles(paths...)
	if err != nil {
		return nil, stats, err
	}
	source := reutersSource(files)
	arts, err := readReutersFiles(ctx, files)
	if err != nil {
		return nil, stats, err
	}
	for _, a := range arts {
		stats.Articles++
		switch {
		case a.Type == "BRIEF":
			stats.Brief++
		case a.Type == "UNPROC":
			stats.Unproc++
		case a.Body != "":
			stats.Bodies++
		}
		if len(a.Topics) == 1 {
			stats.SingleLabel++
		}
	}
	if len(arts) == 0 {
		return nil, stats, fmt.Errorf("%s: no <REUTERS> articles", source)
	}
	stats.Read = time.Since(start)

	kept := selectArticles(arts, split, opt)
	if len(kept) == 0 {
		return nil, stats, fmt.Errorf("%s: no articles left after selection (of %d read)", source, len(arts))
	}
	docs := make([]Document, len(kept))
	for i, a := range kept {
		docs[i] = Document{ID: strconv.Itoa(a.NewID), Text: a.Text()}
		if len(a.Topics) > 0 {
			docs[i].Label = a.Topics[0]
		}
	}
	// The articles' bodies have no headers, footers or quotes to strip:
	// the pipeline recorded (Dataset.Text) is the one applied.
	text := opt.Text
	text.Strip = 0
	d, err := vectorize(ctx, source, docs, text, stats)
	return d, stats, err
}

// reutersSource names a set of files in messages: their directory when
// they share one, else the first file.
func reutersSource(files []string) string {
	dir := filepath.Dir(files[0])
	for _, f := range files[1:] {
		if filepath.Dir(f) != dir {
			return files[0]
		}
	}
	if len(files) == 1 {
		return files[0]
	}
	return dir
}

// selectArticles applies the selection of opt, in order.
func selectArticles(arts []*Article, split string, opt ReutersOptions) []*Article {
	kept := make([]*Article, 0, len(arts))
	for _, a := range arts {
		if (split == "" || strings.EqualFold(a.LewisSplit, split)) && (!opt.SingleLabel || len(a.Topics) == 1) {
			kept = append(kept, a)
		}
	}
	if opt.MinClassSize == 0 && opt.Largest == 0 {
		return kept
	}
	size := make(map[string]int)
	for _, a := range kept {
		if len(a.Topics) > 0 {
			size[a.Topics[0]]++
		}
	}
	names := classesBySize(size)
	allowed := make(map[string]bool)
	for _, c := range names {
		if size[c] >= opt.MinClassSize && (opt.Largest == 0 || len(allowed) < opt.Largest) {
			allowed[c] = true
		}
	}
	out := kept[:0]
	for _, a := range kept {
		if len(a.Topics) > 0 && allowed[a.Topics[0]] {
			out = append(out, a)
		}
	}
	return out
}

// readReutersFiles reads the files in parallel and returns their articles
// in file order. The first error in file order wins; a NEWID used twice is
// an error.
func readReutersFiles(ctx context.Context, files []string) ([]*Article, error) {
	per := make([][]*Article, len(files))
	errs := make([]error, len(files))
	work := make(chan int, len(files))
	for i := range files {
		work <- i
	}
	close(work)
	var wg sync.WaitGroup
	for w := min(runtime.GOMAXPROCS(0), len(files)); w > 0; w-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if errs[i] = ctx.Err(); errs[i] == nil {
					per[i], errs[i] = readReutersFile(ctx, files[i])
				}
			}
		}()
	}
	wg.Wait()
	n := 0
	for i, err := range errs {
		if err != nil {
			return nil, err
		}
		n += len(per[i])
	}
	type place struct {
		file string
		line int
	}
	seen := make(map[int]place, n)
	arts := make([]*Article, 0, n)
	for i, p := range per {
		for _, a := range p {
			if at, dup := seen[a.NewID]; dup {
				return nil, matrixio.LineErr(files[i], a.Line, "NEWID %d already used at %s:%d", a.NewID, at.file, at.line)
			}
			seen[a.NewID] = place{files[i], a.Line}
		}
		arts = append(arts, p...)
	}
	return arts, nil
}

// readReutersFile reads the articles of one file.
func readReutersFile(ctx context.Context, path string) ([]*Article, error) {
	f, err := fileio.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, pathErr(err))
	}
	defer f.Close()
	var arts []*Article
	// The file's bytes are compressed ones here (ReadReuters inflates
	// them): the articles are what is charged.
	tb := newTextBudget(path, matrixio.SizeOf(f))
	err = ReadReuters(f, path, func(a *Article) error {
		if len(arts)%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := tb.spend(len(a.Title) + len(a.Dateline) + len(a.Body) + 16*(len(a.Topics)+len(a.Places))); err != nil {
			return err
		}
		arts = append(arts, a)
		return nil
	})
	return arts, err
}
