package dist

import (
	"context"
	"fmt"
	"sort"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/matrixio"
)

// ReadMTXShard reads the Matrix Market coordinate file p (one sample per
// row) by byte ranges, part r by rank r of world, and returns the
// calling rank's samples as the grid g places them: the rows of its grid
// column's sample block, every feature (for model.PrepareShard, then
// Grid.ShardBlock). Each entry is sent (Alltoallv) to the ranks of the
// grid column holding its sample; a rank receives the parts in rank
// order, which is file order, so its rows are the whole reader's, bit
// for bit (duplicate entries sum in the same order). No rank holds more
// than its part of the file's text and its shard. When any rank's part
// fails, every rank returns an error; the failing rank's names the
// file's line.
func ReadMTXShard(ctx context.Context, world Comm, g Grid, p *matrixio.MTXParts) (*dataset.Dataset, error) {
	size, rank := world.Size(), world.Rank()
	if size != g.Size() || g.N != p.Rows || g.M != p.Cols {
		panic(fmt.Sprintf("dist: ReadMTXShard: a %d x %d grid on %d x %d for %d ranks and a %d x %d file", g.Rows, g.Cols, g.M, g.N, size, p.Rows, p.Cols))
	}
	starts := make([]int, g.Cols+1)
	for j := range starts {
		starts[j], _ = g.SampleBlock(min(j, g.Cols-1))
	}
	starts[g.Cols] = g.N
	send := make([][]float64, size)
	lines, entries, err := p.ReadPart(ctx, rank, size, func(i, f int, x float64) {
		j := sort.SearchInts(starts, i+1) - 1 // the block holding sample i
		for r := 0; r < g.Rows; r++ {
			d := r*g.Cols + j
			send[d] = append(send[d], float64(i), float64(f), x)
		}
	})
	// Every rank's lines, entries and failure: the file's line of an
	// error, the count against the size line, and whether to go on.
	mine := []float64{float64(lines), float64(entries), 0}
	if err != nil {
		mine[2] = 1
	}
	all := make([]float64, 3*size)
	if aerr := world.Allgatherv(mine, all, repeat(3, size)); aerr != nil {
		return nil, aerr
	}
	before, total, failed := 0, 0, -1
	for r := 0; r < size; r++ {
		if r < rank {
			before += int(all[3*r])
		}
		total += int(all[3*r+1])
		if all[3*r+2] != 0 && failed < 0 {
			failed = r
		}
	}
	if err != nil {
		return nil, p.Rebase(err, before)
	}
	if failed >= 0 {
		return nil, fmt.Errorf("%s: rank %d could not read its part (its error says where)", p.Path, failed)
	}
	if err := p.CheckCount(total); err != nil {
		return nil, err
	}
	// The entries to the ranks of their samples' grid columns.
	recv, err := exchange(world, send)
	if err != nil {
		return nil, err
	}
	n := len(recv)
	ri, ci, v := make([]int, n/3), make([]int, n/3), make([]float64, n/3)
	for q := range ri {
		ri[q], ci[q], v[q] = int(recv[3*q]), int(recv[3*q+1]), recv[3*q+2]
	}
	_, j := g.Pos(rank)
	s0, s1 := g.SampleBlock(j)
	a, err := p.Matrix(s0, s1-s0, ri, ci, v)
	if err := agree(world, err); err != nil {
		return nil, err
	}
	return &dataset.Dataset{Source: fmt.Sprintf("%s (samples %d-%d)", p.Path, s0+1, s1), Sparse: a}, nil
}

// agree returns err, or when another rank of c had an error, one saying
// so: every rank learns that one failed, before a collective would wait
// for it.
func agree(c Comm, err error) error {
	bad := []float64{0}
	if err != nil {
		bad[0] = 1
	}
	if cerr := c.AllreduceSum(bad); cerr != nil {
		return cerr
	}
	if err == nil && bad[0] > 0 {
		return fmt.Errorf("dist: another rank failed (its error says where)")
	}
	return err
}

// repeat returns n copies of x.
func repeat(x, n int) []int {
	out := make([]int, n)
	for q := range out {
		out[q] = x
	}
	return out
}
