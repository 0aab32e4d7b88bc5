package dataset

import "github.com/manifactor/manifactor/internal/matrixio"

// ParseError is what the readers of this package return for content they
// cannot read: File (or the name the reader was given); Line (1-based) of
// a text format, with Column (1-based) where the reader knows it, or
// Offset (from 0; -1 when there is a Line or no position) of a binary
// one; Value, the offending text where the reader singles one out; and
// Err, the cause. errors.As gives a program the fields; Error reads
// "file:line: cause" for the text formats and "file: byte N: cause" for
// the binary ones.
type ParseError = matrixio.ParseError
