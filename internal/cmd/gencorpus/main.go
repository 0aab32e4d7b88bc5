// Command gencorpus writes a synthetic term-document corpus (package
// internal/corpus) as a MATLAB MAT-file that manifactor reads like the
// papers' data sets: fea, documents x terms word counts (sparse), and gnd,
// each document's planted class, 1-based. Run from the module root:
//
//	go run ./internal/cmd/gencorpus -docs 200000 -out out/gen200k.mat
//
// The file is written uncompressed (MATLAB's -v6) unless -compress is
// given: at these sizes zlib costs more time than the disk it saves.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/corpus"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "gencorpus:", err)
		}
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gencorpus", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o corpus.Options
	fs.IntVar(&o.Docs, "docs", 10000, "documents")
	fs.IntVar(&o.Terms, "terms", 100000, "vocabulary size")
	fs.IntVar(&o.Classes, "classes", 20, "planted classes")
	fs.IntVar(&o.Words, "words", 200, "mean words per document")
	fs.Float64Var(&o.Topic, "topic", 0.3, "share of a document's words drawn from its class's terms, in (0, 1]")
	fs.Float64Var(&o.Zipf, "zipf", 1.1, "Zipf exponent of word frequencies, above 1")
	fs.Float64Var(&o.Story, "story", 0.15, "share of a document's words drawn from its story's terms, in (0, 1 - topic]")
	fs.IntVar(&o.StoryDocs, "story-docs", 20, "documents per story")
	fs.BoolVar(&o.Flat, "flat", false, "no stories: a class's documents differ only by chance")
	fs.IntVar(&o.Authors, "authors", 0, "group documents by author instead of story: documents per author on average (0: stories)")
	fs.Float64Var(&o.AuthorShare, "author-share", 0.3, "with -authors: share of a document's words drawn from its author's own terms")
	fs.IntVar(&o.AuthorTerms, "author-terms", 200, "with -authors: terms of an author's own")
	fs.Float64Var(&o.Rare, "rare", 0, "share of a document's words drawn uniformly from -rare-terms further terms (the long tail of one-off words)")
	fs.IntVar(&o.RareTerms, "rare-terms", 0, "with -rare: terms of the long tail (0: 10 times -terms)")
	fs.Float64Var(&o.ClassSkew, "class-skew", 0, "with -authors: class c drawn with weight (c+1)^-skew (0: equal classes)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed")
	out := fs.String("out", "", "output .mat file (required)")
	compress := fs.Bool("compress", false, "zlib-compress the variables")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *out == "" {
		return errors.New("-out is required")
	}
	// A flag's zero would mean the package default; here it is a mistake.
	for name, v := range map[string]int{"docs": o.Docs, "terms": o.Terms, "classes": o.Classes, "words": o.Words, "story-docs": o.StoryDocs, "author-terms": o.AuthorTerms} {
		if v <= 0 {
			return fmt.Errorf("-%s %d: want a positive number", name, v)
		}
	}
	a, labels, err := corpus.Generate(o)
	if err != nil {
		return err
	}
	gnd := mat.NewDense(len(labels), 1, nil)
	for i, c := range labels {
		gnd.Set(i, 0, float64(c+1))
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = dataset.WriteMAT(w,
		dataset.MATWriteVar{Name: "fea", Sparse: a, Uncompressed: !*compress},
		dataset.MATWriteVar{Name: "gnd", Dense: gnd, Uncompressed: !*compress})
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(*out)
		return fmt.Errorf("%s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "%s: %d documents x %d terms, %d non-zeros, %d classes\n", *out, a.Rows, a.Cols, len(a.Val), o.Classes)
	return nil
}
