package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/fileio"
	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/internal/outdir"
	"github.com/manifactor/manifactor/sparse"
)

// PartsOptions says how WriteParts splits a data set.
type PartsOptions struct {
	// Parts is the number of row blocks, as even as integers allow, 1 <=
	// Parts <= samples.
	Parts int
	// Shuffle writes the samples in an order drawn from Seed rather than
	// as they are. A corpus stored class by class (or by date, or by
	// source) then gives parts that each hold every class, which a
	// streamed fit, taking a part at a time, needs: its batches come
	// from one part. The samples keep their ids (their 1-based numbers
	// in d when d has none), so outputs still name them.
	Shuffle bool
	Seed    uint64
}

// WriteParts writes d as a parts directory of opt.Parts row blocks, through
// create, which writes a file of the directory by name (such as
// outdir.Dir.WriteFile): part-00000.mtx and on, labels.txt,
// features.txt and ids.txt when d has labels, feature names and sample
// ids, and the manifest, parts.json, last. The values are written exactly, as Load reads them
// back.
func WriteParts(d *Dataset, opt PartsOptions, create func(name string, write func(io.Writer) error) error) error {
	parts := opt.Parts
	if err := d.Validate(); err != nil {
		return err
	}
	n, m := d.Dims()
	if parts < 1 || parts > n {
		return fmt.Errorf("%s: %d parts of %d samples: want 1 to %d", d.Source, parts, n, n)
	}
	// order[r] is the sample written r-th.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	ids := d.IDs
	if opt.Shuffle {
		rand.New(rand.NewPCG(opt.Seed, 0x73706c6974)).Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		if ids == nil {
			ids = make([]string, n)
			for i := range ids {
				ids[i] = strconv.Itoa(i + 1)
			}
		}
	}
	man := matrixio.NewParts(n, m, d.Sparse != nil)
	man.Weighted = d.Weighted
	if d.Text != nil {
		b, err := json.Marshal(d.Text)
		if err != nil {
			return fmt.Errorf("%s: the text pipeline: %v", d.Source, err)
		}
		man.Text = b
	}
	for t := 0; t < parts; t++ {
		lo, hi := t*n/parts, (t+1)*n/parts
		file := matrixio.PartName(t)
		var write func(io.Writer) error
		var nnz int
		if a := d.Sparse; a != nil {
			block := a.RowSlice(lo, hi)
			if opt.Shuffle {
				block = a.SelectRows(order[lo:hi])
			}
			nnz = block.NNZ()
			write = func(w io.Writer) error { return matrixio.WriteMatrixMarket(w, block) }
		} else {
			var block mat.Matrix = d.Dense.Slice(lo, hi, 0, m)
			if opt.Shuffle {
				rows := mat.NewDense(hi-lo, m, nil)
				for r, i := range order[lo:hi] {
					rows.SetRow(r, d.Dense.RawRowView(i))
				}
				block = rows
			}
			nnz = (hi - lo) * m
			write = func(w io.Writer) error { return matrixio.WriteMatrixMarketDense(w, block) }
		}
		if err := create(file, write); err != nil {
			return err
		}
		man.Add(file, hi-lo, nnz)
	}
	if d.Labels != nil {
		man.Labels = "labels.txt"
		if err := create(man.Labels, func(w io.Writer) error {
			return writeLines(w, len(d.Labels), func(r int) string { return strconv.Itoa(d.Labels[order[r]]) })
		}); err != nil {
			return err
		}
	}
	if ids != nil {
		for i, id := range ids {
			if id == "" || strings.ContainsAny(id, "\r\n") {
				return fmt.Errorf("%s: sample %d's id %q cannot be written one per line", d.Source, i+1, id)
			}
		}
		man.IDs = "ids.txt"
		if err := create(man.IDs, func(w io.Writer) error { return writeLines(w, n, func(r int) string { return ids[order[r]] }) }); err != nil {
			return err
		}
	}
	if d.Vocabulary != nil {
		for j, name := range d.Vocabulary {
			if name == "" || strings.ContainsAny(name, "\r\n") || strings.TrimSpace(name) != name {
				return fmt.Errorf("%s: feature %d's name %q cannot be written one per line", d.Source, j+1, name)
			}
		}
		man.Names = "features.txt"
		if err := create(man.Names, func(w io.Writer) error { return writeLines(w, m, func(j int) string { return d.Vocabulary[j] }) }); err != nil {
			return err
		}
	}
	return create(matrixio.PartsFile, man.Encode)
}

// WritePartsDir is WriteParts into the directory dir, which must exist,
// each file written whole (outdir.WriteFile: a file of that name keeps its
// old content or gets the whole new one).
func WritePartsDir(dir string, d *Dataset, opt PartsOptions) error {
	return WriteParts(d, opt, func(name string, write func(io.Writer) error) error {
		return outdir.WriteFile(filepath.Join(dir, name), write)
	})
}

func writeLines(w io.Writer, n int, line func(i int) string) error {
	bw := bufio.NewWriter(w)
	for i := 0; i < n; i++ {
		bw.WriteString(line(i))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// LoadRows reads samples lo..hi-1 (0-based) of the parts directory dir,
// every feature, with their labels and the feature names: only the part
// files holding those samples are read. Each part must be what the
// manifest says (its size and non-zeros); errors name the part file. The
// result's Source names the directory and the samples, as errors about
// its values count samples from lo.
func LoadRows(ctx context.Context, dir string, lo, hi int, opt LoadOptions) (*Dataset, error) {
	man, err := matrixio.ReadParts(dir)
	if err != nil {
		return nil, err
	}
	if lo < 0 || hi > man.Samples || lo >= hi {
		return nil, fmt.Errorf("%s: samples %d..%d: the directory holds samples 1..%d", dir, lo+1, hi, man.Samples)
	}
	if opt.Transpose {
		return nil, fmt.Errorf("%s: a parts directory holds one sample per row and cannot be transposed", dir)
	}
	text, err := partsText(man)
	if err != nil {
		return nil, err
	}
	out := &Dataset{Source: dir, Text: text, Weighted: man.Weighted}
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
			return nil, fmt.Errorf("%s: %s %d x %d with %d entries, but %s says %s %d x %d with %d", path, kind[d.Sparse != nil], n, m, stored, matrixio.PartsFile, kind[man.Sparse], p.Rows, man.Features, p.NNZ)
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
	if man.IDs != "" {
		ids, err := readIDs(filepath.Join(dir, man.IDs), man.Samples)
		if err != nil {
			return nil, err
		}
		out.IDs = ids[lo:hi]
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

// readNames reads m feature names, one per line, all different.
func readNames(path string, m int) ([]string, error) {
	line := make(map[string]int)
	return readLines(path, m, "names", "features", func(name string, r int) string {
		if l, ok := line[name]; ok {
			return fmt.Sprintf("name %q repeats line %d's: feature names must differ", name, l)
		}
		line[name] = r
		return ""
	})
}

// readIDs reads n sample identifiers, one per line, none empty.
func readIDs(path string, n int) ([]string, error) {
	return readLines(path, n, "ids", "samples", func(id string, _ int) string {
		if id == "" {
			return "an empty id"
		}
		return ""
	})
}

// readLines reads n lines of path, one of the n items of (noun) each,
// each accepted by check (given its 1-based line; it returns what is
// wrong, or ""). Errors name the file and line.
func readLines(path string, n int, noun, of string, check func(text string, line int) string) ([]string, error) {
	f, err := fileio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := make([]string, 0, min(n, 1<<20))
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), matrixio.MaxMTXLine)
	for sc.Scan() {
		if len(out) == n {
			return nil, matrixio.LineErr(path, len(out)+1, "more %s than the %d %s", noun, n, of)
		}
		if msg := check(sc.Text(), len(out)+1); msg != "" {
			return nil, matrixio.LineErr(path, len(out)+1, "%s", msg)
		}
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, matrixio.LineErr(path, len(out)+1, "%v", err)
	}
	if len(out) != n {
		return nil, fmt.Errorf("%s: %d %s for %d %s", path, len(out), noun, n, of)
	}
	return out, nil
}

// partsText reads the text pipeline a parts manifest records (nil for a
// matrix), strictly, as matrixio.ReadParts reads the rest of the manifest.
func partsText(man *matrixio.Parts) (*TextOptions, error) {
	if len(man.Text) == 0 {
		return nil, nil
	}
	var t TextOptions
	dec := json.NewDecoder(bytes.NewReader(man.Text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("%s: text: %v", matrixio.PartsFile, err)
	}
	return &t, nil
}
