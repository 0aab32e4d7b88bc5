package dist

import (
	"fmt"

	"github.com/manifactor/manifactor/sparse"
)

// Grid is the 2-D distribution of MPI-FAUN: P = Rows x Cols ranks, rank
// r at grid position (r / Cols, r % Cols). Rank (i, j) holds the block
// X_ij of the m x n data X (features x samples): the features of feature
// block i and the samples of sample block j. It owns, for the factors,
// part j of U's rows of feature block i (the Cols ranks of grid row i
// share that block) and part i of V's rows of sample block j. Blocks and
// parts are contiguous and as even as integers allow, so any m, n and P
// work.
type Grid struct {
	Rows, Cols int
	M, N       int // features and samples
	// Align, when above 1, puts every boundary of a block or part at a
	// multiple of Align (but the ends), so that nmfstep.CD's blocks of
	// rows (nmfstep.Block) each lie on one rank: the coordinate-descent
	// half-steps then take one process's steps. Set by Aligned.
	Align int
}

// NewGrid returns the grid of p ranks for m features and n samples with
// the shape that communicates least: rows x cols = p minimizing the words
// a rank gathers and reduce-scatters per iteration, k (m/rows + n/cols)
// (so rows/cols near m/n; ties take fewer grid rows). rows, when
// positive, forces the shape (cols = p / rows) and must divide p.
func NewGrid(p, m, n, rows int) (Grid, error) {
	if p < 1 {
		return Grid{}, fmt.Errorf("dist: %d ranks: need at least 1", p)
	}
	if rows > 0 {
		if p%rows != 0 {
			return Grid{}, fmt.Errorf("dist: a grid of %d rows does not divide %d ranks", rows, p)
		}
		return newGrid(rows, p/rows, m, n)
	}
	best, cost := 0, 0.0
	for r := 1; r <= p; r++ {
		if p%r != 0 {
			continue
		}
		if c := float64(m)/float64(r) + float64(n)/float64(p/r); best == 0 || c < cost {
			best, cost = r, c
		}
	}
	return newGrid(best, p/best, m, n)
}

func newGrid(rows, cols, m, n int) (Grid, error) {
	return Grid{Rows: rows, Cols: cols, M: m, N: n}.check()
}

// check reports a grid whose blocks would leave a rank without data.
func (g Grid) check() (Grid, error) {
	a := max(g.Align, 1)
	if g.Rows > (g.M+a-1)/a || g.Cols > (g.N+a-1)/a {
		if a > 1 {
			return Grid{}, fmt.Errorf("dist: a %d x %d grid on %d features and %d samples, in blocks of multiples of %d, leaves a rank without data; use fewer ranks", g.Rows, g.Cols, g.M, g.N, a)
		}
		return Grid{}, fmt.Errorf("dist: a %d x %d grid on %d features and %d samples leaves a rank without data; use fewer ranks", g.Rows, g.Cols, g.M, g.N)
	}
	return g, nil
}

// Aligned returns the grid of the same shape with every boundary at a
// multiple of a (see Align).
func (g Grid) Aligned(a int) (Grid, error) {
	g.Align = a
	return g.check()
}

// Size is the number of ranks.
func (g Grid) Size() int { return g.Rows * g.Cols }

// Pos returns rank's grid row and column.
func (g Grid) Pos(rank int) (i, j int) { return rank / g.Cols, rank % g.Cols }

// part returns the bounds of part t of [0, n) cut into parts as even as
// integers allow, in units of the grid's Align.
func (g Grid) part(n, parts, t int) (lo, hi int) {
	a := max(g.Align, 1)
	units := (n + a - 1) / a
	return min(n, t*units/parts*a), min(n, (t+1)*units/parts*a)
}

// FeatureBlock returns the features of grid row i.
func (g Grid) FeatureBlock(i int) (lo, hi int) { return g.part(g.M, g.Rows, i) }

// SampleBlock returns the samples of grid column j.
func (g Grid) SampleBlock(j int) (lo, hi int) { return g.part(g.N, g.Cols, j) }

// URows returns the rows of U that rank (i, j) owns: part j of feature
// block i.
func (g Grid) URows(i, j int) (lo, hi int) {
	b0, b1 := g.FeatureBlock(i)
	l, h := g.part(b1-b0, g.Cols, j)
	return b0 + l, b0 + h
}

// VRows returns the rows of V that rank (i, j) owns: part i of sample
// block j.
func (g Grid) VRows(i, j int) (lo, hi int) {
	b0, b1 := g.SampleBlock(j)
	l, h := g.part(b1-b0, g.Rows, i)
	return b0 + l, b0 + h
}

// Block returns rank's block of the data given as samples (n x m, one row
// per sample, as solver.NewSparseData takes it): X_ij^T, the samples of
// sample block j restricted to the features of feature block i, with
// indices local to the block.
func (g Grid) Block(samples *sparse.CSR, rank int) *sparse.CSR {
	_, j := g.Pos(rank)
	return g.ShardBlock(samples.RowSlice(g.SampleBlock(j)), rank)
}

// ShardBlock is Block for a rank that holds only its sample block's
// samples (SampleBlock's rows, every feature):
// the shard a rank reads and prepares on its own (model.PrepareShard).
func (g Grid) ShardBlock(shard *sparse.CSR, rank int) *sparse.CSR {
	i, j := g.Pos(rank)
	f0, f1 := g.FeatureBlock(i)
	s0, s1 := g.SampleBlock(j)
	if shard.Rows != s1-s0 || shard.Cols != g.M {
		panic(fmt.Sprintf("dist: a shard of %d x %d for sample block %d-%d of %d features", shard.Rows, shard.Cols, s0+1, s1, g.M))
	}
	b := &sparse.CSR{Rows: s1 - s0, Cols: f1 - f0, Indptr: make([]int, s1-s0+1)}
	for s := 0; s < shard.Rows; s++ {
		for p := shard.Indptr[s]; p < shard.Indptr[s+1]; p++ {
			if f := shard.Ind[p]; f >= f0 && f < f1 {
				b.Ind, b.Val = append(b.Ind, f-f0), append(b.Val, shard.Val[p])
			}
		}
		b.Indptr[s+1] = len(b.Ind)
	}
	return b
}

// WordsPerIter is the values rank moves to or from other ranks in one
// iteration of FitNMF with k factors, by formula, counted as package
// dist's collectives are (see NMFResult.Words): per half, the gathered
// block of the other factor less the rank's own rows, the reduce-scattered
// product of its block less its own rows, and a k x k Gram matrix summed
// over all ranks (plus the objective's term in the U half):
//
//	2 k (m_i - u) + 2 k (n_j - v) + 2 k^2 + 1,
//
// m_i and n_j the rank's feature and sample blocks, u and v its own rows
// of U and V; 0 on one rank. Over a grid of Rows x Cols it is about
// 2 k (m / Rows + n / Cols), which NewGrid's shape minimizes.
func (g Grid) WordsPerIter(rank, k int) int {
	if g.Size() == 1 {
		return 0
	}
	return g.blockWords(rank, k) + 2*k*k + 1
}

// blockWords is the part of WordsPerIter that moves factor blocks: the
// gathers and reduce-scatters of both halves, 2 k (m_i - u) + 2 k (n_j -
// v).
func (g Grid) blockWords(rank, k int) int {
	i, j := g.Pos(rank)
	f0, f1 := g.FeatureBlock(i)
	s0, s1 := g.SampleBlock(j)
	u0, u1 := g.URows(i, j)
	v0, v1 := g.VRows(i, j)
	return 2*k*((f1-f0)-(u1-u0)) + 2*k*((s1-s0)-(v1-v0))
}

// WithFeatures returns the grid of the same shape over m features: the
// shape is chosen from the data as read, the blocks from the features
// its preparation keeps.
func (g Grid) WithFeatures(m int) (Grid, error) {
	g.M = m
	return g.check()
}
