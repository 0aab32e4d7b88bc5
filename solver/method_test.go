package solver

import (
	"encoding/json"
	"testing"
)

func TestMethodNamesRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Methods() {
		name := m.String()
		if seen[name] {
			t.Fatalf("name %q used twice", name)
		}
		seen[name] = true
		got, err := parseMethod(name)
		if err != nil || got != m {
			t.Fatalf("parseMethod(%q) = %v, %v; want %v", name, got, err, m)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var back Method
		if err := json.Unmarshal(b, &back); err != nil || back != m {
			t.Fatalf("JSON %s: %v, %v", b, back, err)
		}
	}
	if len(seen) != 12 {
		t.Fatalf("%d methods, want 12", len(seen))
	}
	for _, bad := range []string{"", "bogus", "gnmf-ncw-ncw", "NMF", "-ncw"} {
		if _, err := parseMethod(bad); err == nil {
			t.Errorf("parseMethod(%q) accepted", bad)
		}
	}
	if Method(-1).Valid() || Method(12).Valid() {
		t.Error("out-of-range methods valid")
	}
	if _, err := Method(99).MarshalText(); err == nil {
		t.Error("invalid method marshalled")
	}
}

func TestMethodProperties(t *testing.T) {
	for _, c := range []struct {
		m                      Method
		graph, concept, kl, nc bool
		plain                  Method
	}{
		{NMF, false, false, false, false, NMF},
		{GNMF, true, false, false, false, NMF},
		{CF, false, true, false, false, CF},
		{LCCF, true, true, false, false, CF},
		{NMFKL, false, false, true, false, NMFKL},
		{LPNMF, true, false, true, false, NMFKL},
		{NMFNCW, false, false, false, true, NMFNCW},
		{GNMFNCW, true, false, false, true, NMFNCW},
		{CFNCW, false, true, false, true, CFNCW},
		{LCCFNCW, true, true, false, true, CFNCW},
		{NMFKLNCW, false, false, true, true, NMFKLNCW},
		{LPNMFNCW, true, false, true, true, NMFKLNCW},
	} {
		m := c.m
		if m.TakesGraph() != c.graph || m.Concept() != c.concept || m.KL() != c.kl || m.NCW() != c.nc || m.Plain() != c.plain {
			t.Errorf("%v: graph %v concept %v kl %v ncw %v plain %v", m, m.TakesGraph(), m.Concept(), m.KL(), m.NCW(), m.Plain())
		}
		if m.Base().NCW() || m.Weighted().Base() != m.Base() || !m.Weighted().NCW() {
			t.Errorf("%v: base %v, weighted %v", m, m.Base(), m.Weighted())
		}
	}
	if Method(40).TakesGraph() || Method(40).Concept() || Method(-3).KL() {
		t.Error("an invalid method has properties")
	}
}
