package matrixio

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/manifactor/manifactor/internal/fileio"
)

// PartsFile is the manifest of a data set stored as row blocks: a
// directory holding it and one Matrix Market file per block of
// consecutive samples (dataset.WriteParts), so that each process of a
// distributed job reads only the blocks of its own samples
// (dataset.LoadRows). dataset.Load reads such a directory whole.
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
	// Weighted is dataset.Dataset.Weighted of the data set split.
	Weighted bool `json:"weighted"`
	// Text is dataset.Dataset.Text of the data set split, as JSON: the text
	// pipeline that made its term counts, empty for a matrix. package
	// dataset reads and writes it.
	Text json.RawMessage `json:"text,omitempty"`
	// Labels and Names are files of one label per sample and one name per
	// feature, in the directory; empty when the data set has none.
	Labels string `json:"labels,omitempty"`
	Names  string `json:"feature_names,omitempty"`
	// IDs is a file of one identifier per sample (a document's name in
	// its source), in the directory; empty when the data set has none.
	IDs string `json:"ids,omitempty"`
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

// PartName is the file name of part t of a parts directory, as dataset.WriteParts
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
	for _, f := range []string{man.Labels, man.Names, man.IDs} {
		if f != "" && f != filepath.Base(f) {
			return nil, bad("%q is not a file name of the directory", f)
		}
	}
	return &man, nil
}
