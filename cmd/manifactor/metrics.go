package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/manifactor/manifactor/coherence"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/model"
)

// diversityName is --metrics' name for coherence.Diversity, beside the
// measures' own names.
const diversityName = "diversity"

// coherenceJSON is topics' --metrics in the JSON: what was counted, the
// topics scored (those with two terms at least), and each metric's mean
// over them (null when none has a score; diversity over the topics with
// all --top terms).
type coherenceJSON struct {
	CoOccurrence string              `json:"co_occurrence"`
	Documents    int                 `json:"documents"`
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

// scoreTopics scores the topics' terms (model.TopTerms') with view's metrics over ds's
// documents, each a set of its features (the data keeps no word order),
// and records each topic's scores in topics.
func scoreTopics(ctx context.Context, ds *dataset.Dataset, terms [][]model.Term, topics []topic, view topicsView) (*coherenceJSON, error) {
	// The topics' features, by the names TopTerms gives them; a factor
	// with fewer than two terms of positive weight is not scored.
	index := make(map[string]int, len(ds.Vocabulary))
	for i, name := range ds.Vocabulary {
		index[name] = i
	}
	var ids [][]int
	var scored []int // the topics of ids
	for c, ct := range terms {
		if len(ct) < 2 {
			continue
		}
		t := make([]int, len(ct))
		for q, term := range ct {
			t[q] = index[term.Name]
		}
		ids, scored = append(ids, t), append(scored, c)
	}
	ref := &coherence.Reference{Docs: documentTerms(ds), Words: len(ds.Vocabulary)}
	out := &coherenceJSON{CoOccurrence: "documents", Documents: len(ref.Docs), Top: view.top, Scored: len(ids), Mean: map[string]*float64{}}
	if len(ids) == 0 {
		return nil, errors.New("--metrics: no topic has two terms to score")
	}
	for _, name := range view.metrics {
		if name == diversityName {
			// Over the topics' full lists of --top terms.
			var full [][]int
			for _, t := range ids {
				if len(t) == view.top {
					full = append(full, t)
				}
			}
			if len(full) > 0 {
				d, err := coherence.Diversity(full, view.top)
				if err != nil {
					return nil, err
				}
				out.Mean[name] = &d
			} else {
				out.Mean[name] = nil
			}
			continue
		}
		var m coherence.Measure
		_ = m.UnmarshalText([]byte(name)) // parseMetrics checked it
		s, err := coherence.Score(ctx, ref, ids, m, coherence.Options{Threads: view.threads})
		if err != nil {
			return nil, err
		}
		for q, x := range s.Topics {
			t := &topics[scored[q]]
			if t.Metrics == nil {
				t.Metrics = map[string]*float64{}
			}
			t.Metrics[name] = finiteOrNil(x)
		}
		out.Mean[name] = finiteOrNil(s.Mean)
	}
	return out, nil
}

// documentTerms lists each sample's features with a non-zero value.
func documentTerms(ds *dataset.Dataset) [][]int {
	n, m := ds.Dims()
	docs := make([][]int, n)
	for j := range docs {
		if a := ds.Sparse; a != nil {
			for q := a.Indptr[j]; q < a.Indptr[j+1]; q++ {
				if a.Val[q] != 0 {
					docs[j] = append(docs[j], a.Ind[q])
				}
			}
			continue
		}
		for i := 0; i < m; i++ {
			if ds.Dense.At(j, i) != 0 {
				docs[j] = append(docs[j], i)
			}
		}
	}
	return docs
}

// finiteOrNil is x, or nil for NaN (JSON has no NaN).
func finiteOrNil(x float64) *float64 {
	if math.IsNaN(x) {
		return nil
	}
	return &x
}
