package solver

import (
	"fmt"
	"strings"

	"github.com/manifactor/manifactor/internal/nmfstep"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// Algorithm selects how Fit minimizes a method's objective. The zero
// value, AutoAlgorithm, is the one that reaches a given objective soonest
// for the method where that choice also clusters as well: CD for NMF,
// GNMF and NMF-KL and their NC-weighted forms (sooner than MU to MU's
// objective, clustering as well under the default protocol; the figures
// are in docs/PERFORMANCE.md), MU for the rest. LPNMF's CD is sooner too
// but clustered worse on TDT2 and Reuters, and CF and LCCF have none (see
// Method.HasCD).
type Algorithm int

const (
	// AutoAlgorithm is CD for nmf, gnmf, nmf-kl and their -ncw forms
	// and MU for the other methods (see Algorithm).
	AutoAlgorithm Algorithm = iota
	// MU is the papers' multiplicative updates, the reference
	// implementation's arithmetic.
	MU
	// CD is (block) coordinate descent: each entry of a factor is set to
	// the exact minimizer of the objective with the others fixed, so the
	// objective never increases.
	CD
	// MiniBatch is the online NMF of package minibatch, for nmf,
	// nmf-ncw and nmf-kl: an iteration is one pass over the samples in batches
	// (Control.BatchSize), each batch's V solved by coordinate descent
	// for the current U and U updated from the statistics of the samples
	// seen, discounted by Control.Forget between passes. It is the
	// solver that needs only a block of the samples at a time, so
	// package model streams a parts directory with it.
	MiniBatch
)

var algorithmNames = [...]string{AutoAlgorithm: "auto", MU: "mu", CD: "cd", MiniBatch: "minibatch"}

// String returns the name UnmarshalText accepts.
func (a Algorithm) String() string {
	if a < 0 || int(a) >= len(algorithmNames) {
		return fmt.Sprintf("Algorithm(%d)", int(a))
	}
	return algorithmNames[a]
}

// parseAlgorithm parses "auto", "mu", "cd" or "minibatch".
func parseAlgorithm(s string) (Algorithm, error) {
	for a, name := range algorithmNames {
		if s == name {
			return Algorithm(a), nil
		}
	}
	return 0, fmt.Errorf("solver: unknown solver %q (want auto, mu, cd or minibatch)", s)
}

// MarshalText returns the algorithm's name.
func (a Algorithm) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText parses an algorithm's name.
func (a *Algorithm) UnmarshalText(b []byte) error {
	v, err := parseAlgorithm(string(b))
	if err == nil {
		*a = v
	}
	return err
}

// HasCD reports whether Fit has a coordinate-descent solver for m: NMF,
// GNMF, NMF-KL and LPNMF and their NC-weighted forms. Concept
// factorization's W enters its objective through the n x n kernel, so a
// coordinate step on one entry of W changes K W in a whole column (O(n)
// per entry, O(n^2 k) per sweep against the O(nnz k) of a multiplicative
// step).
func (m Method) HasCD() bool {
	return !m.Concept()
}

// HasMiniBatch reports whether Fit has the MiniBatch solver for m: NMF,
// NMF-NCW and NMF-KL. The graph term couples a sample's row of V with
// its neighbours', which a batch does not hold; NMF-KL-NCW's weights
// need every sample's before the first batch.
func (m Method) HasMiniBatch() bool {
	return m == NMF || m == NMFNCW || m == NMFKL
}

// miniBatchMethods names the methods that have MiniBatch, for error
// messages.
func miniBatchMethods() string {
	var names []string
	for _, m := range Methods() {
		if m.HasMiniBatch() {
			names = append(names, m.String())
		}
	}
	return strings.Join(names, ", ")
}

// Resolve returns the algorithm Fit runs for method m: a for MU and CD,
// and for AutoAlgorithm CD where m is NMF, GNMF or NMF-KL (or their
// NC-weighted forms), MU otherwise (see Algorithm).
func (a Algorithm) Resolve(m Method) Algorithm {
	if a != AutoAlgorithm {
		return a
	}
	if b := m.Base(); b == NMF || b == GNMF || b == NMFKL {
		return CD
	}
	return MU
}

// cdMethods names the methods that have CD, comma-separated, for error
// messages.
func cdMethods() string {
	var names []string
	for _, m := range Methods() {
		if m.HasCD() {
			names = append(names, m.String())
		}
	}
	return strings.Join(names, ", ")
}

// coloring is a partition of a graph's vertices into independent sets
// (no edge inside a set), in increasing vertex order within each, so that
// the rows of one set can be updated at once: the graph term couples a
// row only with its neighbours.
type coloring struct {
	order []int // vertices by color
	start []int // color c is order[start[c]:start[c+1]]
}

// colorGraph colors the symmetric w greedily in vertex order (each vertex
// takes the smallest color none of its earlier neighbours has): at most
// one more color than the largest degree, and the same for any thread
// count.
func colorGraph(w *sparse.CSR) *coloring {
	n := w.Rows
	color := make([]int, n)
	seen := []int{} // seen[c] = the last vertex that found color c taken
	colors := 0
	for j := 0; j < n; j++ {
		for q := w.Indptr[j]; q < w.Indptr[j+1]; q++ {
			if s := w.Ind[q]; s < j {
				seen[color[s]] = j
			}
		}
		c := 0
		for c < colors && seen[c] == j {
			c++
		}
		if c == colors {
			colors++
			seen = append(seen, -1)
		}
		color[j] = c
		// seen holds j only for the colors taken by j's neighbours; the
		// next vertex compares against its own index.
	}
	count := make([]int, colors+1)
	for _, c := range color {
		count[c+1]++
	}
	for c := 1; c <= colors; c++ {
		count[c] += count[c-1]
	}
	col := &coloring{order: make([]int, n), start: append([]int(nil), count...)}
	for j, c := range color {
		col.order[count[c]] = j
		count[c]++
	}
	return col
}

// cdGraphHalf is GNMF's V half under CD: for each row j of V, with the
// other rows fixed, the objective is
//
//	v_j^T S v_j - 2 (X^T U)_j . v_j + deg_j |v_j|^2 - 2 v_j . sum_s w_js v_s
//
// (S = U^T U, plus the graph weights folded in w and deg), a quadratic that
// nmfstep.Rows minimizes. Rows of one color share no edge, so they are updated
// together, colour after colour (block Gauss-Seidel): in fixed blocks of
// nmfstep.Block rows of the colour, swept column by column (nmfstep.Rows with the
// degrees as the rows' diagonal terms), the blocks in parallel; each row
// reads its neighbours' latest values, and the result does not depend on
// threads. The data product is formed once; the pass over the colours then
// repeats while it pays, at most it.graphPasses times, stopping once a
// pass lowers the objective by less than tol2 of what the first did
// (each pass lowers it by its rows' gains, so the objective still never
// increases). The first pass sweeps each row as the U half does (cdV);
// the later ones only carry the neighbours' changes along the graph and
// sweep each row once (cdPass), the cost graphPasses counts: repeating
// cdV's sweeps in every pass made lambda auto's runs slower end to end on
// COIL20, TDT2 and ohscal for no fewer iterations (measured:
// docs/PERFORMANCE.md).
// The measure is taken in the first pass.
func (it *nmfIter) cdGraphHalf(num rowProduct, s []float64, threads int, measure bool) {
	k, v, reg := it.f.k, it.f.v, it.p.reg
	col := it.p.colors
	if num.a != nil {
		// The colours visit the rows out of order; the data product's
		// gathers run faster in row order, into a whole n x k product
		// (each row by the same AxpyGather, so the same values).
		if it.xtu.Data == nil {
			it.xtu = general(v.Rows, k)
		}
		full := it.xtu
		parallel.For(v.Rows, threads, 64, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				num.row(j, full.Data[j*k:(j+1)*k])
			}
		})
		num = rowProduct{full: full}
	}
	blocks := 0
	for c := 0; c+1 < len(col.start); c++ {
		blocks += (col.start[c+1] - col.start[c] + nmfstep.Block - 1) / nmfstep.Block
	}
	it.graphKKT.reset(blocks, k)
	if len(it.passGain) < blocks {
		it.passGain = make([]float64, blocks)
	}
	// The passes over the graph: each lowers the objective by the sum of
	// its rows' gains; more run while they pay (see graphPasses).
	var firstGain float64
	for pass := 0; pass < it.graphPasses; pass++ {
		rule := it.cdV
		if pass > 0 {
			rule = it.cdPass
		}
		first := 0 // the first block of the colour
		for c := 0; c+1 < len(col.start); c++ {
			rows := col.order[col.start[c]:col.start[c+1]]
			workers := parallel.Workers(len(rows), threads, nmfstep.Block)
			it.vw.buffers(workers)
			for len(it.vw.cd) < workers {
				it.vw.cd = append(it.vw.cd, nmfstep.NewWork(k))
			}
			// Blocks of nmfstep.Block rows of one colour, none coupled to another
			// by the graph, sweep together as nmfstep.Rows does for U.
			parallel.ForWorker(len(rows), threads, nmfstep.Block, func(worker, lo, hi int) {
				var pg, ref []float64
				if measure && pass == 0 {
					pg, ref = it.graphKKT.block(first + lo/nmfstep.Block)
				}
				cw := it.vw.cd[worker]
				blk := rows[lo:hi]
				vrow := func(i int) []float64 { return v.Data[blk[i]*k : (blk[i]+1)*k] }
				cw.PutRows(len(blk), k, vrow, func(i int, b []float64) []float64 {
					j := blk[i]
					num.row(j, b)
					p0, p1 := reg.w.Indptr[j], reg.w.Indptr[j+1]
					asm.AxpyGather(b, reg.w.Val[p0:p1], reg.w.Ind[p0:p1], v.Data, k)
					cw.D[i] = reg.deg[j]
					return b
				}, it.vw.scratch[worker][:4*k])
				it.passGain[first+lo/nmfstep.Block] = nmfstep.Rows(cw, s, nil, k, len(blk), rule, pg, ref, cw.D)
				cw.GetRows(len(blk), vrow)
			})
			first += (len(rows) + nmfstep.Block - 1) / nmfstep.Block
		}
		// Summed in block order, so the decision is the same for any
		// thread count.
		var gain float64
		for _, g := range it.passGain[:blocks] {
			gain += g
		}
		it.passes++
		if pass == 0 {
			firstGain = gain
		} else if gain <= it.cdV.Tol2*firstGain {
			break
		}
	}
}

// graphPasses is the most passes over the graph that GNMF's V half makes
// per data product: 1 + cdAlpha rho, rho the cost of the half's data
// product and Gram matrix (nnz k + n k^2 multiply-adds) against one pass
// (n k^2 for a sweep of every row, gnnz k for the neighbours' sums), the
// rule of Gillis and Glineur that nmfstep.NewRule applies to a row's sweeps,
// applied to the passes (a later pass sweeps each row once). A pass
// reaches only each row's neighbours, so at large weights, where V must
// agree along the graph, one pass per data product left the objective far
// from the half's minimum and lambda auto's largest weights ran to the
// iteration cap (PIE, k 10, lambda 1000: 500 iterations, 71 with the
// passes; docs/PERFORMANCE.md). Passes stop early once one gains less than
// tol2 of the first, as a row's sweeps do.
func graphPasses(nnz, gnnz, n, k int) int {
	nk2 := float64(n) * float64(k) * float64(k)
	rho := (float64(nnz)*float64(k) + nk2) / (nk2 + float64(gnnz)*float64(k))
	return 1 + int(nmfstep.Alpha*rho)
}
