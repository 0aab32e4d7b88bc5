package dist

import (
	"fmt"
	"slices"

	"github.com/manifactor/manifactor/sparse"
)

// BalanceShard reorders the features of the ranks' shards so that the
// grid's feature blocks hold about equal numbers of stored entries:
// features sorted by their entries over the whole corpus (pooled over
// row, the communicator of the ranks of one grid row, which hold every
// sample block once) go, largest first, to the block with the fewest
// entries that still has room (blocks keep Grid.FeatureBlock's sizes),
// and each block keeps its features in the data's order. Contiguous
// blocks of a term-document matrix are badly unbalanced otherwise:
// vocabularies list frequent terms first (TDT2's first half of the terms
// holds 96 % of its entries), and the rank holding them does nearly all
// the work. It returns the shard with its columns renumbered to the new
// positions and order, the data's feature at each position, for
// NMFOptions.FeatureOrder. The result is the same on every rank.
//
// On an aligned grid (Grid.Aligned, for the coordinate-descent
// half-steps) the features are dealt in units of Align features of
// falling frequency instead: solver.Fit orders U's rows by falling
// frequency and updates them in blocks of nmfstep.Block, so each of its
// blocks then lies whole in one grid row, in its order.
func BalanceShard(row Comm, g Grid, shard *sparse.CSR) (*sparse.CSR, []int, error) {
	if shard.Cols != g.M {
		panic(fmt.Sprintf("dist: BalanceShard: a shard of %d features on a grid of %d", shard.Cols, g.M))
	}
	counts := make([]float64, g.M)
	for _, f := range shard.Ind {
		counts[f]++
	}
	if err := row.AllreduceSum(counts); err != nil {
		return nil, nil, err
	}
	order := balancedOrder(counts, g)
	if g.Align > 1 {
		order = unitOrder(counts, g)
	}
	pos := make([]int, g.M)
	for p, f := range order {
		pos[f] = p
	}
	return renumberColumns(shard, pos), order, nil
}

// balancedOrder returns the features in block order: each block's
// features in increasing order, the blocks filled greedily by falling
// counts (ties by index), each feature to the block with the smallest
// total that has room.
func balancedOrder(counts []float64, g Grid) []int {
	room := make([]int, g.Rows)
	for i := range room {
		lo, hi := g.FeatureBlock(i)
		room[i] = hi - lo
	}
	order := make([]int, 0, len(counts))
	for _, b := range deal(counts, room, false) {
		order = append(order, b...)
	}
	return order
}

// unitOrder is balancedOrder in units: the features by falling count
// (ties by index, as sparse.CSR.TByFrequency orders them) cut into units
// of g.Align, dealt to the blocks by the units' counts with each block's
// room in units; the last unit, which may be short, goes to the last
// block, at its end, so every block but the last holds whole units and
// every boundary stays a multiple of Align. Each block keeps its units in
// frequency order.
func unitOrder(counts []float64, g Grid) []int {
	a := g.Align
	freq := byFalling(counts)
	units := (len(freq) + a - 1) / a
	weight := make([]float64, units)
	for r, f := range freq {
		weight[r/a] += counts[f]
	}
	room := make([]int, g.Rows)
	for i := range room {
		lo, hi := g.FeatureBlock(i)
		room[i] = (hi - lo + a - 1) / a
	}
	order := make([]int, 0, len(counts))
	for _, b := range deal(weight, room, true) {
		for _, u := range b {
			order = append(order, freq[u*a:min((u+1)*a, len(freq))]...)
		}
	}
	return order
}

// deal assigns items 0..len(weight)-1 to blocks of the given room:
// largest weight first (ties by index), each to the block with the
// smallest total that has room; with pinLast the last item goes to the
// last block first. It returns each block's items in increasing order.
func deal(weight []float64, room []int, pinLast bool) [][]int {
	room = slices.Clone(room)
	blocks := make([][]int, len(room))
	total := make([]float64, len(room))
	items := weight
	if pinLast {
		last, b := len(weight)-1, len(room)-1
		blocks[b], room[b], total[b] = []int{last}, room[b]-1, weight[last]
		items = weight[:last]
	}
	for _, u := range byFalling(items) {
		best := -1
		for i := range blocks {
			if room[i] > 0 && (best < 0 || total[i] < total[best]) {
				best = i
			}
		}
		blocks[best] = append(blocks[best], u)
		room[best]--
		total[best] += weight[u]
	}
	for _, b := range blocks {
		slices.Sort(b)
	}
	return blocks
}

// byFalling returns the indices of x by falling value, ties in
// increasing index (a stable sort, as sparse.CSR.TByFrequency's).
func byFalling(x []float64) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case x[a] > x[b]:
			return -1
		case x[a] < x[b]:
			return 1
		}
		return 0
	})
	return idx
}

// renumberColumns returns a with column f moved to pos[f], each row's
// entries in increasing column order.
func renumberColumns(a *sparse.CSR, pos []int) *sparse.CSR {
	b := &sparse.CSR{Rows: a.Rows, Cols: a.Cols, Indptr: make([]int, a.Rows+1), Ind: make([]int, 0, a.NNZ()), Val: make([]float64, 0, a.NNZ())}
	type entry struct {
		c int
		x float64
	}
	var row []entry
	for i := 0; i < a.Rows; i++ {
		row = row[:0]
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			row = append(row, entry{pos[a.Ind[p]], a.Val[p]})
		}
		slices.SortFunc(row, func(x, y entry) int { return x.c - y.c })
		for _, e := range row {
			b.Ind, b.Val = append(b.Ind, e.c), append(b.Val, e.x)
		}
		b.Indptr[i+1] = len(b.Ind)
	}
	return b
}
