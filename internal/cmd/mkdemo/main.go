// Command mkdemo writes the embedded demo data set, testdata/demo: a seeded
// sample of Reuters-21578 articles as raw SGML, so that `manifactor demo`
// runs the whole path from text to topics. Run from the module root:
//
//	go run ./internal/cmd/mkdemo -data ../shared/data/reuters21578 -out testdata/demo
package main

import (
	"compress/gzip"
	"flag"
	"fmt"
	"html"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/manifactor/manifactor/dataset"
)

func main() {
	data := flag.String("data", "../shared/data/reuters21578", "Reuters-21578 directory")
	out := flag.String("out", "testdata/demo", "output directory")
	perClass := flag.Int("per-class", 100, "articles drawn from each topic")
	classes := flag.Int("classes", 8, "topics: the largest among single-label articles with a body")
	seed := flag.Uint64("seed", 2026, "sampling seed")
	flag.Parse()
	if err := run(*data, *out, *perClass, *classes, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "mkdemo:", err)
		os.Exit(1)
	}
}

func run(data, out string, perClass, classes int, seed uint64) error {
	files, err := dataset.ReutersFiles(data)
	if err != nil {
		return err
	}
	byTopic := map[string][]*dataset.Article{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = dataset.ReadReuters(f, name, func(a *dataset.Article) error {
			if len(a.Topics) == 1 && a.Body != "" {
				c := *a
				byTopic[a.Topics[0]] = append(byTopic[a.Topics[0]], &c)
			}
			return nil
		})
		f.Close()
		if err != nil {
			return err
		}
	}
	topics := make([]string, 0, len(byTopic))
	for t := range byTopic {
		topics = append(topics, t)
	}
	sort.Slice(topics, func(i, j int) bool {
		if len(byTopic[topics[i]]) != len(byTopic[topics[j]]) {
			return len(byTopic[topics[i]]) > len(byTopic[topics[j]])
		}
		return topics[i] < topics[j]
	})
	rng := rand.New(rand.NewPCG(seed, 0))
	var pick []*dataset.Article
	for _, t := range topics[:min(classes, len(topics))] {
		as := byTopic[t]
		rng.Shuffle(len(as), func(i, j int) { as[i], as[j] = as[j], as[i] })
		pick = append(pick, as[:min(perClass, len(as))]...)
	}
	sort.Slice(pick, func(i, j int) bool { return pick[i].NewID < pick[j].NewID })
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(out, "reuters-demo.sgm.gz"))
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	for _, a := range pick {
		// The fields the reader needs, in the corpus's own layout.
		fmt.Fprintf(zw, "<REUTERS TOPICS=\"YES\" LEWISSPLIT=\"%s\" CGISPLIT=\"%s\" NEWID=\"%d\">\n<TOPICS><D>%s</D></TOPICS>\n<TEXT>\n<TITLE>%s</TITLE>\n<BODY>%s</BODY></TEXT>\n</REUTERS>\n",
			a.LewisSplit, a.CGISplit, a.NewID, a.Topics[0], escape(a.Title), escape(a.Body))
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d articles of %d topics\n", out, len(pick), min(classes, len(topics)))
	return nil
}

// escape writes &, < and > as the corpus's character references.
func escape(s string) string { return html.EscapeString(s) }
