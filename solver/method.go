package solver

import (
	"fmt"
	"strings"
)

// Method is a factorization method. The zero value is NMF. Each method
// exists plain and normalized-cut weighted (the -ncw forms, paper 004
// appendix B and paper 002 appendix B; for the KL methods, per-sample
// weights 1/(x_j^T X e) on the divergence, as the reference code does,
// scaled to average 1).
type Method int

// The methods, plain then NC-weighted, in the same order.
const (
	NMF   Method = iota // Frobenius NMF, paper 004
	GNMF                // NMF + lambda Tr(V^T L V), paper 000
	CF                  // concept factorization X ~ X W V^T, paper 002
	LCCF                // CF + lambda Tr(V^T L V), paper 002
	NMFKL               // NMF under the KL divergence, paper 003 eq. 2
	LPNMF               // NMF-KL + lambda times a symmetric-KL graph term, paper 003
	NMFNCW
	GNMFNCW
	CFNCW
	LCCFNCW
	NMFKLNCW
	LPNMFNCW
	numMethods
)

// plainMethods is the number of methods without NC weighting; M + plainMethods
// is M's weighted form.
const plainMethods = NMFNCW

var baseNames = [plainMethods]string{NMF: "nmf", GNMF: "gnmf", CF: "cf", LCCF: "lccf", NMFKL: "nmf-kl", LPNMF: "lpnmf"}

// Methods returns every method, plain ones first.
func Methods() []Method {
	out := make([]Method, numMethods)
	for i := range out {
		out[i] = Method(i)
	}
	return out
}

// methodNames returns the names UnmarshalText accepts, in the order of
// Methods.
func methodNames() []string {
	out := make([]string, numMethods)
	for i := range out {
		out[i] = Method(i).String()
	}
	return out
}

// parseMethod returns the method named s, e.g. "gnmf" or "lccf-ncw".
func parseMethod(s string) (Method, error) {
	for _, m := range Methods() {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("solver: unknown method %q (known: %s)", s, strings.Join(methodNames(), ", "))
}

// Valid reports whether m is one of the methods.
func (m Method) Valid() bool { return m >= 0 && m < numMethods }

// String returns the method's name, as UnmarshalText accepts it.
func (m Method) String() string {
	if !m.Valid() {
		return fmt.Sprintf("Method(%d)", int(m))
	}
	if m.NCW() {
		return baseNames[m-plainMethods] + "-ncw"
	}
	return baseNames[m]
}

// MarshalText returns the method's name, so a Method reads and writes as
// its name in JSON and in flags (flag.TextVar).
func (m Method) MarshalText() ([]byte, error) {
	if !m.Valid() {
		return nil, fmt.Errorf("solver: invalid method %d", int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText parses a method name, e.g. "gnmf" or "lccf-ncw": how a
// program turns a name into a Method (flag.TextVar and encoding/json call
// it too).
func (m *Method) UnmarshalText(b []byte) error {
	v, err := parseMethod(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// NCW reports whether m is normalized-cut weighted.
func (m Method) NCW() bool { return m >= plainMethods && m < numMethods }

// Base returns m without NC weighting.
func (m Method) Base() Method {
	if m.NCW() {
		return m - plainMethods
	}
	return m
}

// Weighted returns m's NC-weighted form.
func (m Method) Weighted() Method { return m.Base() + plainMethods }

// TakesGraph reports whether m is graph-regularized: GNMF, LCCF, LPNMF and
// their NC-weighted forms.
func (m Method) TakesGraph() bool {
	b := m.Base()
	return m.Valid() && (b == GNMF || b == LCCF || b == LPNMF)
}

// Plain returns the method m regularizes: NMF for GNMF, CF for LCCF,
// NMF-KL for LPNMF (with the same weighting); m itself for the others.
func (m Method) Plain() Method {
	if !m.TakesGraph() {
		return m
	}
	return m - 1
}

// Concept reports the concept-factorization family (CF, LCCF), whose
// first factor is W (n x k, U = X W) rather than U.
func (m Method) Concept() bool {
	b := m.Base()
	return m.Valid() && (b == CF || b == LCCF)
}

// KL reports the methods that minimize the KL divergence (NMF-KL, LPNMF).
func (m Method) KL() bool {
	b := m.Base()
	return m.Valid() && (b == NMFKL || b == LPNMF)
}
