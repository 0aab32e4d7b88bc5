package dataset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/manifactor/manifactor/internal/fileio"
	"github.com/manifactor/manifactor/internal/matrixio"
)

// Parts is a parts directory (WriteParts) opened to be read part by part,
// so that a pass over a corpus holds one part at a time. OpenParts reads
// the manifest, the labels, the feature names and the ids and records each part
// file's size and modification time; Part refuses a file that changed
// since, so that the passes of one fit read one corpus.
type Parts struct {
	// Dir is the directory.
	Dir string
	// Samples and Features are the corpus's shape, NNZ its stored
	// entries (rows x features for dense parts).
	Samples, Features, NNZ int
	// Sparse says the parts are sparse.
	Sparse bool
	// Labels holds every sample's label, nil when the directory has
	// none; Vocabulary the feature names, nil when it has none.
	Labels     []int
	Vocabulary []string
	// IDs names every sample (Dataset.IDs), nil when the directory has
	// no ids.txt.
	IDs []string
	// Text is the text pipeline that made the term counts, nil for a
	// matrix; Weighted says the values were weighed before the split.
	Text     *TextOptions
	Weighted bool

	man    *matrixio.Parts
	stamps []stamp
}

// stamp is what a part file looked like when the directory was opened.
type stamp struct {
	size int64
	mod  time.Time
}

// IsParts reports whether path is a parts directory (WriteParts).
func IsParts(path string) bool { return matrixio.IsParts(path) }

// OpenParts opens the parts directory dir. opt.Labels, when set, is a
// label file that replaces the directory's labels; opt.Transpose is
// refused (a part holds one sample a row).
func OpenParts(dir string, opt LoadOptions) (*Parts, error) {
	man, err := matrixio.ReadParts(dir)
	if err != nil {
		return nil, err
	}
	if opt.Transpose {
		return nil, fmt.Errorf("%s: a parts directory holds one sample per row and cannot be transposed", dir)
	}
	text, err := partsText(man)
	if err != nil {
		return nil, err
	}
	p := &Parts{Dir: dir, Samples: man.Samples, Features: man.Features, NNZ: man.NNZ, Sparse: man.Sparse,
		Text: text, Weighted: man.Weighted, man: man, stamps: make([]stamp, len(man.Parts))}
	for i, part := range man.Parts {
		st, err := os.Stat(filepath.Join(dir, part.File))
		if err != nil {
			return nil, fmt.Errorf("%s: part %d of %d: %w", dir, i+1, len(man.Parts), err)
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: part %d of %d, %s, is not a regular file", dir, i+1, len(man.Parts), part.File)
		}
		p.stamps[i] = stamp{st.Size(), st.ModTime()}
	}
	switch {
	case opt.Labels != "":
		if p.Labels, err = readLabelFile(opt.Labels, man.Samples); err != nil {
			return nil, err
		}
	case man.Labels != "":
		f, err := fileio.Open(filepath.Join(dir, man.Labels))
		if err != nil {
			return nil, err
		}
		p.Labels, err = readLabels(f, f.Name(), man.Samples)
		f.Close()
		if err != nil {
			return nil, err
		}
		if len(p.Labels) != man.Samples {
			return nil, fmt.Errorf("%s: %d labels for %d samples", f.Name(), len(p.Labels), man.Samples)
		}
	}
	if man.Names != "" {
		if p.Vocabulary, err = readNames(filepath.Join(dir, man.Names), man.Features); err != nil {
			return nil, err
		}
	}
	if man.IDs != "" {
		if p.IDs, err = readIDs(filepath.Join(dir, man.IDs), man.Samples); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// NumParts returns the number of parts.
func (p *Parts) NumParts() int { return len(p.man.Parts) }

// Span returns part i's first sample (0-based), its number of samples
// and its stored entries, as the manifest says.
func (p *Parts) Span(i int) (first, rows, nnz int) {
	part := p.man.Parts[i]
	return part.First, part.Rows, part.NNZ
}

// Part reads part i (0-based): its samples, with their labels and the
// feature names. Its Source names the directory and the samples, as
// errors about its values count samples from the part's first. A part
// file that is not what the manifest says (its shape and entries), or
// whose size or modification time changed since OpenParts, is an error
// naming the file.
func (p *Parts) Part(ctx context.Context, i int) (*Dataset, error) {
	if i < 0 || i >= len(p.man.Parts) {
		return nil, fmt.Errorf("%s: part %d: the directory has parts 1 to %d", p.Dir, i+1, len(p.man.Parts))
	}
	part := p.man.Parts[i]
	path := filepath.Join(p.Dir, part.File)
	if err := p.unchanged(i); err != nil {
		return nil, err
	}
	d, err := loadFile(ctx, path, LoadOptions{})
	if err != nil {
		return nil, err
	}
	// The file could change while it was read.
	if err := p.unchanged(i); err != nil {
		return nil, err
	}
	n, m := d.Dims()
	stored := n * m
	if d.Sparse != nil {
		stored = d.Sparse.NNZ()
	}
	if n != part.Rows || m != p.Features || p.Sparse != (d.Sparse != nil) || stored != part.NNZ {
		kind := map[bool]string{true: "sparse", false: "dense"}
		return nil, fmt.Errorf("%s: %s %d x %d with %d entries, but %s says %s %d x %d with %d", path, kind[d.Sparse != nil], n, m, stored, matrixio.PartsFile, kind[p.Sparse], part.Rows, p.Features, part.NNZ)
	}
	d.Source = fmt.Sprintf("%s (samples %d-%d)", p.Dir, part.First+1, part.First+part.Rows)
	d.Text, d.Weighted, d.Vocabulary = p.Text, p.Weighted, p.Vocabulary
	if p.Labels != nil {
		d.Labels = p.Labels[part.First : part.First+part.Rows]
	}
	if p.IDs != nil {
		d.IDs = p.IDs[part.First : part.First+part.Rows]
	}
	return d, d.Validate()
}

// unchanged refuses part i's file when its size or modification time is
// not what OpenParts saw.
func (p *Parts) unchanged(i int) error {
	path := filepath.Join(p.Dir, p.man.Parts[i].File)
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s: part %d of %d: %w", p.Dir, i+1, len(p.man.Parts), err)
	}
	if was := p.stamps[i]; st.Size() != was.size || !st.ModTime().Equal(was.mod) {
		return fmt.Errorf("%s: changed during the run (size %d, modified %s; it was %d, modified %s when the fit began): the passes of a fit must read one corpus", path, st.Size(), st.ModTime().Format(time.RFC3339Nano), was.size, was.mod.Format(time.RFC3339Nano))
	}
	return nil
}
