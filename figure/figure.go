package figure

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one line of a Figure.
type Series struct {
	// Name labels the line in the legend. It must be non-empty and
	// differ from the names of the other series of the figure.
	Name string

	// X and Y are the points in drawing order; they have the same length.
	X, Y []float64

	// Err, if not nil, holds for each point the half-height of its error
	// bar, such as a standard deviation over runs. It has the length of Y
	// and no negative value.
	Err []float64

	// Reference marks a curve to compare with, such as a published result
	// or a baseline. It is drawn dashed and without error bars (Err is
	// still checked), so that it stands apart from measured curves.
	Reference bool
	// Like, when set, names another series whose colour and marker this
	// one takes, so that a published curve is drawn (dashed) in its own
	// method's colour.
	Like string
}

// Figure describes one chart.
type Figure struct {
	// Title, XLabel and YLabel are drawn above the chart and beside its
	// axes; empty ones are left out.
	Title, XLabel, YLabel string

	// LogX makes the x axis logarithmic, for parameters swept over
	// decades such as lambda. Every x must then be positive.
	LogX bool

	// LogY makes the y axis logarithmic, for values such as an objective
	// that fall over decades. Every y, and every error bar's lower end,
	// must then be positive.
	LogY bool

	// IntegerX puts the x ticks at the integer x values present, as for a
	// number of clusters k = 2..10 or of neighbours p = 1..10. When more
	// than 12 distinct integers are present, the usual ticks are kept
	// where they fall on integers instead, so that labels do not overlap.
	IntegerX bool

	// Fraction says the values are fractions in [0, 1], such as accuracy
	// or NMI: error bars are clipped to that range rather than drawn
	// beyond what a score can reach.
	Fraction bool

	// Series are the lines, drawn and listed in the legend in this order.
	Series []Series
}

// Size of both outputs, and the PNG resolution: 5 x 3.5 inches at 150 dpi
// is 750 x 525 pixels, sharp in a README without being large.
const (
	width  = 5 * vg.Inch
	height = 3.5 * vg.Inch
	pngDPI = 150
)

// maxIntegerTicks is the most tick labels IntegerX writes one per value;
// more would overlap at this width.
const maxIntegerTicks = 12

// maxLogLabels is the most powers of ten labelled on a log axis; over more
// decades every second (third, ...) power is labelled.
const maxLogLabels = 8

// palette is the Okabe-Ito colour set, which stays distinguishable for the
// common forms of colour blindness, with grey in place of its yellow, which
// is too faint on white.
var palette = []color.Color{
	color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff}, // blue
	color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff}, // vermillion
	color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff}, // bluish green
	color.RGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff}, // reddish purple
	color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff}, // orange
	color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff}, // sky blue
	color.RGBA{A: 0xff},                            // black
	color.RGBA{R: 0x88, G: 0x88, B: 0x88, A: 0xff}, // grey
}

// glyphs alternate filled and hollow shapes so that neighbours in the list
// differ even when printed in grey.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.SquareGlyph{},
	draw.PyramidGlyph{},
	draw.CrossGlyph{},
	draw.RingGlyph{},
	draw.BoxGlyph{},
	draw.TriangleGlyph{},
	draw.PlusGlyph{},
}

// seriesStyle returns the colour and glyph of the i-th series. Past the
// palette's length the shapes shift by one on each round, so that colour
// and shape together differ for the first len(palette)*len(glyphs) series.
func seriesStyle(i int) (color.Color, draw.GlyphDrawer) {
	return palette[i%len(palette)], glyphs[(i+i/len(palette))%len(glyphs)]
}

// Save draws f and writes it to dir/name.png and dir/name.svg, 5 x 3.5
// inches each, the PNG at 150 dpi. The directory must exist (CheckDir makes
// it). name must be a plain file name without a path separator. f is
// checked first, and nothing is written if it is invalid.
func Save(f Figure, dir, name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := f.validate(); err != nil {
		return fmt.Errorf("figure %q: %w", name, err)
	}

	// Both images are rendered before either file is written, so that a
	// drawing failure leaves no half-finished pair behind.
	img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(pngDPI))
	if err := f.draw(img); err != nil {
		return fmt.Errorf("figure %q: %w", name, err)
	}
	var pngData bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&pngData); err != nil {
		return fmt.Errorf("figure %q: encoding PNG: %w", name, err)
	}
	svg := vgsvg.New(width, height)
	if err := f.draw(svg); err != nil {
		return fmt.Errorf("figure %q: %w", name, err)
	}
	var svgData bytes.Buffer
	if _, err := svg.WriteTo(&svgData); err != nil {
		return fmt.Errorf("figure %q: encoding SVG: %w", name, err)
	}

	for _, out := range []struct {
		ext  string
		data []byte
	}{{".png", pngData.Bytes()}, {".svg", svgData.Bytes()}} {
		if err := os.WriteFile(filepath.Join(dir, name+out.ext), out.data, 0o644); err != nil {
			return fmt.Errorf("figure: %w", err)
		}
	}
	return nil
}

// CheckDir makes dir and its parents if they are missing and proves dir
// writable by creating and removing a file in it. Callers run it before
// long work so that an unusable plot directory fails at once rather than
// after the work is done.
func CheckDir(dir string) error {
	if dir == "" {
		return errors.New("figure: no plot directory given")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("figure: cannot make plot directory %q: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".figure-check-*")
	if err != nil {
		return fmt.Errorf("figure: plot directory %q is not writable: %w", dir, err)
	}
	closeErr := f.Close()
	removeErr := os.Remove(f.Name())
	if closeErr != nil {
		return fmt.Errorf("figure: plot directory %q is not writable: %w", dir, closeErr)
	}
	if removeErr != nil {
		return fmt.Errorf("figure: cannot remove test file from plot directory %q: %w", dir, removeErr)
	}
	return nil
}

// checkName rejects names that would write outside the directory given to
// Save or to no file at all.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." ||
		strings.ContainsAny(name, `/\`) || filepath.Base(name) != name {
		return fmt.Errorf("figure: name %q is not a plain file name", name)
	}
	return nil
}

// validate reports the first value of f that cannot be drawn faithfully.
func (f *Figure) validate() error {
	if len(f.Series) == 0 {
		return errors.New("no series")
	}
	seen := make(map[string]bool, len(f.Series))
	models := make(map[string]bool)
	for _, s := range f.Series {
		if s.Like == "" {
			models[s.Name] = true
		}
	}
	points := 0
	for i, s := range f.Series {
		if s.Like != "" && !models[s.Like] {
			return fmt.Errorf("series %q is drawn like %q, which is not a series of its own style", s.Name, s.Like)
		}
		if s.Name == "" {
			return fmt.Errorf("series %d has no name", i)
		}
		// The legend is the only key to the lines: two equal names
		// would make it ambiguous.
		if seen[s.Name] {
			return fmt.Errorf("two series are named %q", s.Name)
		}
		seen[s.Name] = true
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("series %q has %d x values but %d y values", s.Name, len(s.X), len(s.Y))
		}
		if s.Err != nil && len(s.Err) != len(s.Y) {
			return fmt.Errorf("series %q has %d error values but %d y values", s.Name, len(s.Err), len(s.Y))
		}
		for j := range s.X {
			x, y := s.X[j], s.Y[j]
			if !finite(x) {
				return fmt.Errorf("series %q point %d: x is %v", s.Name, j, x)
			}
			if !finite(y) {
				return fmt.Errorf("series %q point %d: y is %v", s.Name, j, y)
			}
			if f.LogX && x <= 0 {
				return fmt.Errorf("series %q point %d: x = %v cannot be shown on a log x axis", s.Name, j, x)
			}
			if f.LogY && y <= 0 {
				return fmt.Errorf("series %q point %d: y = %v cannot be shown on a log y axis", s.Name, j, y)
			}
			if s.Err == nil {
				continue
			}
			e := s.Err[j]
			if !finite(e) || e < 0 {
				return fmt.Errorf("series %q point %d: error bar half-height is %v", s.Name, j, e)
			}
			if f.LogY && !s.Reference && y-e <= 0 {
				return fmt.Errorf("series %q point %d: error bar reaches down to %v, which a log y axis cannot show", s.Name, j, y-e)
			}
		}
		points += len(s.X)
	}
	if points == 0 {
		return errors.New("no points in any series")
	}
	return nil
}

func finite(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0)
}

// draw renders the validated f onto c: the chart above, the legend in a
// strip below it so that it never hides a line.
func (f *Figure) draw(c vg.CanvasSizer) error {
	p := plot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	if f.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if f.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	if f.IntegerX {
		p.X.Tick.Marker = integerTicks(f.Series, p.X.Tick.Marker)
	}

	styles := styleIndexes(f.Series)
	var entries []legendEntry
	for i, s := range f.Series {
		col, shape := seriesStyle(styles[i])
		line := draw.LineStyle{Color: col, Width: vg.Points(1.2)}
		if s.Reference {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		glyph := draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: shape}

		xys := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xys[j] = plotter.XY{X: s.X[j], Y: s.Y[j]}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return fmt.Errorf("series %q: %w", s.Name, err)
		}
		l.LineStyle = line
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return fmt.Errorf("series %q: %w", s.Name, err)
		}
		sc.GlyphStyle = glyph
		entries = append(entries, legendEntry{name: s.Name, thumbs: []plot.Thumbnailer{l, sc}})
		if len(xys) == 0 {
			// Listed in the legend, but there is nothing to draw.
			continue
		}

		if s.Err != nil && !s.Reference {
			bars, err := plotter.NewYErrorBars(errorPoints{xys: xys, err: s.Err, fraction: f.Fraction})
			if err != nil {
				return fmt.Errorf("series %q: %w", s.Name, err)
			}
			bars.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(0.8)}
			bars.CapWidth = vg.Points(5)
			p.Add(bars)
		}
		p.Add(l, sc)
	}
	// A single value would otherwise be widened by ±1, which on a log
	// axis can reach zero or below.
	if f.LogX && p.X.Min == p.X.Max {
		p.X.Min, p.X.Max = p.X.Min/2, p.X.Max*2
	}
	if f.LogY && p.Y.Min == p.Y.Max {
		p.Y.Min, p.Y.Max = p.Y.Min/2, p.Y.Max*2
	}

	dc := draw.New(c)
	// The SVG has no background of its own; paint it so that it reads the
	// same as the PNG on a dark page.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	const margin = 4 // points
	dc = draw.Crop(dc, vg.Points(margin), -vg.Points(margin), vg.Points(margin), -vg.Points(margin))

	legendHeight := drawLegend(dc, entries)
	p.Draw(draw.Crop(dc, 0, 0, legendHeight+vg.Points(6), 0))
	return nil
}

// legendEntry is one line of the legend: a name and the styles it shows.
type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// drawLegend draws entries along the bottom of c in as few rows as fit its
// width, filling column by column, centred, and returns the height taken.
func drawLegend(c draw.Canvas, entries []legendEntry) vg.Length {
	const gap = 12 // points between columns
	avail := c.Max.X - c.Min.X
	var (
		cols   []plot.Legend
		widths []vg.Length
		total  vg.Length
	)
	for rows := 1; rows <= len(entries); rows++ {
		cols, widths, total = cols[:0], widths[:0], 0
		for start := 0; start < len(entries); start += rows {
			l := plot.NewLegend()
			l.TextStyle.Font.Size = vg.Points(10)
			l.Top, l.Left = true, true
			l.ThumbnailWidth = vg.Points(24)
			for _, e := range entries[start:min(start+rows, len(entries))] {
				l.Add(e.name, e.thumbs...)
			}
			w := l.Rectangle(c).Size().X
			cols, widths = append(cols, l), append(widths, w)
			if total > 0 {
				total += vg.Points(gap)
			}
			total += w
		}
		if total <= avail {
			break
		}
	}

	var h vg.Length
	for i := range cols {
		h = max(h, cols[i].Rectangle(c).Size().Y)
	}
	x := c.Min.X + max(0, (avail-total)/2)
	for i := range cols {
		col := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: c.Min.Y},
			Max: vg.Point{X: x + widths[i], Y: c.Min.Y + h},
		}}
		cols[i].Draw(col)
		x += widths[i] + vg.Points(gap)
	}
	return h
}

// styleIndexes gives each series its style number: the series without
// Like are numbered in order, and a series with Like shares its model's.
func styleIndexes(series []Series) []int {
	of := make(map[string]int)
	for _, s := range series {
		if s.Like == "" {
			of[s.Name] = len(of)
		}
	}
	out := make([]int, len(series))
	for i, s := range series {
		if s.Like != "" {
			out[i] = of[s.Like]
		} else {
			out[i] = of[s.Name]
		}
	}
	return out
}

// errorPoints gives plotter.NewYErrorBars the points with their
// half-heights, clipped to [0, 1] for fractions.
type errorPoints struct {
	xys      plotter.XYs
	err      []float64
	fraction bool
}

func (e errorPoints) Len() int                { return len(e.xys) }
func (e errorPoints) XY(i int) (x, y float64) { return e.xys[i].X, e.xys[i].Y }
func (e errorPoints) YError(i int) (lo, hi float64) {
	lo, hi = e.err[i], e.err[i]
	if e.fraction {
		y := e.xys[i].Y
		lo, hi = min(lo, max(y, 0)), min(hi, max(1-y, 0))
	}
	return lo, hi
}

// integerTicks returns a tick at every distinct integer x of series, or,
// when there are more than maxIntegerTicks of them, the ticks of fallback
// that fall on integers. With no integer x at all it returns fallback.
func integerTicks(series []Series, fallback plot.Ticker) plot.Ticker {
	if fallback == nil {
		fallback = plot.DefaultTicks{}
	}
	present := make(map[float64]bool)
	for _, s := range series {
		for _, x := range s.X {
			if x == math.Trunc(x) {
				present[x] = true
			}
		}
	}
	switch {
	case len(present) == 0:
		return fallback
	case len(present) > maxIntegerTicks:
		return integerOnly{fallback}
	}
	ticks := make(plot.ConstantTicks, 0, len(present))
	for x := range present {
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', -1, 64)})
	}
	sort.Slice(ticks, func(i, j int) bool { return ticks[i].Value < ticks[j].Value })
	return ticks
}

// integerOnly keeps the ticks of its Ticker that fall on integers.
type integerOnly struct{ plot.Ticker }

func (t integerOnly) Ticks(min, max float64) []plot.Tick {
	var kept []plot.Tick
	for _, tick := range t.Ticker.Ticks(min, max) {
		if tick.Value == math.Trunc(tick.Value) {
			kept = append(kept, tick)
		}
	}
	return kept
}

// logTicks marks a log axis at 1..9 times each power of ten and labels the
// powers. plot.LogTicks labels only powers and starts from the wrong one
// below 1, so a range within one decade, common for objective values, would
// carry no label; here such a range also labels 2 and 5 times the power,
// and failing that falls back to linear ticks, which read correctly over so
// short a range.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	lo := int(math.Floor(math.Log10(min)))
	hi := int(math.Ceil(math.Log10(max)))
	within := func(v float64) bool { return v >= min*(1-1e-12) && v <= max*(1+1e-12) }
	// value parses "me" rather than multiplying, so that labels such as
	// 0.003 print without rounding residue.
	value := func(m, e int) float64 {
		v, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", m, e), 64)
		return v
	}

	powers := 0
	for e := lo; e <= hi; e++ {
		if within(value(1, e)) {
			powers++
		}
	}
	stride := 1 + (powers-1)/maxLogLabels
	labelled := func(m, e int) bool {
		if m == 1 {
			return ((e%stride)+stride)%stride == 0
		}
		return powers < 2 && (m == 2 || m == 5)
	}

	var ticks []plot.Tick
	labels := 0
	for e := lo; e <= hi; e++ {
		for m := 1; m <= 9; m++ {
			v := value(m, e)
			if !within(v) {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled(m, e) {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
				labels++
			}
			ticks = append(ticks, t)
		}
	}
	if labels < 2 {
		ticks = plot.DefaultTicks{}.Ticks(min, max)
		// DefaultTicks pads labels to a common number of decimals
		// ("1750.00"); six significant digits read better.
		for i := range ticks {
			if ticks[i].Label != "" {
				ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 6, 64)
			}
		}
	}
	return ticks
}
