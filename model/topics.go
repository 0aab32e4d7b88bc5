package model

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/coherence"
	"github.com/manifactor/manifactor/dataset"
)

// TopicOptions says how ScoreTopics scores a model's topics. The zero
// value scores nothing.
type TopicOptions struct {
	// Measures are the coherence measures, over each topic's Top terms.
	Measures []coherence.Measure
	// Diversity adds topic diversity, over each topic's
	// coherence.DiversityTop terms whatever Top is.
	Diversity bool
	// Top is the terms per topic the measures score; 0 means 10.
	Top int
	// Threads bounds the goroutines that count; 0 means GOMAXPROCS.
	Threads int
}

// TopicScores is the outcome of ScoreTopics.
type TopicScores struct {
	// Terms are each factor's top terms (TopTerms), and Scored the
	// factors with two terms at least: the topics the measures score.
	Terms  [][]Term
	Scored []int
	// Measures holds each measure's scores, their Topics in the order of
	// Scored.
	Measures map[coherence.Measure]*coherence.Scores
	// Diversity is the topics' diversity (coherence.Diversity) over the
	// factors with coherence.DiversityTop terms; NaN when none has that
	// many, or when it was not asked for.
	Diversity float64
}

// ReferenceOf returns ds's samples as a reference corpus for coherence:
// their tokens in text order when ds keeps them (Dataset.Tokens), else
// each sample's set of non-zero features, which counts documents only.
func ReferenceOf(ds *dataset.Dataset) *coherence.Reference {
	n, m := ds.Dims()
	if ds.Tokens != nil {
		return &coherence.Reference{Docs: ds.Tokens, Words: m, Ordered: true}
	}
	docs := make([][]int32, n)
	for j := range docs {
		if a := ds.Sparse; a != nil {
			for q := a.Indptr[j]; q < a.Indptr[j+1]; q++ {
				if a.Val[q] != 0 {
					docs[j] = append(docs[j], int32(a.Ind[q]))
				}
			}
			continue
		}
		for i, x := range ds.Dense.RawRowView(j) {
			if x != 0 {
				docs[j] = append(docs[j], int32(i))
			}
		}
	}
	return &coherence.Reference{Docs: docs, Words: m}
}

// ScoreTopics reads each column of u (features x k) as a topic, its
// features ranked by weight (TopTerms, named by names), and scores the
// topics against ref, whose word ids are u's features. It is an error
// when Top exceeds the features or no factor has two terms.
func ScoreTopics(ctx context.Context, u mat.Matrix, names []string, ref *coherence.Reference, o TopicOptions) (*TopicScores, error) {
	m, _ := u.Dims()
	top := o.Top
	if top == 0 {
		top = 10
	}
	switch {
	case len(names) != m:
		return nil, fmt.Errorf("model: %d names for %d features", len(names), m)
	case top < 2:
		return nil, fmt.Errorf("model: %d terms a topic: a coherence score needs two at least", top)
	case top > m:
		return nil, fmt.Errorf("model: %d terms a topic, of %d features", top, m)
	case ref == nil || ref.Words != m:
		return nil, errors.New("model: the reference's words are not the model's features")
	}
	// One ranking serves both counts: a factor's top terms are the
	// first of its top DiversityTop.
	n := top
	if o.Diversity {
		n = max(n, coherence.DiversityTop)
	}
	ranked := TopTerms(u, names, n)
	out := &TopicScores{Terms: make([][]Term, len(ranked)), Measures: map[coherence.Measure]*coherence.Scores{}, Diversity: math.NaN()}
	var topics, full [][]int // the features of the scored factors' top terms, and of those with DiversityTop
	for c, ts := range ranked {
		out.Terms[c] = ts[:min(top, len(ts))]
		ids := make([]int, len(ts))
		for q, t := range ts {
			ids[q] = t.Feature
		}
		if len(out.Terms[c]) >= 2 {
			topics = append(topics, ids[:len(out.Terms[c])])
			out.Scored = append(out.Scored, c)
		}
		if len(ids) >= coherence.DiversityTop {
			full = append(full, ids[:coherence.DiversityTop])
		}
	}
	if len(o.Measures) > 0 && len(topics) == 0 {
		return nil, errors.New("model: no factor has two terms of positive weight to score")
	}
	for _, meas := range o.Measures {
		s, err := coherence.Score(ctx, ref, topics, meas, coherence.Options{Threads: o.Threads})
		if err != nil {
			return nil, err
		}
		out.Measures[meas] = s
	}
	if o.Diversity {
		if len(full) > 0 {
			d, err := coherence.Diversity(full, coherence.DiversityTop)
			if err != nil {
				return nil, err
			}
			out.Diversity = d
		}
	}
	return out, nil
}
