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

// String returns the name ParseWeight accepts.
func (w Weight) String() string {
	if w < 0 || int(w) >= len(weightNames) {
		return fmt.Sprintf("Weight(%d)", int(w))
	}
	return weightNames[w]
}

// ParseWeight returns the weighting named s: "binary", "heat" or "cosine".
func ParseWeight(s string) (Weight, error) {
	for w, name := range weightNames {
		if s == name {
			return Weight(w), nil
		}
	}
	return 0, fmt.Errorf("graph: unknown weight %q (want binary, heat or cosine)", s)
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

// String returns the name ParseSymmetry accepts.
func (s Symmetry) String() string {
	if s < 0 || int(s) >= len(symmetryNames) {
		return fmt.Sprintf("Symmetry(%d)", int(s))
	}
	return symmetryNames[s]
}

// ParseSymmetry returns the rule named s: "either" or "mutual".
func ParseSymmetry(s string) (Symmetry, error) {
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
	v, err := ParseWeight(string(b))
	if err == nil {
		*w = v
	}
	return err
}

// MarshalText returns the rule's name.
func (s Symmetry) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a rule's name.
func (s *Symmetry) UnmarshalText(b []byte) error {
	v, err := ParseSymmetry(string(b))
	if err == nil {
		*s = v
	}
	return err
}
