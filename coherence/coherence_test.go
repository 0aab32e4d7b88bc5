package coherence

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// randomReference returns docs documents of 0 to 60 tokens over words
// ids, the low ids far more frequent (a long tail).
func randomReference(seed uint64, docs, words int) *Reference {
	rng := rand.New(rand.NewPCG(seed, 1))
	ref := &Reference{Words: words, Ordered: true}
	for d := 0; d < docs; d++ {
		doc := make([]int32, rng.IntN(61))
		for q := range doc {
			doc[q] = int32(float64(words) * math.Pow(rng.Float64(), 3))
			if rng.IntN(8) == 0 {
				doc[q] = -1 // a token that is no word
			}
		}
		ref.Docs = append(ref.Docs, doc)
	}
	return ref
}

// plainCounts counts, window by window with sets, the units in which
// each word and each pair of words occur.
func plainCounts(ref *Reference, window int) (units int, occ map[int]float64, co map[[2]int]float64) {
	occ, co = map[int]float64{}, map[[2]int]float64{}
	unit := func(toks []int32) {
		units++
		set := map[int]bool{}
		for _, w := range toks {
			if w >= 0 {
				set[int(w)] = true
			}
		}
		for a := range set {
			occ[a]++
			for b := range set {
				co[[2]int{a, b}]++
			}
		}
	}
	for _, doc := range ref.Docs {
		if window > 0 && len(doc) == 0 {
			continue
		}
		if window == 0 || len(doc) <= window {
			unit(doc)
			continue
		}
		for s := 0; s+window <= len(doc); s++ {
			unit(doc[s : s+window])
		}
	}
	return units, occ, co
}

// plainScore is each measure written from its definition over
// plainCounts.
func plainScore(ref *Reference, topic []int, m Measure, window int, gamma float64) float64 {
	units, occ, co := plainCounts(ref, window)
	n := float64(units)
	npmi := func(a, b int) float64 {
		pab := co[[2]int{a, b}] / n
		return math.Log((pab+Epsilon)/(occ[a]/n*occ[b]/n)) / -math.Log(pab+Epsilon)
	}
	var s float64
	switch m {
	case NPMI:
		for _, a := range topic {
			for _, b := range topic {
				if a != b {
					s += npmi(a, b)
				}
			}
		}
		return s / float64(len(topic)*(len(topic)-1))
	case UMass:
		pairs := 0
		for i := range topic {
			for j := 0; j < i; j++ {
				s += math.Log((co[[2]int{topic[i], topic[j]}]/n + Epsilon) / (occ[topic[j]] / n))
				pairs++
			}
		}
		return s / float64(pairs)
	}
	sum := make([]float64, len(topic))
	for _, a := range topic {
		for j, b := range topic {
			sum[j] += math.Pow(npmi(a, b), gamma)
		}
	}
	for _, a := range topic {
		var dot, na, nb float64
		for j, b := range topic {
			v := math.Pow(npmi(a, b), gamma)
			dot, na, nb = dot+v*sum[j], na+v*v, nb+sum[j]*sum[j]
		}
		s += dot / math.Sqrt(na*nb)
	}
	return s / float64(len(topic))
}

// TestScoreReference: every measure, windowed or over documents, equals
// its definition computed plainly, and the threads change nothing.
func TestScoreReference(t *testing.T) {
	t.Parallel()
	ref := randomReference(1, 300, 200)
	topics := [][]int{{0, 1, 2, 3, 4}, {5, 17, 3, 40, 9, 11}, {2, 60, 7}}
	for _, c := range []struct {
		m      Measure
		window int
		gamma  float64
	}{{NPMI, 0, 0}, {NPMI, 10, 0}, {NPMI, -1, 0}, {CV, 0, 0}, {CV, 25, 0}, {CV, 25, 2}, {UMass, 0, 0}} {
		got, err := Score(context.Background(), ref, topics, c.m, Options{Window: c.window, Gamma: c.gamma, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		window := got.Window
		if c.m == NPMI && c.window == 0 && window != DefaultNPMIWindow || c.m == UMass && window != 0 || c.window == -1 && window != 0 {
			t.Errorf("%v, window %d: counted over %d", c.m, c.window, window)
		}
		gamma := c.gamma
		if gamma == 0 {
			gamma = 1
		}
		var sum float64
		for i, topic := range topics {
			want := plainScore(ref, topic, c.m, window, gamma)
			if math.Abs(got.Topics[i]-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("%v, window %d, gamma %v, topic %d: %v, plainly %v", c.m, window, gamma, i, got.Topics[i], want)
			}
			sum += want
		}
		if math.Abs(got.Mean-sum/3) > 1e-12 {
			t.Errorf("%v: mean %v, want %v", c.m, got.Mean, sum/3)
		}
		again, err := Score(context.Background(), ref, topics, c.m, Options{Window: c.window, Gamma: c.gamma, Threads: 5})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, got) {
			t.Errorf("%v: threads changed the scores", c.m)
		}
	}
}

// TestScoreKnown: two words always together have NPMI 1 and UMass
// log(1 + epsilon); two never together, NPMI -1 up to epsilon's share.
func TestScoreKnown(t *testing.T) {
	t.Parallel()
	ref := &Reference{Words: 4, Ordered: true, Docs: [][]int32{{0, 1}, {0, 1, 2}, {2, 3}, {3}}}
	s, err := Score(context.Background(), ref, [][]int{{0, 1}, {0, 3}}, NPMI, Options{Window: -1})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.Topics[0]-1) > 1e-9 || math.Abs(s.Topics[1]+1) > 0.1 || s.Units != 4 {
		t.Errorf("NPMI %v over %d documents", s.Topics, s.Units)
	}
	u, err := Score(context.Background(), ref, [][]int{{0, 1}}, UMass, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Log(0.5+Epsilon) - math.Log(0.5); math.Abs(u.Topics[0]-want) > 1e-15 {
		t.Errorf("UMass %v, want %v", u.Topics[0], want)
	}
}

// TestScoreMissing: a topic whose word the reference never uses scores
// NaN, names the word, and stays out of the mean.
func TestScoreMissing(t *testing.T) {
	t.Parallel()
	ref := &Reference{Words: 5, Ordered: true, Docs: [][]int32{{0, 1, 2}, {1, 2}}}
	s, err := Score(context.Background(), ref, [][]int{{0, 1}, {1, 4}}, NPMI, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.IsNaN(s.Topics[0]) || !math.IsNaN(s.Topics[1]) || !reflect.DeepEqual(s.Missing[1], []int{4}) || s.Mean != s.Topics[0] {
		t.Errorf("scores %v, missing %v, mean %v", s.Topics, s.Missing, s.Mean)
	}
}

// TestScoreErrors: what cannot be scored is refused by name.
func TestScoreErrors(t *testing.T) {
	t.Parallel()
	ref := &Reference{Words: 5, Ordered: true, Docs: [][]int32{{0, 1, 2}}}
	bags := &Reference{Words: 5, Docs: [][]int32{{0, 1, 2}}}
	bad := &Reference{Words: 5, Ordered: true, Docs: [][]int32{{0, 1}, {2, 7}}}
	for _, c := range []struct {
		ref    *Reference
		topics [][]int
		o      Options
		want   string
	}{
		{&Reference{Words: 5}, [][]int{{0, 1}}, Options{}, "no documents"},
		{ref, nil, Options{}, "no topics"},
		{ref, [][]int{{0}}, Options{}, "topic 1 has 1 words"},
		{ref, [][]int{{0, 1}, {2, 9}}, Options{}, "topic 2, word 2: id 9 outside the reference's 5 words"},
		{ref, [][]int{{0, 1, 0}}, Options{}, "lists word 0 twice"},
		{ref, [][]int{{0, 1}}, Options{Window: 1}, "window of 1 token"},
		{ref, [][]int{{0, 1}}, Options{Window: -3}, "window -3"},
		{ref, [][]int{{0, 1}}, Options{Gamma: -1}, "gamma -1"},
		{bags, [][]int{{0, 1}}, Options{Window: 10}, "needs a reference in text order"},
		{bad, [][]int{{0, 1}}, Options{}, "reference document 2, token 2: word id 7"},
	} {
		if _, err := Score(context.Background(), c.ref, c.topics, NPMI, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	if _, err := Diversity([][]int{{0, 1}}, 3); err == nil || !strings.Contains(err.Error(), "fewer than the top 3") {
		t.Errorf("diversity: %v", err)
	}
}

// TestDiversity: the share of distinct words among the topics' top
// words.
func TestDiversity(t *testing.T) {
	t.Parallel()
	d, err := Diversity([][]int{{0, 1, 2, 9}, {2, 3, 4, 8}, {0, 5, 6}}, 3)
	if err != nil || math.Abs(d-7.0/9) > 1e-15 {
		t.Errorf("diversity %v, %v; want 7/9", d, err)
	}
}

func TestMeasureText(t *testing.T) {
	for _, m := range []Measure{NPMI, CV, UMass} {
		b, _ := m.MarshalText()
		var back Measure
		if err := back.UnmarshalText(b); err != nil || back != m {
			t.Errorf("%v: %v %v", m, back, err)
		}
	}
	var m Measure
	if err := m.UnmarshalText([]byte("c_uci")); err == nil || !strings.Contains(err.Error(), "want npmi, cv or umass") {
		t.Error(err)
	}
}

// TestNewReference: words are numbered as they come, and a topic word the
// texts never use makes its topic NaN, listed as missing.
func TestNewReference(t *testing.T) {
	texts := [][]string{{"oil", "price", "rise"}, {"oil", "crude", "price"}, {"wheat", "grain"}}
	ref, ids := NewReference(texts, [][]string{{"oil", "price"}, {"wheat", "barley"}}, true)
	want := &Reference{Words: 7, Ordered: true, Docs: [][]int32{{0, 1, 2}, {0, 3, 1}, {4, 5}}}
	if !reflect.DeepEqual(ref, want) || !reflect.DeepEqual(ids, [][]int{{0, 1}, {4, 6}}) {
		t.Fatalf("reference %+v, topics %v", ref, ids)
	}
	s, err := Score(context.Background(), ref, ids, NPMI, Options{Window: -1})
	if err != nil {
		t.Fatal(err)
	}
	// oil and price share both of their documents out of 3.
	if got := math.Log((2.0/3+Epsilon)/(4.0/9)) / -math.Log(2.0/3+Epsilon); math.Abs(s.Topics[0]-got) > 1e-15 {
		t.Errorf("NPMI %v, want %v", s.Topics[0], got)
	}
	if !math.IsNaN(s.Topics[1]) || !reflect.DeepEqual(s.Missing[1], []int{6}) {
		t.Errorf("absent word: %v, missing %v", s.Topics[1], s.Missing)
	}
}
