package dist

import (
	"fmt"
	"sort"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/sparse"
)

// halo is one rank's share of GNMF's graph term: the rows of lambda W
// and lambda D for the V rows it owns, and the exchange that brings it
// the rows of V its rows' neighbours hold on other ranks (the graph's
// cut), set up once: each rank asks each owner for the rows it needs, and
// every product then passes exactly those rows (Alltoallv).
type halo struct {
	k   int
	own int         // owned rows
	w   *sparse.CSR // own x (own + halo): lambda W, columns local (owned rows first)
	deg []float64   // lambda D of the owned rows
	// need lists the halo rows (global indices) grouped by owner in rank
	// order; recvCounts the values each rank sends here.
	need       []int
	recvCounts []int
	// send lists the owned rows (local indices) each rank asked for,
	// grouped by that rank in rank order; sendCounts the values.
	send       []int
	sendCounts []int
	ext        blas64.General // the owned rows, then the halo rows
	sendBuf    []float64
}

// vOwner returns the rank that owns V's row s.
func (g Grid) vOwner(s int) int {
	// Sample block j holds [j N / Cols, (j+1) N / Cols).
	j := sort.Search(g.Cols, func(j int) bool { _, hi := g.SampleBlock(j); return s < hi })
	i := sort.Search(g.Rows, func(i int) bool { _, hi := g.VRows(i, j); return s < hi })
	return i*g.Cols + j
}

// newHalo sets up rank's share of the graph term lambda Tr(V^T L V) for
// its rows of the graph on all N samples. Under the scale-invariant
// formulation lambda is taken per unit of the graph's mean degree, as
// solver.Fit takes it: lambda n / sum(D).
func newHalo(world Comm, g Grid, rows *GraphRows, lambda float64, invariant bool, k int) (*halo, error) {
	rank := world.Rank()
	deg, err := rows.check(g, rank)
	if err := agree(world, err); err != nil {
		return nil, err
	}
	if invariant {
		total := []float64{0}
		for _, d := range deg {
			total[0] += d
		}
		if err := world.AllreduceSum(total); err != nil {
			return nil, err
		}
		if total[0] > 0 {
			lambda *= float64(g.N) / total[0]
		}
	}
	i, j := g.Pos(rank)
	v0, v1 := g.VRows(i, j)
	h := &halo{k: k, own: v1 - v0, deg: make([]float64, v1-v0)}
	w := rows.W
	// The halo rows, in order of owner then index.
	seen := map[int]bool{}
	for s := 0; s < h.own; s++ {
		h.deg[s] = lambda * deg[s]
		for p := w.Indptr[s]; p < w.Indptr[s+1]; p++ {
			if t := w.Ind[p]; (t < v0 || t >= v1) && !seen[t] {
				seen[t] = true
				h.need = append(h.need, t)
			}
		}
	}
	owner := make(map[int]int, len(h.need))
	for _, t := range h.need {
		owner[t] = g.vOwner(t)
	}
	sort.Slice(h.need, func(a, b int) bool {
		oa, ob := owner[h.need[a]], owner[h.need[b]]
		return oa < ob || oa == ob && h.need[a] < h.need[b]
	})
	local := make(map[int]int, len(h.need))
	for q, t := range h.need {
		local[t] = h.own + q
	}
	h.w = &sparse.CSR{Rows: h.own, Cols: h.own + len(h.need), Indptr: make([]int, h.own+1)}
	for s := 0; s < h.own; s++ {
		for p := w.Indptr[s]; p < w.Indptr[s+1]; p++ {
			t := w.Ind[p]
			c, ok := local[t]
			if !ok {
				c = t - v0
			}
			h.w.Ind, h.w.Val = append(h.w.Ind, c), append(h.w.Val, lambda*w.Val[p])
		}
		h.w.Indptr[s+1] = len(h.w.Ind)
	}
	// Tell each owner how many rows, then which rows, this rank needs.
	p := world.Size()
	ask := make([]float64, p)
	for _, t := range h.need {
		ask[owner[t]]++
	}
	ones := make([]int, p)
	for q := range ones {
		ones[q] = 1
	}
	asked := make([]float64, p)
	if err := world.Alltoallv(ask, ones, asked, ones); err != nil {
		return nil, err
	}
	askCounts, askedCounts := make([]int, p), make([]int, p)
	h.recvCounts, h.sendCounts = make([]int, p), make([]int, p)
	total := 0
	for q := range ask {
		askCounts[q], askedCounts[q] = int(ask[q]), int(asked[q])
		h.recvCounts[q], h.sendCounts[q] = askCounts[q]*k, askedCounts[q]*k
		total += askedCounts[q]
	}
	idx := make([]float64, len(h.need))
	for q, t := range h.need {
		idx[q] = float64(t)
	}
	got := make([]float64, total)
	if err := world.Alltoallv(idx, askCounts, got, askedCounts); err != nil {
		return nil, err
	}
	h.send = make([]int, total)
	for q, t := range got {
		s := int(t)
		if s < v0 || s >= v1 {
			panic(fmt.Sprintf("dist: rank %d was asked for V's row %d, which it does not own", rank, s))
		}
		h.send[q] = s - v0
	}
	h.ext = general(h.own+len(h.need), k)
	h.sendBuf = make([]float64, total*k)
	return h, nil
}

// product sets wv (own x k) to lambda W V for the owned rows v, after
// bringing the halo rows from their owners.
func (h *halo) product(world Comm, v, wv blas64.General, threads int) error {
	k := h.k
	for q, r := range h.send {
		copy(h.sendBuf[q*k:(q+1)*k], v.Data[r*k:(r+1)*k])
	}
	copy(h.ext.Data, v.Data[:h.own*k])
	if err := world.Alltoallv(h.sendBuf, h.sendCounts, h.ext.Data[h.own*k:], h.recvCounts); err != nil {
		return err
	}
	h.w.MulDenseTo(wv, h.ext, threads)
	return nil
}

// terms returns, for the owned rows, sum_i deg_i v_ic^2 - v_ic wv_ic per
// column c (each column's share of the graph term, before the sum over
// ranks).
func (h *halo) terms(v, wv blas64.General) []float64 {
	k := h.k
	out := make([]float64, k)
	for i := 0; i < h.own; i++ {
		vi, wi := v.Data[i*k:(i+1)*k], wv.Data[i*k:(i+1)*k]
		for c, x := range vi {
			out[c] += h.deg[i]*x*x - x*wi[c]
		}
	}
	return out
}
