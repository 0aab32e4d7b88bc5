package experiment

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/coherence"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/model/autolambda"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

const (
	topics       = 6
	docsPerTopic = 20
	wordsPer     = 12
)

// topicData returns documents of 6 topics with disjoint vocabularies,
// labelled 1..6 and interleaved, so every clustering method separates them.
func topicData(t *testing.T) *dataset.Dataset {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	var ri, ci []int
	var v []float64
	var labels []int
	for d := range topics * docsPerTopic {
		c := d % topics
		labels = append(labels, c+1)
		for _, w := range rng.Perm(wordsPer)[:6] {
			ri = append(ri, d)
			ci = append(ci, c*wordsPer+w)
			v = append(v, float64(1+rng.IntN(5)))
		}
	}
	a, err := sparse.FromTriplets(topics*docsPerTopic, topics*wordsPer, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	return &dataset.Dataset{Source: "topics", Sparse: a, Labels: labels}
}

func prepare(ds *dataset.Dataset) (*dataset.Dataset, error) {
	ds.DropZeroFeatures()
	if err := ds.TFIDF(); err != nil {
		return nil, err
	}
	ds.NormalizeL2()
	return ds, nil
}

// capture is a Method that records the subsets it is given and returns the
// true classes as its clustering.
type capture struct {
	mu   sync.Mutex
	seen map[string]int // "k seed n classes" -> count
}

func (c *capture) Name() string { return "capture" }

func (c *capture) Cluster(_ context.Context, ds *dataset.Dataset, k int, seed uint64) ([]int, error) {
	classes, _ := ds.Classes()
	n, _ := ds.Dims()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = make(map[string]int)
	}
	c.seen[fmt.Sprint(k, seed, n, classes)]++
	return slices.Clone(ds.Labels), nil
}

func methods() map[string]Method {
	return map[string]Method{
		"nmf":    Factorization{Options: model.Options{Method: solver.NMF, Threads: 1, Solver: solver.Control{Restarts: 3, MaxIter: 200}}},
		"kmeans": Baseline{Algorithm: "kmeans", Threads: 1},
	}
}

func protocol(workers int) Protocol {
	return Protocol{Classes: []int{2, 3, 4, 5, 6}, Runs: 3, Seed: 42, Workers: workers, Prepare: prepare}
}

// withoutTimes returns a copy of t with Seconds zeroed, the one field that
// may differ between identical runs.
func withoutTimes(t *Table) *Table {
	out := &Table{Methods: t.Methods, K: t.K, Cells: map[string]map[int]Score{}, Average: map[string]Score{}}
	for m, row := range t.Cells {
		out.Cells[m] = map[int]Score{}
		for k, s := range row {
			s.Seconds = 0
			out.Cells[m][k] = s
		}
	}
	for m, s := range t.Average {
		s.Seconds = 0
		out.Average[m] = s
	}
	return out
}

func TestSeparableTopicsScorePerfectlyForAnyWorkers(t *testing.T) {
	ds := topicData(t)
	var tables []*Table
	for _, workers := range []int{1, 3} {
		var calls, total int
		p := protocol(workers)
		p.Progress = func(done, all int, _ time.Duration) { calls, total = done, all }
		tab, err := p.Run(context.Background(), ds, methods())
		if err != nil {
			t.Fatal(err)
		}
		if calls != 30 || total != 30 {
			t.Errorf("workers %d: progress ended at %d of %d, want 30 of 30", workers, calls, total)
		}
		tables = append(tables, tab)
	}
	tab := tables[0]
	if !slices.Equal(tab.Methods, []string{"kmeans", "nmf"}) || !slices.Equal(tab.K, []int{2, 3, 4, 5, 6}) {
		t.Fatalf("methods %v, k %v", tab.Methods, tab.K)
	}
	for _, m := range tab.Methods {
		for _, k := range tab.K {
			s := tab.Cells[m][k]
			if s.AccuracyMean != 1 || s.NMIMean < 1-1e-12 || s.AccuracyStd != 0 || s.Runs != 3 {
				t.Errorf("%s, k = %d: %+v, want accuracy and NMI 1 over 3 runs", m, k, s)
			}
		}
		if a := tab.Average[m]; a.AccuracyMean != 1 || a.Runs != 15 {
			t.Errorf("%s average: %+v", m, a)
		}
	}
	if !reflect.DeepEqual(withoutTimes(tables[0]), withoutTimes(tables[1])) {
		t.Errorf("tables differ between 1 and 3 workers:\n%+v\n%+v", tables[0], tables[1])
	}
}

func TestEveryMethodSeesTheSameSubsets(t *testing.T) {
	ds := topicData(t)
	a, b := &capture{}, &capture{}
	p := Protocol{Classes: []int{2, 3, 5}, Runs: 4, Seed: 3, Workers: 2}
	tab, err := p.Run(context.Background(), ds, map[string]Method{"a": a, "b": b})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.seen, b.seen) {
		t.Fatalf("the methods saw different subsets:\n%v\n%v", a.seen, b.seen)
	}
	if len(a.seen) != 12 {
		t.Errorf("%d distinct (k, seed, subset) draws, want 12: %v", len(a.seen), a.seen)
	}
	sets := map[string]bool{}
	for key := range a.seen {
		var k, n int
		var seed uint64
		fmt.Sscan(key, &k, &seed, &n)
		if n != k*docsPerTopic {
			t.Errorf("draw %q: %d samples, want all %d of its %d classes", key, n, k*docsPerTopic, k)
		}
		sets[key[strings.Index(key, "["):]] = true
	}
	if len(sets) < 6 {
		t.Errorf("only %d distinct class sets over 12 draws", len(sets))
	}
	if s := tab.Cells["a"][5]; s.AccuracyMean != 1 || s.Runs != 4 {
		t.Errorf("true labels scored %+v", s)
	}
	// The same seed gives the same draws.
	c := &capture{}
	if _, err := p.Run(context.Background(), ds, map[string]Method{"c": c}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.seen, c.seen) {
		t.Errorf("a second run drew differently")
	}
}

func TestBadInputs(t *testing.T) {
	ds := topicData(t)
	ok := Protocol{Classes: []int{2}, Runs: 1}
	good := map[string]Method{"kmeans": Baseline{Algorithm: "kmeans"}}
	unlabelled := *ds
	unlabelled.Labels = nil
	cases := []struct {
		name    string
		p       Protocol
		ds      *dataset.Dataset
		methods map[string]Method
		want    string
	}{
		{"k = 1", Protocol{Classes: []int{1, 2}, Runs: 1}, ds, good, "k = 1"},
		{"k too large", Protocol{Classes: []int{2, 7}, Runs: 1}, ds, good, "k = 7 but the data has 6 classes"},
		{"duplicate k", Protocol{Classes: []int{2, 2}, Runs: 1}, ds, good, "twice"},
		{"no k", Protocol{Runs: 1}, ds, good, "no values of k"},
		{"no runs", Protocol{Classes: []int{2}}, ds, good, "0 runs"},
		{"too many runs", Protocol{Classes: []int{2}, Runs: MaxRuns + 1}, ds, good, "100001 runs per k: need 1 to 100000"},
		{"nil method", ok, ds, map[string]Method{"x": nil}, `method "x" is nil`},
		{"unknown baseline", ok, ds, map[string]Method{"x": Baseline{Algorithm: "dbscan"}}, `unknown baseline "dbscan"`},
		{"unknown factorization", ok, ds, map[string]Method{"x": Factorization{Options: model.Options{Method: 40}}}, `unknown method 40`},
		{"unknown start", ok, ds, map[string]Method{"x": Factorization{Options: model.Options{Start: 9}}}, `unknown start 9`},
		{"no methods", ok, ds, nil, "no methods"},
		{"no labels", ok, &unlabelled, good, "no labels"},
		{"nil data", ok, nil, good, "nil data"},
	}
	for _, c := range cases {
		tab, err := c.p.Run(context.Background(), c.ds, c.methods)
		if err == nil || !strings.Contains(err.Error(), c.want) || tab != nil {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func TestMethodFailureAndCancellation(t *testing.T) {
	ds := topicData(t)
	p := Protocol{Classes: []int{2, 3}, Runs: 2, Workers: 2}
	// A failing method stops the protocol, named with k and run.
	_, err := p.Run(context.Background(), ds, map[string]Method{"broken": failing{}})
	if err == nil || !strings.Contains(err.Error(), "broken") || !strings.Contains(err.Error(), "out of paper") {
		t.Errorf("failing method: %v", err)
	}
	// The operator baselines take dense data as its non-zeros: the same
	// table as the sparse form.
	dense := &dataset.Dataset{Source: "dense", Dense: densify(ds.Sparse), Labels: ds.Labels}
	for _, name := range []string{"lsi-kmeans", "aa", "ncut"} {
		m := map[string]Method{name: Baseline{Algorithm: name, Threads: 1}}
		a, err := p.Run(context.Background(), ds, m)
		if err != nil {
			t.Fatal(err)
		}
		b, err := p.Run(context.Background(), dense, m)
		if err != nil {
			t.Fatalf("%s on dense data: %v", name, err)
		}
		if !reflect.DeepEqual(withoutTimes(a), withoutTimes(b)) {
			t.Errorf("%s: dense and sparse tables differ", name)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tab, err := p.Run(ctx, ds, map[string]Method{"c": &capture{}})
	if !errors.Is(err, context.Canceled) || tab == nil || len(tab.K) != 0 {
		t.Errorf("canceled run: table %+v, error %v", tab, err)
	}
}

func TestOutputShapes(t *testing.T) {
	ds := topicData(t)
	p := Protocol{Classes: []int{2, 4}, Runs: 2, Seed: 1}
	tab, err := p.Run(context.Background(), ds, map[string]Method{"a": &capture{}, "b": &capture{}})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(tab)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]map[string]map[string]float64
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	for _, m := range []string{"a", "b"} {
		if len(got[m]) != 3 {
			t.Errorf("JSON %s has keys %v, want 2, 4 and average", m, got[m])
		}
		for _, key := range []string{"2", "4", "average"} {
			s := got[m][key]
			if len(s) != 6 || s["accuracy_mean"] != 1 || s["nmi_mean"] != 1 || s["accuracy_std"] != 0 || s["nmi_std"] != 0 || s["seconds"] < 0 {
				t.Errorf("JSON %s[%s] = %v", m, key, s)
			}
		}
		if got[m]["2"]["runs"] != 2 || got[m]["average"]["runs"] != 4 {
			t.Errorf("JSON %s runs: %v", m, got[m])
		}
	}

	var md bytes.Buffer
	if err := tab.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	text := md.String()
	for _, want := range []string{"Accuracy\n\n| k | a | b |\n|---|---|---|\n| 2 | 1.000 ± 0.000 | 1.000 ± 0.000 |\n| 4 |", "| Avg. |", "\nNMI\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "| Avg. |"); n != 2 {
		t.Errorf("Markdown has %d Avg. rows, want 2", n)
	}

	var buf bytes.Buffer
	if err := tab.CSV(&buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 7 || strings.Join(recs[0], ",") != "method,k,accuracy_mean,accuracy_std,nmi_mean,nmi_std,runs,seconds" ||
		strings.Join(recs[3][:7], ",") != "a,average,1,0,1,0,4" {
		t.Errorf("CSV records %v", recs)
	}
}

// TestSubsetIsWhatRunDraws: Subset returns the very subsets and seeds the
// methods see in Run.
func TestSubsetIsWhatRunDraws(t *testing.T) {
	ds := topicData(t)
	a := &capture{}
	p := Protocol{Classes: []int{3}, Runs: 3, Seed: 8, Workers: 1}
	if _, err := p.Run(context.Background(), ds, map[string]Method{"a": a}); err != nil {
		t.Fatal(err)
	}
	for r := range 3 {
		sub, seed, err := p.Subset(ds, 3, r)
		if err != nil {
			t.Fatal(err)
		}
		classes, _ := sub.Classes()
		n, _ := sub.Dims()
		if key := fmt.Sprint(3, seed, n, classes); a.seen[key] != 1 {
			t.Errorf("run %d: Subset gave %q, Run drew %v", r, key, a.seen)
		}
	}
	if _, _, err := p.Subset(ds, 7, 0); err == nil {
		t.Error("Subset with k above the class count")
	}
}

// TestAssignKMeansAndSweep: the papers' GNMF settings separate the
// disjoint topics; Sweep gives, per value, the table Run gives for that
// method; bad settings fail first.
func TestAssignKMeansAndSweep(t *testing.T) {
	ds := topicData(t)
	p := Protocol{Classes: []int{2, 4}, Runs: 2, Seed: 5, Workers: 2, Prepare: prepare}
	gnmf := func(lambda float64) (Method, error) {
		o := model.PapersOptions(solver.GNMF, true)
		o.Lambda, o.Threads = solver.Fixed(lambda), 1
		return Factorization{Options: o}, nil
	}
	points, err := p.Sweep(context.Background(), ds, "gnmf", []float64{0, 10}, gnmf)
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 2 {
		t.Fatalf("%d points", len(points))
	}
	for _, pt := range points {
		if pt.Average.AccuracyMean != 1 || pt.Average.Runs != 4 {
			t.Errorf("lambda %v: %+v", pt.Value, pt.Average)
		}
		m, _ := gnmf(pt.Value)
		direct, err := p.Run(context.Background(), ds, map[string]Method{"gnmf": m})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(withoutTimes(direct), withoutTimes(pt.Table)) {
			t.Errorf("lambda %v: Sweep's table differs from Run's", pt.Value)
		}
	}
	bad := func(v float64) (Method, error) {
		return Factorization{Options: model.Options{Method: solver.GNMF, Assign: 7}}, nil
	}
	if _, err := p.Sweep(context.Background(), ds, "gnmf", []float64{1}, bad); err == nil || !strings.Contains(err.Error(), "unknown assignment 7") {
		t.Errorf("unknown assignment: %v", err)
	}
	if _, err := p.Sweep(context.Background(), ds, "gnmf", nil, gnmf); err == nil {
		t.Error("no values accepted")
	}
}

// TestFactorizationIsThePipeline: a Factorization's clustering of a subset
// is model.Fit's with K and Seed from the protocol, and the k-means start
// separates the disjoint topics.
func TestFactorizationIsThePipeline(t *testing.T) {
	ds, err := prepare(topicData(t))
	if err != nil {
		t.Fatal(err)
	}
	const k, seed = 6, 77
	o := model.Options{Method: solver.NMFKL, Start: solver.KMeansStart, Threads: 1, Solver: solver.Control{MaxIter: 50}}
	f := Factorization{Options: o}
	got, err := f.Cluster(context.Background(), ds, k, seed)
	if err != nil {
		t.Fatal(err)
	}
	o.K, o.Seed = k, seed
	want, err := model.Fit(context.Background(), ds, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want.Labels) {
		t.Error("the protocol's clustering differs from the pipeline's")
	}
	if acc, _, err := cluster.Accuracy(ds.Labels, got); err != nil || acc != 1 {
		t.Errorf("accuracy %v (%v) from the k-means start on disjoint topics", acc, err)
	}
}

// failing is a Method that always fails.
type failing struct{}

func (failing) Name() string { return "failing" }

func (failing) Cluster(context.Context, *dataset.Dataset, int, uint64) ([]int, error) {
	return nil, errors.New("out of paper")
}

// densify returns a as a dense matrix.
func densify(a *sparse.CSR) *mat.Dense {
	x := mat.NewDense(max(a.Rows, 1), max(a.Cols, 1), nil)
	for i := range a.Rows {
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			x.Set(i, a.Ind[p], a.Val[p])
		}
	}
	return x
}

// noisyTopics returns documents of 6 topics whose words come half from
// their topic's block and half from the whole vocabulary, so that methods
// and weights cluster them differently.
func noisyTopics(t *testing.T) *dataset.Dataset {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 17))
	const docs, vocab = 240, 120
	var ri, ci []int
	var v []float64
	var labels []int
	for d := range docs {
		c := d % topics
		labels = append(labels, c+1)
		seen := map[int]bool{}
		for range 14 {
			w := rng.IntN(vocab)
			if rng.IntN(2) == 0 {
				w = c*(vocab/topics) + rng.IntN(vocab/topics)
			}
			if !seen[w] {
				seen[w] = true
				ri, ci, v = append(ri, d), append(ci, w), append(v, float64(1+rng.IntN(3)))
			}
		}
	}
	a, err := sparse.FromTriplets(docs, vocab, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	return &dataset.Dataset{Source: "noisy topics", Sparse: a, Labels: labels}
}

// TestAutoCandidates: with every candidate from the run's start
// (model.SameStart), the table's scores of Auto's candidates are, weight
// by weight, the scores Sweep gives the method at that fixed weight (the
// plain method at 0), and Auto kept one candidate in every run.
func TestAutoCandidates(t *testing.T) {
	ds := noisyTopics(t)
	p := Protocol{Classes: []int{2, 4, 6}, Runs: 3, Seed: 8, Workers: 2, Prepare: prepare}
	o := model.Options{Method: solver.GNMF, Threads: 1, Lambdas: []float64{3, 300}, CandidateStart: autolambda.SameStart}
	tab, err := p.Run(context.Background(), ds, map[string]Method{"gnmf": Factorization{Options: o}})
	if err != nil {
		t.Fatal(err)
	}
	cands := tab.Candidates["gnmf"]
	if len(cands) != 3 {
		t.Fatalf("candidates %+v", tab.Candidates)
	}
	points, err := p.Sweep(context.Background(), ds, "gnmf", []float64{0, 3, 300}, func(v float64) (Method, error) {
		o := o
		o.Lambda, o.Lambdas = solver.Fixed(v), nil
		return Factorization{Options: o}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	differ := false
	for i, c := range cands {
		kept += c.Kept
		want := withoutTimes(points[i].Table)
		if c.Lambda != points[i].Value || !reflect.DeepEqual(c.Cells, want.Cells["gnmf"]) || !reflect.DeepEqual(c.Average, want.Average["gnmf"]) {
			t.Errorf("candidate %d: %+v, sweep at %v gives %+v", i, c, points[i].Value, want.Average["gnmf"])
		}
		differ = differ || c.Average.AccuracyMean != cands[0].Average.AccuracyMean
	}
	if kept != 9 {
		t.Errorf("kept %d times in 9 runs", kept)
	}
	if !differ {
		t.Error("every weight scores the same: the test data cannot tell the candidates apart")
	}
	// The JSON form carries them under CandidatesKey; the Markdown form
	// has their table.
	var js map[string]json.RawMessage
	b, err := json.Marshal(tab)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &js); err != nil || js[CandidatesKey] == nil {
		t.Fatalf("JSON %s: %v", b, err)
	}
	var md bytes.Buffer
	if err := tab.Markdown(&md); err != nil || !strings.Contains(md.String(), "| gnmf | 300 |") {
		t.Errorf("Markdown:\n%s", md.String())
	}
}

// TestPartialTable: cancelled after some runs, Run returns the table of
// the runs done, marked partial with the runs done and planned, in every
// output form.
func TestPartialTable(t *testing.T) {
	ds := topicData(t)
	ctx, cancel := context.WithCancel(context.Background())
	p := Protocol{Classes: []int{2, 3}, Runs: 3, Workers: 1}
	p.Progress = func(done, total int, _ time.Duration) {
		if done == 2 {
			cancel()
		}
	}
	tab, err := p.Run(ctx, ds, map[string]Method{"c": &capture{}})
	if !errors.Is(err, context.Canceled) || tab == nil || !tab.Partial {
		t.Fatalf("table %+v, error %v", tab, err)
	}
	if tab.RunsDone != 2 || tab.RunsTotal != 6 || len(tab.K) != 1 || tab.Cells["c"][2].Runs != 2 {
		t.Errorf("runs done %d of %d, k %v, cell %+v", tab.RunsDone, tab.RunsTotal, tab.K, tab.Cells["c"][2])
	}
	var md strings.Builder
	if err := tab.Markdown(&md); err != nil || !strings.HasPrefix(md.String(), "**Partial**: interrupted after 2 of 6 runs") {
		t.Errorf("Markdown: %q, %v", md.String(), err)
	}
	raw, _ := json.Marshal(tab)
	if !strings.Contains(string(raw), `"partial":{"runs_done":2,"runs_total":6}`) {
		t.Errorf("JSON: %s", raw)
	}
}

// textTopics returns a text corpus (tokens kept) of 4 topics with
// disjoint words, each document a run of its topic's words.
func textTopics(t *testing.T) *dataset.Dataset {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var docs []dataset.Document
	for d := range 4 * docsPerTopic {
		c := d % 4
		var words []string
		for range 30 {
			i := int(float64(wordsPer) * rng.Float64() * rng.Float64())
			words = append(words, fmt.Sprintf("%c%cterm", 'a'+c, 'a'+i))
		}
		docs = append(docs, dataset.Document{Label: fmt.Sprint("topic", c), Text: strings.Join(words, " ")})
	}
	ds, _, err := dataset.Vectorize(context.Background(), "text", docs, dataset.TextOptions{NoStem: true, Tokens: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := model.Prepare(ds, model.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Data
}

// TestTopicMetrics: each factorization's topic metrics are
// model.ScoreTopics' over its subset's documents, averaged over the runs
// as accuracy is, whatever the workers; baselines have none.
func TestTopicMetrics(t *testing.T) {
	ds := textTopics(t)
	p := Protocol{Classes: []int{2, 3}, Runs: 2, Seed: 9, Prepare: SubsetPreparation(false),
		Topics: model.TopicOptions{Measures: []coherence.Measure{coherence.NPMI, coherence.UMass}, Diversity: true, Top: 5, Threads: 1}}
	var tables []*Table
	for _, workers := range []int{1, 3} {
		p.Workers = workers
		tab, err := p.Run(context.Background(), ds, methods())
		if err != nil {
			t.Fatal(err)
		}
		tables = append(tables, tab)
	}
	if !reflect.DeepEqual(withoutTimes(tables[0]), withoutTimes(tables[1])) {
		t.Error("topic metrics depend on the workers")
	}
	tab := tables[0]
	if !reflect.DeepEqual(tab.Topics, []string{"npmi", "umass", "diversity"}) ||
		!reflect.DeepEqual(tab.Counted, map[string]string{"npmi": "windows of 10 tokens", "umass": "documents", "diversity": "top 25 terms"}) {
		t.Errorf("metrics %v counted %v", tab.Topics, tab.Counted)
	}
	f := methods()["nmf"].(Factorization)
	for _, k := range p.Classes {
		var npmi []float64
		for r := range p.Runs {
			sub, seed, err := p.Subset(ds, k, r)
			if err != nil {
				t.Fatal(err)
			}
			res, err := f.Fit(context.Background(), sub, k, seed)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := model.ScoreTopics(context.Background(), res.U, sub.Vocabulary, model.ReferenceOf(sub), p.Topics)
			if err != nil {
				t.Fatal(err)
			}
			npmi = append(npmi, sc.Measures[coherence.NPMI].Mean)
		}
		mean, std := meanStd(npmi)
		if got := tab.Cells["nmf"][k].Topics["npmi"]; got != (TopicScore{Mean: mean, Std: std, Runs: 2}) || mean <= 0 {
			t.Errorf("k = %d: npmi %+v, want mean %v, std %v", k, got, mean, std)
		}
		if tab.Cells["kmeans"][k].Topics != nil {
			t.Errorf("k = %d: kmeans has topics", k)
		}
	}
	var md, csvOut strings.Builder
	tab.Markdown(&md)
	tab.CSV(&csvOut)
	if !strings.Contains(md.String(), "Topics' npmi (over windows of 10 tokens") || !strings.Contains(md.String(), "| — |") ||
		!strings.HasPrefix(csvOut.String(), "method,k,accuracy_mean,accuracy_std,nmi_mean,nmi_std,runs,seconds,npmi_mean,npmi_std,umass_mean,umass_std,diversity_mean,diversity_std\n") {
		t.Errorf("markdown:\n%s\ncsv:\n%s", md.String(), csvOut.String())
	}

	p.Topics.Top = 1
	if _, err := p.Run(context.Background(), ds, methods()); err == nil || !strings.Contains(err.Error(), "on 1 terms a topic") {
		t.Errorf("top 1: %v", err)
	}
	p.Topics.Top = 5
	unnamed := topicData(t)
	if _, err := p.Run(context.Background(), unnamed, methods()); err == nil || !strings.Contains(err.Error(), "features have no names") {
		t.Errorf("no vocabulary: %v", err)
	}
}
