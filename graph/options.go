package graph

import (
	"fmt"
	"math"
)

// Weight is how an edge of a p-nearest-neighbour graph is weighted. The
// zero value is Binary.
type Weight int

const (
	// Binary gives every edge weight 1 (Cai et al., GNMF, eq. 6).
	Binary Weight = iota
	// Heat gives an edge between samples at Euclidean distance d the weight
	// exp(-d^2 / (2 t^2)), the heat kernel of width t (Options.HeatT).
	Heat
	// Cosine gives an edge the cosine similarity of its two samples,
	// a.b / (|a| |b|) (Cai et al., LCCF, eq. 8). Dense data with negative
	// values can have neighbours at negative cosine; such edges get weight
	// zero and are not stored, as the weights must be non-negative.
	Cosine
)

var weightNames = [...]string{Binary: "binary", Heat: "heat", Cosine: "cosine"}

// String returns the name UnmarshalText accepts.
func (w Weight) String() string {
	if w < 0 || int(w) >= len(weightNames) {
		return fmt.Sprintf("Weight(%d)", int(w))
	}
	return weightNames[w]
}

// parseWeight returns the weighting named s: "binary", "heat" or "cosine".
func parseWeight(s string) (Weight, error) {
	for w, name := range weightNames {
		if s == name {
			return Weight(w), nil
		}
	}
	return 0, fmt.Errorf("graph: unknown weight %q (want binary, heat or cosine)", s)
}

// Metric is how Dense compares dense samples to find their neighbours
// (and to weigh edges by Heat or Cosine). Sparse samples are always
// compared by cosine similarity. The zero value is AutoMetric.
type Metric int

const (
	// AutoMetric is CorrelationMetric for dense samples of at least 16
	// features, EuclideanMetric for fewer, and
	// cosine similarity for sparse samples. Correlation, because the
	// Euclidean distance between raw images is dominated by their
	// brightness and contrast: on the PIE faces under varying light, the
	// 5-NN graph by Euclidean distance joins images of one light, and its
	// communities (Normalized Cut on it) match the persons 22 % of the
	// time; by correlation 49 %, with COIL20 unchanged
	// (docs/REPRODUCTION.md, "The neighbours of dense samples"). Euclidean
	// below, because a sample of a few features is a point in a space of
	// few dimensions, most of whose position centring would discard (all
	// of it at one feature).
	AutoMetric Metric = iota
	// EuclideanMetric compares samples by Euclidean distance, as the
	// papers do for images.
	EuclideanMetric
	// CosineMetric compares samples by the angle between them: the
	// Euclidean distance between the samples scaled to unit length.
	CosineMetric
	// CorrelationMetric compares samples by the Pearson correlation of
	// their features: the Euclidean distance between the samples centred
	// (each sample's mean over its features subtracted) and scaled to
	// unit length, so that neither a sample's offset nor its scale
	// counts. It suits samples whose features measure one thing (pixels,
	// spectra, expression levels), not a few features in different units;
	// a sample whose features are all equal has no direction and sits at
	// distance 1 from every other.
	CorrelationMetric
)

var metricNames = [...]string{AutoMetric: "auto", EuclideanMetric: "euclidean", CosineMetric: "cosine", CorrelationMetric: "correlation"}

// String returns the name UnmarshalText accepts.
func (m Metric) String() string {
	if m < 0 || int(m) >= len(metricNames) {
		return fmt.Sprintf("Metric(%d)", int(m))
	}
	return metricNames[m]
}

// parseMetric returns the metric named s: "auto", "euclidean", "cosine"
// or "correlation".
func parseMetric(s string) (Metric, error) {
	for m, name := range metricNames {
		if s == name {
			return Metric(m), nil
		}
	}
	return 0, fmt.Errorf("graph: unknown metric %q (want auto, euclidean, cosine or correlation)", s)
}

// minCorrelationFeatures is the number of features from which AutoMetric
// compares dense samples by correlation: profiles such as the pixels of
// the smallest images, not points in a space of a few dimensions.
const minCorrelationFeatures = 16

// ForDense returns the metric Dense uses for samples of the given number
// of features: m, or for AutoMetric the metric it stands for.
func (m Metric) ForDense(features int) Metric {
	if m != AutoMetric {
		return m
	}
	if features >= minCorrelationFeatures {
		return CorrelationMetric
	}
	return EuclideanMetric
}

// Symmetry is how directed neighbour choices become undirected edges.
type Symmetry int

const (
	// Either joins i and j when either chose the other (the OR rule,
	// W = max(W, W^T)), as the papers do.
	Either Symmetry = iota
	// Mutual joins i and j only when each chose the other (the AND rule):
	// fewer edges, more of them within a class, some samples left alone.
	Mutual
)

var symmetryNames = [...]string{Either: "either", Mutual: "mutual"}

// String returns the name UnmarshalText accepts.
func (s Symmetry) String() string {
	if s < 0 || int(s) >= len(symmetryNames) {
		return fmt.Sprintf("Symmetry(%d)", int(s))
	}
	return symmetryNames[s]
}

// parseSymmetry returns the rule named s: "either" or "mutual".
func parseSymmetry(s string) (Symmetry, error) {
	for v, name := range symmetryNames {
		if s == name {
			return Symmetry(v), nil
		}
	}
	return 0, fmt.Errorf("graph: unknown symmetry %q (want either or mutual)", s)
}

// DefaultNeighbors is the p used when Options.Neighbors is zero: the value
// the papers use throughout.
const DefaultNeighbors = 5

// heatSampleSize is how many samples the default heat-kernel width is
// estimated from: the pairwise distances of a few thousand samples give
// the mean to well under a percent, at a cost independent of n.
const heatSampleSize = 3000

// Options say how Sparse and Dense build a graph. The zero value builds the
// papers' graph: 5 nearest neighbours, 0/1 weights.
type Options struct {
	// Neighbors is p, how many nearest neighbours each sample is joined
	// to before symmetrization; 0 means DefaultNeighbors.
	Neighbors int
	// Weight is the edge weighting; the zero value is Binary.
	Weight Weight
	// Metric is how dense samples are compared (see Metric); the zero
	// value, AutoMetric, is CorrelationMetric for dense samples of 16
	// features or more. Sparse samples are compared
	// by cosine similarity: Sparse accepts AutoMetric and CosineMetric
	// only.
	Metric Metric
	// HeatT is the heat kernel width t, used only with Heat. 0 means the
	// mean Euclidean distance between distinct samples of a random sample
	// of up to 3000 samples (all of them when there are fewer), drawn with
	// Seed: the scale of the data, as the authors' code chooses it.
	HeatT float64
	// Symmetry is how the directed neighbour choices become undirected
	// edges; the zero value is Either, the papers' rule.
	Symmetry Symmetry
	// MinShared, when positive, keeps an edge only when its two samples
	// share at least this many of their p chosen neighbours (pruning by
	// shared nearest neighbours, Jarvis and Patrick 1973): an edge between
	// two samples whose neighbourhoods do not overlap is more likely to
	// cross a class boundary. It must be below p.
	MinShared int
	// Search is how the neighbours are found; the zero value, AutoSearch,
	// picks the search expected to be faster (see AutoSearch).
	Search Search
	// Seed draws the sample for the default HeatT and NN-descent's random
	// start.
	Seed uint64
	// Threads is how many goroutines run the neighbour search; 0 means
	// GOMAXPROCS. The graph does not depend on it.
	Threads int
	// Progress, when set, is called as the search goes with the work done
	// and the total, in samples queried: once per sample for the exact
	// search, once per sample and round for NN-descent, whose total
	// counts every round it may run (it reports the total when it stops
	// early). Calls come one at a time from the search's goroutines and
	// must be quick.
	Progress func(done, total int)
}

// neighbors returns p after checking it and the other options against n
// samples.
func (o *Options) neighbors(n int) (int, error) {
	p := o.Neighbors
	switch {
	case p == 0:
		p = DefaultNeighbors
	case p < 0:
		return 0, fmt.Errorf("graph: %d neighbours: the number of neighbours must be at least 1", p)
	}
	if p >= n {
		return 0, fmt.Errorf("graph: p = %d neighbours needs at least %d samples, the data has %d", p, p+1, n)
	}
	if o.Weight < 0 || int(o.Weight) >= len(weightNames) {
		return 0, fmt.Errorf("graph: unknown weight %v (want binary, heat or cosine)", o.Weight)
	}
	if o.Metric < 0 || int(o.Metric) >= len(metricNames) {
		return 0, fmt.Errorf("graph: unknown metric %v (want auto, euclidean, cosine or correlation)", o.Metric)
	}
	if o.Symmetry < 0 || int(o.Symmetry) >= len(symmetryNames) {
		return 0, fmt.Errorf("graph: unknown symmetry %v (want either or mutual)", o.Symmetry)
	}
	if o.Search < 0 || int(o.Search) >= len(searchNames) {
		return 0, fmt.Errorf("graph: unknown search %v (want auto, exact or approx)", o.Search)
	}
	if o.MinShared < 0 || (o.MinShared > 0 && o.MinShared >= p) {
		return 0, fmt.Errorf("graph: %d shared neighbours required of p = %d: want 0 (no pruning) up to p - 1", o.MinShared, p)
	}
	if t := o.HeatT; t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
		return 0, fmt.Errorf("graph: heat kernel width t = %v: it must be a finite positive number, or 0 for the default", t)
	}
	return p, nil
}

// MarshalText returns the weighting's name.
func (w Weight) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

// UnmarshalText parses a weighting's name.
func (w *Weight) UnmarshalText(b []byte) error {
	v, err := parseWeight(string(b))
	if err == nil {
		*w = v
	}
	return err
}

// MarshalText returns the metric's name.
func (m Metric) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText parses a metric's name.
func (m *Metric) UnmarshalText(b []byte) error {
	v, err := parseMetric(string(b))
	if err == nil {
		*m = v
	}
	return err
}

// MarshalText returns the rule's name.
func (s Symmetry) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a rule's name.
func (s *Symmetry) UnmarshalText(b []byte) error {
	v, err := parseSymmetry(string(b))
	if err == nil {
		*s = v
	}
	return err
}
