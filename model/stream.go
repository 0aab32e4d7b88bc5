package model

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/outdir"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/solver/minibatch"
	"github.com/manifactor/manifactor/sparse"
)

// partsPrepared is what the statistics pass over a parts directory
// learned: the Preparation Prepare would learn from the whole corpus, and
// Prepared's counts of what it dropped.
type partsPrepared struct {
	prep                       *Preparation
	zeroFeatures, rareFeatures int
}

// prepareParts makes one pass over the parts of a sparse parts directory
// and returns the preparation Prepare would learn from the corpus held
// whole: the same decisions from the same pooled statistics (whether the
// values are counts, the document frequencies, the number of samples),
// which the tests check against Prepare on the whole corpus, bit for bit
// after Apply. A class selection cannot be streamed and is refused.
// progress, when set, is called after each part.
func prepareParts(ctx context.Context, parts *dataset.Parts, opt PrepareOptions, progress func(done, total int)) (*partsPrepared, error) {
	if !parts.Sparse {
		return nil, fmt.Errorf("%s: dense parts: a streamed fit reads sparse data (load dense data whole)", parts.Dir)
	}
	if opt.Classes != nil {
		return nil, fmt.Errorf("%s: a class selection is not available on a corpus streamed from disk", parts.Dir)
	}
	if opt.MinDF < 0 {
		return nil, fmt.Errorf("model: MinDF %d is negative", opt.MinDF)
	}
	if opt.MinDF > 1 && parts.Weighted {
		return nil, fmt.Errorf("%s: a floor on document frequency (MinDF %d) applies before the weighting, and the data is weighted already (the text pipeline's own MinDF applies there)", parts.Dir, opt.MinDF)
	}
	m0 := parts.Features
	df := make([]int, m0)
	var n, nnz int
	fraction := false
	nonCount := -1 // the first part holding a non-zero value below 1
	for i := range parts.NumParts() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ds, err := parts.Part(ctx, i)
		if err != nil {
			return nil, err
		}
		st, err := ds.Scan()
		if err == nil && st.FirstNegative >= 0 {
			err = ds.CheckNonNegative()
		}
		if err != nil {
			return nil, err
		}
		fraction = fraction || st.Fraction
		if st.NonCount && nonCount < 0 {
			nonCount = i
		}
		for j, c := range ds.DocumentFrequency() {
			df[j] += c
		}
		rows, _ := ds.Dims()
		n += rows
		nnz += ds.Sparse.NNZ()
		if progress != nil {
			progress(i+1, parts.NumParts())
		}
	}
	w, norm, err := resolveChoices(opt.Weighting, opt.Normalize, !parts.Weighted && !fraction && nnz > 0, parts.Text != nil)
	if err != nil {
		return nil, err
	}
	if w == LogTFIDF && nonCount >= 0 {
		// The part holding the first such value names it.
		ds, err := parts.Part(ctx, nonCount)
		if err != nil {
			return nil, err
		}
		if err := ds.CheckLogCounts(); err != nil {
			return nil, err
		}
	}
	out := &partsPrepared{}
	// cols are the source columns kept so far, dfs their document
	// frequencies.
	cols := make([]int, 0, m0)
	for j, c := range df {
		if opt.MinDF <= 1 || c == 0 || c >= opt.MinDF {
			cols = append(cols, j)
		}
	}
	out.rareFeatures = m0 - len(cols)
	if opt.MinDF > 1 && !slices.ContainsFunc(cols, func(j int) bool { return df[j] > 0 }) {
		return nil, fmt.Errorf("%s: MinDF %d drops every feature: none is in that many samples", parts.Dir, opt.MinDF)
	}
	var idf []float64
	if w == TFIDF || w == LogTFIDF {
		kept := make([]int, len(cols))
		for q, j := range cols {
			kept[q] = df[j]
		}
		idf = dataset.IDFOf(kept, n)
	}
	if !opt.KeepZeroFeatures {
		// A feature no sample holds, or, weighted by the idf, one every
		// sample holds (its idf is 0), is zero after the weighting.
		var keep []int
		var keptIDF []float64
		for q, j := range cols {
			zero := df[j] == 0 || (idf != nil && df[j] == n)
			if zero {
				continue
			}
			keep = append(keep, j)
			if idf != nil {
				keptIDF = append(keptIDF, idf[q])
			}
		}
		out.zeroFeatures = len(cols) - len(keep)
		cols, idf = keep, keptIDF
	}
	names := make([]string, len(cols))
	for q, j := range cols {
		if parts.Vocabulary != nil {
			names[q] = parts.Vocabulary[j]
		} else {
			names[q] = "f" + strconv.Itoa(j+1)
		}
	}
	out.prep = &Preparation{Weighting: w, Normalize: norm, IDF: idf, Features: names, Columns: cols,
		SourceFeatures: m0, Named: parts.Vocabulary != nil, weighed: parts.Weighted}
	return out, nil
}

// applyPart prepares a part as the statistics pass said: Apply, which
// a corpus weighted before the split passes through as it is, and the
// range check Prepare makes.
func (pp *partsPrepared) applyPart(ds *dataset.Dataset) (*dataset.Dataset, error) {
	weighted := ds.Weighted
	ds.Weighted = false
	out, _, err := pp.prep.Apply(ds)
	if err != nil {
		return nil, err
	}
	out.Weighted = out.Weighted || weighted
	if err := checkScale(out, onePool{}); err != nil {
		return nil, err
	}
	return out, nil
}

// streamSample bounds the rows of V that k-means sees in a streamed fit
// under KMeansAssign: a seeded sample of the samples when there are more.
// Every sample then takes its nearest centre, as Transform assigns new
// samples. (A variable, so that tests can sample a small corpus.)
var streamSample = 100_000

// PartsResult is what FitParts reports.
type PartsResult struct {
	// Model is the fitted model as Load reads it from the directory,
	// but for V, which is in the directory's V.mtx only.
	Model *Model
	// Weighting, Normalize, ZeroFeatures, RareFeatures and ZeroSamples
	// are Prepared's.
	Weighting                               Weighting
	Normalize                               Normalization
	ZeroFeatures, RareFeatures, ZeroSamples int
	// Samples, Features and NNZ are the prepared corpus's.
	Samples, Features, NNZ int
	// PassLoss is each pass's online loss (minibatch.Model.PassLoss),
	// and Status why the passes stopped.
	PassLoss []float64
	Status   solver.Status
	// Objective is ||X - V U^T||_F^2 of the prepared corpus for the
	// factors written.
	Objective float64
	// Runtime is the whole run's time.
	Runtime time.Duration
}

// Streams reports whether FitParts fits method m: nmf and nmf-kl, the
// methods whose mini-batch solver needs no sample but those of its batch
// (solver.Method.HasMiniBatch; nmf-ncw's weights need a pass of their
// own).
func Streams(m solver.Method) bool { return m == solver.NMF || m == solver.NMFKL }

// FitParts fits nmf or nmf-kl to the corpus of a sparse parts directory
// (dataset.WriteParts, `manifactor split`) by the mini-batch solver,
// reading one part at a time (and the next while the current one is
// fitted), and writes the model into dir as Model.Save does, V.mtx and
// the labels as they are computed: memory holds the factor U and its
// statistics, two parts and the k-means sample (below), never the
// corpus or V.
//
// The corpus is prepared as Prepare would prepare it whole (prep; a
// class selection cannot be streamed), from the statistics of a first
// pass. Each iteration is then a pass over the parts in a seeded random
// order (minibatch.Model.FitSource), stopped by Options.Solver's MaxIter
// and Tol on the pass's online loss. A last pass solves every sample's
// row of V for the final U, measures the objective and writes V. Under
// KMeansAssign, k-means runs on the rows of a seeded sample of 100,000
// samples (all of them, in a smaller corpus) and every sample takes its
// nearest centre.
//
// Options must ask for a method that Streams with the default or the minibatch solver,
// one start, the random start and the relative-decrease rule; others are
// refused. Progress reports the stages "prepare", "fit" and "write" part
// by part, from the goroutine that reads the parts. Parts
// that change during the run, or are not what the manifest says, are
// errors naming the file.
func FitParts(ctx context.Context, parts *dataset.Parts, prep PrepareOptions, opts Options, dir string) (*PartsResult, error) {
	begin := time.Now()
	if err := opts.Check(); err != nil {
		return nil, err
	}
	c := opts.Solver
	switch {
	case !Streams(opts.Method):
		return nil, fmt.Errorf("model: a streamed fit runs nmf or nmf-kl, not %s", opts.Method)
	case c.Algorithm != solver.AutoAlgorithm && c.Algorithm != solver.MiniBatch:
		return nil, fmt.Errorf("model: a streamed fit runs the minibatch solver, not %s", c.Algorithm)
	case c.Restarts > 1 || c.RestartIters > 0:
		return nil, fmt.Errorf("model: a streamed fit makes one start (restarts %d)", c.Restarts)
	case opts.Start != solver.RandomStart:
		return nil, fmt.Errorf("model: a streamed fit starts at random, not from %s", opts.Start)
	case c.MaxIter < 0 || math.IsNaN(c.Tol) || c.Tol >= 1:
		return nil, fmt.Errorf("model: %d passes, tolerance %v", c.MaxIter, c.Tol)
	case c.StopRule != solver.RelativeDecrease:
		return nil, fmt.Errorf("model: a streamed fit stops on the relative decrease of its passes' loss, not by %v", c.StopRule)
	}
	report := func(p Progress) {
		if opts.Progress != nil {
			opts.Progress(p)
		}
	}
	pp, err := prepareParts(ctx, parts, prep, func(done, total int) {
		report(Progress{Stage: PrepareStage, Done: done, Total: total})
	})
	if err != nil {
		return nil, err
	}
	n, m := parts.Samples, len(pp.prep.Features)
	if opts.K > min(n, m) {
		return nil, fmt.Errorf("%s: k = %d is more than the data allows: at most min(features, samples) = min(%d, %d)", parts.Dir, opts.K, m, n)
	}
	loss := minibatch.Frobenius
	if opts.Method.KL() {
		loss = minibatch.KL
	}
	md, err := minibatch.New(m, minibatch.Options{K: opts.K, Loss: loss, BatchSize: c.BatchSize, Forget: c.Forget, Seed: opts.Seed, Threads: opts.Threads})
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	maxPasses, tol := c.MaxIter, c.Tol
	if maxPasses == 0 {
		maxPasses = solver.DefaultMaxIter
	}
	if tol == 0 {
		tol = solver.DefaultPassTol
	}
	out := &PartsResult{Weighting: pp.prep.Weighting, Normalize: pp.prep.Normalize,
		ZeroFeatures: pp.zeroFeatures, RareFeatures: pp.rareFeatures, Samples: n, Features: m, Status: solver.IterationLimit}
	src := &partSource{parts: parts, pp: pp}
	for pass := 1; pass <= maxPasses; pass++ {
		src.read = 0
		src.progress = func(done, total int) {
			report(Progress{Stage: FitStage, Iter: pass, Done: done, Total: total, Objective: lastOf(out.PassLoss)})
		}
		if err := md.FitSource(ctx, src, 1); err != nil {
			return nil, err
		}
		loss := md.PassLoss()
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return nil, fmt.Errorf("%s: the loss of pass %d is %v (a factor overflowed)", parts.Dir, pass, loss)
		}
		out.PassLoss = append(out.PassLoss, loss)
		report(Progress{Stage: FitStage, Iter: pass, Objective: loss})
		if prev := lastOf(out.PassLoss[:pass-1]); tol > 0 && pass > 1 && (prev-loss)/prev < tol && pass >= c.MinIter {
			out.Status = solver.Converged
			break
		}
	}
	src.progress = nil
	// U's columns at unit length (nmf-kl: unit sum), as Fit returns
	// them, V solved for it.
	u := md.U()
	normalizeColumns(u, opts.Method.KL())
	if err := md.SetU(u); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	mod := &Model{Method: opts.Method, K: opts.K, Assign: opts.Assign, Seed: opts.Seed, Preparation: pp.prep, U: u,
		State: solver.State{Method: opts.Method, NCWNorm: 1, Samples: n, Features: m}}
	if t := parts.Text; t != nil {
		text := t.Tokenization()
		mod.Text = &text
	}
	if err := writeStreamed(ctx, parts, src, md, mod, opts, dir, out, report); err != nil {
		return nil, err
	}
	out.Model = mod
	out.Runtime = time.Since(begin)
	return out, nil
}

// lastOf returns the last entry of x, 0 when it has none.
func lastOf(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return x[len(x)-1]
}

// normalizeColumns scales u's non-zero columns to unit length, or to
// unit sum with sum set.
func normalizeColumns(u *mat.Dense, sum bool) {
	r, k := u.Dims()
	for c := 0; c < k; c++ {
		var s float64
		for i := 0; i < r; i++ {
			if sum {
				s += u.At(i, c)
			} else {
				s += u.At(i, c) * u.At(i, c)
			}
		}
		if s == 0 {
			continue
		}
		if !sum {
			s = math.Sqrt(s)
		}
		for i := 0; i < r; i++ {
			u.Set(i, c, u.At(i, c)/s)
		}
	}
}

// partSource gives the prepared parts to minibatch.FitSource.
type partSource struct {
	parts    *dataset.Parts
	pp       *partsPrepared
	read     int // parts read in this pass
	progress func(done, total int)
}

func (s *partSource) Blocks() int { return s.parts.NumParts() }

func (s *partSource) Samples() int { return s.parts.Samples }

func (s *partSource) Block(ctx context.Context, i int) (*sparse.CSR, error) {
	ds, err := s.parts.Part(ctx, i)
	if err != nil {
		return nil, err
	}
	if ds, err = s.pp.applyPart(ds); err != nil {
		return nil, err
	}
	// FitSource asks for a part while it fits the one before.
	if s.progress != nil {
		s.progress(s.read, s.parts.NumParts())
	}
	s.read++
	return ds.Sparse, nil
}

// writeStreamed makes the last pass: each part's rows of V for the final
// U, in the samples' order, written a column a file (V.mtx is column by
// column), with the objective and the zero samples; then the assignment,
// V.mtx and the rest of the model (Save).
func writeStreamed(ctx context.Context, parts *dataset.Parts, src *partSource, md *minibatch.Model, mod *Model, opts Options, dir string, out *PartsResult, report func(Progress)) error {
	n, k := parts.Samples, opts.K
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	cols := make([]*os.File, k)
	bufs := make([]*bufio.Writer, k)
	defer func() {
		for _, f := range cols {
			if f != nil {
				f.Close()
				os.Remove(f.Name())
			}
		}
	}()
	for c := range cols {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf(".V.column-%d", c)))
		if err != nil {
			return fmt.Errorf("model: %w", err)
		}
		cols[c], bufs[c] = f, bufio.NewWriterSize(f, 64<<10)
	}
	// The k-means sample: every sample, or a seeded choice of
	// streamSample of them, in the samples' order.
	var pick []int
	var sample *mat.Dense
	if opts.Assign == KMeansAssign {
		pick = samplePick(n, streamSample, opts.Seed^assignStream)
		sample = mat.NewDense(len(pick), k, nil)
	}
	labels := make([]int, n)
	var num []byte
	next := 0 // the next entry of pick
	for i := range parts.NumParts() {
		if err := ctx.Err(); err != nil {
			return err
		}
		report(Progress{Stage: WriteStage, Done: i, Total: parts.NumParts()})
		x, err := src.Block(ctx, i)
		if err != nil {
			return fmt.Errorf("%s: part %d: %w", parts.Dir, i+1, err)
		}
		first, rows, _ := parts.Span(i)
		v, loss, err := md.TransformLoss(ctx, x)
		if err != nil {
			return fmt.Errorf("%s: part %d: %w", parts.Dir, i+1, err)
		}
		out.Objective += loss
		out.NNZ += x.NNZ()
		for r := 0; r < rows; r++ {
			if x.Indptr[r] == x.Indptr[r+1] {
				out.ZeroSamples++
			}
			row := v.RawRowView(r)
			for c, y := range row {
				num = strconv.AppendFloat(num[:0], y, 'g', -1, 64)
				bufs[c].Write(append(num, '\n'))
			}
			if next < len(pick) && pick[next] == first+r {
				sample.SetRow(next, row)
				next++
			}
		}
		if opts.Assign == ArgMaxAssign {
			copy(labels[first:], mod.assign(v))
		}
	}
	for c, b := range bufs {
		if err := b.Flush(); err != nil {
			return fmt.Errorf("model: %s: %w", cols[c].Name(), err)
		}
	}
	if opts.Assign == KMeansAssign {
		report(Progress{Stage: AssignStage})
		km, err := cluster.KMeans(ctx, sample, cluster.KMeansOptions{K: k, Seed: opts.Seed ^ assignStream, Threads: opts.Threads})
		if err != nil {
			return fmt.Errorf("assignment: %w", err)
		}
		mod.Centers = km.Centers
		if len(pick) == n {
			copy(labels, km.Labels)
		} else if err := assignColumns(cols, n, k, mod, labels); err != nil {
			return err
		}
	}
	mod.Labels = labels
	// V.mtx: the header, then the columns in order.
	err := outdir.WriteFile(filepath.Join(dir, "V.mtx"), func(w io.Writer) error {
		if _, err := fmt.Fprintf(w, "%%%%MatrixMarket matrix array real general\n%d %d\n", n, k); err != nil {
			return err
		}
		for _, f := range cols {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			if _, err := io.Copy(w, f); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	mod.streamedV = true
	return mod.Save(dir)
}

// samplePick returns s of the samples 0..n-1 chosen by a generator seeded
// with seed (all of them when s >= n), in increasing order: Floyd's
// algorithm, which draws s numbers whatever n is.
func samplePick(n, s int, seed uint64) []int {
	if s >= n {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		return all
	}
	rng := rand.New(rand.NewPCG(seed, 0x7069636b))
	chosen := make(map[int]bool, s)
	for j := n - s; j < n; j++ {
		t := rng.IntN(j + 1)
		if chosen[t] {
			t = j
		}
		chosen[t] = true
	}
	return slices.Sorted(maps.Keys(chosen))
}

// assignColumns reads V back from its column files, a row at a time, and
// gives each sample its nearest centre.
func assignColumns(cols []*os.File, n, k int, mod *Model, labels []int) error {
	sc := make([]*bufio.Scanner, k)
	for c, f := range cols {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("model: %w", err)
		}
		sc[c] = bufio.NewScanner(bufio.NewReaderSize(f, 64<<10))
	}
	const rows = 4096
	v := mat.NewDense(rows, k, nil)
	for lo := 0; lo < n; lo += rows {
		hi := min(lo+rows, n)
		for r := lo; r < hi; r++ {
			for c := range sc {
				if !sc[c].Scan() {
					return fmt.Errorf("model: %s ends at row %d of %d", cols[c].Name(), r, n)
				}
				y, err := strconv.ParseFloat(sc[c].Text(), 64)
				if err != nil {
					return fmt.Errorf("model: %s, row %d: %w", cols[c].Name(), r+1, err)
				}
				v.Set(r-lo, c, y)
			}
		}
		copy(labels[lo:hi], mod.assign(v.Slice(0, hi-lo, 0, k).(*mat.Dense)))
	}
	return nil
}
