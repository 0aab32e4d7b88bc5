package matrixio

import "fmt"

// ParseError is what the readers of this package return for content they
// cannot read: the file (or the name the reader was given), where in it,
// the offending text when there is one, and the cause. errors.As gives a
// program the fields; Error reads "file:line: cause" for the text formats
// and "file: byte N: cause" for the binary ones.
//
// Lines, and columns within them, count from 1. A byte offset counts from
// 0, as every byte offset does (the first byte of a file is byte 0).
type ParseError struct {
	File string
	// Line is the 1-based line of a text format; 0 when the format has
	// none.
	Line int
	// Column is the 1-based column within Line where the reader knows it
	// (a CSV field, or a byte of the line when the CSV parser reports
	// it; the message says which); 0 otherwise.
	Column int
	// Offset is the byte offset from the start of the file of a binary
	// format; -1 when the error has a Line, or no position.
	Offset int64
	// Value is the offending text (a field, a label) where the reader
	// singles one out; "" otherwise.
	Value string
	// Err is the cause, with the rest of the message.
	Err error
}

// Error formats the position and the cause.
func (e *ParseError) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	case e.Offset >= 0:
		return fmt.Sprintf("%s: byte %d: %v", e.File, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }

// lineErr is a ParseError at a line of a text file.
func LineErr(file string, line int, format string, args ...any) error {
	return &ParseError{File: file, Line: line, Offset: -1, Err: fmt.Errorf(format, args...)}
}

// valueErr is lineErr that also names the offending text.
func ValueErr(file string, line, column int, value, format string, args ...any) error {
	return &ParseError{File: file, Line: line, Column: column, Offset: -1, Value: value, Err: fmt.Errorf(format, args...)}
}

// byteErr is a ParseError at a byte offset of a binary file.
func ByteErr(file string, off int64, format string, args ...any) error {
	return &ParseError{File: file, Offset: off, Err: fmt.Errorf(format, args...)}
}

// streamErr is a ParseError in a file with no position to give.
func StreamErr(file string, format string, args ...any) error {
	return &ParseError{File: file, Offset: -1, Err: fmt.Errorf(format, args...)}
}
