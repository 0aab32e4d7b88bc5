package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/coherence"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/testenv"
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
	counted := coh["co_occurrence"].(map[string]any)
	if counted["npmi"] != "windows of 10 tokens" || counted["cv"] != "windows of 110 tokens" || counted["umass"] != "documents" ||
		coh["reference"] != "the fitted documents" || coh["documents"].(float64) != 800 || coh["tokens"].(float64) < 800 || coh["top"].(float64) != 10 {
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

// TestTopicsMetricsTokens: the topics' NPMI over windows is
// coherence.Score's over the corpus's tokens in text order, and
// --reference with the fitted corpus itself changes nothing.
func TestTopicsMetricsTokens(t *testing.T) {
	data, err := filepath.Abs("../../testdata/demo/reuters-demo.sgm.gz")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"topics", "--data", data, "--k", "6", "--metrics", "npmi,diversity", "--stems", "--json", "--quiet"}
	out, errOut, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	s := decode(t, out)
	ds, err := dataset.Load(context.Background(), data, dataset.LoadOptions{Text: dataset.TextOptions{Tokens: true}})
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]int{}
	for j, w := range ds.Vocabulary {
		index[w] = j
	}
	_, m := ds.Dims()
	ref := &coherence.Reference{Docs: ds.Tokens, Words: m, Ordered: true}
	for _, tp := range s["topics"].([]any) {
		var ids []int
		for _, w := range tp.(map[string]any)["terms"].([]any) {
			ids = append(ids, index[w.(string)])
		}
		want, err := coherence.Score(context.Background(), ref, [][]int{ids}, coherence.NPMI, coherence.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := tp.(map[string]any)["metrics"].(map[string]any)["npmi"].(float64); math.Abs(got-want.Topics[0]) > 1e-12 {
			t.Errorf("topic %v: npmi %v, want %v", tp.(map[string]any)["topic"], got, want.Topics[0])
		}
	}

	again, errOut, err := runCLI(t, append(args, "--reference", data)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	r := decode(t, again)
	if !reflect.DeepEqual(r["topics"], s["topics"]) || r["coherence"].(map[string]any)["reference"] != data {
		t.Errorf("--reference with the fitted corpus: %v, want %v", r["coherence"], s["coherence"])
	}
}

// TestTopicsReference: a reference that lacks the topics' words gives
// them no score (null, and said so), and references that cannot be
// counted are refused by name.
func TestTopicsReference(t *testing.T) {
	data, err := filepath.Abs("../../testdata/demo/reuters-demo.sgm.gz")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	other := filepath.Join(dir, "other")
	os.MkdirAll(filepath.Join(other, "a"), 0o755)
	testenv.WriteFile(t, other, "a/1.txt", []byte("zebra giraffe zebra"))
	testenv.WriteFile(t, other, "a/2.txt", []byte("oil prices rose as crude oil stocks fell"))
	out, errOut, err := runCLI(t, "topics", "--data", data, "--k", "4", "--metrics", "npmi,umass", "--reference", other, "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(out, "counted in "+other+" (2 documents") {
		t.Errorf("output does not name the reference:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "topic ") && strings.Contains(line, "npmi") {
			t.Errorf("a topic scored on a reference that lacks its words: %s", line)
		}
	}
	if !strings.Contains(out, "npmi      none (every topic has a word absent from the reference)") {
		t.Errorf("no NaN stated:\n%s", out)
	}

	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	disjoint := filepath.Join(dir, "disjoint")
	os.MkdirAll(disjoint, 0o755)
	testenv.WriteFile(t, disjoint, "1.txt", []byte("zebra giraffe okapi"))
	matrix := filepath.Join(dir, "m.mtx")
	testenv.WriteFile(t, dir, "m.mtx", []byte("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1\n"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--reference", other}, "--reference " + other + ": only with --metrics"},
		{[]string{"--metrics", "npmi", "--reference", filepath.Join(dir, "absent")}, "absent"},
		{[]string{"--metrics", "npmi", "--reference", empty}, empty},
		{[]string{"--metrics", "npmi", "--reference", disjoint}, "none of its 3 terms is a feature of the fitted data"},
		{[]string{"--metrics", "npmi", "--reference", matrix}, "its features have no names"},
	} {
		_, _, err := runCLI(t, append([]string{"topics", "--data", data, "--k", "4", "--quiet"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestExperimentMetrics: experiment --metrics adds each factorization's
// topic metrics beside accuracy and NMI, counted over windows of the
// subsets' tokens; metrics nothing can score are refused.
func TestExperimentMetrics(t *testing.T) {
	data, err := filepath.Abs("../../testdata/demo/reuters-demo.sgm.gz")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCLI(t, "experiment", "--data", data, "--methods", "nmf,kmeans", "--clusters", "2,3", "--runs", "2", "--metrics", "npmi,diversity", "--json", "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	s := decode(t, out)
	if c := s["topic_metrics"].(map[string]any); c["npmi"] != "windows of 10 tokens" || c["diversity"] != "top 25 terms" {
		t.Errorf("topic_metrics %v", c)
	}
	avg := s["nmf"].(map[string]any)["average"].(map[string]any)
	npmi := avg["topics"].(map[string]any)["npmi"].(map[string]any)
	if x := npmi["mean"].(float64); !(x > 0 && x < 1) || npmi["runs"].(float64) != 4 {
		t.Errorf("nmf's npmi %v", npmi)
	}
	if _, ok := s["kmeans"].(map[string]any)["average"].(map[string]any)["topics"]; ok {
		t.Error("kmeans has topic metrics")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--methods", "kmeans", "--metrics", "npmi"}, "none of --methods kmeans has any"},
		{[]string{"--methods", "nmf", "--metrics", "coherence"}, `"coherence": want npmi, cv, umass or diversity`},
	} {
		_, _, err := runCLI(t, append([]string{"experiment", "--data", data, "--clusters", "2", "--runs", "1", "--quiet"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestModelTopicsMetrics: a saved model's topics, scored over the corpus
// it was fitted on, score as the fit's own topics do; a saved model
// keeps no corpus, so --metrics needs --reference.
func TestModelTopicsMetrics(t *testing.T) {
	data, err := filepath.Abs("../../testdata/demo/reuters-demo.sgm.gz")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "model")
	// topics weighs text by log-tfidf; fit, by the papers' tf-idf.
	if _, errOut, err := runCLI(t, "fit", "--data", data, "--k", "5", "--weighting", "log-tfidf", "--out", dir, "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	fitted, _, err := runCLI(t, "topics", "--data", data, "--k", "5", "--metrics", "npmi,cv,diversity", "--json", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	saved, _, err := runCLI(t, "topics", "--model", dir, "--metrics", "npmi,cv,diversity", "--reference", data, "--json")
	if err != nil {
		t.Fatal(err)
	}
	if w := decode(t, fitted)["weighting"]; w != "log-tfidf" {
		t.Errorf("topics weighed the text by %v", w)
	}
	a, b := decode(t, fitted)["coherence"].(map[string]any), decode(t, saved)["coherence"].(map[string]any)
	if !reflect.DeepEqual(a["mean"], b["mean"]) || b["reference"] != data {
		t.Errorf("saved model %v, fit %v", b, a)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--metrics", "npmi"}, "--metrics with --model needs --reference"},
		{[]string{"--reference", data}, "only with --metrics"},
		{[]string{"--metrics", "npmi", "--reference", data, "--top", "1"}, "--top 1: a topic needs two terms"},
	} {
		if _, _, err := runCLI(t, append([]string{"topics", "--model", dir}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
