package dataset

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/fileio"
	"github.com/manifactor/manifactor/sparse"
)

// PartsFile is the manifest of a data set stored as row blocks: a
// directory holding it and one Matrix Market file per block of
// consecutive samples (WriteParts), so that each process of a distributed
// job reads only the blocks of its own samples (LoadRows). Load reads such
// a directory whole.
const PartsFile = "parts.json"

// partsFormat names the manifest's layout, for readers to check.
const partsFormat = "manifactor-parts 1"

// maxManifestBytes bounds parts.json, which is read whole: a manifest of
// a million parts is a few tens of megabytes.
const maxManifestBytes = 64 << 20

// Parts is a parts directory's manifest.
type Parts struct {
	Format   string `json:"format"`
	Samples  int    `json:"samples"`
	Features int    `json:"features"`
	// NNZ counts the entries stored: a sparse part's, rows x features of
	// a dense one.
	NNZ int `json:"nnz"`
	// Sparse says the parts are Matrix Market coordinate files; dense
	// data are array files.
	Sparse bool `json:"sparse"`
	// Weighted is Dataset.Weighted of the data set split.
	Weighted bool `json:"weighted"`
	// Text is Dataset.Text of the data set split: the text pipeline that
	// made its term counts, nil for a matrix.
	Text *TextOptions `json:"text,omitempty"`
	// Labels and Names are files of one label per sample and one name per
	// feature, in the directory; empty when the data set has none.
	Labels string `json:"labels,omitempty"`
	Names  string `json:"feature_names,omitempty"`
	// Parts are the row blocks in order of their samples.
	Parts []Part `json:"parts"`
}

// Part is one row block of a parts directory.
type Part struct {
	File  string `json:"file"`
	First int    `json:"first"` // its first sample, 0-based
	Rows  int    `json:"rows"`
	NNZ   int    `json:"nnz"`
}

// IsParts reports whether path is a parts directory (holds PartsFile).
func IsParts(path string) bool {
	st, err := os.Stat(filepath.Join(path, PartsFile))
	return err == nil && st.Mode().IsRegular()
}

// PartsOptions says how WriteParts splits a data set.
type PartsOptions struct {
	// Parts is the number of row blocks, as even as integers allow, 1 <=
	// Parts <= samples.
	Parts int
}

// WriteParts writes d as a parts directory of opt.Parts row blocks, through
// create, which writes a file of the directory by name (such as
// outdir.Dir.WriteFile): part-00000.mtx and on, labels.txt and
// features.txt when d has labels and feature names, and PartsFile last.
// The values are written exactly (see WriteMatrixMarket).
func WriteParts(d *Dataset, opt PartsOptions, create func(name string, write func(io.Writer) error) error) (*Parts, error) {
	parts := opt.Parts
	if err := d.Validate(); err != nil {
		return nil, err
	}
	n, m := d.Dims()
	if parts < 1 || parts > n {
		return nil, fmt.Errorf("%s: %d parts of %d samples: want 1 to %d", d.Source, parts, n, n)
	}
	man := NewParts(n, m, d.Sparse != nil)
	man.Weighted, man.Text = d.Weighted, d.Text
	for t := 0; t < parts; t++ {
		lo, hi := t*n/parts, (t+1)*n/parts
		file := PartName(t)
		var write func(io.Writer) error
		var nnz int
		if a := d.Sparse; a != nil {
			block := a.RowSlice(lo, hi)
			nnz = block.NNZ()
			write = func(w io.Writer) error { return WriteMatrixMarket(w, block) }
		} else {
			block := d.Dense.Slice(lo, hi, 0, m)
			nnz = (hi - lo) * m
			write = func(w io.Writer) error { return WriteMatrixMarketDense(w, block) }
		}
		if err := create(file, write); err != nil {
			return nil, err
		}
		man.Add(file, hi-lo, nnz)
	}
	if d.Labels != nil {
		man.Labels = "labels.txt"
		if err := create(man.Labels, func(w io.Writer) error {
			return writeLines(w, len(d.Labels), func(i int) string { return strconv.Itoa(d.Labels[i]) })
		}); err != nil {
			return nil, err
		}
	}
	if d.Vocabulary != nil {
		for j, name := range d.Vocabulary {
			if name == "" || strings.ContainsAny(name, "\r\n") || strings.TrimSpace(name) != name {
				return nil, fmt.Errorf("%s: feature %d's name %q cannot be written one per line", d.Source, j+1, name)
			}
		}
		man.Names = "features.txt"
		if err := create(man.Names, func(w io.Writer) error { return writeLines(w, m, func(j int) string { return d.Vocabulary[j] }) }); err != nil {
			return nil, err
		}
	}
	return man, create(PartsFile, man.Encode)
}

// PartName is the file name of part t of a parts directory, as WriteParts
// and the ranks of a distributed fit name them.
func PartName(t int) string { return fmt.Sprintf("part-%05d.mtx", t) }

// NewParts returns the manifest of a parts directory of samples x
// features, without parts: Add appends them in order of their samples,
// Encode writes it (as PartsFile). It is for writers that write the part
// files themselves, such as the ranks of a distributed fit, each its rows
// of a factor.
func NewParts(samples, features int, sparse bool) *Parts {
	return &Parts{Format: partsFormat, Samples: samples, Features: features, Sparse: sparse}
}

// Add appends the part file holding the next rows samples, with nnz
// entries (rows x features for dense data).
func (p *Parts) Add(file string, rows, nnz int) {
	first := 0
	if q := len(p.Parts); q > 0 {
		first = p.Parts[q-1].First + p.Parts[q-1].Rows
	}
	p.Parts = append(p.Parts, Part{File: file, First: first, Rows: rows, NNZ: nnz})
	p.NNZ += nnz
}

// Encode writes the manifest as JSON.
func (p *Parts) Encode(w io.Writer) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func writeLines(w io.Writer, n int, line func(i int) string) error {
	bw := bufio.NewWriter(w)
	for i := 0; i < n; i++ {
		bw.WriteString(line(i))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ReadParts reads and checks the manifest of the parts directory dir:
// its format, and parts that cover the samples in order, each a plain
// file name of the directory.
func ReadParts(dir string) (*Parts, error) {
	path := filepath.Join(dir, PartsFile)
	b, err := fileio.ReadFile(path, maxManifestBytes)
	if err != nil {
		return nil, err
	}
	var man Parts
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&man); err != nil {
		if strings.Contains(err.Error(), `unknown field "weighting"`) {
			return nil, fmt.Errorf("%s: written by an earlier manifactor, which named a weighting where the text pipeline is recorded now: split the corpus again", path)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
	switch {
	case man.Format != partsFormat:
		return nil, bad("format %q, want %q", man.Format, partsFormat)
	case man.Samples < 1 || man.Features < 1 || man.NNZ < 0:
		return nil, bad("%d samples, %d features, %d non-zeros: want at least one sample and one feature", man.Samples, man.Features, man.NNZ)
	case len(man.Parts) == 0:
		return nil, bad("no parts")
	}
	next, nnz := 0, 0
	for q, p := range man.Parts {
		if p.File == "" || p.File != filepath.Base(p.File) || p.File == "." || p.File == ".." {
			return nil, bad("part %d: file %q is not a file name of the directory", q+1, p.File)
		}
		if p.First != next || p.Rows < 1 || p.NNZ < 0 || p.Rows > man.Samples-next {
			return nil, bad("part %d (%s): samples %d..%d with %d non-zeros, want the next block from sample %d of %d", q+1, p.File, p.First+1, p.First+p.Rows, p.NNZ, next+1, man.Samples)
		}
		next, nnz = next+p.Rows, nnz+p.NNZ
	}
	if next != man.Samples || nnz != man.NNZ {
		return nil, bad("the parts hold %d samples and %d non-zeros, the manifest says %d and %d", next, nnz, man.Samples, man.NNZ)
	}
	for _, f := range []string{man.Labels, man.Names} {
		if f != "" && f != filepath.Base(f) {
			return nil, bad("%q is not a file name of the directory", f)
		}
	}
	return &man, nil
}

// LoadRows reads samples lo..hi-1 (0-based) of the parts directory dir,
// every feature, with their labels and the feature names: only the part
// files holding those samples are read. Each part must be what the
// manifest says (its size and non-zeros); errors name the part file. The
// result's Source names the directory and the samples, as errors about
// its values count samples from lo.
func LoadRows(ctx context.Context, dir string, lo, hi int, opt LoadOptions) (*Dataset, error) {
	man, err := ReadParts(dir)
	if err != nil {
		return nil, err
	}
	if lo < 0 || hi > man.Samples || lo >= hi {
		return nil, fmt.Errorf("%s: samples %d..%d: the directory holds samples 1..%d", dir, lo+1, hi, man.Samples)
	}
	if opt.Transpose {
		return nil, fmt.Errorf("%s: a parts directory holds one sample per row and cannot be transposed", dir)
	}
	out := &Dataset{Source: dir, Text: man.Text, Weighted: man.Weighted}
	if lo != 0 || hi != man.Samples {
		out.Source = fmt.Sprintf("%s (samples %d-%d)", dir, lo+1, hi)
	}
	var csr *sparse.CSR
	var dense *mat.Dense
	if man.Sparse {
		csr = &sparse.CSR{Rows: hi - lo, Cols: man.Features, Indptr: make([]int, 1, hi-lo+1)}
	} else {
		dense = mat.NewDense(hi-lo, man.Features, nil)
	}
	for _, p := range man.Parts {
		if p.First+p.Rows <= lo || p.First >= hi {
			continue
		}
		path := filepath.Join(dir, p.File)
		o := opt
		o.Labels, o.Progress = "", nil
		d, err := loadFile(ctx, path, o)
		if err != nil {
			return nil, err
		}
		n, m := d.Dims()
		stored := n * m // a dense part's entries
		if d.Sparse != nil {
			stored = d.Sparse.NNZ()
		}
		if n != p.Rows || m != man.Features || (man.Sparse != (d.Sparse != nil)) || stored != p.NNZ {
			kind := map[bool]string{true: "sparse", false: "dense"}
			return nil, fmt.Errorf("%s: %s %d x %d with %d entries, but %s says %s %d x %d with %d", path, kind[d.Sparse != nil], n, m, stored, PartsFile, kind[man.Sparse], p.Rows, man.Features, p.NNZ)
		}
		r0, r1 := max(lo, p.First)-p.First, min(hi, p.First+p.Rows)-p.First
		if a := d.Sparse; a != nil {
			base := len(csr.Ind)
			csr.Ind = append(csr.Ind, a.Ind[a.Indptr[r0]:a.Indptr[r1]]...)
			csr.Val = append(csr.Val, a.Val[a.Indptr[r0]:a.Indptr[r1]]...)
			for i := r0; i < r1; i++ {
				csr.Indptr = append(csr.Indptr, base+a.Indptr[i+1]-a.Indptr[r0])
			}
		} else {
			for i := r0; i < r1; i++ {
				dense.SetRow(p.First+i-lo, d.Dense.RawRowView(i))
			}
		}
	}
	if csr != nil {
		out.Sparse = csr
	} else {
		out.Dense = dense
	}
	if man.Labels != "" {
		f, err := fileio.Open(filepath.Join(dir, man.Labels))
		if err != nil {
			return nil, err
		}
		labels, err := readLabels(f, f.Name(), man.Samples)
		f.Close()
		if err != nil {
			return nil, err
		}
		if len(labels) != man.Samples {
			return nil, fmt.Errorf("%s: %d labels for %d samples", f.Name(), len(labels), man.Samples)
		}
		out.Labels = labels[lo:hi]
	}
	if man.Names != "" {
		if out.Vocabulary, err = readNames(filepath.Join(dir, man.Names), man.Features); err != nil {
			return nil, err
		}
	}
	if opt.Labels != "" {
		labels, err := readLabelFile(opt.Labels, man.Samples)
		if err != nil {
			return nil, err
		}
		out.Labels = labels[lo:hi]
	}
	return out, out.Validate()
}

// readNames reads m feature names, one per line.
func readNames(path string, m int) ([]string, error) {
	f, err := fileio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names := make([]string, 0, min(m, 1<<20))
	line := make(map[string]int)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxMTXLine)
	for sc.Scan() {
		if len(names) == m {
			return nil, lineErr(path, len(names)+1, "more names than the %d features", m)
		}
		if l, ok := line[sc.Text()]; ok {
			return nil, lineErr(path, len(names)+1, "name %q repeats line %d's: feature names must differ", sc.Text(), l)
		}
		line[sc.Text()] = len(names) + 1
		names = append(names, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, lineErr(path, len(names)+1, "%v", err)
	}
	if len(names) != m {
		return nil, fmt.Errorf("%s: %d names for %d features", path, len(names), m)
	}
	return names, nil
}
