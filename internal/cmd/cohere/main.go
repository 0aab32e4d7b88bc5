// Command cohere scores topics against a tokenized reference corpus with
// package coherence, for bench/coherence_gensim.py, which scores the same
// topics on the same tokens with gensim's CoherenceModel. Files: one
// document (or topic) a line, tokens separated by spaces; a topic's words
// best first. It prints JSON: each topic's score, the mean, the units
// counted and the seconds the counting and scoring took.
//
//	go run ./internal/cmd/cohere --tokens T --topics P --measure npmi|cv|umass [--window N] [--gamma G]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/manifactor/manifactor/coherence"
)

func main() {
	tokens := flag.String("tokens", "", "reference corpus: a document a line")
	topicsPath := flag.String("topics", "", "topics: a topic a line, best word first")
	var m coherence.Measure
	flag.TextVar(&m, "measure", coherence.NPMI, "npmi, cv or umass")
	window := flag.Int("window", 0, "sliding window in tokens (0: the measure's default, -1: documents)")
	gamma := flag.Float64("gamma", 0, "cv's exponent (0: 1)")
	threads := flag.Int("threads", 0, "goroutines")
	flag.Parse()
	if err := run(*tokens, *topicsPath, m, coherence.Options{Window: *window, Gamma: *gamma, Threads: *threads}); err != nil {
		fmt.Fprintln(os.Stderr, "cohere:", err)
		os.Exit(1)
	}
}

func run(tokens, topicsPath string, m coherence.Measure, o coherence.Options) error {
	texts, err := readLines(tokens)
	if err != nil {
		return err
	}
	topicWords, err := readLines(topicsPath)
	if err != nil {
		return err
	}
	ref, topics := coherence.NewReference(texts, topicWords, true)
	begin := time.Now()
	s, err := coherence.Score(context.Background(), ref, topics, m, o)
	if err != nil {
		return err
	}
	seconds := time.Since(begin).Seconds()
	scores := make([]any, len(s.Topics))
	for i, x := range s.Topics {
		if math.IsNaN(x) {
			scores[i] = nil
		} else {
			scores[i] = x
		}
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"measure": m.String(), "topics": scores, "mean": s.Mean, "window": s.Window, "units": s.Units, "seconds": seconds})
}

// readLines reads a file of lines of space-separated words.
func readLines(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		out = append(out, strings.Fields(sc.Text()))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
