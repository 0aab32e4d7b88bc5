package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// A help group gathers related flags under one heading, in this order.
const (
	dataGroup = iota
	methodGroup
	graphGroup
	solverGroup
	outputGroup
	runGroup
	numGroups
)

var groupNames = [numGroups]string{"Data", "Method", "Graph", "Solver and stopping", "Output", "Run"}

// flagHelp places a flag in --help: its group and, for the flags shown
// without --help-all, a one-line description and the name of its value.
// A flag absent from flagHelps is its command's own and always shown, in
// the Output group.
type flagHelp struct {
	group int
	short string // "" for a flag --help leaves to --help-all
	arg   string
}

var flagHelps = map[string]flagHelp{
	"data":    {dataGroup, "data file or directory (.mat .mtx .svm .csv .npy, text)", "PATH"},
	"classes": {dataGroup, "keep only the samples of these labels, e.g. 1-10", "LIST"},
	"strip":   {dataGroup, "text: remove headers, footers, quotes before tokenizing", "PARTS"},
	"min-df":  {dataGroup, "drop terms in fewer documents", "N"},

	"method":  {methodGroup, "nmf, gnmf, cf, lccf, nmf-kl, lpnmf, each also -ncw", "M"},
	"methods": {methodGroup, "comma-separated methods and baselines (kmeans, ...)", "LIST"},
	"k":       {methodGroup, "number of factors (clusters)", "K"},
	"lambda":  {methodGroup, "graph weight: auto (chosen from the data) or a number", "L"},
	"seed":    {methodGroup, "random seed; the same seed gives the same result", "S"},
	"papers":  {methodGroup, "the papers' settings for the method", ""},

	"neighbors": {graphGroup, "p, nearest neighbours per sample", "P"},
	"weight":    {graphGroup, "edge weights: binary, heat or cosine", "W"},
	"graph":     {graphGroup, "a Matrix Market graph to use instead", "FILE"},

	"solver": {solverGroup, "auto, mu (multiplicative), cd (coordinate descent) or minibatch", "S"},
	"iters":  {solverGroup, "maximum iterations", "N"},
	"tol":    {solverGroup, "stop below this relative decrease (1e-05; off: never)", "T"},

	"out":   {outputGroup, "", "DIR"},
	"json":  {outputGroup, "print the result as JSON", ""},
	"quiet": {runGroup, "no progress on stderr", ""},

	"threads": {runGroup, "goroutines (default: all cores)", "N"},
	"memory":  {runGroup, "memory the job may use, e.g. 6G, or none", "SIZE"},
}

// The flags --help-all adds, by group; the rest are a command's own.
func init() {
	for group, names := range map[int][]string{
		dataGroup:   {"missing", "mask", "labels", "transpose", "var", "label-var", "label-column", "header", "single-label", "min-class-size", "largest", "split", "max-df", "keep-numbers", "no-stem", "no-stopwords", "drop-empty", "weighting", "normalize", "keep-zero-features"},
		methodGroup: {"ranks", "lambdas", "formulation", "candidate-start", "auto-sample", "screen-iters", "start", "assign", "restarts", "restart-iters", "kernel", "degree", "coef0", "sigma", "kernel-memory"},
		graphGroup:  {"graph-metric", "graph-search", "symmetry", "symmetrize", "min-shared", "heat-t"},
		solverGroup: {"pg-tol", "min-iters", "stop", "evaluate", "extrapolate", "batch-size", "cg-tol", "cg-iters"},
		runGroup:    {"blas", "simd", "distributed", "grid", "storage"},
	} {
		for _, n := range names {
			flagHelps[n] = flagHelp{group: group}
		}
	}
}

// renamedFlags answers a flag's old name with its new one.
var renamedFlags = map[string]string{"kernels": "simd"}

// commandFlagHelps are the flags whose meaning a command changes: rank's
// --k is a list of ranks, its methods depend on --criterion, and its
// lambda is never auto; --cold, a comparison, is left to --help-all.
var commandFlagHelps = map[string]map[string]flagHelp{
	"rank": {
		"k":         {methodGroup, "the ranks to try, e.g. 2-40 (see --step)", "LIST"},
		"method":    {methodGroup, "held-out: nmf, gnmf or nmf-kl, each also -ncw; cophenetic: any", "M"},
		"lambda":    {methodGroup, "graph weight, a number (default: the method's)", "L"},
		"criterion": {methodGroup, "held-out (the model's rank) or cophenetic (a number of clusters)", "C"},
		"plot":      {outputGroup, "directory for the curve as PNG and SVG", "DIR"},
		"cold":      {outputGroup, "", ""},
	},
	"topics": {
		"metrics": {outputGroup, "score the topics: npmi, cv, umass, diversity", "LIST"},
	},
}

// helpOf returns how --help of command cmd shows flag f: its group,
// whether it is shown without --help-all, its one-line text and the name
// of its value.
func helpOf(cmd string, f *flag.Flag) (group int, common bool, short, arg string) {
	h, known := commandFlagHelps[cmd][f.Name]
	if !known {
		h, known = flagHelps[f.Name]
	}
	name, usage := flag.UnquoteUsage(f)
	short, arg = h.short, h.arg
	if !known || short == "" {
		// A command's own flag (or --out, whose meaning is the
		// command's): its usage up to the first clause.
		short = usage
		if i := strings.IndexAny(short, ";("); i > 0 {
			short = strings.TrimSpace(short[:i])
		}
	}
	if arg == "" && name != "" {
		arg = map[string]string{"int": "N", "uint": "N", "float": "X", "string": "S", "value": "V"}[name]
	}
	if isBool(f) {
		arg = ""
	}
	if !known {
		return outputGroup, true, short, arg
	}
	return h.group, h.short != "" || f.Name == "out", short, arg
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// defaultText is f's default as --help of command cmd prints it, "" for
// none worth saying (empty, zero, false).
func defaultText(cmd string, f *flag.Flag) string {
	switch d := f.DefValue; {
	case f.Name == "lambda" && cmd == "rank":
		return ""
	case f.Name == "lambda":
		// The zero Lambda is the pipeline's default, which is auto.
		return "auto"
	case d == "" || d == "0" || d == "false" || d == "[]":
		return ""
	default:
		return d
	}
}

// printHelp writes the usage of command name: with all false the common
// flags in their groups, one line each, and how to see the rest; with all
// true every flag with its whole text.
func printHelp(w io.Writer, fs *flag.FlagSet, name, synopsis string, all bool) {
	fmt.Fprintf(w, "usage: manifactor %s %s\n", name, synopsis)
	var groups [numGroups][]*flag.Flag
	hidden := 0
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "help-all" {
			return
		}
		g, common, _, _ := helpOf(name, f)
		if !common && !all {
			hidden++
			return
		}
		groups[g] = append(groups[g], f)
	})
	for g, flags := range groups {
		if len(flags) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", groupNames[g])
		for _, f := range flags {
			_, _, short, arg := helpOf(name, f)
			head := "  --" + f.Name
			if arg != "" {
				head += " " + arg
			}
			if all {
				_, usage := flag.UnquoteUsage(f)
				if d := defaultText(name, f); d != "" && !strings.Contains(usage, "(default") {
					usage += " (default " + d + ")"
				}
				fmt.Fprintln(w, head)
				for _, l := range wrap(usage, 72) {
					fmt.Fprintln(w, "        "+l)
				}
				continue
			}
			if d := defaultText(name, f); d != "" && !strings.Contains(short, "default") {
				short += " (" + d + ")"
			}
			fmt.Fprintf(w, "%-22s %s\n", head, short)
		}
	}
	if !all {
		fmt.Fprintf(w, "\n%d more options: manifactor %s --help-all (docs/cli.md).\n", hidden, name)
	}
}

// wrap cuts s into lines of at most width runes at spaces.
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len([]rune(line))+1+len([]rune(word)) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// flagError rewrites the flag package's complaint about args as one line
// that names the option as it is written (--name) and, for a mistyped
// name, the nearest one fs defines.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	hint := fmt.Sprintf("'manifactor %s --help' lists the options", fs.Name())
	if bad, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		bad = strings.TrimLeft(bad, "-")
		if to, ok := renamedFlags[bad]; ok {
			return fmt.Errorf("%s: --%s is now --%s", fs.Name(), bad, to)
		}
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if near := nearest(bad, names); near != "" {
			return fmt.Errorf("%s: unknown option --%s: did you mean --%s? (%s)", fs.Name(), bad, near, hint)
		}
		return fmt.Errorf("%s: unknown option --%s (%s)", fs.Name(), bad, hint)
	}
	if bad, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return fmt.Errorf("%s: --%s needs a value (%s)", fs.Name(), strings.TrimLeft(bad, "-"), hint)
	}
	// "invalid value "x" for flag -name: cause"
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if i := strings.Index(rest, " for flag -"); i >= 0 {
			val, after := rest[:i], rest[i+len(" for flag -"):]
			name, cause, _ := strings.Cut(after, ": ")
			val = strings.Trim(val, `"`)
			if _, known, ok := strings.Cut(cause, "(known: "); ok {
				if near := nearest(val, strings.Split(strings.TrimSuffix(known, ")"), ", ")); near != "" {
					cause += ": did you mean " + near + "?"
				}
			}
			return fmt.Errorf("%s: --%s %s: %s", fs.Name(), name, val, cause)
		}
	}
	// "invalid boolean value "x" for -name: cause"
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		if val, name, ok := strings.Cut(rest, " for -"); ok {
			name, _, _ = strings.Cut(name, ":")
			return fmt.Errorf("%s: --%s=%s: a switch is on as --%s, or --%s=true / --%s=false", fs.Name(), name, strings.Trim(val, `"`), name, name, name)
		}
	}
	return fmt.Errorf("%s: %w", fs.Name(), err)
}

// nearest returns the name among names within edit distance 2 of s (or
// that s is a prefix of), the closest first; "" if none is.
func nearest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		d := editDistance(s, n)
		if strings.HasPrefix(n, s) && d > 1 {
			d = 2
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// writeReference writes every command's whole help as Markdown: the
// command-line reference, docs/cli.md, which TestCLIReference keeps equal
// to the flags.
func writeReference(w io.Writer) error {
	fmt.Fprintln(w, "# Command-line reference")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Generated by `manifactor help reference` (`make docs`) from the flags' own")
	fmt.Fprintln(w, "definitions; a test fails when it and the code disagree. `manifactor CMD")
	fmt.Fprintln(w, "--help` shows a command's common options, `--help-all` all of them.")
	for _, c := range commands() {
		var help strings.Builder
		err := c.run(context.Background(), []string{"--help-all"}, &help, io.Discard)
		if !errors.Is(err, flag.ErrHelp) {
			return fmt.Errorf("%s --help-all: %v", c.name, err)
		}
		fmt.Fprintf(w, "\n## %s\n\n%s.\n\n```text\n%s```\n", c.name, c.summary, help.String())
	}
	return nil
}
