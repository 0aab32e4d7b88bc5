package dist

import (
	"context"
	"fmt"
	"math"

	"github.com/manifactor/manifactor/internal/nmfstep"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

// GridComms are the communicators of one rank of a grid: every rank
// (World, ranked as the grid numbers them), the ranks of its grid row (Row,
// ranked by grid column) and of its grid column (Col, ranked by grid row).
// Under MPI they come from splitting the world communicator by grid row
// and by grid column; LocalGrid makes them for in-process ranks.
type GridComms struct {
	World, Row, Col Comm
}

// LocalGrid returns the communicators of g's ranks as goroutines of this
// process (see Local); rank r uses element r.
func LocalGrid(g Grid) []GridComms {
	world := Local(g.Size())
	out := make([]GridComms, g.Size())
	done := make(chan struct{})
	for r, c := range world {
		go func() {
			defer func() { done <- struct{}{} }()
			i, j := g.Pos(r)
			row, _ := c.Split(i, j)
			col, _ := c.Split(g.Rows+j, i)
			out[r] = GridComms{World: c, Row: row, Col: col}
		}()
	}
	for range world {
		<-done
	}
	return out
}

// NMFOptions configures FitNMF.
type NMFOptions struct {
	// K is the number of factors, 1 <= K <= min(M, N).
	K int
	// Seed draws the start: the factors of solver.Fit's first random
	// start for the same Seed (nmfstep.Random).
	Seed uint64
	// Threads bounds the goroutines of each rank's local products; 0
	// means GOMAXPROCS.
	Threads int
	// CD runs the coordinate-descent half-steps of solver.Fit's CD
	// algorithm (nmfstep.CD) instead of the multiplicative ones, for
	// NMF without a graph term. The grid must be aligned to
	// nmfstep.Block (Grid.Aligned), and for the steps of one process the
	// features must be in BalanceShard's order on that grid (solver.Fit's
	// frequency order, in blocks).
	CD bool
	// FeatureOrder, when set, is the data's feature at each position of
	// the grid's feature order (BalanceShard's): the blocks and U's rows
	// follow it, and the start draws U's rows of those features, so the
	// fit is one process's on the data in its own order (to rounding).
	FeatureOrder []int
	// Lambda, when positive, adds GNMF's graph term lambda Tr(V^T L V)
	// for the graph on all N samples, given whole as Graph (every rank
	// the same) or as each rank's rows of it, GraphRows (BuildGraph's),
	// weighed as Formulation says (see solver.Formulation; the zero value
	// is the scale-invariant one). A rank uses the graph's rows of its
	// own V rows and receives its neighbours' rows of V from their owners.
	Lambda      float64
	Graph       *graph.Graph
	GraphRows   *GraphRows
	Formulation solver.Formulation
	// Control is how the fit runs, as solver.Fit's: MaxIter caps the
	// iterations (0: solver.DefaultMaxIter); Tol stops them once the
	// objective decreases by less than Tol relative to the previous one
	// (solver's RelativeDecrease rule; every rank sees the same
	// objective, so all stop together; 0 means solver.DefaultTol, a
	// negative value runs all MaxIter); PlainCD turns off the
	// extrapolated steps of CD without a graph term (nmfstep.Extrapolated:
	// each rank moves its own rows, and the decision to keep or undo a
	// step is taken on the objective every rank holds). Its other
	// settings (the projected-gradient rule among them) are not applied
	// here.
	solver.Control
}

// NMFResult is one rank's share of a distributed factorization.
type NMFResult struct {
	// Objective is ||X - U V^T||_F^2 at the start and after every
	// iteration, the same on every rank.
	Objective []float64
	// Status says what stopped the iterations: solver.Converged when
	// Tol's rule did, solver.IterationLimit after MaxIter.
	Status solver.Status
	// Words is the values this rank moved to or from other ranks per
	// iteration, counted at the collectives, and Formula what the formula
	// says it should be: Grid.WordsPerIter, plus with a graph term the
	// halo rows received per iteration times K and the K column terms of
	// the graph term summed over the ranks.
	Words, Formula int
	// U and V are the rows the rank owns (Grid.URows and Grid.VRows),
	// row-major with stride K, from row ULo and VLo.
	U, V     blas64.General
	ULo, VLo int
}

// FitNMF runs Frobenius NMF (with GNMF's graph term when opts.Lambda is
// positive) on the grid g, by solver.Fit's half-steps: the multiplicative
// updates (nmfstep.MUUpdate, solver's pass, V first) or, with opts.CD, coordinate descent
// (nmfstep.CD); every rank calls it with its communicators and its block of
// the data, Grid.Block's X_ij^T (samples as rows, local indices). Per
// iteration each half gathers the other factor's block along the grid
// row or column (Allgatherv), multiplies it by the local block, and
// reduce-scatters the partial products to the owners of the rows, whose
// update needs the k x k Gram matrix of the other factor (AllreduceSum).
// A rank communicates k (m / Rows + n / Cols) words per half at most.
//
// The start and the arithmetic of each row are those of solver.Fit with
// Method NMF (or GNMF), Algorithm MU (or CD), one start and the same
// Seed, so the objectives agree with one process's to rounding (the sums
// over ranks add in another order).
func FitNMF(ctx context.Context, cs GridComms, g Grid, block *sparse.CSR, opts NMFOptions) (*NMFResult, error) {
	rs, err := begin(cs, g, block, opts)
	if err != nil {
		return nil, err
	}
	// The options only this method has, before any work.
	switch {
	case opts.Lambda < 0 || math.IsNaN(opts.Lambda) || math.IsInf(opts.Lambda, 0):
		return nil, fmt.Errorf("dist: lambda = %v: must be finite and not negative", opts.Lambda)
	case opts.CD && opts.Lambda != 0:
		return nil, fmt.Errorf("dist: the coordinate-descent steps are distributed for nmf without a graph term")
	case opts.CD && g.Align != nmfstep.Block:
		return nil, fmt.Errorf("dist: the coordinate-descent steps need a grid aligned to %d rows (Grid.Aligned), not %d", nmfstep.Block, g.Align)
	}
	cs, world, rank, i, j, k := rs.cs, rs.cs.World, rs.rank, rs.i, rs.j, opts.K
	f0, f1, s0, s1 := rs.f0, rs.f1, rs.s0, rs.s1
	// The block's features in order of falling frequency (the hot rows of
	// U_i together in memory) and X V by column panels (or blocks) where
	// V_j outgrows the caches, as solver.Fit arranges X; gathered U_i is
	// permuted into that order and X V's rows back out of it.
	x, order := block.TByFrequency()
	xt := block.Clone()
	nmfstep.RenumberFeatures(xt, order)
	xp := nmfstep.XVPanels(xt, k, opts.Threads)
	var xb *sparse.ColBlocks
	if xp == nil {
		xb = nmfstep.BlockedProduct(x, k)
	}
	res, uCounts, vCounts := startFactors(g, i, j, k, opts.Seed, opts.FeatureOrder)
	v0, v1 := res.VLo, res.VLo+res.V.Rows
	// The coordinate-descent steps, sized as solver.Fit sizes them: by
	// the whole data's entries and each factor's rows.
	var cdU, cdV *nmfstep.CD
	if opts.CD {
		nnz := []float64{float64(block.NNZ())}
		if err := world.AllreduceSum(nnz); err != nil {
			return nil, err
		}
		cdU, cdV = nmfstep.NewCD(int(nnz[0]), g.M, k), nmfstep.NewCD(int(nnz[0]), g.N, k)
	}
	p, q := general(s1-s0, k), general(f1-f0, k) // the local products
	perm := general(f1-f0, k)                    // U_i and X V in frequency order
	ui, vj, pOwn, qOwn := exchangeBuffers(g, res, p, q)

	// GNMF: the graph's rows of the owned V rows and the exchange of the
	// neighbours' rows.
	var hl *halo
	var wv blas64.General
	invariant := false
	if opts.Lambda > 0 {
		rows := opts.GraphRows
		switch {
		case opts.Graph != nil && rows != nil:
			return nil, fmt.Errorf("dist: both a whole graph and graph rows given")
		case opts.Graph != nil:
			if err := opts.Graph.Check(g.N); err != nil {
				return nil, fmt.Errorf("dist: %w", err)
			}
			rows = rowsOf(opts.Graph, g, rank)
		case rows == nil:
			return nil, fmt.Errorf("dist: lambda = %v needs a sample graph", opts.Lambda)
		}
		invariant = opts.Formulation == solver.ScaleInvariant
		var err error
		if hl, err = newHalo(world, g, rows, opts.Lambda, invariant, k); err != nil {
			return nil, err
		}
		wv = general(v1-v0, k)
	}
	if invariant {
		// solver.Fit's normalized start: U's columns at unit length, V's
		// scaled to match.
		norms := make([]float64, k)
		for r := 0; r < res.U.Rows; r++ {
			for c, x := range res.U.Data[r*k : (r+1)*k] {
				norms[c] += x * x
			}
		}
		if err := world.AllreduceSum(norms); err != nil {
			return nil, err
		}
		for c, x := range norms {
			if x == 0 {
				continue
			}
			nc := math.Sqrt(x)
			for r := 0; r < res.U.Rows; r++ {
				res.U.Data[r*k+c] /= nc
			}
			for r := 0; r < res.V.Rows; r++ {
				res.V.Data[r*k+c] *= nc
			}
		}
	}
	// graphTerm returns lambda Tr(V^T L V) summed over the ranks, and
	// graphColumns its share per column, for the current V and wv.
	graphColumns := func() ([]float64, error) {
		t := hl.terms(res.V, wv)
		return t, world.AllreduceSum(t)
	}
	graphTerm := func() (float64, error) {
		if hl == nil {
			return 0, nil
		}
		t, err := graphColumns()
		var sum float64
		for _, x := range t {
			sum += x
		}
		return sum, err
	}
	graphProduct := func() error {
		if hl == nil {
			return nil
		}
		return hl.product(world, res.V, wv, opts.Threads)
	}

	sums := []float64{xt.SquaredFrobenius()}
	if err := world.AllreduceSum(sums); err != nil {
		return nil, err
	}
	sqNorm := sums[0]
	// The start's objective: V^T V, then X V to U's owners, U^T U.
	vtv, err := gram(world, res.V, nil)
	if err != nil {
		return nil, err
	}
	uHalf := func(s []float64) (utu []float64, dot float64, err error) {
		if err := gather(cs.Col, res.V.Data, vj.Data, vCounts); err != nil {
			return nil, 0, err
		}
		switch {
		case xp != nil:
			xp.MulTransDenseTo(perm, vj, opts.Threads)
		case xb != nil:
			xb.MulDenseTo(perm, vj, opts.Threads)
		default:
			x.MulDenseTo(perm, vj, opts.Threads)
		}
		for r, f := range order {
			copy(q.Data[f*k:(f+1)*k], perm.Data[r*k:(r+1)*k])
		}
		if err := reduceScatter(cs.Row, q.Data, qOwn, uCounts); err != nil {
			return nil, 0, err
		}
		if cdU != nil && s != nil {
			dot = cdU.Update(res.U, qOwn, s, opts.Threads)
		} else {
			dot = nmfstep.MUUpdate(res.U, qOwn, s, nil, nil, opts.Threads)
		}
		utu, err = gram(world, res.U, &dot)
		return utu, dot, err
	}
	if err := graphProduct(); err != nil {
		return nil, err
	}
	utu, dot, err := uHalf(nil)
	if err != nil {
		return nil, err
	}
	gt, err := graphTerm()
	if err != nil {
		return nil, err
	}
	res.Objective = append(res.Objective, sqNorm-2*dot+asm.Dot(utu, vtv)+gt)
	defer rs.countFrom(res)()
	res.Formula = g.WordsPerIter(rank, k)
	if hl != nil && g.Size() > 1 {
		res.Formula += len(hl.need)*k + k
	}
	tol := opts.tol()
	// vHalf is the V half-step: X^T U to V's owners, V's update, and
	// with withGram set V^T V.
	vHalf := func(withGram bool) error {
		if err := gather(cs.Row, res.U.Data, ui.Data, uCounts); err != nil {
			return err
		}
		for r, f := range order {
			copy(perm.Data[r*k:(r+1)*k], ui.Data[f*k:(f+1)*k])
		}
		xt.MulDenseTo(p, perm, opts.Threads)
		if err := reduceScatter(cs.Col, p.Data, pOwn, vCounts); err != nil {
			return err
		}
		var deg []float64
		if hl != nil {
			deg = hl.deg
		}
		if cdV != nil {
			cdV.Update(res.V, pOwn, utu, opts.Threads)
		} else {
			nmfstep.MUUpdate(res.V, pOwn, utu, wv.Data, deg, opts.Threads)
		}
		if !withGram {
			return nil
		}
		var err error
		vtv, err = gram(world, res.V, nil)
		return err
	}
	if opts.CD && !opts.PlainCD && hl == nil {
		return res, extrapolated(ctx, res, opts, k*k, nmfstep.Halves{
			V: vHalf,
			U: func() (float64, error) {
				var err error
				if utu, dot, err = uHalf(vtv); err != nil {
					return 0, err
				}
				return sqNorm - 2*dot + asm.Dot(utu, vtv), nil
			},
			UGram: func(move func(lo, hi int)) (err error) {
				moveAll(move, len(res.U.Data), opts.Threads)
				utu, err = gram(world, res.U, nil)
				return err
			},
			VGram: func(move func(lo, hi int)) (err error) {
				moveAll(move, len(res.V.Data), opts.Threads)
				vtv, err = gram(world, res.V, nil)
				return err
			},
		}, tol)
	}
	for it := 1; it <= opts.iters(); it++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if err := vHalf(true); err != nil {
			return nil, err
		}
		if err := graphProduct(); err != nil {
			return nil, err
		}
		var obj float64
		if invariant {
			// The U half of the scale-invariant objective: the graph term
			// is sum_c g_c |u_c|^2, a ridge on U's columns (solver's
			// nmfIter), then U's columns back to unit length.
			gk, err := graphColumns()
			if err != nil {
				return nil, err
			}
			sv := append([]float64(nil), vtv...)
			for c, x := range gk {
				sv[c*k+c] += x
			}
			if utu, dot, err = uHalf(sv); err != nil {
				return nil, err
			}
			obj = sqNorm - 2*dot + asm.Dot(utu, vtv)
			for c, x := range gk {
				obj += utu[c*k+c] * x
			}
			rescale(k, utu, vtv, res.U, res.V, wv)
		} else {
			if utu, dot, err = uHalf(vtv); err != nil {
				return nil, err
			}
			gt, err := graphTerm()
			if err != nil {
				return nil, err
			}
			obj = sqNorm - 2*dot + asm.Dot(utu, vtv) + gt
		}
		if stop, err := res.record(obj, it, tol); err != nil || stop {
			if err != nil {
				return nil, err
			}
			break
		}
	}
	return res, nil
}

// extrapolated is FitNMF's loop under CD without a graph term: one
// process's steps (nmfstep.Extrapolated) on this rank's rows of U and V,
// with h the rank's half-steps. At the end U is the accepted pair's, and
// res.Formula counts what the steps moved: a kept step sums one more Gram
// matrix (kk values) than a plain iteration (V's is summed once, after the
// momentum moved V; U's after its half-step and again after its move), an
// undone one a plain iteration's more besides.
func extrapolated(ctx context.Context, res *NMFResult, opts NMFOptions, kk int, h nmfstep.Halves, tol float64) error {
	ex := nmfstep.NewExtrapolated(res.U.Data, res.V.Data, res.Objective[0])
	plain := res.Formula
	defer func() {
		ex.Accepted(res.U.Data)
		kept, undone := ex.Counts()
		if it := kept + undone; it > 0 && plain > 0 {
			res.Formula = (kept*(plain+kk) + undone*(2*plain+kk)) / it
		}
	}()
	for it := 1; it <= opts.iters(); it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		obj, err := ex.Step(res.U.Data, res.V.Data, h, opts.Threads)
		if err != nil {
			return err
		}
		if stop, err := res.record(obj, it, tol); err != nil || stop {
			return err
		}
	}
	return nil
}

// moveAll runs nmfstep.Extrapolated's move over all n entries of a factor
// block, in parallel ranges; nil does nothing.
func moveAll(move func(lo, hi int), n, threads int) {
	if move != nil {
		parallel.For(n, threads, 1<<14, move)
	}
}

// exchangeBuffers returns where rank's gathered blocks U_i and V_j and
// its summed parts of the products X V (q) and X^T U (p) live. Where its
// grid row (column) has one rank, U_i (V_j) is the rank's own rows and
// the product's sum its own, so they share the memory and nothing moves
// (gather and reduceScatter skip them).
func exchangeBuffers(g Grid, res *NMFResult, p, q blas64.General) (ui, vj blas64.General, pOwn, qOwn []float64) {
	k := res.U.Cols
	if g.Cols == 1 {
		ui, qOwn = res.U, q.Data
	} else {
		ui, qOwn = general(q.Rows, k), make([]float64, len(res.U.Data))
	}
	if g.Rows == 1 {
		vj, pOwn = res.V, p.Data
	} else {
		vj, pOwn = general(p.Rows, k), make([]float64, len(res.V.Data))
	}
	return ui, vj, pOwn, qOwn
}

// gather is Allgatherv over c, skipped for one rank (exchangeBuffers
// made all the rank's own buffer).
func gather(c Comm, own, all []float64, counts []int) error {
	if c.Size() == 1 {
		return nil
	}
	return c.Allgatherv(own, all, counts)
}

// reduceScatter is ReduceScatterSum over c, skipped for one rank.
func reduceScatter(c Comm, part, own []float64, counts []int) error {
	if c.Size() == 1 {
		return nil
	}
	return c.ReduceScatterSum(part, own, counts)
}

// tol returns the stopping threshold: Tol, solver.DefaultTol for 0.
func (o NMFOptions) tol() float64 {
	if o.Tol == 0 {
		return solver.DefaultTol
	}
	return o.Tol
}

// record appends iteration it's objective, an error if it is not finite,
// and reports whether the relative-decrease rule (tol > 0) stops the run.
func (res *NMFResult) record(obj float64, it int, tol float64) (stop bool, err error) {
	if math.IsNaN(obj) || math.IsInf(obj, 0) {
		return false, fmt.Errorf("dist: the objective became %v at iteration %d", obj, it)
	}
	prev := res.Objective[len(res.Objective)-1]
	res.Objective = append(res.Objective, obj)
	if tol > 0 && prev > 0 && (prev-obj)/prev < tol {
		res.Status = solver.Converged
		return true, nil
	}
	return false, nil
}

// rankState is what every distributed method sets up alike: the
// communicators, counted (NMFResult.Words), the rank's grid position and
// its blocks' bounds.
type rankState struct {
	cs             GridComms
	counts         [3]*countingComm
	rank, i, j     int
	f0, f1, s0, s1 int
}

// begin checks the grid, the options and the block, and wraps the
// communicators to count what they move.
func begin(cs GridComms, g Grid, block *sparse.CSR, opts NMFOptions) (*rankState, error) {
	rs := &rankState{counts: [3]*countingComm{{Comm: cs.World}, {Comm: cs.Row}, {Comm: cs.Col}}}
	rs.cs = GridComms{World: rs.counts[0], Row: rs.counts[1], Col: rs.counts[2]}
	rs.rank = cs.World.Rank()
	rs.i, rs.j = checkGrid(cs, g)
	if err := checkRun(g, opts); err != nil {
		return nil, err
	}
	rs.f0, rs.f1 = g.FeatureBlock(rs.i)
	rs.s0, rs.s1 = g.SampleBlock(rs.j)
	if block.Rows != rs.s1-rs.s0 || block.Cols != rs.f1-rs.f0 {
		return nil, fmt.Errorf("dist: rank %d's block is %d x %d, want %d x %d (samples %d-%d, features %d-%d)",
			rs.rank, block.Rows, block.Cols, rs.s1-rs.s0, rs.f1-rs.f0, rs.s0+1, rs.s1, rs.f0+1, rs.f1)
	}
	return rs, nil
}

// countFrom starts counting the values moved; the function it returns
// sets res.Words to their mean over the iterations res has run.
func (rs *rankState) countFrom(res *NMFResult) func() {
	words := func() int { return rs.counts[0].words + rs.counts[1].words + rs.counts[2].words }
	before := words()
	return func() {
		if it := len(res.Objective) - 1; it > 0 {
			res.Words = (words() - before) / it
		}
	}
}

// checkGrid panics when the communicators do not match the grid (a
// program error) and returns the rank's grid position.
func checkGrid(cs GridComms, g Grid) (i, j int) {
	world := cs.World
	if world.Size() != g.Size() || cs.Row.Size() != g.Cols || cs.Col.Size() != g.Rows {
		panic(fmt.Sprintf("dist: communicators of %d, %d and %d ranks for a %d x %d grid", world.Size(), cs.Row.Size(), cs.Col.Size(), g.Rows, g.Cols))
	}
	i, j = g.Pos(world.Rank())
	if cs.Row.Rank() != j || cs.Col.Rank() != i {
		panic("dist: the row and column communicators do not rank as the grid does")
	}
	return i, j
}

// checkRun checks the options every distributed method shares.
func checkRun(g Grid, opts NMFOptions) error {
	if k := opts.K; k < 1 || k > min(g.M, g.N) {
		return fmt.Errorf("dist: k = %d: must be between 1 and min(features, samples) = %d", k, min(g.M, g.N))
	}
	if o := opts.FeatureOrder; o != nil {
		seen := make([]bool, g.M)
		for _, f := range o {
			if f < 0 || f >= g.M || seen[f] {
				return fmt.Errorf("dist: FeatureOrder is not an order of the %d features", g.M)
			}
			seen[f] = true
		}
		if len(o) != g.M {
			return fmt.Errorf("dist: FeatureOrder has %d features, the data %d", len(o), g.M)
		}
	}
	if opts.MaxIter < 0 {
		return fmt.Errorf("dist: %d iterations: must not be negative", opts.MaxIter)
	}
	return nil
}

// startFactors returns rank (i, j)'s result holding its rows of
// solver.Fit's first random start for seed (U's rows of the features at
// its positions of order, when set), and the values each rank of its
// grid row (uCounts) and grid column (vCounts) owns of U and V.
func startFactors(g Grid, i, j, k int, seed uint64, order []int) (res *NMFResult, uCounts, vCounts []int) {
	u0, u1 := g.URows(i, j)
	v0, v1 := g.VRows(i, j)
	var ua, va []float64
	if order != nil {
		ua, va = nmfstep.RandomSelect(g.M, g.N, k, seed, 0, order[u0:u1], v0, v1)
	} else {
		ua, va = nmfstep.RandomRows(g.M, g.N, k, seed, 0, u0, u1, v0, v1)
	}
	res = &NMFResult{U: blas64.General{Rows: u1 - u0, Cols: k, Stride: k, Data: ua}, V: blas64.General{Rows: v1 - v0, Cols: k, Stride: k, Data: va}, ULo: u0, VLo: v0,
		Status: solver.IterationLimit}
	uCounts, vCounts = make([]int, g.Cols), make([]int, g.Rows)
	for t := range uCounts {
		lo, hi := g.URows(i, t)
		uCounts[t] = (hi - lo) * k
	}
	for t := range vCounts {
		lo, hi := g.VRows(t, j)
		vCounts[t] = (hi - lo) * k
	}
	return res, uCounts, vCounts
}

// rescale sets U's columns to unit length by the Gram matrix utu and
// scales V's columns, wv's and the Gram matrices to match, as solver's
// scale-invariant GNMF does after each iteration: U V^T and the objective
// do not change.
func rescale(k int, utu, vtv []float64, u, v, wv blas64.General) {
	norms, inv := make([]float64, k), make([]float64, k)
	for c := range norms {
		norms[c] = math.Sqrt(utu[c*k+c])
		if !(norms[c] > 0) {
			norms[c] = 1
		}
		inv[c] = 1 / norms[c]
	}
	scale := func(f blas64.General, by []float64) {
		for r := 0; r < f.Rows; r++ {
			row := f.Data[r*k : (r+1)*k]
			for c := range row {
				row[c] *= by[c]
			}
		}
	}
	scale(u, inv)
	scale(v, norms)
	scale(wv, norms)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			utu[a*k+b] /= norms[a] * norms[b]
			vtv[a*k+b] *= norms[a] * norms[b]
		}
	}
}

// gram returns f^T f summed over the ranks (a BLAS rank-k update of the
// owned rows); with extra, *extra is summed over the ranks in the same
// call.
func gram(world Comm, f blas64.General, extra *float64) ([]float64, error) {
	k := f.Cols
	buf := make([]float64, k*k, k*k+1)
	if extra != nil {
		buf = buf[:k*k+1]
	}
	if f.Rows > 0 {
		c := blas64.Symmetric{Uplo: blas.Upper, N: k, Stride: k, Data: buf[:k*k]}
		blas64.Syrk(blas.Trans, 1, f, 0, c)
		for a := 0; a < k; a++ {
			for b := a + 1; b < k; b++ {
				buf[b*k+a] = buf[a*k+b]
			}
		}
	}
	if extra != nil {
		buf[k*k] = *extra
	}
	if err := world.AllreduceSum(buf); err != nil {
		return nil, err
	}
	if extra != nil {
		*extra = buf[k*k]
	}
	return buf[:k*k], nil
}

// MaxWords returns the largest Words and the largest Formula of any
// rank, on every rank.
func (r *NMFResult) MaxWords(world Comm) (words, formula int, err error) {
	p := world.Size()
	all := make([]float64, 2*p)
	counts := make([]int, p)
	for q := range counts {
		counts[q] = 2
	}
	if err := world.Allgatherv([]float64{float64(r.Words), float64(r.Formula)}, all, counts); err != nil {
		return 0, 0, err
	}
	for q := 0; q < p; q++ {
		words, formula = max(words, int(all[2*q])), max(formula, int(all[2*q+1]))
	}
	return words, formula, nil
}

// Gather returns the whole U (M x K) and V (N x K), row-major, on every
// rank: for tests and small results (every rank receives both factors).
func (r *NMFResult) Gather(world Comm, g Grid) (u, v []float64, err error) {
	k := r.U.Cols
	uCounts, vCounts := make([]int, g.Size()), make([]int, g.Size())
	for q := range uCounts {
		i, j := g.Pos(q)
		lo, hi := g.URows(i, j)
		uCounts[q] = (hi - lo) * k
		lo, hi = g.VRows(i, j)
		vCounts[q] = (hi - lo) * k
	}
	// U's parts in rank order are in row order; V's are not (rank (i, j)
	// owns part i of sample block j).
	u = make([]float64, g.M*k)
	if err := world.Allgatherv(r.U.Data, u, uCounts); err != nil {
		return nil, nil, err
	}
	byRank := make([]float64, g.N*k)
	if err := world.Allgatherv(r.V.Data, byRank, vCounts); err != nil {
		return nil, nil, err
	}
	v = make([]float64, g.N*k)
	off := 0
	for q := range vCounts {
		i, j := g.Pos(q)
		lo, _ := g.VRows(i, j)
		copy(v[lo*k:], byRank[off:off+vCounts[q]])
		off += vCounts[q]
	}
	return u, v, nil
}

func general(r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
}

// iters is MaxIter, or its default.
func (o NMFOptions) iters() int {
	if o.MaxIter == 0 {
		return solver.DefaultMaxIter
	}
	return o.MaxIter
}
