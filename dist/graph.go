package dist

import (
	"context"
	"fmt"
	"math"

	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/internal/blockknn"
	"github.com/manifactor/manifactor/sparse"
)

// GraphRows is one rank's rows of a sample graph's weight matrix W: the
// rows of the V rows it owns (Grid.VRows), every sample a column. It is
// how FitNMF takes a graph that the ranks built among themselves
// (BuildGraph), none holding it whole.
type GraphRows struct {
	Lo int         // the first row's sample
	W  *sparse.CSR // W's rows Lo, Lo+1, ...: N columns
}

// rowsOf returns the rows of a whole graph that rank owns.
func rowsOf(gr *graph.Graph, g Grid, rank int) *GraphRows {
	i, j := g.Pos(rank)
	v0, v1 := g.VRows(i, j)
	w := gr.W
	return &GraphRows{Lo: v0, W: &sparse.CSR{Rows: v1 - v0, Cols: w.Cols, Indptr: w.Indptr[v0 : v1+1], Ind: w.Ind, Val: w.Val}}
}

// check checks that the rows are the rank's, with finite non-negative
// weights, and returns their degrees.
func (r *GraphRows) check(g Grid, rank int) ([]float64, error) {
	i, j := g.Pos(rank)
	v0, v1 := g.VRows(i, j)
	if r.Lo != v0 || r.W.Rows != v1-v0 || r.W.Cols != g.N {
		return nil, fmt.Errorf("dist: rank %d's graph rows are %d x %d from sample %d, want %d x %d from %d", rank, r.W.Rows, r.W.Cols, r.Lo+1, v1-v0, g.N, v0+1)
	}
	deg := make([]float64, r.W.Rows)
	for s := 0; s < r.W.Rows; s++ {
		for p := r.W.Indptr[s]; p < r.W.Indptr[s+1]; p++ {
			x, t := r.W.Val[p], r.W.Ind[p]
			if !(x >= 0) || math.IsInf(x, 0) || t < 0 || t >= g.N {
				return nil, fmt.Errorf("dist: graph weight %v at sample %d, neighbour %d: weights must be finite and not negative, neighbours samples", x, r.Lo+s+1, t+1)
			}
			deg[s] += x
		}
		if math.IsInf(deg[s], 0) {
			return nil, fmt.Errorf("dist: the graph weights of sample %d sum past the largest float64", r.Lo+s+1)
		}
	}
	return deg, nil
}

// BuildGraph builds, on every rank, its rows of the graph that
// graph.Sparse would build on all N samples with opt (the exact search;
// see blockknn.New for the options a search by blocks takes): the
// rows of the V rows it owns. shard holds the rank's sample block
// (Grid.SampleBlock of its grid column, every feature, prepared). Each
// rank offers its own rows to themselves, then passes the rows it holds,
// with their candidate lists, to the next rank of a ring over all ranks
// and receives the previous rank's, P / 2 times, offering each pair of
// its rows and the visitors' to both (blockknn.Candidates.OfferPairs): every
// pair of samples is met once, as in the one-process search; the lists
// then return to their rows' owners, and each rank sends every choice of
// its samples to the owner of the sample chosen, for the symmetrization.
// The search costs about N^2 / (2P) pairs per rank (fewer: only samples
// sharing a feature are compared); a rank holds its rows, the block and
// lists passing through and N squared lengths.
// The rows equal graph.Sparse's bit for bit (tested); every rank returns
// an error when any rank fails.
func BuildGraph(ctx context.Context, world Comm, g Grid, shard *sparse.CSR, opt graph.Options) (*GraphRows, error) {
	size, rank := world.Size(), world.Rank()
	i, j := g.Pos(rank)
	s0, s1 := g.SampleBlock(j)
	v0, v1 := g.VRows(i, j)
	if shard.Rows != s1-s0 {
		panic(fmt.Sprintf("dist: BuildGraph: a shard of %d samples for block %d-%d", shard.Rows, s0+1, s1))
	}
	own := shard.RowSlice(v0-s0, v1-s0)
	c, err := blockknn.New(v0, v1-v0, g.N, opt)
	if err := agree(world, err); err != nil {
		return nil, err
	}
	// Every rank's rows (first sample, count, entries) and every sample's
	// squared length.
	mine := []float64{float64(v0), float64(v1 - v0), float64(own.NNZ())}
	sizes := make([]float64, 3*size)
	if err := world.Allgatherv(mine, sizes, repeat(3, size)); err != nil {
		return nil, err
	}
	rowCounts := make([]int, size)
	for r := range rowCounts {
		rowCounts[r] = int(sizes[3*r+1])
	}
	byRank := make([]float64, g.N)
	if err := world.Allgatherv(blockknn.SquaredNorms(own), byRank, rowCounts); err != nil {
		return nil, err
	}
	sq := make([]float64, g.N)
	off := 0
	for r := 0; r < size; r++ {
		lo := int(sizes[3*r])
		copy(sq[lo:lo+rowCounts[r]], byRank[off:off+rowCounts[r]])
		off += rowCounts[r]
	}
	byRank = nil
	// Its own rows against themselves, then a half ring: at step s the
	// rank holds the rows of rank (rank - s) with their candidate lists,
	// meets each pair of its rows and those once, for both sides, and
	// passes both on; so every pair of ranks' rows is met once (with an
	// even count, the last step's pairs are shared by the two ranks that
	// hold each other's rows). The lists then go back to the rows' owner.
	ownSq := sq[v0:v1]
	if err := agree(world, c.OfferPairs(ctx, own, ownSq, 0, own.Rows, c, own, ownSq, 0, own.Rows, opt.Threads)); err != nil {
		return nil, err
	}
	next, prev := (rank+1)%size, (rank-1+size)%size
	block, b0 := own, v0
	trav, _ := blockknn.New(v0, v1-v0, g.N, opt) // own rows' lists, travelling
	steps := size / 2
	for step := 1; step <= steps; step++ {
		from := ((rank-step)%size + size) % size
		rows, nnz := int(sizes[3*from+1]), int(sizes[3*from+2])
		send := append(encodeRows(block), trav.Encode()...)
		sendCounts, recvCounts := make([]int, size), make([]int, size)
		sendCounts[next], recvCounts[prev] = len(send), rows+1+2*nnz+trav.EncodedLen(rows)
		recv := make([]float64, recvCounts[prev])
		if err := world.Alltoallv(send, sendCounts, recv, recvCounts); err != nil {
			return nil, err
		}
		b0 = int(sizes[3*from])
		block = decodeRows(recv, rows, nnz, own.Cols)
		trav = c.Decode(recv[rows+1+2*nnz:], b0, rows)
		// The visitors' rows against all of this rank's; at the last step
		// of an even count two ranks hold each other's rows, and each
		// takes half: the first its first half of its rows against all
		// of the other's, the second all its rows against the other's
		// second half.
		qhi, blo := own.Rows, 0
		if 2*step == size {
			if rank < step {
				qhi = own.Rows / 2
			} else {
				blo = rows / 2
			}
		}
		err := c.OfferPairs(ctx, own, ownSq, 0, qhi, trav, block, sq[b0:b0+rows], blo, rows, opt.Threads)
		if err := agree(world, err); err != nil {
			return nil, err
		}
	}
	if steps > 0 {
		// The lists held here are rank (rank - steps)'s; this rank's are
		// at rank (rank + steps).
		back := make([][]float64, size)
		back[((rank-steps)%size+size)%size] = trav.Encode()
		in, err := exchange(world, back)
		if err != nil {
			return nil, err
		}
		c.Merge(c.Decode(in, v0, v1-v0))
	}
	// Each choice to the owner of the sample chosen.
	var local []blockknn.Edge
	out := make([][]float64, size)
	c.Chosen(func(e blockknn.Edge) {
		if o := g.vOwner(e.To); o == rank {
			local = append(local, e)
		} else {
			out[o] = append(out[o], float64(e.From), float64(e.To), e.Dot)
		}
	})
	in, err := exchange(world, out)
	if err != nil {
		return nil, err
	}
	for q := 0; q+2 < len(in); q += 3 {
		local = append(local, blockknn.Edge{From: int(in[q]), To: int(in[q+1]), Dot: in[q+2]})
	}
	w, err := c.Rows(local, sq)
	if err := agree(world, err); err != nil {
		return nil, err
	}
	return &GraphRows{Lo: v0, W: w}, nil
}

// exchange sends out[r] to rank r and returns what every rank sent here,
// in rank order.
func exchange(c Comm, out [][]float64) ([]float64, error) {
	size := c.Size()
	counts, got := make([]float64, size), make([]float64, size)
	sendCounts := make([]int, size)
	var send []float64
	for r, b := range out {
		counts[r], sendCounts[r] = float64(len(b)), len(b)
		send = append(send, b...)
	}
	if err := c.Alltoallv(counts, repeat(1, size), got, repeat(1, size)); err != nil {
		return nil, err
	}
	recvCounts := make([]int, size)
	n := 0
	for r, x := range got {
		recvCounts[r] = int(x)
		n += recvCounts[r]
	}
	recv := make([]float64, n)
	return recv, c.Alltoallv(send, sendCounts, recv, recvCounts)
}

// encodeRows writes a CSR's row pointers, indices and values as values,
// for a collective; decodeRows reads them back (exact: indices are below
// 2^53).
func encodeRows(a *sparse.CSR) []float64 {
	out := make([]float64, 0, a.Rows+1+2*a.NNZ())
	for _, p := range a.Indptr {
		out = append(out, float64(p-a.Indptr[0]))
	}
	for _, t := range a.Ind[a.Indptr[0]:a.Indptr[a.Rows]] {
		out = append(out, float64(t))
	}
	return append(out, a.Val[a.Indptr[0]:a.Indptr[a.Rows]]...)
}

func decodeRows(b []float64, rows, nnz, cols int) *sparse.CSR {
	a := &sparse.CSR{Rows: rows, Cols: cols, Indptr: make([]int, rows+1), Ind: make([]int, nnz), Val: make([]float64, nnz)}
	for q := range a.Indptr {
		a.Indptr[q] = int(b[q])
	}
	for q := range a.Ind {
		a.Ind[q] = int(b[rows+1+q])
	}
	copy(a.Val, b[rows+1+nnz:])
	return a
}
