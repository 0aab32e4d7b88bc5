package autolambda

import (
	"fmt"
	"math"
	"slices"

	"github.com/manifactor/manifactor/solver"
)

// Sample is Auto's choice on a sample of the data.
type Sample struct {
	// Samples is the sample's size, drawn with model.Options.Seed.
	Samples int `json:"samples"`
	// Lambda and Verdict are the weight the rule kept on the sample and
	// its verdict on the sample's graph; Candidates are the sample's fits.
	Lambda     float64     `json:"lambda"`
	Verdict    Verdict     `json:"verdict"`
	Candidates []Candidate `json:"candidates"`
}

// Candidate is one of Auto's fits.
type Candidate struct {
	Lambda float64 `json:"lambda"`
	// Cohesion is the Cohesion of this fit's clustering in the data.
	Cohesion float64 `json:"cohesion"`
	// Cut is the share of the graph's edge weight between samples in
	// different clusters.
	Cut float64 `json:"cut"`
	// ChanceCut is the share a random assignment with the same cluster
	// volumes (sums of degrees) would cut in expectation, 1 - sum_c
	// (vol_c / vol)^2: the null model of modularity. It is 0 for a single
	// cluster.
	ChanceCut float64 `json:"chance_cut"`
	// RelativeCut is Cut / ChanceCut: 0 when the clusters follow the
	// graph, 1 when they agree with it no better than chance (and 1 for a
	// single cluster, which says nothing about the graph).
	RelativeCut float64 `json:"relative_cut"`
	// Largest is the share of the samples in the largest cluster, and
	// SizeEntropy the entropy of the cluster sizes over its largest value,
	// ln k (1 for clusters of equal size, near 0 when one cluster holds
	// nearly everything).
	Largest     float64 `json:"largest"`
	SizeEntropy float64 `json:"size_entropy"`
	// Collapsed is set when this clustering has fewer than 0.4 times the
	// plain one's effective number of clusters (the exponential of the
	// size entropy): a few clusters holding nearly every sample. Auto
	// never keeps it.
	Collapsed  bool    `json:"collapsed,omitempty"`
	Iterations int     `json:"iterations"`
	Objective  float64 `json:"objective"`
	// Screened is set when this fit ran out of Auto's screening budget
	// (model.Options.ScreenIter) before its stopping rule held: Iterations,
	// Objective, the scores and Labels are those of the shortened fit.
	// When Auto keeps such a candidate, model.Result is its fit refitted with
	// the full budget from the same start.
	Screened bool `json:"screened"`
	// Path is set when this fit started from the previous candidate's
	// factors (model.Options.CandidateStart, PathStart) rather than from the
	// run's start.
	Path bool `json:"path,omitempty"`
	Kept bool `json:"kept"`
	// Labels is this fit's assignment, one cluster per sample: under
	// SameStart what the graph method at this fixed weight (or the plain
	// method) gives with the same seed, so that a caller with labels can
	// score every candidate without refitting.
	Labels []int `json:"-"`
}

// Verdict is what Auto concluded about the graph of the samples from its
// candidates' clusterings (see model.Options.Lambda).
type Verdict int

const (
	// NoVerdict: lambda was fixed, Auto chose nothing.
	NoVerdict Verdict = iota
	// GraphTrusted: the graph and the data support the same clusters;
	// the clustering that cuts the graph least, relative to chance, was
	// kept.
	GraphTrusted
	// GraphUntrusted: no weight's clustering cut the graph much less than
	// the plain method's; the most cohesive clustering in the data that
	// keeps the plain one's cluster sizes was kept.
	GraphUntrusted
	// GraphOffTopic: the plain method's clusters cut the graph at half
	// the rate of chance or more, so the graph's edges do not follow the
	// clusters the data supports (its neighbours may share authors,
	// templates or rare words rather than topics), and no weight's
	// clustering that keeps the plain one's sizes cut it to half; kept
	// as under GraphUntrusted.
	GraphOffTopic
)

var verdictNames = [...]string{NoVerdict: "none", GraphTrusted: "trusted", GraphUntrusted: "untrusted", GraphOffTopic: "off-topic"}

// String returns the verdict's name: none, trusted, untrusted or
// off-topic.
func (v Verdict) String() string {
	if v < 0 || int(v) >= len(verdictNames) {
		return fmt.Sprintf("Verdict(%d)", int(v))
	}
	return verdictNames[v]
}

// MarshalText returns the verdict's name.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText parses a verdict's name.
func (v *Verdict) UnmarshalText(b []byte) error {
	if i := slices.Index(verdictNames[:], string(b)); i >= 0 {
		*v = Verdict(i)
		return nil
	}
	return fmt.Errorf("model: unknown verdict %q (want none, trusted, untrusted or off-topic)", b)
}

// The constants of Auto's rule, measured on every candidate of every draw
// of the protocol on the seven corpora of ../shared/data and on generated
// corpora with authors (docs/REPRODUCTION.md, "Lambda auto on corpora
// with authors").
const (
	// offTopicCut is the plain clustering's relative cut from which the
	// graph is not trusted to reshape it: at most 0.45 on every draw of
	// the protocol and on every whole corpus of ../shared/data, 0.75 to
	// 0.97 on generated corpora whose neighbours are mostly one author's
	// documents, 0.71 on a real corpus of blog posts.
	offTopicCut = 0.5
	// collapseShare is the share of the plain clustering's effective
	// number of clusters below which a clustering is collapsed: no draw
	// of the protocol that the rule keeps a weight on is below 0.45
	// (TDT2, k = 7: a true class of most of the documents that NMF
	// split), the blog corpus's lambda 1000 was at 0.11.
	collapseShare = 0.4
	// refineGrowth bounds the largest cluster of a weight's clustering
	// that refines the plain one: at most this many times the plain
	// one's share of the samples.
	refineGrowth = 1.5
)

// Collapsed reports whether c has fewer than collapseShare times the
// effective number of clusters of the plain clustering, k^SizeEntropy
// (the exponential of the size entropy).
func Collapsed(c, plain Candidate, k int) bool {
	return math.Pow(float64(k), c.SizeEntropy-plain.SizeEntropy) < collapseShare
}

// refines reports whether c keeps the plain clustering's sizes, so that
// it may be kept without the graph's trust: it is not collapsed and its
// largest cluster is at most refineGrowth times the plain one's.
func refines(c, plain Candidate) bool {
	return !c.Collapsed && c.Largest <= refineGrowth*plain.Largest
}

// Standing reports whether candidate i of c (c[0] the plain method) may
// be kept by Choose for cutting the graph least and for its cohesion:
// the plain method for both; another, not collapsed, for its cohesion
// when it refines the plain one, for its cut also when the graph is not
// off topic.
func Standing(c []Candidate, i int) (forCut, forCohesion bool) {
	if i == 0 {
		return true, true
	}
	fine := refines(c[i], c[0])
	return !c[i].Collapsed && (fine || c[0].RelativeCut < offTopicCut), fine
}

// Choose is Auto's rule (see model.Options.Lambda): the index of the kept
// candidate and the verdict on the graph. c[0] is the plain method; the
// others' Collapsed is set (Collapsed).
//
// A collapsed clustering is never kept. The graph is trusted when the
// clustering that cuts least of it, measured against chance
// (RelativeCut), is the plain method's or cuts at most half as much: the
// graph and the data support the same clusters (the plain factorization
// found them unaided, or the one pulled towards the graph did). That
// candidate is kept. Without the first case a plain clustering that
// already follows the graph closely lost to a weight's that cuts three
// times as much but is slightly more cohesive (TDT2 topics 1, 4, 9 and
// 17, seed 2: accuracy 0.787 kept against the plain method's 0.994).
// Relative to chance, because a clustering that puts almost every sample
// in one cluster cuts almost nothing.
//
// Where the plain clusters cut the graph at half the rate of chance or
// more (offTopicCut), the graph does not follow the clusters the data
// supports by itself: only the weights whose clustering refines the plain
// one (refines) are weighed then, and the plain clustering cutting least
// proves nothing. The graph may sharpen clusters the data shows weakly
// but not reshape them: on a graph whose neighbours were one author's
// posts, a large weight halved the cut by putting 95 % of 575,229 blog
// posts in two clusters.
//
// Untrusted, the clustering most cohesive in the data is kept among the
// plain one and those that refine it. Ties keep the smaller weight.
//
// How the rule was chosen, against the best fixed weight on seven labelled
// corpora, and the rules it replaced: docs/REPRODUCTION.md, "Lambda auto".
func Choose(c []Candidate) (kept int, v Verdict) {
	offTopic := c[0].RelativeCut >= offTopicCut
	byCut, byCohesion := 0, 0
	for i := 1; i < len(c); i++ {
		forCut, forCohesion := Standing(c, i)
		if forCut && c[i].RelativeCut < c[byCut].RelativeCut {
			byCut = i
		}
		if forCohesion && c[i].Cohesion > c[byCohesion].Cohesion {
			byCohesion = i
		}
	}
	switch {
	case (byCut == 0 && !offTopic) || c[byCut].RelativeCut <= c[0].RelativeCut/2:
		return byCut, GraphTrusted
	case offTopic:
		return byCohesion, GraphOffTopic
	}
	return byCohesion, GraphUntrusted
}

// Start is where Auto's candidate fits start. The zero value is
// DefaultStart.
type Start int

const (
	// DefaultStart is PathStart for gnmf and lccf and SameStart
	// for lpnmf and the -ncw forms, whose candidates along a path have not
	// been measured under the protocol.
	DefaultStart Start = iota
	// PathStart continues along the weights: the plain fit and the
	// smallest positive weight start from the run's start, and each larger
	// weight from the factors the previous weight's fit ended with. A
	// large weight then begins near a clustering the graph already shaped
	// instead of from random factors, which it needs many iterations to
	// smooth: under the protocol on the seven corpora of ../shared/data,
	// GNMF's auto took far less time and scored 0.6 points higher on
	// average (docs/REPRODUCTION.md, "Lambda auto along the weights"). A
	// candidate above the smallest weight is then not the fit its weight
	// gives when fixed.
	PathStart
	// SameStart starts every candidate from the run's start, so that each
	// is the fit its weight gives when fixed (experiment's candidate
	// columns are then a sweep of fixed weights).
	SameStart
)

var startNames = [...]string{DefaultStart: "auto", PathStart: "path", SameStart: "same"}

// String returns the name UnmarshalText accepts.
func (s Start) String() string {
	if s < 0 || int(s) >= len(startNames) {
		return fmt.Sprintf("Start(%d)", int(s))
	}
	return startNames[s]
}

// parseStart parses "auto", "path" or "same".
func parseStart(s string) (Start, error) {
	if i := slices.Index(startNames[:], s); i >= 0 {
		return Start(i), nil
	}
	return 0, fmt.Errorf("model: unknown candidate start %q (want auto, path or same)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (s Start) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Start) UnmarshalText(b []byte) error {
	v, err := parseStart(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Valid reports whether s is one of the starts.
func (s Start) Valid() bool { return s >= 0 && int(s) < len(startNames) }

// Resolve returns PathStart or SameStart for method m.
func (s Start) Resolve(m solver.Method) Start {
	if s != DefaultStart {
		return s
	}
	if m == solver.GNMF || m == solver.LCCF {
		return PathStart
	}
	return SameStart
}

// Grid returns the weights Auto chooses among (besides 0, the
// plain method): a factor of about 3 apart, from a graph term that barely
// moves the plain factorization to one that makes V nearly constant on the
// graph's communities (see model.Options.Lambda).
func Grid() []float64 { return []float64{1, 3, 10, 30, 100, 300, 1000} }
