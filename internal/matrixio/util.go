package matrixio

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
)

// BudgetHint ends the messages of a data set past its memory bound.
const BudgetHint = "LoadOptions.MemoryLimit; --memory to allow more"

// CtxReader fails its reads once ctx is done.
type CtxReader struct {
	Ctx context.Context
	R   io.Reader
}

func (c *CtxReader) Read(b []byte) (int, error) {
	if err := c.Ctx.Err(); err != nil {
		return 0, err
	}
	return c.R.Read(b)
}

// TransposeInto writes the transpose of the r x c row-major src into dst
// (c x r row-major), in blocks so that both sides stay in cache.
func TransposeInto(dst, src []float64, r, c int) {
	const b = 32
	for i0 := 0; i0 < r; i0 += b {
		i1 := min(i0+b, r)
		for j0 := 0; j0 < c; j0 += b {
			j1 := min(j0+b, c)
			for i := i0; i < i1; i++ {
				for j := j0; j < j1; j++ {
					dst[j*r+i] = src[i*c+j]
				}
			}
		}
	}
}

// gzipStream decompresses a gzip file member by member (files made by
// concatenating gzip files hold several), and tells data after the last
// member, which is neither gzip nor a truncation, from the end.
type gzipStream struct {
	br *bufio.Reader
	zr *gzip.Reader
}

// NewGzip opens the gzip stream of r; name is for errors.
func NewGzip(r io.Reader, name string) (io.Reader, error) {
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

// Limits on what a file may claim, checked before anything is allocated.
// They are variables so that tests and fuzzing can lower them.
var (
	// MaxDenseElements caps rows x cols of a dense matrix.
	MaxDenseElements int64 = 1 << 31
	// MaxEmptyDim is the largest sparse dimension accepted without being
	// backed by stored data: beyond it a dimension must be at most
	// SparseDimFactor times the number of stored entries (plus the other
	// dimension), so that a tiny file cannot make a reader allocate row
	// pointers for billions of empty rows.
	MaxEmptyDim     int64 = 1 << 20
	SparseDimFactor int64 = 16
)

// SizeOf returns how many bytes r holds from its current position, or -1
// when that is unknown.
func SizeOf(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len())
	case interface {
		Stat() (fs.FileInfo, error)
		io.Seeker
	}:
		fi, err := v.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		pos, err := v.Seek(0, io.SeekCurrent)
		if err != nil || pos > fi.Size() {
			return -1
		}
		return fi.Size() - pos
	}
	return -1
}

// Grow makes room for k more values in a slice that will hold count in
// all, doubling rather than growing by little steps.
func Grow[T any](v []T, k int, count int64) []T {
	if need := len(v) + k; need > cap(v) {
		c := int(min(max(int64(need), 2*int64(cap(v))), max(count, int64(need))))
		v = slices.Grow(v, c-len(v))
	}
	return v[:len(v)+k]
}
