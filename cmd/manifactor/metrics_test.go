package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestTopicsMetrics: topics --metrics scores every topic over the
// corpus's documents and reports each metric's mean over the topics;
// bad lists are refused by name.
func TestTopicsMetrics(t *testing.T) {
	data, err := filepath.Abs("../../testdata/demo/reuters-demo.sgm.gz")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCLI(t, "topics", "--data", data, "--k", "8", "--metrics", "npmi,cv,umass,diversity", "--json", "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	s := decode(t, out)
	coh := s["coherence"].(map[string]any)
	mean := coh["mean"].(map[string]any)
	if coh["co_occurrence"] != "documents" || coh["documents"].(float64) != 800 || coh["top"].(float64) != 10 {
		t.Errorf("coherence %v", coh)
	}
	var sum float64
	scored := 0
	for _, tp := range s["topics"].([]any) {
		m, ok := tp.(map[string]any)["metrics"].(map[string]any)
		if !ok {
			continue
		}
		x := m["npmi"].(float64)
		if x < -1 || x > 1 {
			t.Errorf("npmi %v", x)
		}
		sum += x
		scored++
	}
	if scored != int(coh["scored_topics"].(float64)) || math.Abs(mean["npmi"].(float64)-sum/float64(scored)) > 1e-12 {
		t.Errorf("%d topics scored, npmi mean %v, topics' %v", scored, mean["npmi"], sum/float64(scored))
	}
	if d := mean["diversity"].(float64); !(d > 0 && d <= 1) || mean["cv"] == nil || mean["umass"] == nil {
		t.Errorf("means %v", mean)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--metrics", "c_uci"}, `"c_uci": want npmi, cv, umass or diversity`},
		{[]string{"--metrics", "npmi,npmi"}, "npmi given twice"},
		{[]string{"--metrics", "npmi", "--top", "1"}, "--top 1: a topic needs two terms"},
		{[]string{"--metrics", "npmi", "--top", "90000"}, "--top 90000: the prepared data have 5981 terms"},
	} {
		_, _, err := runCLI(t, append([]string{"topics", "--data", data, "--k", "4", "--quiet"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
