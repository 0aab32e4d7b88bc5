package figure

import (
	"encoding/xml"
	"errors"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// accuracyFigure is a chart like the papers' accuracy against k, with
// names that need escaping in SVG.
func accuracyFigure() Figure {
	ks := []float64{2, 3, 4, 5, 6, 7, 8, 9, 10}
	curve := func(base float64) []float64 {
		y := make([]float64, len(ks))
		for i := range y {
			y[i] = base - 0.03*float64(i)
		}
		return y
	}
	std := make([]float64, len(ks))
	for i := range std {
		std[i] = 0.02
	}
	return Figure{
		Title:    "Reuters: accuracy vs number of clusters",
		XLabel:   "number of clusters k",
		YLabel:   "accuracy",
		IntegerX: true,
		Series: []Series{
			{Name: "GNMF", X: ks, Y: curve(0.9), Err: std},
			{Name: "NMF", X: ks, Y: curve(0.8), Err: std},
			{Name: "k-means", X: ks, Y: curve(0.7)},
			{Name: "GNMF (published)", X: ks, Y: curve(0.92), Reference: true},
			{Name: "NCut & <spectral>", X: ks, Y: curve(0.75)},
		},
	}
}

func TestSaveWritesPNGAndSVG(t *testing.T) {
	dir := t.TempDir()
	f := accuracyFigure()
	if err := Save(f, dir, "accuracy"); err != nil {
		t.Fatalf("Save: %v", err)
	}

	pf, err := os.Open(filepath.Join(dir, "accuracy.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	img, err := png.Decode(pf)
	if err != nil {
		t.Fatalf("decoding PNG: %v", err)
	}
	// 5 x 3.5 inches at 150 dpi.
	const wantW, wantH = 750, 525
	if width != 5*vg.Inch || height != 3.5*vg.Inch || pngDPI != 150 {
		t.Fatalf("size changed to %v x %v at %d dpi: update wantW, wantH", width, height, pngDPI)
	}
	if b := img.Bounds(); b.Dx() != wantW || b.Dy() != wantH {
		t.Errorf("PNG is %dx%d pixels, want %dx%d", b.Dx(), b.Dy(), wantW, wantH)
	}

	root, texts := readSVG(t, filepath.Join(dir, "accuracy.svg"))
	if root != "svg" {
		t.Errorf("SVG root element is %q, want svg", root)
	}
	for _, s := range f.Series {
		if !slices.Contains(texts, s.Name) {
			t.Errorf("SVG has no text %q (legend); texts are %q", s.Name, texts)
		}
	}
	for _, want := range []string{f.Title, f.XLabel, f.YLabel, "2", "10"} {
		if !slices.Contains(texts, want) {
			t.Errorf("SVG has no text %q", want)
		}
	}
}

// TestSaveAxes draws log axes, a single point and an empty series, which
// would panic inside plot if the axis ranges were left as plot sets them.
func TestSaveAxes(t *testing.T) {
	dir := t.TempDir()
	lambdas := []float64{1e-3, 1e-2, 1e-1, 1, 10, 100, 1000}
	figs := map[string]Figure{
		"lambda": {
			LogX: true,
			Series: []Series{
				{Name: "accuracy", X: lambdas, Y: []float64{.6, .65, .7, .8, .82, .8, .7}},
				{Name: "NMF", X: []float64{1e-3, 1000}, Y: []float64{.6, .6}, Reference: true},
			},
		},
		"objective": {
			LogY: true,
			Series: []Series{
				{Name: "objective", X: []float64{1, 2, 3, 4}, Y: []float64{1800, 1500, 1300, 1250}, Err: []float64{10, 10, 10, 10}},
			},
		},
		"single": {
			LogX: true, LogY: true, IntegerX: true,
			Series: []Series{
				{Name: "one", X: []float64{5}, Y: []float64{0.5}},
				{Name: "empty"},
			},
		},
	}
	for name, f := range figs {
		if err := Save(f, dir, name); err != nil {
			t.Errorf("Save %s: %v", name, err)
			continue
		}
		_, texts := readSVG(t, filepath.Join(dir, name+".svg"))
		for _, s := range f.Series {
			if !slices.Contains(texts, s.Name) {
				t.Errorf("%s: SVG has no legend text %q", name, s.Name)
			}
		}
	}
}

func TestSaveRejects(t *testing.T) {
	good := func() Figure {
		return Figure{Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{0.5, 0.6}}}}
	}
	for _, tc := range []struct {
		desc   string
		edit   func(f *Figure)
		name   string
		inErr  string // a part the message must have, to point at the fault
		noFile bool
	}{
		{desc: "no series", edit: func(f *Figure) { f.Series = nil }, inErr: "no series"},
		{desc: "no points", edit: func(f *Figure) { f.Series[0].X, f.Series[0].Y = nil, nil }, inErr: "no points"},
		{desc: "no name", edit: func(f *Figure) { f.Series[0].Name = "" }, inErr: "series 0"},
		{desc: "same name", edit: func(f *Figure) { f.Series = append(f.Series, f.Series[0]) }, inErr: `"a"`},
		{desc: "x y lengths", edit: func(f *Figure) { f.Series[0].Y = []float64{1} }, inErr: `"a"`},
		{desc: "err length", edit: func(f *Figure) { f.Series[0].Err = []float64{0.1} }, inErr: "error values"},
		{desc: "NaN y", edit: func(f *Figure) { f.Series[0].Y[1] = math.NaN() }, inErr: `"a" point 1`},
		{desc: "Inf x", edit: func(f *Figure) { f.Series[0].X[0] = math.Inf(1) }, inErr: `"a" point 0`},
		{desc: "NaN err", edit: func(f *Figure) { f.Series[0].Err = []float64{0.1, math.NaN()} }, inErr: "point 1"},
		{desc: "negative err", edit: func(f *Figure) { f.Series[0].Err = []float64{-0.1, 0.1} }, inErr: "point 0"},
		{desc: "LogX with 0", edit: func(f *Figure) { f.LogX = true; f.Series[0].X[0] = 0 }, inErr: "log x"},
		{desc: "LogY with -1", edit: func(f *Figure) { f.LogY = true; f.Series[0].Y[1] = -1 }, inErr: "log y"},
		{desc: "LogY error bar", edit: func(f *Figure) { f.LogY = true; f.Series[0].Err = []float64{0.5, 0.1} }, inErr: "point 0"},
		{desc: "slash in name", name: "sub/plot", inErr: "sub/plot"},
		{desc: "backslash in name", name: `sub\plot`, inErr: "plot"},
		{desc: "dot dot", name: "..", inErr: ".."},
		{desc: "empty name", name: "", inErr: "name"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			dir := t.TempDir()
			f := good()
			if tc.edit != nil {
				tc.edit(&f)
			}
			name := "plot"
			if tc.edit == nil {
				name = tc.name
			}
			err := Save(f, dir, name)
			if err == nil {
				t.Fatal("Save returned no error")
			}
			if !strings.Contains(err.Error(), tc.inErr) {
				t.Errorf("error %q does not mention %q", err, tc.inErr)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("Save wrote %d files despite the error", len(entries))
			}
		})
	}
}

func TestSaveMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	f := Figure{Series: []Series{{Name: "a", X: []float64{1}, Y: []float64{1}}}}
	err := Save(f, dir, "plot")
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("Save into a missing directory: error %v, want one naming %s", err, dir)
	}
}

func TestCheckDir(t *testing.T) {
	base := t.TempDir()
	nested := filepath.Join(base, "a", "b", "c")
	if err := CheckDir(nested); err != nil {
		t.Fatalf("CheckDir(%s): %v", nested, err)
	}
	if fi, err := os.Stat(nested); err != nil || !fi.IsDir() {
		t.Fatalf("CheckDir did not make %s: %v", nested, err)
	}
	if entries, _ := os.ReadDir(nested); len(entries) != 0 {
		t.Errorf("CheckDir left %d files in %s", len(entries), nested)
	}
	// Running it again on an existing directory is fine.
	if err := CheckDir(nested); err != nil {
		t.Errorf("CheckDir on an existing directory: %v", err)
	}

	// Permission bits do not stop root, but nothing can make a directory
	// beneath a regular file.
	file := filepath.Join(base, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	under := filepath.Join(file, "sub")
	err := CheckDir(under)
	if err == nil {
		t.Fatalf("CheckDir(%s) under a regular file returned no error", under)
	}
	if !strings.Contains(err.Error(), under) {
		t.Errorf("error %q does not name %s", err, under)
	}
	if err := CheckDir(file); err == nil {
		t.Errorf("CheckDir on a regular file returned no error")
	}
	if err := CheckDir(""); err == nil {
		t.Errorf("CheckDir(\"\") returned no error")
	}
}

func TestLogTicksLabelled(t *testing.T) {
	for _, r := range [][2]float64{{1e-3, 1e3}, {0.2, 0.8}, {1200, 1800}, {3, 7000}, {1e-20, 1e20}} {
		var labels []float64
		for _, tick := range (logTicks{}).Ticks(r[0], r[1]) {
			if tick.Label == "" {
				continue
			}
			if tick.Value < r[0] || tick.Value > r[1] {
				t.Errorf("range %v: label %q at %v is outside", r, tick.Label, tick.Value)
			}
			if len(tick.Label) > 6 {
				t.Errorf("range %v: label %q is long", r, tick.Label)
			}
			labels = append(labels, tick.Value)
		}
		if len(labels) < 2 || len(labels) > maxLogLabels+1 {
			t.Errorf("range %v: %d labels %v, want 2..%d", r, len(labels), labels, maxLogLabels+1)
		}
	}
}

func TestIntegerTicks(t *testing.T) {
	s := []Series{{X: []float64{2, 3, 4.5, 10}}, {X: []float64{3, 7}}}
	var got []string
	for _, tick := range integerTicks(s, nil).Ticks(0, 11) {
		got = append(got, tick.Label)
	}
	if want := "2 3 7 10"; strings.Join(got, " ") != want {
		t.Errorf("ticks %q, want %q", got, want)
	}

	many := make([]float64, 500)
	for i := range many {
		many[i] = float64(i + 1)
	}
	ticks := integerTicks([]Series{{X: many}}, nil).Ticks(1, 500)
	if len(ticks) == 0 || len(ticks) > 20 {
		t.Errorf("%d ticks for 500 integers", len(ticks))
	}
	for _, tick := range ticks {
		if tick.Value != math.Trunc(tick.Value) {
			t.Errorf("tick at non-integer %v", tick.Value)
		}
	}
}

// readSVG parses the SVG at path and returns its root element's name and
// the text of its text elements.
func readSVG(t *testing.T, path string) (root string, texts []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(strings.NewReader(string(data)))
	inText := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("parsing %s: %v", path, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			inText = tok.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		}
	}
	return root, texts
}

func TestSeriesStyleDistinct(t *testing.T) {
	type style struct {
		c     color.Color
		shape draw.GlyphDrawer
	}
	colours := make(map[color.Color]bool)
	shapes := make(map[draw.GlyphDrawer]bool)
	pairs := make(map[style]int)
	for i := range len(palette) * len(glyphs) {
		c, shape := seriesStyle(i)
		if i < 8 {
			colours[c], shapes[shape] = true, true
		}
		if j, ok := pairs[style{c, shape}]; ok {
			t.Fatalf("series %d and %d share colour and shape", j, i)
		}
		pairs[style{c, shape}] = i
	}
	if len(colours) != 8 || len(shapes) != 8 {
		t.Errorf("the first 8 series have %d colours and %d shapes, want 8 each", len(colours), len(shapes))
	}
}

// TestLikeAndFraction: a series drawn Like another shares its colour in
// the SVG; Like must name a series of its own style; fraction error bars
// stay inside [0, 1].
func TestLikeAndFraction(t *testing.T) {
	dir := t.TempDir()
	f := Figure{Title: "scores", Fraction: true, Series: []Series{
		{Name: "ours", X: []float64{2, 3}, Y: []float64{0.95, 0.5}, Err: []float64{0.2, 0.1}},
		{Name: "other", X: []float64{2, 3}, Y: []float64{0.4, 0.3}},
		{Name: "paper", X: []float64{2, 3}, Y: []float64{0.9, 0.6}, Reference: true, Like: "ours"},
	}}
	if err := Save(f, dir, "like"); err != nil {
		t.Fatal(err)
	}
	e := errorPoints{xys: plotter.XYs{{X: 2, Y: 0.95}, {X: 3, Y: 0.05}}, err: []float64{0.2, 0.1}, fraction: true}
	if lo, hi := e.YError(0); lo != 0.2 || math.Abs(hi-0.05) > 1e-15 {
		t.Errorf("bar at 0.95 ± 0.2: %v, %v; want 0.2 below and 0.05 above", lo, hi)
	}
	if lo, hi := e.YError(1); math.Abs(lo-0.05) > 1e-15 || hi != 0.1 {
		t.Errorf("bar at 0.05 ± 0.1: %v, %v", lo, hi)
	}
	if got := styleIndexes(f.Series); !slices.Equal(got, []int{0, 1, 0}) {
		t.Errorf("styles %v, want [0 1 0]: the paper's curve in ours' style", got)
	}
	f.Series[2].Like = "missing"
	if err := Save(f, dir, "bad"); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("Like naming no series: %v", err)
	}
}
