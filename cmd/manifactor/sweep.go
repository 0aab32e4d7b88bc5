package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/manifactor/manifactor/experiment"
	"github.com/manifactor/manifactor/figure"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
)

// sweepParam is a parsed --param: the parameter and its values.
type sweepParam struct {
	name   string // "lambda" or "neighbors"
	values []float64
}

func parseSweepParam(s string) (sweepParam, error) {
	name, list, ok := strings.Cut(s, "=")
	if !ok || list == "" {
		return sweepParam{}, fmt.Errorf("--param %q: want lambda=V1,V2,... or neighbors=LIST (e.g. neighbors=1-10)", s)
	}
	p := sweepParam{name: name}
	switch name {
	case "lambda":
		if n := strings.Count(list, ",") + 1; n > maxFitValues {
			return p, fmt.Errorf("--param lambda: %d values, each a protocol's run; at most %d", n, maxFitValues)
		}
		for _, f := range strings.Split(list, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				return p, fmt.Errorf("--param lambda: %q is not a finite non-negative number", f)
			}
			p.values = append(p.values, v)
		}
	case "neighbors":
		ps, err := parseList(list)
		if err != nil {
			return p, fmt.Errorf("--param neighbors: %w", err)
		}
		for _, v := range ps {
			if v < 1 {
				return p, fmt.Errorf("--param neighbors: %d: p must be at least 1", v)
			}
			p.values = append(p.values, float64(v))
		}
	default:
		return p, fmt.Errorf("--param %q: the parameters that can be swept are lambda and neighbors", name)
	}
	return p, nil
}

// sweepOutput is sweep's JSON: the points and the baselines' averages.
type sweepOutput struct {
	Method    string                      `json:"method"`
	Param     string                      `json:"param"`
	Points    []sweepJSONPoint            `json:"points"`
	Baselines map[string]experiment.Score `json:"baselines,omitempty"`
}

// sweepJSONPoint is one value's average over k: the value and the
// Score's fields side by side.
type sweepJSONPoint struct {
	Value float64 `json:"value"`
	experiment.Score
}

func runSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep", "--data D --method M --param lambda=1,10,100|neighbors=1-10 [options]", stdout, stderr)
	var pf protocolFlags
	pf.register(fs)
	method := fs.String("method", "", "the graph-regularized method whose parameter is swept: gnmf, lccf, lpnmf or their -ncw forms")
	param := fs.String("param", "", "the parameter and its values: lambda=V1,V2,... or neighbors=LIST, e.g. neighbors=1-10")
	baselines := fs.String("baselines", "", "methods run once and shown beside the sweep as flat lines, e.g. nmf,kmeans")
	chosenFormat := registerFormat(fs)
	// A sweep runs the protocol once per value: fewer runs by default
	// than a table.
	fs.Lookup("runs").Value.Set("10")
	fs.Lookup("runs").DefValue = "10"
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := pf.rt.apply(); err != nil {
		return err
	}
	format, err := chosenFormat()
	if err != nil {
		return err
	}
	sp, err := checkSweep(fs, *method, *param, pf.mf.graph.minShared)
	if err != nil {
		return err
	}
	var base []string
	if *baselines != "" {
		base = strings.Split(*baselines, ",")
	}
	ks, p, err := pf.begin(ctx, "--baselines", base)
	if err != nil {
		return err
	}
	sparse := p.Data.Sparse != nil
	build, err := pf.sweepBuilder(*method, sp, sparse)
	if err != nil {
		return err
	}
	bms := map[string]experiment.Method{}
	for _, name := range base {
		if bms[name], err = pf.method(name, sparse, nil); err != nil {
			return fmt.Errorf("--baselines: %w", err)
		}
	}
	prot := pf.protocol(ks, stderr)
	var btable *experiment.Table
	if len(bms) > 0 {
		prot.Progress = progressLine(pf.progress, pf.terminal, "baselines: ")
		if btable, err = prot.Run(ctx, p.Data, bms); err != nil {
			return err
		}
	}
	points := make([]experiment.SweepPoint, 0, len(sp.values))
	for i, v := range sp.values {
		prot.Progress = progressLine(pf.progress, pf.terminal, fmt.Sprintf("%s = %g (%d of %d): ", sp.name, v, i+1, len(sp.values)))
		pt, err := prot.Sweep(ctx, p.Data, *method, []float64{v}, build)
		if err != nil {
			return err
		}
		points = append(points, pt...)
	}
	if err := writeSweep(stdout, format, *method, sp.name, points, btable); err != nil {
		return err
	}
	if pf.plot == "" {
		return nil
	}
	return plotSweep(pf.plot, baseName(p.Data.Source), *method, sp.name, points, btable)
}

// checkSweep checks --method and --param (the flags that gave method and
// param), and that no other flag sets what the sweep sets at each value.
func checkSweep(fs *flag.FlagSet, method, param string, minShared int) (sweepParam, error) {
	if method == "" {
		return sweepParam{}, errors.New("--method is required")
	}
	m, err := parseMethod(method)
	if err != nil {
		return sweepParam{}, fmt.Errorf("--method: %w", err)
	}
	if !m.TakesGraph() {
		return sweepParam{}, fmt.Errorf("--method %s takes no graph, so neither lambda nor neighbors changes it; sweep gnmf, lccf, lpnmf or their -ncw forms", method)
	}
	if param == "" {
		return sweepParam{}, errors.New("--param is required, e.g. --param lambda=0.1,1,10,100,1000")
	}
	sp, err := parseSweepParam(param)
	if err != nil {
		return sp, err
	}
	// The swept parameter's own flags would be overridden at every value.
	conflicts := []string{sp.name}
	if sp.name == "lambda" {
		conflicts = append(conflicts, "lambdas")
	}
	for _, name := range conflicts {
		if set(fs, name) {
			return sp, fmt.Errorf("--%s: --param %s sets %s at each of its values; leave --%s out", name, param, sp.name, name)
		}
	}
	if sp.name == "neighbors" && minShared > 0 {
		for _, v := range sp.values {
			if int(v) <= minShared {
				return sp, fmt.Errorf("--param neighbors: p = %g must be above --min-shared %d", v, minShared)
			}
		}
	}
	return sp, nil
}

// sweepBuilder returns what builds method at a value of sp, once it has
// built it at each of them.
func (f *protocolFlags) sweepBuilder(method string, sp sweepParam, sparse bool) (func(float64) (experiment.Method, error), error) {
	build := func(v float64) (experiment.Method, error) {
		return f.method(method, sparse, func(o *model.Options) {
			if sp.name == "lambda" {
				o.Lambda = solver.Fixed(v)
			} else {
				o.Graph.Neighbors = int(v)
			}
		})
	}
	// Build every method now so a bad combination fails before the work.
	for _, v := range sp.values {
		if _, err := build(v); err != nil {
			return nil, err
		}
	}
	return build, nil
}

func writeSweep(w io.Writer, format, method, param string, points []experiment.SweepPoint, base *experiment.Table) error {
	switch format {
	case "json":
		out := sweepOutput{Method: method, Param: param}
		for _, pt := range points {
			out.Points = append(out.Points, sweepJSONPoint{pt.Value, pt.Average})
		}
		if base != nil {
			out.Baselines = base.Average
		}
		return writeJSON(w, out)
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"method", param, "accuracy_mean", "accuracy_std", "nmi_mean", "nmi_std", "runs", "seconds"})
		row := func(name, value string, s experiment.Score) {
			f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
			cw.Write([]string{name, value, f(s.AccuracyMean), f(s.AccuracyStd), f(s.NMIMean), f(s.NMIStd), strconv.Itoa(s.Runs), f(s.Seconds)})
		}
		for _, pt := range points {
			row(method, strconv.FormatFloat(pt.Value, 'g', -1, 64), pt.Average)
		}
		if base != nil {
			for _, name := range base.Methods {
				row(name, "", base.Average[name])
			}
		}
		cw.Flush()
		return cw.Error()
	}
	fmt.Fprintf(w, "%s, average over k: accuracy and NMI (%%) against %s\n\n", method, param)
	fmt.Fprintf(w, "| %s | accuracy | NMI | seconds per run |\n|---|---|---|---|\n", param)
	for _, pt := range points {
		s := pt.Average
		fmt.Fprintf(w, "| %g | %.1f ± %.1f | %.1f ± %.1f | %.3f |\n", pt.Value, 100*s.AccuracyMean, 100*s.AccuracyStd, 100*s.NMIMean, 100*s.NMIStd, s.Seconds)
	}
	if base != nil {
		for _, name := range base.Methods {
			s := base.Average[name]
			fmt.Fprintf(w, "| %s (baseline) | %.1f ± %.1f | %.1f ± %.1f | %.3f |\n", name, 100*s.AccuracyMean, 100*s.AccuracyStd, 100*s.NMIMean, 100*s.NMIStd, s.Seconds)
		}
	}
	return nil
}

// plotSweep draws accuracy and NMI against the parameter (paper 001
// Figures 3-4, paper 002 Figures 1-2), the baselines as flat dashed lines.
func plotSweep(dir, data, method, param string, points []experiment.SweepPoint, base *experiment.Table) error {
	logX := param == "lambda"
	for _, v := range points {
		if v.Value <= 0 {
			logX = false // a log axis cannot show lambda = 0
		}
	}
	xlabel := map[string]string{"lambda": "lambda (regularization weight)", "neighbors": "p (nearest neighbours)"}[param]
	for _, metric := range []string{"accuracy", "nmi"} {
		get := func(s experiment.Score) (float64, float64) {
			if metric == "nmi" {
				return s.NMIMean, s.NMIStd
			}
			return s.AccuracyMean, s.AccuracyStd
		}
		fig := figure.Figure{Title: fmt.Sprintf("%s on %s: %s against %s", method, data, metric, param),
			XLabel: xlabel, YLabel: metric + " (average over k)", LogX: logX, IntegerX: param == "neighbors", Fraction: true}
		s := figure.Series{Name: method}
		for _, pt := range points {
			m, sd := get(pt.Average)
			s.X, s.Y, s.Err = append(s.X, pt.Value), append(s.Y, m), append(s.Err, sd)
		}
		fig.Series = append(fig.Series, s)
		if base != nil {
			for _, name := range base.Methods {
				m, _ := get(base.Average[name])
				b := figure.Series{Name: name, Reference: true}
				for _, pt := range points {
					b.X, b.Y = append(b.X, pt.Value), append(b.Y, m)
				}
				fig.Series = append(fig.Series, b)
			}
		}
		if err := figure.Save(fig, dir, metric+"-vs-"+param); err != nil {
			return err
		}
	}
	return nil
}
