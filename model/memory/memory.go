package memory

import (
	"fmt"

	"github.com/manifactor/manifactor/internal/sysmem"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/model/rank"
	"github.com/manifactor/manifactor/solver"

	"github.com/manifactor/manifactor/internal/nmfstep"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/graph"
)

// Estimate is an estimate, in bytes, of what model.Fit holds at its peak
// for a data set: Data, the data as loaded plus the solver's two orientations
// of it, or one under model.OneOrientation (for sparse data 16 bytes a
// stored entry each: an index and a value); Graph, the nearest-neighbour search's working set and the graph
// (0 when no graph is built); Factors, the factors and the solver's
// buffers of their shapes, the k-means assignment's included. The figures
// are the sizes of the arrays the code allocates, checked against the peak
// resident memory on generated corpora of 200,000 and 500,000 documents
// (docs/PERFORMANCE.md); they leave out the Go runtime's slack, which the
// memory limit that the command line sets from --memory keeps small.
//
// Panels is apart: X V's panels of the data (nmfstep.XVPanelBytes), a
// further copy that the solver makes for a large V only where it fits
// under the runtime's memory limit, so that it speeds a job up without
// ever being the reason to refuse one. Total leaves it out.
type Estimate struct {
	Data, Graph, Factors int64
	Panels               int64
}

// kmeansSampleBytes is what k-means on V holds per sample beyond a copy
// of V, at the larger of its two phases: the seeding's distance and flag
// for each replicate (90 bytes for the default 10) and the rows' norms
// (8) at first; then Lloyd's labels, distances and grouping with the
// assignment's bounds (about 64). 8 more for slack: 106.
const kmeansSampleBytes = cluster.DefaultReplicates*(8+1) + 8 + 8

// Total is the sum of the parts.
func (m Estimate) Total() int64 { return m.Data + m.Graph + m.Factors }

// String lists the parts (FormatBytes), Panels where there are any.
func (m Estimate) String() string {
	s := fmt.Sprintf("%s: data %s, graph %s, factors %s", sysmem.FormatBytes(m.Total()), sysmem.FormatBytes(m.Data), sysmem.FormatBytes(m.Graph), sysmem.FormatBytes(m.Factors))
	if m.Panels > 0 {
		s += fmt.Sprintf(" (and %s for faster products where it fits)", sysmem.FormatBytes(m.Panels))
	}
	return s
}

// Fit returns the Estimate for model.Fit of ds with opts
// (threads: the goroutines that will run, for the per-thread buffers).
// It reads only the data's shape and, for a sparse graph search under
// AutoSearch, the features' document frequencies, and for linear concept
// factorization whether a value is negative.
func Fit(ds *dataset.Dataset, opts model.Options, threads int) Estimate {
	sh := shapeOf(ds)
	if a := ds.Sparse; a != nil {
		sh.approx = opts.Graph.Search.ForSparse(a) == graph.ApproxSearch
	}
	if opts.Method.Concept() && opts.Solver.Kernel.Kind == solver.Linear {
		sh.negative = hasNegative(ds)
	}
	if h := ds.Missing; h != nil {
		sh.missing = int64(h.NNZ())
	}
	return fitShape(sh, opts, threads)
}

// Parts is Fit for the corpus of a parts directory loaded whole, from
// the manifest's shape alone: it assumes the costlier graph search where
// the search is AutoSearch, and no negative values.
func Parts(p *dataset.Parts, opts model.Options, threads int) Estimate {
	sh := shape{n: int64(p.Samples), m: int64(p.Features), nnz: int64(p.NNZ), sparse: p.Sparse}
	if !p.Sparse {
		sh.nnz = sh.n * sh.m
	}
	approx := sh
	approx.approx = true
	a, e := fitShape(approx, opts, threads), fitShape(sh, opts, threads)
	if opts.Graph.Search == graph.ExactSearch || (opts.Graph.Search == graph.AutoSearch && e.Graph > a.Graph) {
		return e
	}
	return a
}

// Streamed is the Estimate for model.FitParts on a parts directory:
// Data, the part being fitted and the next, each as read (an index and a
// value a stored entry, doubled for the copies that the preparation
// makes) and the labels; Factors, U and the statistics B (features x k
// each; nmf-kl also the numerator A; the features' document frequencies
// of the first pass among them), a part's rows of V, the k-means sample and its work, the
// samples' clusters and the column files' buffers.
func Streamed(p *dataset.Parts, opts model.Options, threads int) Estimate {
	k := int64(max(opts.K, 1))
	n, m := int64(p.Samples), int64(p.Features)
	var part, rows int64
	for i := range p.NumParts() {
		_, r, nnz := p.Span(i)
		rows, part = max(rows, int64(r)), max(part, int64(nnz))
	}
	var est Estimate
	est.Data = 2*2*(16*part+8*rows) + 8*n
	sample := min(n, 100_000)
	arrays := int64(2) // features x k arrays
	if opts.Method.KL() {
		arrays = 3
	}
	est.Factors = arrays*8*m*k + 8*m + 8*rows*k + sample*(8*k+kmeansSampleBytes) + 8*n + k*(64<<10)
	return est
}

// shape is what the estimates read of the data.
type shape struct {
	n, m, nnz int64
	sparse    bool
	// approx says a sparse graph search runs NN-descent; negative that
	// the data hold a negative value; missing counts the hidden entries.
	approx   bool
	negative bool
	missing  int64
}

func shapeOf(ds *dataset.Dataset) shape {
	n, m := ds.Dims()
	sh := shape{n: int64(n), m: int64(m), sparse: ds.Sparse != nil}
	if a := ds.Sparse; a != nil {
		sh.nnz = int64(len(a.Ind))
	} else {
		sh.nnz = sh.n * sh.m
	}
	return sh
}

func fitShape(sh shape, opts model.Options, threads int) Estimate {
	k := int64(max(opts.K, 1))
	n64, m64 := sh.n, sh.m
	var est Estimate
	// A copy of the data per orientation for the solver (one under
	// OneOrientation, for the methods it serves), and the loaded one,
	// which one of the copies may take over (ConsumeData).
	copies := int64(2)
	if sh.sparse && opts.Storage == model.OneOrientation && model.Compacts(opts.Method) {
		copies = 1
	}
	est.Data = (copies + 1) * dataBytes(sh)
	if opts.ConsumeData && sh.sparse {
		est.Data = copies * dataBytes(sh)
	}
	if sh.sparse && copies == 2 {
		// One orientation forms X V in place, never by panels.
		est.Panels = nmfstep.XVPanelBytes(int(n64), int(sh.nnz), int(k), threads)
	}
	if sh.missing > 0 {
		// The unknown entries in both orientations (an index and an unused
		// value each); the data hold no value there, so solver.Data.Hide
		// shares the solver's copies.
		est.Data += 2 * (16*sh.missing + 8*(n64+m64))
	}
	// U, V, the products X V and X^T U, and their updates' numerators and
	// denominators: about six factor-shaped arrays; k-means on V adds its
	// replicates' assignments and centres (small) and a copy of V.
	est.Factors = 7 * 8 * k * (n64 + m64)
	if opts.Assign == model.KMeansAssign {
		// And per sample: the seeding's arrays or, later, Lloyd's.
		est.Factors += kmeansSampleBytes * n64
	}
	if opts.Method.KL() {
		// X ./ (U V^T) at the stored entries, and its transpose.
		est.Data += 2 * 8 * sh.nnz
	}
	if opts.Method.Concept() {
		// W (n x k) and its buffers.
		est.Factors += 3 * 8 * k * n64
		// The explicit n x n kernel a non-linear kernel, or the linear
		// one on data with negative values (its positive and negative
		// parts), forms.
		if opts.Solver.Kernel.Kind != solver.Linear {
			est.Factors += 8 * n64 * n64
		} else if sh.negative {
			est.Factors += 2 * 8 * n64 * n64
		}
	}
	takesGraph := opts.Method.TakesGraph() && opts.SampleGraph == nil && (opts.Lambda.IsAuto() || opts.Lambda.IsDefault() || opts.Lambda.Value() > 0)
	if takesGraph {
		est.Graph = graphMemory(sh, opts.Graph, threads)
	}
	return est
}

// dataBytes is one copy of the data: for sparse data an index and a value
// a stored entry and the row pointers of either orientation.
func dataBytes(sh shape) int64 {
	if sh.sparse {
		return 16*sh.nnz + 8*(sh.n+sh.m)
	}
	return 8 * sh.n * sh.m
}

// graphMemory is the nearest-neighbour search's peak: the lists, the
// symmetric graph (up to 2 n p entries, built from triplets), and either
// the exact search's inverted index and per-thread accumulators or
// NN-descent's compact copy of the data, pruned index and two generations
// of lists of 3p.
func graphMemory(sh shape, o graph.Options, threads int) int64 {
	n64, m := sh.n, sh.m
	p := int64(o.Neighbors)
	if p == 0 {
		p = graph.DefaultNeighbors
	}
	th := int64(max(threads, 1))
	edges := 2 * n64 * p
	b := 24*n64*p + 3*24*edges // lists; triplets, CSR and degree
	if !sh.sparse {
		if o.Search.ForDense() == graph.ApproxSearch {
			return b + 2*17*n64*3*p + 4*n64*th
		}
		return b + 8*n64*min(n64, 4096)*th // blocks of inner products
	}
	nnz := sh.nnz
	if sh.approx {
		return b + 8*nnz + 8*nnz + 8*m*3*p + 2*17*n64*3*p + (4*n64+4*m)*th
	}
	return b + 20*nnz + 8*n64*th
}

// Graph is Fit for building the graph alone (model.Prepared.Graph): the
// data as loaded and the search, and with recall what model.Prepared.GraphRecall
// adds: for sparse data an inverted index (20 bytes a stored
// entry) and an accumulator of n per thread; for dense data nothing but
// the lists.
func Graph(ds *dataset.Dataset, o graph.Options, threads int, recall bool) Estimate {
	sh := shapeOf(ds)
	if a := ds.Sparse; a != nil {
		sh.approx = o.Search.ForSparse(a) == graph.ApproxSearch
	}
	m := Estimate{Data: dataBytes(sh), Graph: graphMemory(sh, o, threads)}
	if a := ds.Sparse; a != nil && recall {
		n, _ := ds.Dims()
		m.Graph += 20*int64(len(a.Ind)) + 8*int64(n)*int64(max(threads, 1))
	}
	return m
}

// hasNegative reports whether ds holds a negative value.
func hasNegative(ds *dataset.Dataset) bool {
	if a := ds.Sparse; a != nil {
		for _, x := range a.Val {
			if x < 0 {
				return true
			}
		}
		return false
	}
	if ds.Dense == nil {
		return false
	}
	r := ds.Dense.RawMatrix()
	for i := 0; i < r.Rows; i++ {
		for _, x := range r.Data[i*r.Stride : i*r.Stride+r.Cols] {
			if x < 0 {
				return true
			}
		}
	}
	return false
}

// Consensus is Fit for rank.Consensus up to k clusters on a sample of
// at most sample samples, threads restarts at once: the data as loaded
// and the sample's share of a fit's copies and graph, each running
// restart's factors, and the consensus arrays (13 bytes a pair: the
// counts, the dissimilarities and the linkage's work array).
func Consensus(ds *dataset.Dataset, opts model.Options, k, sample, threads int) Estimate {
	n, m := ds.Dims()
	s := min(n, sample)
	opts.K = k
	one := Fit(ds, opts, 1)
	frac := float64(s) / float64(n)
	s64 := int64(s)
	return Estimate{
		Data:    dataBytes(shapeOf(ds)) + int64(frac*float64(one.Data)),
		Graph:   int64(frac * float64(one.Graph)),
		Factors: int64(threads)*int64(float64(one.Factors)*float64(s+m)/float64(n+m)) + 13*s64*s64,
	}
}

// Rank is Fit for cross-validating ranks up to k (rank.CrossValidate)
// with share of the entries hidden in each of replicates replicates run
// at once: each holds the solver's data made anew from its observed
// entries, its hidden entries in both orientations with their values and weights,
// and the fit's factors; the data as loaded are shared.
func Rank(ds *dataset.Dataset, opts model.Options, k int, share float64, replicates, threads int) Estimate {
	n, m := ds.Dims()
	opts.K = k
	one := Fit(ds, opts, max(1, threads/max(replicates, 1)))
	hidden := int64(rank.ExpectedHidden(ds, share))
	perData := one.Data - dataBytes(shapeOf(ds)) + 2*16*hidden + 16*hidden + 8*int64(n+m) // both orientations; values and weights
	return Estimate{
		Data:    dataBytes(shapeOf(ds)) + int64(replicates)*perData,
		Graph:   int64(replicates) * one.Graph,
		Factors: int64(replicates) * one.Factors,
	}
}
