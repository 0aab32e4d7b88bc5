package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
)

// topic is one factor read as words, with the samples it is the largest
// factor of.
type topic struct {
	Topic         int       `json:"topic"`
	Size          int       `json:"size"`
	Terms         []string  `json:"terms"`
	Weights       []float64 `json:"weights"`
	DominantClass string    `json:"dominant_class,omitempty"`
	DominantShare float64   `json:"dominant_share,omitempty"`
	// Metrics are the topic's coherence scores (--metrics), null where
	// one of its terms occurs in no document.
	Metrics map[string]*float64 `json:"metrics,omitempty"`
}

type topicsOutput struct {
	*fitSummary
	Topics    []topic        `json:"topics"`
	Coherence *coherenceJSON `json:"coherence,omitempty"`
}

// topicsView is how topics shows the factors: the terms a topic lists,
// as stems or words, and the metrics scored on them.
type topicsView struct {
	top     int
	stems   bool
	metrics []string
	ref     *reference // what metrics count
	threads int
}

// printTopics prints each factor as words, after the fit's summary, and
// the metrics of view.
func printTopics(ctx context.Context, stdout io.Writer, ds *dataset.Dataset, res *solver.Result, sum *fitSummary, view topicsView, asJSON bool) error {
	if res.U == nil {
		return errors.New("topics needs the basis U in feature space, which a non-linear kernel does not give; use the linear kernel")
	}
	var sc *model.TopicScores
	var terms [][]model.Term
	if view.metrics != nil {
		var err error
		if sc, err = scoreTopics(ctx, res.U, ds.Vocabulary, view); err != nil {
			return err
		}
		terms = sc.Terms
	} else {
		terms = model.TopTerms(res.U, ds.Vocabulary, view.top)
	}
	topics := readTopics(ds, res, terms, view.stems)
	var coh *coherenceJSON
	if sc != nil {
		coh = coherenceOf(sc, topics, view)
	}
	if asJSON {
		return writeJSON(stdout, topicsOutput{sum, topics, coh})
	}
	printSummary(stdout, sum)
	fmt.Fprintln(stdout)
	for _, t := range topics {
		fmt.Fprintf(stdout, "topic %2d (%d samples", t.Topic, t.Size)
		if t.DominantClass != "" {
			fmt.Fprintf(stdout, "; %.0f %% %s", 100*t.DominantShare, t.DominantClass)
		}
		for _, name := range view.metrics {
			if v, ok := t.Metrics[name]; ok && v != nil {
				fmt.Fprintf(stdout, "; %s %.3f", name, *v)
			}
		}
		fmt.Fprintf(stdout, "): %s\n", strings.Join(t.Terms, " "))
	}
	if coh != nil {
		printCoherence(stdout, coh, view.metrics)
	}
	return nil
}

// readTopics lists each factor's strongest features (terms, from
// model.TopTerms), the samples whose largest factor it is, and the most
// common true class among them.
func readTopics(ds *dataset.Dataset, res *solver.Result, terms [][]model.Term, stems bool) []topic {
	largest := model.LargestFactor(res.V)
	out := make([]topic, len(terms))
	for c := range out {
		t := topic{Topic: c}
		for _, term := range terms[c] {
			t.Terms = append(t.Terms, shown(term.Name, ds.Words, stems))
			t.Weights = append(t.Weights, term.Weight)
		}
		count := map[int]int{}
		for j, l := range largest {
			if l == c {
				t.Size++
				if ds.Labels != nil {
					count[ds.Labels[j]]++
				}
			}
		}
		if len(count) > 0 {
			best, bestN := 0, -1
			for l, n := range count {
				if n > bestN || n == bestN && l < best {
					best, bestN = l, n
				}
			}
			t.DominantClass = className(ds, best)
			t.DominantShare = float64(bestN) / float64(t.Size)
		}
		out[c] = t
	}
	return out
}

// printModelTopics prints the topics of the model saved in --model: each
// factor's strongest terms and the training samples it is the largest
// factor of, and with --metrics their scores over --reference (a saved
// model keeps no corpus to count in). Only these options go with
// --model; the others would be ignored, so they are refused.
func printModelTopics(ctx context.Context, fs *flag.FlagSet, f *fitFlags, stdout io.Writer) error {
	var extra []string
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "model", "top", "stems", "json", "quiet", "threads", "blas", "simd", "memory", "metrics", "reference":
		default:
			extra = append(extra, "--"+fl.Name)
		}
	})
	if len(extra) > 0 {
		return fmt.Errorf("topics --model reads the model's own topics and takes no %s (without --model, topics fits the data)", strings.Join(extra, ", "))
	}
	if f.top < 1 {
		return fmt.Errorf("--top %d: must be at least 1", f.top)
	}
	if err := f.rt.apply(); err != nil {
		return err
	}
	metrics, err := f.topicMetrics()
	if err != nil {
		return err
	}
	if metrics != nil && f.ref == "" {
		return errors.New("--metrics with --model needs --reference: a saved model keeps no corpus to count words in")
	}
	dir := *f.model
	m, err := model.Load(dir)
	if err != nil {
		return err
	}
	sizes := make([]int, m.K)
	for _, l := range model.LargestFactor(m.V) {
		sizes[l]++
	}
	out := struct {
		Model     string         `json:"model"`
		Method    string         `json:"method"`
		K         int            `json:"k"`
		Samples   int            `json:"samples"`
		Topics    []topic        `json:"topics"`
		Coherence *coherenceJSON `json:"coherence,omitempty"`
	}{Model: dir, Method: m.Method.String(), K: m.K, Samples: len(m.Labels)}
	for c, terms := range m.TopTerms(f.top) {
		t := topic{Topic: c, Size: sizes[c]}
		for _, term := range terms {
			word := term.Word // the stem's most frequent form in the corpus
			if f.stems {
				word = term.Name
			}
			t.Terms = append(t.Terms, word)
			t.Weights = append(t.Weights, term.Weight)
		}
		out.Topics = append(out.Topics, t)
	}
	if metrics != nil {
		names := m.Preparation.Features
		if m.U == nil {
			return fmt.Errorf("--metrics: the model in %s has no basis U in feature space to read topics from", dir)
		}
		if top := f.top; top > len(names) {
			return fmt.Errorf("--metrics: --top %d: the model has %d features", top, len(names))
		}
		ref, err := loadReference(ctx, f.ref, names, m.Text, &f.rt)
		if err != nil {
			return err
		}
		view := topicsView{top: f.top, metrics: metrics, ref: ref, threads: f.rt.threads}
		sc, err := scoreTopics(ctx, m.U, names, view)
		if err != nil {
			return err
		}
		out.Coherence = coherenceOf(sc, out.Topics, view)
	}
	if f.asJSON {
		return writeJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "%s: %s, k = %d, %d training samples\n\n", dir, out.Method, out.K, out.Samples)
	for _, t := range out.Topics {
		fmt.Fprintf(stdout, "topic %2d (%d samples", t.Topic, t.Size)
		for _, name := range metrics {
			if v, ok := t.Metrics[name]; ok && v != nil {
				fmt.Fprintf(stdout, "; %s %.3f", name, *v)
			}
		}
		fmt.Fprintf(stdout, "): %s\n", strings.Join(t.Terms, " "))
	}
	if out.Coherence != nil {
		printCoherence(stdout, out.Coherence, metrics)
	}
	return nil
}

// shown is how topics prints the feature name: as its most frequent word
// in the corpus, or as it is with stems.
func shown(name string, words map[string]string, stems bool) string {
	if w, ok := words[name]; ok && !stems {
		return w
	}
	return name
}
