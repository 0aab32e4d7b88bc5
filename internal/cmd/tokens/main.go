// Command tokens writes the documents that topics fits, as their terms in
// text order, one document a line, for bench/topics_gensim.py: gensim's
// models are trained and every model's topics scored on exactly the
// tokens manifactor counts. The data are read and prepared as topics
// reads them (dataset.Load, then model.Prepare with its defaults); a
// token whose term is not a feature is written as <pruned>.
//
//	go run ./internal/cmd/tokens --data D [--no-stem] [--single-label] > tokens.txt
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/model"
)

func main() {
	data := flag.String("data", "", "a text corpus manifactor reads")
	noStem := flag.Bool("no-stem", false, "as topics --no-stem")
	single := flag.Bool("single-label", false, "as topics --single-label (Reuters)")
	flag.Parse()
	if err := run(*data, *noStem, *single); err != nil {
		fmt.Fprintln(os.Stderr, "tokens:", err)
		os.Exit(1)
	}
}

func run(data string, noStem, single bool) error {
	opts := dataset.LoadOptions{Text: dataset.TextOptions{NoStem: noStem, Tokens: true}}
	opts.Reuters.SingleLabel = single
	ds, err := dataset.Load(context.Background(), data, opts)
	if err != nil {
		return err
	}
	p, err := model.Prepare(ds, model.PrepareOptions{})
	if err != nil {
		return err
	}
	if p.Data.Tokens == nil {
		return fmt.Errorf("%s: not a text corpus", data)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	for _, doc := range p.Data.Tokens {
		for q, f := range doc {
			if q > 0 {
				w.WriteByte(' ')
			}
			if f < 0 {
				w.WriteString("<pruned>")
			} else {
				w.WriteString(p.Data.Vocabulary[f])
			}
		}
		w.WriteByte('\n')
	}
	return w.Flush()
}
