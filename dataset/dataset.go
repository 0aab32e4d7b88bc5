package dataset

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/fileio"
	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// Dataset is a loaded data set: n samples of m features, with optional
// labels. Samples are rows, as in the files of the field; the papers' X
// (m x n) is the transpose.
//
// Exactly one of Sparse and Dense is set. A Dataset returned by Load is
// valid (see Validate); the methods keep it so.
type Dataset struct {
	Source string      // path (or name) it was read from, used in error messages
	Sparse *sparse.CSR // n x m, one row per sample; nil when Dense is set
	Dense  *mat.Dense  // n x m, one row per sample; nil when Sparse is set
	Labels []int       // n labels as stored (e.g. 1-based), nil when the file has none
	// Vocabulary names the m features (the terms of a text corpus), so
	// factors can be read as words; nil when the source has no names.
	// Every method that changes the features keeps it in step.
	Vocabulary []string
	// Words names a text corpus's stems by their most frequent form in
	// the corpus (Words["market"] may be "markets"), for terms shown to a
	// person; a term absent from it reads as itself. nil for a matrix or
	// a corpus read without stemming.
	Words map[string]string
	// ClassNames names the labels (e.g. Reuters topics): ClassNames[l] is
	// the name of label l; nil when the source has none.
	ClassNames map[int]string
	// IDs identifies each sample in its source (e.g. Reuters NEWID); nil
	// when the source has none.
	IDs []string
	// Text is the text pipeline that made the data set from documents
	// (Vectorize and the text loaders), its values term counts; nil for
	// a matrix. An automatic preparation weighs such counts by tf-idf,
	// and a model fitted on them passes new text through Text.
	Text *TextOptions
	// Weighted reports that the values have been weighed or scaled by a
	// preparation (see model.Prepare), so that an automatic preparation
	// does not weigh them again.
	Weighted bool
	// Notes are what a reader decided on its own and a user should hear,
	// such as whether SVMlight indices were read as 0- or 1-based.
	Notes []string
	// Skipped names what TextOptions.SkipUnreadable left out: files of a
	// directory corpus (relative paths) or lines of a line corpus.
	Skipped []string
	// Missing lists the entries whose values are unknown (LoadOptions.Mask),
	// one row per sample, the same shape as the data: their values in
	// Sparse or Dense are zero, and a fit leaves them out of its
	// objective. nil when every entry is known. Every method that changes
	// the samples or features keeps it in step.
	Missing *sparse.CSR
	// Tokens are a text corpus's samples as their terms in text order
	// (stop words are not terms): each token's feature, or -1 for a term
	// that is not one (pruned by document frequency). Sliding-window
	// coherence counts them (package coherence). Only with
	// TextOptions.Tokens, nil otherwise; every method that changes the
	// samples or features keeps it in step, and a transposed data set
	// has none.
	Tokens [][]int32
}

// LoadOptions says how to read a data file. The zero value reads the
// field's usual layout.
type LoadOptions struct {
	// Var is the data variable of a .mat file; "" means "fea".
	Var string
	// LabelVar is the label variable of a .mat file; "" means "gnd". The
	// default variable may be missing (Labels is then nil); one named here
	// must be present.
	LabelVar string
	// Transpose says the file stores features as rows and samples as
	// columns.
	Transpose bool
	// Labels is the path of a text file with one integer label per line,
	// one line per sample (blank lines are ignored). It is how a .mtx or
	// .npy file gets labels, and overrides labels stored in the file.
	Labels string
	// MissingNaN reads NaN values as unknown entries (Dataset.Missing)
	// rather than refusing them: in .npy and .mat files, and fields NaN
	// (in any case) of .csv and .tsv files.
	MissingNaN bool
	// Mask is the path of a Matrix Market file (.mtx, or .mtx.gz) whose
	// stored entries are the data's unknown entries (Dataset.Missing),
	// one row per sample as the data are read (after Transpose); its
	// values are not used. The data's values there are dropped.
	Mask string
	// CSV says how to read .csv and .tsv files (for .tsv the separator is
	// always a tab).
	CSV CSVOptions
	// Reuters selects articles of a Reuters-21578 directory or .sgm files
	// (its Text field is ignored: Text below applies).
	Reuters ReutersOptions
	// Text is the text pipeline of Reuters and plain-text directories:
	// tokens, stop words, stemming and pruning, to term counts.
	Text TextOptions
	// MemoryLimit bounds the memory the data set read from a file may
	// take (its values as float64, and their indices), checked before
	// the reader allocates it: 0 means max(256 MiB, 64 times the file's
	// size), so that a small file (a compressed array of zeros, a size
	// line claiming billions of entries) cannot exhaust memory; a
	// negative value means no bound. Text corpora are not bounded here.
	MemoryLimit int64
	// Progress, when set, is called as a data file is read with the bytes
	// read so far and the file's size (of a .gz file, its compressed bytes).
	// Text corpora do not report it.
	Progress func(read, size int64)
}

// Load reads a data set from path. A directory, a .sgm / .sgm.gz file or a
// .txt / .txt.gz file is a text corpus (see IsTextSource): Reuters-21578
// SGML (LoadReuters), a directory of documents, one per file (LoadTextDir),
// or one document per line (LoadTextLines; "label<TAB>text" when
// opt.CSV.LabelColumn is "1"), turned into term counts by opt.Text (which
// model.Prepare weighs). Other files are chosen by extension, each also
// gzip-compressed with a further ".gz": .mat (MATLAB level 5, variables
// opt.Var and opt.LabelVar), .mtx (Matrix Market, coordinate or array),
// .svm, .svmlight or .libsvm (see ReadSVMLight), .csv or .tsv (see
// ReadCSV), .npy (NumPy, a 2-D array of a numeric type). A directory
// holding parts.json is a data set split by WriteParts. Files store one
// sample per row unless opt.Transpose. The result is valid and non-empty.
func Load(ctx context.Context, path string, opt LoadOptions) (*Dataset, error) {
	if opt.Reuters.Text != (TextOptions{}) {
		return nil, fmt.Errorf("%s: LoadOptions.Reuters.Text is set, but Load's text pipeline is LoadOptions.Text (Reuters.Text is LoadReuters's own)", path)
	}
	var d *Dataset
	var err error
	if matrixio.IsParts(path) {
		man, err := matrixio.ReadParts(path)
		if err != nil {
			return nil, err
		}
		return LoadRows(ctx, path, 0, man.Samples, opt)
	}
	if IsTextSource(path) {
		d, err = loadText(ctx, path, opt)
	} else {
		d, err = loadFile(ctx, path, opt)
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("%s: %w", path, cerr)
		}
		return nil, err
	}
	if opt.Labels != "" {
		n, _ := d.Dims()
		if d.Labels, err = readLabelFile(opt.Labels, n); err != nil {
			return nil, err
		}
	}
	if opt.MissingNaN {
		if opt.Mask != "" {
			return nil, fmt.Errorf("%s: unknown entries given twice, as NaN (MissingNaN) and as a mask (%s): give them one way", path, opt.Mask)
		}
		d.nanToMissing()
	}
	if opt.Mask != "" {
		if err := d.readMask(opt.Mask); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// nanToMissing records d's NaN values as Missing and drops them.
func (d *Dataset) nanToMissing() {
	n, m := d.Dims()
	h := &sparse.CSR{Rows: n, Cols: m, Indptr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		if d.Dense != nil {
			for j, x := range d.Dense.RawRowView(i) {
				if math.IsNaN(x) {
					h.Ind = append(h.Ind, j)
				}
			}
		} else {
			a := d.Sparse
			for q := a.Indptr[i]; q < a.Indptr[i+1]; q++ {
				if math.IsNaN(a.Val[q]) {
					h.Ind = append(h.Ind, a.Ind[q])
				}
			}
		}
		h.Indptr[i+1] = len(h.Ind)
	}
	h.Val = make([]float64, len(h.Ind))
	d.setMissing(h) // h has d's shape and is valid: no error
}

// readMask reads the Matrix Market file path as d's unknown entries
// (LoadOptions.Mask) and drops d's values there.
func (d *Dataset) readMask(path string) error {
	a, dense, err := matrixio.ReadMatrixMarketFile(path)
	if err != nil {
		return err
	}
	if dense != nil {
		a = sparse.FromMatrix(dense)
	}
	n, m := d.Dims()
	if a.Rows != n || a.Cols != m {
		return fmt.Errorf("%s: a mask of %d x %d entries for %s's %d samples x %d features", path, a.Rows, a.Cols, d.Source, n, m)
	}
	return d.setMissing(a)
}

// WithMissing returns a copy of d whose entries at h's stored positions
// (d's shape, one row per sample; h's values are not used) are unknown:
// Missing lists them and their values are dropped. d is not changed; the
// copy shares its labels and names. An empty h gives d's copy without
// unknown entries.
func (d *Dataset) WithMissing(h *sparse.CSR) (*Dataset, error) {
	if d.Missing != nil {
		return nil, fmt.Errorf("%s: the data set has unknown entries already", d.Source)
	}
	out := *d
	if d.Dense != nil {
		out.Dense = mat.DenseCopyOf(d.Dense)
	}
	if err := out.setMissing(h); err != nil {
		return nil, err
	}
	return &out, nil
}

// setMissing makes h's stored positions d's unknown entries (Missing, a
// pattern of them) and drops d's values there; an empty h sets nothing.
func (d *Dataset) setMissing(h *sparse.CSR) error {
	n, m := d.Dims()
	if h.Rows != n || h.Cols != m {
		return fmt.Errorf("%s: %d x %d unknown entries for %d samples x %d features", d.Source, h.Rows, h.Cols, n, m)
	}
	if err := h.Validate(); err != nil {
		return fmt.Errorf("%s: unknown entries: %v", d.Source, err)
	}
	if h.NNZ() == 0 {
		return nil
	}
	pattern := &sparse.CSR{Rows: n, Cols: m, Indptr: slices.Clone(h.Indptr), Ind: slices.Clone(h.Ind), Val: make([]float64, h.NNZ())}
	for i := range pattern.Val {
		pattern.Val[i] = 1
	}
	d.Missing = pattern
	d.zeroMissing()
	return nil
}

// zeroMissing drops the stored values at Missing's entries (sparse) or
// sets them to zero (dense).
func (d *Dataset) zeroMissing() {
	h := d.Missing
	if d.Dense != nil {
		for i := 0; i < h.Rows; i++ {
			for q := h.Indptr[i]; q < h.Indptr[i+1]; q++ {
				d.Dense.Set(i, h.Ind[q], 0)
			}
		}
		return
	}
	a := d.Sparse
	out := &sparse.CSR{Rows: a.Rows, Cols: a.Cols, Indptr: make([]int, a.Rows+1)}
	for i := 0; i < a.Rows; i++ {
		hid := h.Ind[h.Indptr[i]:h.Indptr[i+1]]
		for q := a.Indptr[i]; q < a.Indptr[i+1]; q++ {
			if _, found := slices.BinarySearch(hid, a.Ind[q]); !found {
				out.Ind, out.Val = append(out.Ind, a.Ind[q]), append(out.Val, a.Val[q])
			}
		}
		out.Indptr[i+1] = len(out.Ind)
	}
	d.Sparse = out
}

// loadFile reads a data file chosen by extension (see Load).
func loadFile(ctx context.Context, path string, opt LoadOptions) (*Dataset, error) {
	lower := strings.ToLower(path)
	gz := strings.HasSuffix(lower, ".gz")
	ext := filepath.Ext(strings.TrimSuffix(lower, ".gz"))
	switch ext {
	case ".mat", ".mtx", ".svm", ".svmlight", ".libsvm", ".csv", ".tsv", ".npy":
	default:
		if _, err := os.Stat(path); err != nil {
			// A mistyped name is more likely than an unknown format.
			return nil, err
		}
		return nil, fmt.Errorf("%s: unknown data format %q (want .mat, .mtx, .svm, .libsvm, .csv, .tsv or .npy, optionally .gz)", path, filepath.Ext(path))
	}
	f, err := fileio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	size := matrixio.SizeOf(f)
	if opt.Progress != nil {
		r = &countingReader{r: f, fn: opt.Progress, size: size}
	}
	// Every reader stops at its next read once ctx is done.
	r = &matrixio.CtxReader{Ctx: ctx, R: r}
	budget := opt.MemoryLimit
	if budget == 0 {
		budget = defaultBudget(size)
	}
	if gz {
		zr, err := matrixio.NewGzip(r, path)
		if err != nil {
			return nil, err
		}
		r, size = zr, -1
		if budget > 0 && ext != ".mat" && ext != ".npy" {
			// A text format's data take up to about eight times their
			// text (an SVMlight line "1 1:1" becomes a label, a row
			// pointer, an index and a value, 32 bytes, and slices grow
			// by doubling): bounding the text bounds the data before it
			// is parsed.
			r = &budgetReader{r: r, left: budget / 8, name: path, budget: budget}
		}
	}
	opt.MemoryLimit = budget
	var d *Dataset
	switch ext {
	case ".mat":
		d, err = readMATDataset(r, path, size, opt)
	case ".mtx":
		d, err = readMTXDataset(r, path, size, opt)
	case ".npy":
		var m *mat.Dense
		if m, err = matrixio.ReadNPYBudget(r, path, size, max(budget, 0), opt.MissingNaN); err == nil {
			err = matrixio.NPYEnds(r, path, m)
		}
		if err == nil {
			d, err = transposed(&Dataset{Source: path, Dense: m}, opt.Transpose)
		}
	case ".csv", ".tsv":
		o := opt.CSV
		o.nan = opt.MissingNaN
		if ext == ".tsv" {
			o.Comma = '\t'
		}
		if opt.Transpose && o.LabelColumn != "" {
			return nil, fmt.Errorf("%s: a label column gives one label per row, so the file cannot be transposed", path)
		}
		if d, err = ReadCSV(r, path, o); err == nil {
			d, err = transposed(d, opt.Transpose)
		}
	default: // SVMlight
		if opt.Transpose {
			return nil, fmt.Errorf("%s: an SVMlight file holds one labelled sample per line and cannot be transposed", path)
		}
		var notes SVMLightNotes
		if d, notes, err = ReadSVMLight(r, path); err == nil {
			d.Notes = append(d.Notes, path+": "+notes.String())
		}
	}
	return d, err
}

// The default bound of LoadOptions.MemoryLimit.
const (
	defaultBudgetFloor int64 = 256 << 20
	defaultBudgetRatio int64 = 64
)

// defaultBudget is the memory a file of size bytes (-1: unknown) may
// make a reader take without LoadOptions.MemoryLimit.
func defaultBudget(size int64) int64 {
	return max(defaultBudgetFloor, defaultBudgetRatio*max(size, 0))
}

// budgetReader fails once more than left bytes were read through it.
type budgetReader struct {
	r      io.Reader
	left   int64
	budget int64
	name   string
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, matrixio.StreamErr(b.name, "the decompressed text passes %d bytes, which as values would pass the %d bytes this file may take (%s)", b.budget/8, b.budget, matrixio.BudgetHint)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

// countingReader reports the bytes read through it.
type countingReader struct {
	r          io.Reader
	fn         func(read, size int64)
	read, size int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.read += int64(n)
	c.fn(c.read, c.size)
	return n, err
}

// IsTextSource reports whether Load treats path as a text corpus: a
// directory (but a parts directory, see WriteParts), a Reuters .sgm or
// .sgm.gz file, or a .txt or .txt.gz file of one document per line.
func IsTextSource(path string) bool {
	lower := strings.ToLower(path)
	for _, ext := range []string{".sgm", ".sgm.gz", ".txt", ".txt.gz"} {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir() && !matrixio.IsParts(path)
}

// loadText reads a Reuters corpus (a directory holding .sgm files, or the
// files themselves), a directory of plain-text documents or a file of one
// document per line.
func loadText(ctx context.Context, path string, opt LoadOptions) (*Dataset, error) {
	if opt.Transpose {
		return nil, fmt.Errorf("%s: a text corpus has one document per sample and cannot be transposed", path)
	}
	var d *Dataset
	var err error
	if lower := strings.ToLower(path); strings.HasSuffix(lower, ".txt") || strings.HasSuffix(lower, ".txt.gz") {
		// One document per line; "label<TAB>text" with a label column.
		labelled := false
		switch opt.CSV.LabelColumn {
		case "":
		case "1":
			labelled = true
		default:
			return nil, fmt.Errorf("%s: a file of one document per line has its label, if any, in column 1 (label<TAB>text), not %q", path, opt.CSV.LabelColumn)
		}
		d, _, err = LoadTextLines(ctx, path, labelled, opt.Text)
		return d, err
	}
	if _, ferr := ReutersFiles(path); ferr == nil {
		var others []string
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			if others, err = reutersDirOthers(path); err != nil {
				return nil, err
			}
		}
		ro := opt.Reuters
		ro.Text = opt.Text
		d, _, err = LoadReuters(ctx, []string{path}, ro)
		if err == nil && len(others) > 0 {
			// Documents beside the SGML files are not read: said, not
			// dropped without a word.
			d.Notes = append(d.Notes, fmt.Sprintf("%s: read as Reuters-21578 SGML; %d other files are not read (%s)", path, len(others), strings.Join(others[:min(len(others), 3)], ", ")))
		}
	} else {
		d, _, err = LoadTextDir(ctx, path, opt.Text)
	}
	return d, err
}

// reutersDirOthers lists the files of a directory of Reuters-21578 SGML
// files that are neither SGML nor the distribution's own (lewis.dtd, the
// README and the lists of category names), and refuses a directory that
// also holds folders: a corpus of documents in class folders with a
// stray .sgm file among them is not Reuters, nor is it read as if the
// .sgm file were not there.
func reutersDirOthers(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", dir, pathErr(err))
	}
	var others []string
	for _, e := range entries {
		name := e.Name()
		lower := strings.ToLower(name)
		switch {
		case strings.HasPrefix(name, "."):
		case e.IsDir():
			return nil, fmt.Errorf("%s: holds both Reuters-21578 SGML files and folders (%s): read as neither; give the .sgm files themselves, or move them out of the corpus", dir, name)
		case strings.HasSuffix(lower, ".sgm") || strings.HasSuffix(lower, ".sgm.gz"), lower == "lewis.dtd", strings.HasPrefix(lower, "readme"),
			strings.HasPrefix(lower, "all-") && strings.HasSuffix(lower, ".txt"), strings.HasPrefix(lower, "cat-descriptions"), strings.HasPrefix(lower, "feldman-cia"):
		default:
			others = append(others, name)
		}
	}
	return others, nil
}

// transposed swaps samples and features of a data set read with one
// feature per row, when asked; feature names do not survive it.
func transposed(d *Dataset, transpose bool) (*Dataset, error) {
	if !transpose {
		return d, nil
	}
	out := &Dataset{Source: d.Source}
	if d.Sparse != nil {
		out.Sparse = d.Sparse.T()
	} else {
		r, c := d.Dense.Dims()
		out.Dense = mat.NewDense(c, r, nil)
		matrixio.TransposeInto(out.Dense.RawMatrix().Data, d.Dense.RawMatrix().Data, r, c)
	}
	return out, nil
}

// readMATDataset reads the data and label variables of a MAT-file.
func readMATDataset(r io.Reader, name string, size int64, opt LoadOptions) (*Dataset, error) {
	// Without names given, the field's layout (fea, gnd) is read, or
	// else the CLUTO corpora's (dtm, classid).
	dataVars, labelVars := []string{opt.Var}, []string{opt.LabelVar}
	if opt.Var == "" {
		dataVars = []string{"fea", "dtm"}
	}
	if opt.LabelVar == "" {
		labelVars = []string{"gnd", "classid"}
	}
	want := dataVars
	if opt.Labels == "" {
		want = append(slices.Clone(dataVars), labelVars...)
	}
	vars, names, err := decodeMAT(r, name, size, want, max(opt.MemoryLimit, 0), opt.MissingNaN)
	if err != nil {
		return nil, err
	}
	dataVar, labelVar := dataVars[0], labelVars[0]
	for _, c := range dataVars {
		if vars[c] != nil {
			dataVar = c
			break
		}
	}
	for _, c := range labelVars {
		if vars[c] != nil {
			labelVar = c
			break
		}
	}
	v := vars[dataVar]
	if v == nil {
		return nil, matrixio.StreamErr(name, "no numeric variable %q (%s); choose one with the data variable option", dataVar, variableList(names))
	}
	if v.Rows == 0 || v.Cols == 0 {
		return nil, matrixio.StreamErr(name, "variable %q is empty (%d x %d)", dataVar, v.Rows, v.Cols)
	}
	d := &Dataset{Source: name}
	if dataVar != dataVars[0] {
		d.Notes = append(d.Notes, fmt.Sprintf("%s: no variable %q; read %q (the CLUTO layout)", name, dataVars[0], dataVar))
	}
	// MATLAB's compressed columns of v are the CSR rows of v^T.
	switch {
	case v.Sparse && opt.Transpose:
		d.Sparse = &sparse.CSR{Rows: v.Cols, Cols: v.Rows, Indptr: v.Jc, Ind: v.Ir, Val: v.Pr}
	case v.Sparse:
		d.Sparse = (&sparse.CSR{Rows: v.Cols, Cols: v.Rows, Indptr: v.Jc, Ind: v.Ir, Val: v.Pr}).T()
	case opt.Transpose:
		// Column-major m x n is row-major n x m.
		d.Dense = mat.NewDense(v.Cols, v.Rows, v.Data)
	default:
		d.Dense = mat.NewDense(v.Rows, v.Cols, nil)
		matrixio.TransposeInto(d.Dense.RawMatrix().Data, v.Data, v.Cols, v.Rows)
	}
	if opt.Labels != "" {
		return d, nil
	}
	g := vars[labelVar]
	if g == nil {
		if opt.LabelVar != "" {
			return nil, matrixio.StreamErr(name, "no numeric label variable %q (%s)", labelVar, variableList(names))
		}
		return d, nil
	}
	n, _ := d.Dims()
	if d.Labels, err = labelsFromVar(name, g, n); err != nil {
		return nil, err
	}
	return d, nil
}

// labelsFromVar converts a label vector (either orientation) to n ints.
func labelsFromVar(name string, g *matVar, n int) ([]int, error) {
	if g.Rows != 1 && g.Cols != 1 {
		return nil, matrixio.StreamErr(name, "labels %q are a %d x %d matrix, want a vector", g.Name, g.Rows, g.Cols)
	}
	if k := g.Rows * g.Cols; k != n {
		return nil, matrixio.StreamErr(name, "labels %q hold %d values (%d x %d) for %d samples", g.Name, k, g.Rows, g.Cols, n)
	}
	vals := g.Data
	if g.Sparse {
		vals = make([]float64, n)
		for j := 0; j < g.Cols; j++ {
			for p := g.Jc[j]; p < g.Jc[j+1]; p++ {
				vals[j*g.Rows+g.Ir[p]] = g.Pr[p]
			}
		}
	}
	labels := make([]int, n)
	for k, x := range vals {
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return nil, matrixio.StreamErr(name, "labels %q: element %d is %v, not an integer", g.Name, k+1, x)
		}
		labels[k] = int(x)
	}
	return labels, nil
}

// readMTXDataset reads a Matrix Market file of samples x features (or the
// transpose).
func readMTXDataset(r io.Reader, name string, size int64, opt LoadOptions) (*Dataset, error) {
	a, dense, summed, err := matrixio.ReadMTXSummed(r, name, size)
	if err != nil {
		return nil, err
	}
	d, _ := transposed(&Dataset{Source: name, Sparse: a, Dense: dense}, opt.Transpose)
	if summed > 0 {
		// Allowed (scipy's mmread adds them too), but rarely meant.
		d.Notes = append(d.Notes, fmt.Sprintf("%s: %d entries repeat a position listed before them; each was added to it", name, summed))
	}
	if n, m := d.Dims(); n == 0 || m == 0 {
		return nil, matrixio.StreamErr(name, "empty data set (%d samples x %d features)", n, m)
	}
	return d, nil
}

// readLabelFile reads a label file with ReadLabels and checks that it has
// one label for each of the n samples.
func readLabelFile(path string, n int) ([]int, error) {
	f, err := fileio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	labels, err := readLabels(f, path, n)
	if err != nil {
		return nil, err
	}
	if len(labels) != n {
		return nil, fmt.Errorf("%s: %d labels for %d samples", path, len(labels), n)
	}
	return labels, nil
}

// ReadLabels reads one integer label per non-blank line. Errors name the
// source and the line.
func ReadLabels(r io.Reader, name string) ([]int, error) {
	return readLabels(r, name, -1)
}

// readLabels reads labels, stopping with an error past max labels when max
// is not negative (so a huge file for a small data set is not read whole).
func readLabels(r io.Reader, name string, max int) ([]int, error) {
	var labels []int
	if max >= 0 {
		labels = make([]int, 0, min(max, 1<<20))
	}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		if line == 1 {
			s = strings.TrimPrefix(s, "\ufeff") // a byte-order mark
		}
		// The labels of every reader: whole numbers, "2" or "2.0".
		x, err := parseLabel([]byte(s))
		if err != nil {
			return nil, matrixio.ValueErr(name, line, 1, s, "label %q is not an integer", s)
		}
		if max >= 0 && len(labels) == max {
			return nil, matrixio.LineErr(name, line, "more labels than the %d samples", max)
		}
		labels = append(labels, x)
	}
	if err := sc.Err(); err != nil {
		return nil, matrixio.LineErr(name, line+1, "%v", err)
	}
	return labels, nil
}

// Dims returns the number of samples and features.
func (d *Dataset) Dims() (samples, features int) {
	if d.Sparse != nil {
		return d.Sparse.Dims()
	}
	return d.Dense.Dims()
}

// NNZ returns the number of stored entries (for dense data, of non-zero
// values).
func (d *Dataset) NNZ() int {
	if d.Sparse != nil {
		return d.Sparse.NNZ()
	}
	nnz := 0
	d.eachDenseRow(func(_ int, row []float64) {
		for _, x := range row {
			if x != 0 {
				nnz++
			}
		}
	})
	return nnz
}

// eachDenseRow calls fn with each row of the dense data, in order.
func (d *Dataset) eachDenseRow(fn func(i int, row []float64)) {
	raw := d.Dense.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		fn(i, raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols])
	}
}

// Classes returns the distinct labels in increasing order and how many
// samples carry each; both are nil when there are no labels.
func (d *Dataset) Classes() (labels []int, sizes []int) {
	if d.Labels == nil {
		return nil, nil
	}
	count := make(map[int]int)
	for _, l := range d.Labels {
		count[l]++
	}
	labels = make([]int, 0, len(count))
	for l := range count {
		labels = append(labels, l)
	}
	sort.Ints(labels)
	sizes = make([]int, len(labels))
	for k, l := range labels {
		sizes[k] = count[l]
	}
	return labels, sizes
}

// Validate reports the first way in which d is inconsistent: not exactly
// one of Sparse and Dense, an invalid CSR, a non-finite value, or labels
// whose count differs from the number of samples.
func (d *Dataset) Validate() error {
	_, err := d.Scan()
	return err
}

// Scan is Validate, which also returns what the sparse matrix's check
// learns of its values on the way (sparse.CSR.Scan); the Stats are zero,
// FirstNegative -1, for dense data or when err is not nil.
func (d *Dataset) Scan() (sparse.Stats, error) {
	none := sparse.Stats{FirstNegative: -1}
	if (d.Sparse == nil) == (d.Dense == nil) {
		return none, fmt.Errorf("%s: exactly one of Sparse and Dense must be set", d.Source)
	}
	st := none
	if d.Sparse != nil {
		var err error
		if st, err = d.Sparse.Scan(); err != nil {
			return none, fmt.Errorf("%s: %v", d.Source, err)
		}
	} else {
		var err error
		d.eachDenseRow(func(i int, row []float64) {
			for j, x := range row {
				if err == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
					err = fmt.Errorf("%s: sample %d, feature %d (1-based): value %v is not finite%s", d.Source, i+1, j+1, x, matrixio.NaNHint(x))
				}
			}
		})
		if err != nil {
			return none, err
		}
	}
	n, m := d.Dims()
	if d.Labels != nil && len(d.Labels) != n {
		return none, fmt.Errorf("%s: %d labels for %d samples", d.Source, len(d.Labels), n)
	}
	if d.Vocabulary != nil && len(d.Vocabulary) != m {
		return none, fmt.Errorf("%s: %d feature names (Vocabulary) for %d features", d.Source, len(d.Vocabulary), m)
	}
	if d.IDs != nil && len(d.IDs) != n {
		return none, fmt.Errorf("%s: %d sample IDs for %d samples", d.Source, len(d.IDs), n)
	}
	if h := d.Missing; h != nil {
		if h.Rows != n || h.Cols != m {
			return none, fmt.Errorf("%s: %d x %d missing entries for %d samples x %d features", d.Source, h.Rows, h.Cols, n, m)
		}
		if err := h.Validate(); err != nil {
			return none, fmt.Errorf("%s: missing entries: %v", d.Source, err)
		}
	}
	return st, nil
}

// New returns a data set of the samples in m, one per row, with labels
// (one per row, or nil), named source in errors: sparse when m is a
// sparse.Matrix (sharing its CSR), dense otherwise (a *mat.Dense shared,
// any other mat.Matrix copied), and checked as Load's results are.
func New(source string, m mat.Matrix, labels []int) (*Dataset, error) {
	if m == nil {
		return nil, fmt.Errorf("%s: no data matrix", source)
	}
	d := &Dataset{Source: source, Labels: labels}
	if s, ok := m.(sparse.Matrix); ok {
		d.Sparse = s.A
	} else {
		if r, c := m.Dims(); r == 0 || c == 0 {
			return nil, fmt.Errorf("%s: a %d x %d matrix holds no data", source, r, c)
		}
		d.Dense = sparse.DenseOf(m)
	}
	if d.Sparse != nil && d.Sparse.Rows == 0 {
		return nil, fmt.Errorf("%s: no samples", source)
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// CheckNonNegative returns an error naming the first negative value (in
// sample order) and its sample and feature, 1-based; nil when there is
// none.
func (d *Dataset) CheckNonNegative() error {
	i, j, x, found := d.firstNegative()
	if !found {
		return nil
	}
	return fmt.Errorf("%s: negative value %v at sample %d, feature %d (row %d, column %d of the samples x features matrix, 1-based)", d.Source, x, i+1, j+1, i+1, j+1)
}

func (d *Dataset) firstNegative() (i, j int, x float64, found bool) {
	return d.first(func(x float64) bool { return x < 0 })
}

// first returns the first stored entry, in row order, for which bad holds
// (sparse.CSR.First: in parallel, the same for any thread count).
func (d *Dataset) first(bad func(float64) bool) (i, j int, x float64, found bool) {
	if a := d.Sparse; a != nil {
		p, found := a.First(bad)
		if !found {
			return 0, 0, 0, false
		}
		return a.RowOf(p), a.Ind[p], a.Val[p], true
	}
	raw := d.Dense.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		for j, x := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if bad(x) {
				return i, j, x, true
			}
		}
	}
	return 0, 0, 0, false
}

// DocumentFrequency returns, for each feature, the number of samples in
// which it is non-zero (stored zeros do not count).
func (d *Dataset) DocumentFrequency() []int {
	_, m := d.Dims()
	df := make([]int, m)
	if a := d.Sparse; a != nil {
		// Blocks of rows count on their own and the counts are added:
		// integers, so the result is the same for any number of blocks.
		blocks := max(1, min(parallel.Threads(0), len(a.Ind)/(1<<18), len(a.Ind)/(4*max(m, 1))))
		counts := make([][]int, blocks)
		counts[0] = df
		parallel.For(blocks, blocks, 1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				c := counts[b]
				if c == nil {
					c = make([]int, m)
					counts[b] = c
				}
				r0, r1 := b*a.Rows/blocks, (b+1)*a.Rows/blocks
				for p := a.Indptr[r0]; p < a.Indptr[r1]; p++ {
					if a.Val[p] != 0 {
						c[a.Ind[p]]++
					}
				}
			}
		})
		for _, c := range counts[1:] {
			for j, x := range c {
				df[j] += x
			}
		}
		return df
	}
	d.eachDenseRow(func(_ int, row []float64) {
		for j, x := range row {
			if x != 0 {
				df[j]++
			}
		}
	})
	return df
}

// TFIDF weights term counts in place: x_ij = tf_ij log(n / df_j), where n
// is the number of samples and df_j the number of samples in which feature
// j is non-zero (Xu, Liu and Gong, SIGIR 2003, section 3.1). A feature that
// occurs in every sample gets weight zero; its stored entries stay, as
// zeros. The counts must be non-negative. It sets Weighted.
func (d *Dataset) TFIDF() error {
	if err := d.CheckNonNegative(); err != nil {
		return fmt.Errorf("tf-idf needs term counts: %w", err)
	}
	d.WeighTerms(d.IDF(), false)
	d.Weighted = true
	return nil
}

// LogTFIDF weights term counts in place with a sublinear term frequency:
// x_ij = (1 + ln tf_ij) log(n / df_j) where tf_ij > 0, zero elsewhere, n and
// df_j as in TFIDF. It is the weighting of the reference code (tfidf.m) of
// the first author of papers 000-003, whose text says only "tf-idf"; a word
// repeated ten times weighs about three times one said once, not ten.
// Every non-zero count must be at least 1 (1 + ln tf turns negative below
// 1/e); the error names the first that is not. It sets Weighted.
func (d *Dataset) LogTFIDF() error {
	if err := d.CheckLogCounts(); err != nil {
		return err
	}
	d.WeighTerms(d.IDF(), true)
	d.Weighted = true
	return nil
}

// CheckLogCounts reports the first value that log tf-idf cannot weigh: a
// negative one, or a non-zero below 1.
func (d *Dataset) CheckLogCounts() error {
	// One pass in the common case: a negative value fails the rule too,
	// and only then is the first negative looked for, which is the one
	// reported when there is any.
	i, j, x, found := d.first(func(x float64) bool { return x != 0 && !(x >= 1) })
	if !found {
		return nil
	}
	if err := d.CheckNonNegative(); err != nil {
		return fmt.Errorf("tf-idf needs term counts: %w", err)
	}
	return fmt.Errorf("%s: value %v at sample %d, feature %d: log tf-idf needs term counts, every non-zero at least 1", d.Source, x, i+1, j+1)
}

// prepareRows is the rows a goroutine weighs or normalizes at a time.
const prepareRows = 2048

// IDF returns each feature's inverse document frequency log(n / df_j),
// with n the number of samples and df_j the number in which feature j is
// non-zero; 0 for a feature no sample uses. It is what TFIDF and LogTFIDF
// weigh by, and what a fitted model keeps to weigh new samples as it
// weighed its training corpus.
func (d *Dataset) IDF() []float64 {
	n, _ := d.Dims()
	return IDFOf(d.DocumentFrequency(), n)
}

// IDFOf returns the inverse document frequencies log(n / df_j) of n
// samples in which feature j is non-zero df_j times, 0 where df_j is 0:
// IDF from counts made elsewhere, such as those of a corpus whose samples
// are spread over processes (model.PrepareShard).
func IDFOf(df []int, n int) []float64 {
	w := make([]float64, len(df))
	for j, c := range df {
		if c > 0 {
			w[j] = math.Log(float64(n) / float64(c))
		}
	}
	return w
}

// sublinearTF[n] is 1 + ln n, LogTFIDF's term weight of a count n, for the
// small counts.
var sublinearTF = func() (t [1024]float64) {
	for n := 1; n < len(t); n++ {
		t[n] = 1 + math.Log(float64(n))
	}
	return t
}()

// WeighTerms replaces each entry tf of feature j by tf idf[j], or with
// sublinear by (1 + ln tf) idf[j] (0 where tf is 0): TFIDF and LogTFIDF
// with the idf given rather than the data's own, so that new samples are
// weighed by their training corpus's idf. It checks nothing: the callers
// check the values (see TFIDF and LogTFIDF), and it panics when idf has
// not one entry per feature.
func (d *Dataset) WeighTerms(idf []float64, sublinear bool) {
	if _, m := d.Dims(); len(idf) != m {
		panic(fmt.Sprintf("dataset: WeighTerms: %d weights for %d features", len(idf), m))
	}
	f := func(tf float64) float64 { return tf }
	if sublinear {
		f = func(tf float64) float64 {
			if tf == 0 {
				return 0
			}
			// Most counts are small whole numbers: their values come from
			// a table of the same expression (a logarithm an entry was a
			// large part of Prepare's time on large corpora).
			if n := int(tf); float64(n) == tf && n > 0 && n < len(sublinearTF) {
				return sublinearTF[n]
			}
			return 1 + math.Log(tf)
		}
	}
	w := idf
	if a := d.Sparse; a != nil {
		// Each entry on its own: the same result for any thread count.
		parallel.For(a.Rows, 0, prepareRows, func(lo, hi int) {
			for p := a.Indptr[lo]; p < a.Indptr[hi]; p++ {
				a.Val[p] = f(a.Val[p]) * w[a.Ind[p]]
			}
		})
		return
	}
	d.eachDenseRow(func(_ int, row []float64) {
		for j, x := range row {
			row[j] = f(x) * w[j]
		}
	})
}

// NormalizeL2 scales each sample to unit Euclidean length in place and
// returns how many samples are all zero (they are left as they are). It
// sets Weighted.
func (d *Dataset) NormalizeL2() (zero int) {
	d.Weighted = true
	if a := d.Sparse; a != nil {
		empty := make([]bool, a.Rows)
		parallel.For(a.Rows, 0, prepareRows, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				row := a.Val[a.Indptr[i]:a.Indptr[i+1]]
				if norm := floats.Norm(row, 2); norm > 0 {
					floats.Scale(1/norm, row)
				} else {
					empty[i] = true
				}
			}
		})
		for _, e := range empty {
			if e {
				zero++
			}
		}
		return zero
	}
	d.eachDenseRow(func(_ int, row []float64) {
		if norm := floats.Norm(row, 2); norm > 0 {
			floats.Scale(1/norm, row)
		} else {
			zero++
		}
	})
	return zero
}

// DropZeroFeatures removes the features that are zero in every sample and
// returns the original indices of those kept, in increasing order. If every
// feature is zero, dense data becomes an empty sparse matrix (gonum has no
// dense matrix without columns).
func (d *Dataset) DropZeroFeatures() (kept []int) {
	return d.KeepUsedFeatures(d.DocumentFrequency())
}

// KeepUsedFeatures keeps the features whose df is positive and returns
// their original indices, in increasing order: DropZeroFeatures with the
// counts given (DocumentFrequency's, or their sum over the parts of a
// corpus spread over processes). df must have one count per feature.
func (d *Dataset) KeepUsedFeatures(df []int) (kept []int) {
	if _, m := d.Dims(); len(df) != m {
		panic(fmt.Sprintf("dataset: KeepUsedFeatures: %d counts for %d features", len(df), m))
	}
	for j, c := range df {
		if c > 0 {
			kept = append(kept, j)
		}
	}
	if len(kept) < len(df) && d.Vocabulary != nil {
		v := make([]string, len(kept))
		for q, j := range kept {
			v[q] = d.Vocabulary[j]
		}
		d.Vocabulary = v
	}
	if d.Missing != nil && len(kept) < len(df) {
		d.Missing = d.Missing.SelectCols(kept)
	}
	if d.Tokens != nil && len(kept) < len(df) {
		to := make([]int32, len(df))
		for j := range to {
			to[j] = -1
		}
		for q, j := range kept {
			to[j] = int32(q)
		}
		d.Tokens = remapTokens(d.Tokens, to)
	}
	switch {
	case len(kept) == len(df):
		return kept
	case d.Sparse != nil:
		d.Sparse = d.Sparse.SelectCols(kept)
	case len(kept) == 0:
		n, _ := d.Dims()
		d.Sparse = &sparse.CSR{Rows: n, Indptr: make([]int, n+1)}
		d.Dense = nil
	default:
		n, _ := d.Dims()
		out := mat.NewDense(n, len(kept), nil)
		dst := out.RawMatrix()
		d.eachDenseRow(func(i int, row []float64) {
			o := dst.Data[i*dst.Stride : i*dst.Stride+dst.Cols]
			for q, j := range kept {
				o[q] = row[j]
			}
		})
		d.Dense = out
	}
	return kept
}

// remapTokens returns new sequences in which each feature f of tokens is
// to[f] (-1 for none); tokens are not changed, since SelectSamples shares
// them between data sets.
func remapTokens(tokens [][]int32, to []int32) [][]int32 {
	total := 0
	for _, t := range tokens {
		total += len(t)
	}
	flat := make([]int32, 0, total)
	out := make([][]int32, len(tokens))
	for i, t := range tokens {
		start := len(flat)
		for _, f := range t {
			if f >= 0 {
				f = to[f]
			}
			flat = append(flat, f)
		}
		out[i] = flat[start:len(flat):len(flat)]
	}
	return out
}

// SelectSamples returns a new Dataset holding copies of the samples idx (in
// that order) and their labels. idx must be non-empty with every index in
// range; SelectSamples panics otherwise.
func (d *Dataset) SelectSamples(idx []int) *Dataset {
	if len(idx) == 0 {
		panic("dataset: SelectSamples needs at least one sample")
	}
	n, m := d.Dims()
	out := &Dataset{Source: d.Source, Vocabulary: d.Vocabulary, Words: d.Words, ClassNames: d.ClassNames, Text: d.Text, Weighted: d.Weighted}
	for _, i := range idx {
		if i < 0 || i >= n {
			panic("dataset: SelectSamples index out of range")
		}
	}
	if d.Missing != nil {
		out.Missing = d.Missing.SelectRows(idx)
	}
	if d.Tokens != nil {
		// The sequences are shared: methods that renumber features make
		// new ones (remapTokens).
		out.Tokens = make([][]int32, len(idx))
		for q, i := range idx {
			out.Tokens[q] = d.Tokens[i]
		}
	}
	if d.Sparse != nil {
		out.Sparse = d.Sparse.SelectRows(idx)
	} else {
		out.Dense = mat.NewDense(len(idx), m, nil)
		for q, i := range idx {
			out.Dense.SetRow(q, d.Dense.RawRowView(i))
		}
	}
	if d.Labels != nil {
		out.Labels = make([]int, len(idx))
		for q, i := range idx {
			out.Labels[q] = d.Labels[i]
		}
	}
	if d.IDs != nil {
		out.IDs = make([]string, len(idx))
		for q, i := range idx {
			out.IDs[q] = d.IDs[i]
		}
	}
	return out
}

// MapFeatures renumbers the features: feature j becomes feature to[j] of
// a data set of m features, or is dropped when to[j] is negative; the
// features nothing maps to are zero. It is how new samples are aligned
// with the features of a fitted model. It returns how many features were
// dropped and how many stored non-zeros they held. Vocabulary becomes
// names (one per new feature), or nil when names is nil. It panics when
// to has not one entry per feature, maps two features to one or maps one
// outside [0, m).
func (d *Dataset) MapFeatures(to []int, m int, names []string) (dropped, droppedEntries int) {
	_, m0 := d.Dims()
	if len(to) != m0 || (names != nil && len(names) != m) {
		panic(fmt.Sprintf("dataset: MapFeatures: %d targets for %d features, %d names for %d", len(to), m0, len(names), m))
	}
	seen := make([]bool, m)
	for _, t := range to {
		if t >= m || (t >= 0 && seen[t]) {
			panic(fmt.Sprintf("dataset: MapFeatures: target %d repeated or outside [0, %d)", t, m))
		}
		if t < 0 {
			dropped++
		} else {
			seen[t] = true
		}
	}
	n, _ := d.Dims()
	if d.Tokens != nil {
		to32 := make([]int32, len(to))
		for j, t := range to {
			to32[j] = int32(max(t, -1))
		}
		d.Tokens = remapTokens(d.Tokens, to32)
	}
	if h := d.Missing; h != nil {
		out := &sparse.CSR{Rows: n, Cols: m, Indptr: make([]int, n+1)}
		for i := 0; i < n; i++ {
			row0 := len(out.Ind)
			for _, j := range h.Ind[h.Indptr[i]:h.Indptr[i+1]] {
				if t := to[j]; t >= 0 {
					out.Ind = append(out.Ind, t)
				}
			}
			slices.Sort(out.Ind[row0:])
			out.Indptr[i+1] = len(out.Ind)
		}
		out.Val = make([]float64, len(out.Ind))
		for q := range out.Val {
			out.Val[q] = 1
		}
		d.Missing = out
	}
	if a := d.Sparse; a != nil {
		out := &sparse.CSR{Rows: n, Cols: m, Indptr: make([]int, n+1)}
		type entry struct {
			j int
			x float64
		}
		var row []entry
		for i := 0; i < n; i++ {
			row = row[:0]
			for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
				if t := to[a.Ind[p]]; t >= 0 {
					row = append(row, entry{t, a.Val[p]})
				} else if a.Val[p] != 0 {
					droppedEntries++
				}
			}
			slices.SortFunc(row, func(x, y entry) int { return x.j - y.j })
			for _, e := range row {
				out.Ind = append(out.Ind, e.j)
				out.Val = append(out.Val, e.x)
			}
			out.Indptr[i+1] = len(out.Ind)
		}
		d.Sparse = out
	} else {
		if m == 0 {
			panic("dataset: MapFeatures: dense data needs at least one feature")
		}
		out := mat.NewDense(n, m, nil)
		d.eachDenseRow(func(i int, row []float64) {
			o := out.RawRowView(i)
			for j, x := range row {
				if t := to[j]; t >= 0 {
					o[t] = x
				} else if x != 0 {
					droppedEntries++
				}
			}
		})
		d.Dense = out
	}
	d.Vocabulary = names
	return dropped, droppedEntries
}
