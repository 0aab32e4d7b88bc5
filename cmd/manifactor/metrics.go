package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/manifactor/manifactor/coherence"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/model"
	"gonum.org/v1/gonum/mat"
)

// diversityName is --metrics' name for coherence.Diversity, beside the
// measures' own names.
const diversityName = "diversity"

// coherenceJSON is topics' --metrics in the JSON: the reference
// counted and how each measure counted it (windows of tokens in text
// order, or whole documents), the topics scored (those with two terms at
// least), and each metric's mean over them (null when none has a score;
// diversity over the topics with coherence.DiversityTop terms).
type coherenceJSON struct {
	Reference    string              `json:"reference"`
	Documents    int                 `json:"documents"`
	Tokens       int                 `json:"tokens,omitempty"`
	CoOccurrence map[string]string   `json:"co_occurrence"`
	Top          int                 `json:"top"`
	Scored       int                 `json:"scored_topics"`
	Mean         map[string]*float64 `json:"mean"`
}

// parseMetrics reads --metrics: nil when it is empty.
func parseMetrics(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	for _, name := range strings.Split(s, ",") {
		var m coherence.Measure
		if name != diversityName {
			if err := m.UnmarshalText([]byte(name)); err != nil {
				return nil, fmt.Errorf("--metrics %s: %q: want npmi, cv, umass or diversity", s, name)
			}
		}
		if slices.Contains(out, name) {
			return nil, fmt.Errorf("--metrics %s: %s given twice", s, name)
		}
		out = append(out, name)
	}
	return out, nil
}

// topicMetrics reads topics' --metrics (nil when none) and checks the
// flags that go with it: --top and --reference.
func (f *fitFlags) topicMetrics() ([]string, error) {
	metrics, err := parseMetrics(f.metrics)
	switch {
	case err != nil:
		return nil, err
	case metrics != nil && f.top < 2:
		return nil, fmt.Errorf("--metrics: --top %d: a topic needs two terms at least to be scored", f.top)
	case metrics == nil && f.ref != "":
		return nil, fmt.Errorf("--reference %s: only with --metrics, which it is counted for", f.ref)
	}
	return metrics, nil
}

// checkMetrics refuses --metrics on data it cannot score, before the
// fit.
func checkMetrics(ds *dataset.Dataset, top int) error {
	if ds.Vocabulary == nil {
		return errors.New("--metrics scores words: the data's features have no names")
	}
	if m := len(ds.Vocabulary); top > m {
		return fmt.Errorf("--metrics: --top %d: the prepared data have %d terms", top, m)
	}
	return nil
}

// topicOptions is what model.ScoreTopics scores for the metrics named.
func topicOptions(metrics []string, top, threads int) model.TopicOptions {
	o := model.TopicOptions{Top: top, Threads: threads}
	for _, name := range metrics {
		var m coherence.Measure
		if name == diversityName {
			o.Diversity = true
		} else if m.UnmarshalText([]byte(name)) == nil { // parseMetrics checked it
			o.Measures = append(o.Measures, m)
		}
	}
	return o
}

// scoreTopics scores the topics of u (features x k, the features named
// by names) with view's metrics over view.ref.
func scoreTopics(ctx context.Context, u mat.Matrix, names []string, view topicsView) (*model.TopicScores, error) {
	sc, err := model.ScoreTopics(ctx, u, names, &view.ref.Reference, topicOptions(view.metrics, view.top, view.threads))
	if err != nil {
		return nil, fmt.Errorf("--metrics: %w", err)
	}
	return sc, nil
}

// coherenceOf records sc's scores in topics (sc.Terms' factors) and
// returns their summary.
func coherenceOf(sc *model.TopicScores, topics []topic, view topicsView) *coherenceJSON {
	ref := view.ref
	out := &coherenceJSON{Reference: ref.name, Documents: len(ref.Docs), Top: view.top, Scored: len(sc.Scored),
		CoOccurrence: map[string]string{}, Mean: map[string]*float64{}}
	if ref.Ordered {
		for _, d := range ref.Docs {
			out.Tokens += len(d)
		}
	}
	for _, name := range view.metrics {
		if name == diversityName {
			out.Mean[name] = finiteOrNil(sc.Diversity)
			continue
		}
		var m coherence.Measure
		_ = m.UnmarshalText([]byte(name))
		s := sc.Measures[m]
		out.CoOccurrence[name] = "documents"
		if s.Window > 0 {
			out.CoOccurrence[name] = fmt.Sprintf("windows of %d tokens", s.Window)
		}
		for q, x := range s.Topics {
			t := &topics[sc.Scored[q]]
			if t.Metrics == nil {
				t.Metrics = map[string]*float64{}
			}
			t.Metrics[name] = finiteOrNil(x)
		}
		out.Mean[name] = finiteOrNil(s.Mean)
	}
	return out
}

// reference is the corpus --metrics counts, and what to call it.
type reference struct {
	coherence.Reference
	name string
}

// fittedReference is the fitted data as the reference
// (model.ReferenceOf): its documents' terms in text order when it kept
// them, else each document's set of features.
func fittedReference(ds *dataset.Dataset) *reference {
	return &reference{*model.ReferenceOf(ds), "the fitted documents"}
}

// loadReference reads path as the reference for the features named
// names: a text corpus through text's tokenization (the default
// pipeline's when text is nil: the features did not come from text), its
// terms in text order, or a matrix whose features have names, as each
// document's set of them. Terms that are not features stay in the text
// as tokens of no feature.
func loadReference(ctx context.Context, path string, names []string, text *dataset.TextOptions, rt *runtimeFlags) (*reference, error) {
	var opts dataset.LoadOptions
	if text != nil {
		opts.Text = text.Tokenization()
	}
	opts.Text.Tokens = true
	if rt.memory == "none" {
		opts.MemoryLimit = -1
	} else if rt.memory != "" {
		opts.MemoryLimit = rt.limit
	}
	r, err := dataset.Load(ctx, path, opts)
	if err != nil {
		return nil, fmt.Errorf("--reference: %w", err)
	}
	if r.Vocabulary == nil {
		return nil, fmt.Errorf("--reference %s: its features have no names to meet the topics' terms", path)
	}
	index := make(map[string]int32, len(names))
	for j, name := range names {
		index[name] = int32(j)
	}
	to := make([]int32, len(r.Vocabulary))
	shared := 0
	for j, name := range r.Vocabulary {
		to[j] = -1
		if f, ok := index[name]; ok {
			to[j] = f
			shared++
		}
	}
	if shared == 0 {
		return nil, fmt.Errorf("--reference %s: none of its %d terms is a feature of the fitted data", path, len(r.Vocabulary))
	}
	ref := &reference{name: path}
	ref.Words = len(names)
	if r.Tokens != nil {
		ref.Ordered = true
		ref.Docs = make([][]int32, len(r.Tokens))
		for i, seq := range r.Tokens {
			d := make([]int32, len(seq))
			for q, f := range seq {
				d[q] = -1
				if f >= 0 {
					d[q] = to[f]
				}
			}
			ref.Docs[i] = d
		}
		return ref, nil
	}
	for _, doc := range model.ReferenceOf(r).Docs {
		d := make([]int32, 0, len(doc))
		for _, f := range doc {
			if to[f] >= 0 {
				d = append(d, to[f])
			}
		}
		ref.Docs = append(ref.Docs, d)
	}
	return ref, nil
}

// finiteOrNil is x, or nil for NaN (JSON has no NaN).
func finiteOrNil(x float64) *float64 {
	if math.IsNaN(x) {
		return nil
	}
	return &x
}

// printCoherence prints the means of coh, after the topics.
func printCoherence(w io.Writer, coh *coherenceJSON, metrics []string) {
	fmt.Fprintf(w, "\ntop %d terms, counted in %s (%d documents", coh.Top, coh.Reference, coh.Documents)
	if coh.Tokens > 0 {
		fmt.Fprintf(w, ", %d tokens", coh.Tokens)
	}
	fmt.Fprintln(w, "), mean:")
	for _, name := range metrics {
		fmt.Fprintf(w, "  %-9s ", name)
		switch v := coh.Mean[name]; {
		case v != nil:
			fmt.Fprintf(w, "%.3f", *v)
		case name == diversityName:
			fmt.Fprintf(w, "none (no topic has %d terms)", coherence.DiversityTop)
		default:
			fmt.Fprint(w, "none (every topic has a word absent from the reference)")
		}
		if c, ok := coh.CoOccurrence[name]; ok {
			fmt.Fprintf(w, " over %s", c)
		} else if name == diversityName {
			fmt.Fprintf(w, " over the top %d terms", coherence.DiversityTop)
		}
		fmt.Fprintln(w)
	}
}
