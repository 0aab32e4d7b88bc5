package matrixio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/manifactor/manifactor/internal/fileio"
	"github.com/manifactor/manifactor/sparse"
)

// MTXParts is a Matrix Market coordinate file read in parts by byte
// ranges, so that each process of a distributed job reads about 1/P of
// the file (ReadPart) and the entries go to the process that needs them
// afterwards: the file's bytes after the size line are cut into P even
// ranges, and each line belongs to the part in which it starts.
type MTXParts struct {
	Path string
	// Rows, Cols and NNZ are the size line's; NNZ counts the entry lines
	// (a symmetric matrix's mirrored entries are not counted).
	Rows, Cols, NNZ int
	coord           *mtxCoord
	lines           int   // the lines before the first data line
	start, size     int64 // the first byte after the size line, the file's size
}

// ReadMTXParts reads the header and size line of the Matrix Market
// coordinate file at path. A compressed file or an array file cannot be
// read by byte ranges and is an error saying what to do instead.
func ReadMTXParts(path string) (*MTXParts, error) {
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		return nil, fmt.Errorf("%s: a compressed file cannot be read in parts; decompress it, or write it as row blocks (manifactor split)", path)
	}
	f, err := fileio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file, which reading in parts needs", path)
	}
	m := newMTXReader(f, path)
	format, field, sym, err := m.header()
	if err != nil {
		return nil, err
	}
	if format != "coordinate" {
		return nil, fmt.Errorf("%s: a Matrix Market %s file cannot be read in parts (a coordinate file can)", path, format)
	}
	c, err := m.coordinateSize(st.Size(), field, sym)
	if err != nil {
		return nil, err
	}
	return &MTXParts{Path: path, Rows: int(c.rows), Cols: int(c.cols), NNZ: int(c.nnz), coord: c, lines: m.line, start: m.pos, size: st.Size()}, nil
}

// ReadPart parses the entry lines of part t of parts and calls emit with
// each entry's 0-based row, column and value (twice for a mirrored
// entry of a symmetric matrix). It returns the lines of the part and the
// entry lines among them. The Line of a *ParseError it returns counts
// from the part's first line; Rebase names the file's line once the
// lines of the parts before are known. Entries at one position are
// summed by whoever builds the matrix, in file order: the caller must
// keep the parts' order (part t's entries before part t+1's).
func (p *MTXParts) ReadPart(ctx context.Context, t, parts int, emit func(i, j int, x float64)) (lines, entries int, err error) {
	if parts < 1 || t < 0 || t >= parts {
		panic(fmt.Sprintf("dataset: ReadPart: part %d of %d", t, parts))
	}
	span := p.size - p.start
	lo, hi := p.start+span*int64(t)/int64(parts), p.start+span*int64(t+1)/int64(parts)
	if lo == hi {
		return 0, 0, nil
	}
	f, err := fileio.Open(p.Path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(&CtxReader{Ctx: ctx, R: io.NewSectionReader(f, lo, p.size-lo)}, MaxMTXLine)
	base := lo
	if lo > p.start {
		// A line starts at lo only after a newline; else the line
		// under way is the previous part's.
		var b [1]byte
		if _, err := f.ReadAt(b[:], lo-1); err != nil {
			return 0, 0, fmt.Errorf("%s: %v", p.Path, err)
		}
		for b[0] != '\n' {
			skip, err := br.ReadSlice('\n')
			base += int64(len(skip))
			if err == nil {
				break
			}
			if err == io.EOF {
				return 0, 0, nil
			}
			if err != bufio.ErrBufferFull {
				return 0, 0, fmt.Errorf("%s: %v", p.Path, err)
			}
		}
	}
	m := &mtxReader{Lines: *NewLines(br, p.Path, MaxMTXLine)}
	for base+m.pos < hi {
		b, err := m.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return m.line, entries, err
		}
		m.toks = SplitFields(b, m.toks[:0])
		if len(m.toks) == 0 || m.toks[0][0] == '%' {
			continue
		}
		if err := p.coord.entry(m, m.toks, emit); err != nil {
			return m.line, entries, err
		}
		entries++
	}
	return m.line, entries, nil
}

// Rebase returns err with the line of a *ParseError from ReadPart
// counted from the file's start, given the lines of the parts before.
func (p *MTXParts) Rebase(err error, before int) error {
	var pe *ParseError
	if errors.As(err, &pe) && pe.File == p.Path && pe.Line > 0 {
		c := *pe
		c.Line += p.lines + before
		return &c
	}
	return err
}

// CheckCount returns an error unless the parts held entries entry lines
// in all, as the size line says.
func (p *MTXParts) CheckCount(entries int) error {
	switch {
	case entries < p.NNZ:
		return StreamErr(p.Path, "the file ends after %d of the %d entries on the size line", entries, p.NNZ)
	case entries > p.NNZ:
		return StreamErr(p.Path, "%d entries, more than the %d on the size line", entries, p.NNZ)
	}
	return nil
}

// Matrix returns the CSR of rows row0 .. row0+rows-1 of the file from
// their entries in file order (rows and columns 0-based in the file),
// summing the entries at one position as ReadMatrixMarket does, with the
// same checks.
func (p *MTXParts) Matrix(row0, rows int, ri, ci []int, v []float64) (*sparse.CSR, error) {
	local := make([]int, len(ri))
	for q, i := range ri {
		local[q] = i - row0
	}
	a, err := sparse.FromTriplets(rows, p.Cols, local, ci, v)
	if err != nil {
		return nil, StreamErr(p.Path, "%v", err)
	}
	if err := finiteSums(a, p.Path, row0); err != nil {
		return nil, err
	}
	return a, nil
}
