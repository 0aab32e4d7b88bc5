package model

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/coherence"
	"github.com/manifactor/manifactor/dataset"
)

// TestReferenceOf: a data set's documents as a reference: tokens in text
// order when kept, else the sets of non-zero features, sparse or dense.
func TestReferenceOf(t *testing.T) {
	dense, err := dataset.New("d", mat.NewDense(2, 3, []float64{0, 2, 1, 3, 0, 0}), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &coherence.Reference{Docs: [][]int32{{1, 2}, {0}}, Words: 3}
	if got := ReferenceOf(dense); !reflect.DeepEqual(got, want) {
		t.Errorf("dense: %+v", got)
	}
	docs := []dataset.Document{{Text: "oil prices rose, oil stocks fell"}, {Text: "wheat"}}
	text, _, err := dataset.Vectorize(context.Background(), "t", docs, dataset.TextOptions{NoStem: true, Tokens: true})
	if err != nil {
		t.Fatal(err)
	}
	got := ReferenceOf(text)
	// Vocabulary: fell oil prices rose stocks wheat.
	if !got.Ordered || got.Words != 6 || !reflect.DeepEqual(got.Docs, [][]int32{{1, 2, 3, 1, 4, 0}, {5}}) {
		t.Errorf("text: %+v", got)
	}
	text.Tokens = nil
	if got := ReferenceOf(text); got.Ordered || !reflect.DeepEqual(got.Docs, [][]int32{{0, 1, 2, 3, 4}, {5}}) {
		t.Errorf("text without tokens: %+v", got)
	}
}

// TestScoreTopics: each factor's top terms are scored as coherence.Score
// scores their features, factors with fewer than two terms are left
// out, and diversity counts DiversityTop terms whatever Top is.
func TestScoreTopics(t *testing.T) {
	const m = 30
	names := make([]string, m)
	for i := range names {
		names[i] = string(rune('a'+i%26)) + strings.Repeat("x", i/26)
	}
	u := mat.NewDense(m, 3, nil)
	for i := 0; i < m; i++ {
		u.Set(i, 0, float64(m-i))       // features 0, 1, 2, ... in order
		u.Set(i, 1, float64(1+(i*7)%m)) // another order
	}
	u.Set(4, 2, 1) // one term only: not scored
	ref := &coherence.Reference{Words: m, Ordered: true}
	for d := 0; d < 40; d++ {
		var doc []int32
		for q := 0; q < 25; q++ {
			doc = append(doc, int32((d*7+q*q*11)%m))
		}
		ref.Docs = append(ref.Docs, doc)
	}
	s, err := ScoreTopics(context.Background(), u, names, ref, TopicOptions{Measures: []coherence.Measure{coherence.NPMI, coherence.UMass}, Diversity: true, Top: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Scored, []int{0, 1}) {
		t.Fatalf("scored %v", s.Scored)
	}
	terms := TopTerms(u, names, 5)
	ids := make([][]int, 2)
	pos := map[string]int{}
	for i, n := range names {
		pos[n] = i
	}
	for c := range ids {
		for _, term := range terms[c] {
			ids[c] = append(ids[c], pos[term.Name])
		}
	}
	for _, meas := range []coherence.Measure{coherence.NPMI, coherence.UMass} {
		want, err := coherence.Score(context.Background(), ref, ids, meas, coherence.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.Measures[meas].Topics, want.Topics) {
			t.Errorf("%v: %v, want %v", meas, s.Measures[meas].Topics, want.Topics)
		}
	}
	// Factor 0's top 25 are features 0 to 24; factor 1 leaves out 0, 9,
	// 13, 22 and 26, so it adds 25, 27, 28 and 29: 29 distinct of 50.
	if s.Diversity != 29.0/50 {
		t.Errorf("diversity %v", s.Diversity)
	}
	// Diversity counts the top 25 terms whatever Top is.
	if long, err := ScoreTopics(context.Background(), u, names, ref, TopicOptions{Diversity: true, Top: 28}); err != nil || long.Diversity != s.Diversity || len(long.Terms[0]) != 28 {
		t.Errorf("top 28: %v, diversity %v, %d terms", err, long.Diversity, len(long.Terms[0]))
	}
	none, err := ScoreTopics(context.Background(), u, names, ref, TopicOptions{Measures: []coherence.Measure{coherence.NPMI}})
	if err != nil || !math.IsNaN(none.Diversity) || len(none.Terms[0]) != 10 {
		t.Errorf("defaults: %v, diversity %v, %d terms", err, none.Diversity, len(none.Terms[0]))
	}
	for _, c := range []struct {
		names []string
		ref   *coherence.Reference
		o     TopicOptions
		want  string
	}{
		{names, ref, TopicOptions{Top: 31}, "31 terms a topic, of 30 features"},
		{names, ref, TopicOptions{Top: 1}, "needs two at least"},
		{names[:3], ref, TopicOptions{}, "3 names for 30 features"},
		{names, &coherence.Reference{Words: 5}, TopicOptions{}, "not the model's features"},
	} {
		if _, err := ScoreTopics(context.Background(), u, c.names, c.ref, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	if _, err := ScoreTopics(context.Background(), mat.NewDense(m, 1, nil), names, ref, TopicOptions{Measures: []coherence.Measure{coherence.NPMI}}); err == nil || !strings.Contains(err.Error(), "no factor has two terms") {
		t.Errorf("a zero factor: %v", err)
	}
}
