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
// of it (for sparse data 16 bytes a stored entry each: an index and a
// value); Graph, the nearest-neighbour search's working set and the graph
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
	n, m := ds.Dims()
	k := int64(max(opts.K, 1))
	n64, m64 := int64(n), int64(m)
	var est Estimate
	// A copy of the data per orientation for the solver, and the loaded
	// one, which one of the copies may take over (ConsumeData).
	est.Data = 3 * dataBytes(ds)
	if opts.ConsumeData && ds.Sparse != nil {
		est.Data = 2 * dataBytes(ds)
	}
	if a := ds.Sparse; a != nil {
		est.Panels = nmfstep.XVPanelBytes(n, len(a.Ind), int(k), threads)
	}
	if h := ds.Missing; h != nil {
		// The unknown entries in both orientations (an index and an unused
		// value each); the data hold no value there, so solver.Data.Hide
		// shares the solver's copies.
		est.Data += 2 * (16*int64(h.NNZ()) + 8*(n64+m64))
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
		entries := n64 * m64
		if a := ds.Sparse; a != nil {
			entries = int64(len(a.Ind))
		}
		est.Data += 2 * 8 * entries
	}
	if opts.Method.Concept() {
		// W (n x k) and its buffers.
		est.Factors += 3 * 8 * k * n64
		// The explicit n x n kernel a non-linear kernel, or the linear
		// one on data with negative values (its positive and negative
		// parts), forms.
		if opts.Solver.Kernel.Kind != solver.Linear {
			est.Factors += 8 * n64 * n64
		} else if hasNegative(ds) {
			est.Factors += 2 * 8 * n64 * n64
		}
	}
	takesGraph := opts.Method.TakesGraph() && opts.SampleGraph == nil && (opts.Lambda.IsAuto() || opts.Lambda.IsDefault() || opts.Lambda.Value() > 0)
	if takesGraph {
		est.Graph = graphMemory(ds, opts.Graph, threads)
	}
	return est
}

// dataBytes is one copy of the data: for sparse data an index and a value
// a stored entry and the row pointers of either orientation.
func dataBytes(ds *dataset.Dataset) int64 {
	n, m := ds.Dims()
	if a := ds.Sparse; a != nil {
		return 16*int64(len(a.Ind)) + 8*int64(n+m)
	}
	return 8 * int64(n) * int64(m)
}

// graphMemory is the nearest-neighbour search's peak: the lists, the
// symmetric graph (up to 2 n p entries, built from triplets), and either
// the exact search's inverted index and per-thread accumulators or
// NN-descent's compact copy of the data, pruned index and two generations
// of lists of 3p.
func graphMemory(ds *dataset.Dataset, o graph.Options, threads int) int64 {
	n, m := ds.Dims()
	n64 := int64(n)
	p := int64(o.Neighbors)
	if p == 0 {
		p = graph.DefaultNeighbors
	}
	th := int64(max(threads, 1))
	edges := 2 * n64 * p
	b := 24*n64*p + 3*24*edges // lists; triplets, CSR and degree
	a := ds.Sparse
	if a == nil {
		if o.Search.ForDense() == graph.ApproxSearch {
			return b + 2*17*n64*3*p + 4*n64*th
		}
		return b + 8*n64*min(n64, 4096)*th // blocks of inner products
	}
	nnz := int64(len(a.Ind))
	if o.Search.ForSparse(a) == graph.ApproxSearch {
		return b + 8*nnz + 8*nnz + 8*int64(m)*3*p + 2*17*n64*3*p + (4*n64+4*int64(m))*th
	}
	return b + 20*nnz + 8*n64*th
}

// Graph is Fit for building the graph alone (model.Prepared.Graph): the
// data as loaded and the search, and with recall what model.Prepared.GraphRecall
// adds: for sparse data an inverted index (20 bytes a stored
// entry) and an accumulator of n per thread; for dense data nothing but
// the lists.
func Graph(ds *dataset.Dataset, o graph.Options, threads int, recall bool) Estimate {
	m := Estimate{Data: dataBytes(ds), Graph: graphMemory(ds, o, threads)}
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
		Data:    dataBytes(ds) + int64(frac*float64(one.Data)),
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
	perData := one.Data - dataBytes(ds) + 2*16*hidden + 16*hidden + 8*int64(n+m) // both orientations; values and weights
	return Estimate{
		Data:    dataBytes(ds) + int64(replicates)*perData,
		Graph:   int64(replicates) * one.Graph,
		Factors: int64(replicates) * one.Factors,
	}
}
