package matrixio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// NewLines reads br's lines of up to max bytes; name is for errors.
func NewLines(br *bufio.Reader, name string, max int) *Lines {
	return &Lines{br: br, name: name, max: max}
}

// Line returns the number of the line Next returned last (1-based).
func (l *Lines) Line() int { return l.line }

// Lines reads a text file line by line, with lines of up to max bytes
// (Matrix Market and SVMlight files).
type Lines struct {
	br   *bufio.Reader
	name string
	max  int
	line int
	pos  int64  // bytes read, line endings included
	long []byte // holds a line longer than the bufio buffer
}

// Next returns the next line without its line ending, or io.EOF. The
// slice is valid until the next call.
func (l *Lines) Next() ([]byte, error) {
	b, err := l.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.long = append(l.long[:0], b...)
		for err == bufio.ErrBufferFull {
			if len(l.long) > l.max {
				l.line++
				return nil, l.Errorf("line longer than %d bytes", l.max)
			}
			b, err = l.br.ReadSlice('\n')
			l.long = append(l.long, b...)
		}
		b = l.long
	}
	if len(b) > 0 || err == nil {
		l.line++
	}
	l.pos += int64(len(b))
	switch {
	case len(b) > l.max+1:
		return nil, l.Errorf("line longer than %d bytes", l.max)
	case err == io.EOF && len(b) == 0:
		return nil, io.EOF
	case err != nil && err != io.EOF:
		var pe *ParseError
		if errors.As(err, &pe) {
			return nil, pe // the reader's own bound, named already
		}
		return nil, l.Errorf("read error: %v", err)
	}
	b = bytes.TrimSuffix(b, []byte{'\n'})
	if l.line == 1 {
		// A byte-order mark, as some editors write.
		b = bytes.TrimPrefix(b, []byte("\ufeff"))
	}
	return bytes.TrimSuffix(b, []byte{'\r'}), nil
}

// Errorf is a ParseError at the current line.
func (l *Lines) Errorf(format string, args ...any) error {
	return LineErr(l.name, l.line, "%s", fmt.Sprintf(format, args...))
}
