package solver

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Formulation selects how the graph methods (GNMF, LCCF, LPNMF) weigh
// their graph term against the fit. The zero value is ScaleInvariant.
type Formulation int

const (
	// ScaleInvariant weighs each factor's graph term by the scale of its
	// basis column, so that the objective does not change when a column
	// of U is multiplied by d and the matching column of V divided by d:
	//
	//	GNMF:  ||X - U V^T||^2 + lambda' sum_c |u_c|^2 v_c^T L v_c
	//	LCCF:  ||X - X W V^T||^2 + lambda' sum_c (w_c^T K w_c) v_c^T L v_c
	//	LPNMF: KL(X | U V^T) + lambda' sum_c (sum_i u_ic) R_c(V)
	//
	// with lambda' = Lambda / (mean degree of the graph). It is the
	// papers' objective under the constraint that U's columns (X W's;
	// for LPNMF, U's column sums) are 1, which the updates keep after
	// every iteration; the updates minimize it monotonically (see Fit).
	// Lambda then means the same whatever the start, the scale of the
	// data, the number of neighbours or the weighting of the graph: both
	// terms scale alike with the data, and the graph term is per unit of
	// mean degree.
	ScaleInvariant Formulation = iota
	// Papers is the objective as the papers write it, lambda Tr(V^T L V)
	// (paper 000 eq. 8, paper 002 eq. 13, paper 003 eq. 6), with the
	// factors' scale left free. Its minimum is at U -> infinity, V -> 0,
	// so what a given lambda does depends on the start's scale and on how
	// long the updates run; the reference code's rescaled start
	// (NormalizedStart) is what gives the papers' lambda its effect. Kept
	// to reproduce the papers' tables.
	Papers
)

var formulationNames = [...]string{ScaleInvariant: "invariant", Papers: "papers"}

// String returns the name UnmarshalText accepts.
func (f Formulation) String() string {
	if f < 0 || int(f) >= len(formulationNames) {
		return fmt.Sprintf("Formulation(%d)", int(f))
	}
	return formulationNames[f]
}

// parseFormulation parses "invariant" or "papers".
func parseFormulation(s string) (Formulation, error) {
	for f, name := range formulationNames {
		if s == name {
			return Formulation(f), nil
		}
	}
	return 0, fmt.Errorf("solver: unknown formulation %q (want invariant or papers)", s)
}

// Lambda is the weight of the graph term. The zero value means the
// default for the method and formulation (DefaultLambda); Fixed(0) is an
// explicit zero, which makes a graph method its plain counterpart; Auto
// asks package model to choose it from the data (Fit itself cannot, and
// refuses it).
type Lambda struct {
	kind  lambdaKind
	value float64
}

type lambdaKind uint8

const (
	lambdaDefault lambdaKind = iota
	lambdaFixed
	lambdaAuto
)

// Fixed returns the fixed weight v, which must be finite and not negative
// (Fit checks it).
func Fixed(v float64) Lambda { return Lambda{kind: lambdaFixed, value: v} }

// Auto is the lambda chosen from the data by package model.
var Auto = Lambda{kind: lambdaAuto}

// parseLambda parses "auto", "default" or a number.
func parseLambda(s string) (Lambda, error) {
	switch strings.TrimSpace(s) {
	case "auto":
		return Auto, nil
	case "default", "":
		return Lambda{}, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return Lambda{}, fmt.Errorf("solver: lambda %q: want auto or a finite number >= 0", s)
	}
	return Fixed(v), nil
}

// IsDefault reports the zero value.
func (l Lambda) IsDefault() bool { return l.kind == lambdaDefault }

// IsAuto reports Auto.
func (l Lambda) IsAuto() bool { return l.kind == lambdaAuto }

// Value returns the fixed weight (0 for Default and Auto).
func (l Lambda) Value() float64 { return l.value }

// String returns "default", "auto" or the number.
func (l Lambda) String() string {
	switch l.kind {
	case lambdaDefault:
		return "default"
	case lambdaAuto:
		return "auto"
	}
	return strconv.FormatFloat(l.value, 'g', -1, 64)
}

// MarshalText writes the form UnmarshalText reads: "auto", "default" or a number.
func (l Lambda) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText parses "auto", "default" or a number.
func (l *Lambda) UnmarshalText(b []byte) error {
	v, err := parseLambda(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// DefaultLambda returns the weight a zero Lambda stands for with m. Under
// ScaleInvariant it is 10 for every graph method: measured on the seven
// corpora of docs/REPRODUCTION.md, it helps wherever the graph's
// neighbours mostly share a class and costs a few points where they do
// not (package model's Auto tells the two apart). Under Papers it is the
// papers' choice: 10 for GNMF on sparse data (paper 000), 100 for GNMF
// on dense data (paper 001) and for LCCF and LPNMF (papers 002, 003).
func (m Method) DefaultLambda(f Formulation, sparse bool) float64 {
	if !m.TakesGraph() {
		return 0
	}
	if f == Papers {
		if m.Base() == GNMF && sparse {
			return 10
		}
		return 100
	}
	return 10
}

// Start selects how the first start of a fit is drawn. The zero value is
// RandomStart.
type Start int

const (
	// RandomStart draws U (or W) and V uniformly from [0, 1), as the
	// reference code does. Under ScaleInvariant every start is then
	// rescaled as NormalizedStart does, which leaves the objective as
	// drawn.
	RandomStart Start = iota
	// NormalizedStart is RandomStart with U's columns (X W's for concept
	// factorization) rescaled to unit length and V's columns by the same
	// factors, leaving U V^T as drawn: the reference code's start for
	// GNMF and LCCF. Under Papers it is what sets the graph term's weight
	// against the fit for a given lambda (assign by k-means on V then:
	// the arg max of V drifts to one factor from such a start). Not for
	// the KL methods under Papers.
	NormalizedStart
	// NNDSVDStart is non-negative double SVD (Boutsidis and Gallopoulos):
	// the positive parts of the k leading singular pairs of X. Entries it
	// leaves at zero are set to the mean of X divided by 100, because a
	// zero never moves under multiplicative updates (the NNDSVDa variant,
	// with a smaller fill).
	NNDSVDStart
	// LabelsStart starts from a clustering of the samples
	// (Options.InitLabels, e.g. k-means, the reference code's start for
	// the KL methods): U's column c is the mean of cluster c's samples, V
	// the least-squares coefficients clipped below at a small positive
	// value. Concept factorization takes W's column c as 1/|c| on cluster
	// c's samples (so X W is the centroid), plus the same small value.
	LabelsStart
	// KMeansStart is LabelsStart from the clusters of k-means on the
	// samples, the reference code's start for the KL methods: package
	// model runs the k-means (model.Fit), and Fit refuses it, as it
	// refuses lambda Auto.
	KMeansStart
)

var startNames = [...]string{RandomStart: "random", NormalizedStart: "normalized", NNDSVDStart: "nndsvd", LabelsStart: "labels", KMeansStart: "kmeans"}

// String returns the name UnmarshalText accepts.
func (s Start) String() string {
	if s < 0 || int(s) >= len(startNames) {
		return fmt.Sprintf("Start(%d)", int(s))
	}
	return startNames[s]
}

// parseStart parses "random", "normalized", "nndsvd", "labels" or "kmeans".
func parseStart(s string) (Start, error) {
	for v, name := range startNames {
		if s == name {
			return Start(v), nil
		}
	}
	return 0, fmt.Errorf("solver: unknown start %q (want random, normalized, nndsvd, labels or kmeans)", s)
}

// MarshalText returns the start's name.
func (s Start) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a start's name.
func (s *Start) UnmarshalText(b []byte) error {
	v, err := parseStart(string(b))
	if err == nil {
		*s = v
	}
	return err
}

// MarshalText returns the formulation's name.
func (f Formulation) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText parses a formulation's name.
func (f *Formulation) UnmarshalText(b []byte) error {
	v, err := parseFormulation(string(b))
	if err == nil {
		*f = v
	}
	return err
}
