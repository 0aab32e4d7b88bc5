package matrixio

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/testenv"
)

// readAllParts reads path in parts as the ranks of a job would, in
// order, and builds the matrix of all its rows; the first error is
// rebased to the file's line.
func readAllParts(t *testing.T, path string, parts int) (rows [][3]float64, lines int, err error) {
	t.Helper()
	p, err := ReadMTXParts(path)
	if err != nil {
		return nil, 0, err
	}
	total := 0
	for q := 0; q < parts; q++ {
		n, e, err := p.ReadPart(context.Background(), q, parts, func(i, j int, x float64) {
			rows = append(rows, [3]float64{float64(i), float64(j), x})
		})
		if err != nil {
			return nil, 0, p.Rebase(err, lines)
		}
		lines += n
		total += e
	}
	return rows, lines, p.CheckCount(total)
}

// TestMTXPartsMatchWhole: read in any number of byte ranges, a
// coordinate file gives the whole reader's matrix (entries in file
// order, duplicates summed alike), every line read by exactly one part,
// and an error names the file's line as the whole reader does.
func TestMTXPartsMatchWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	dir := t.TempDir()
	var files []string
	for f := 0; f < 6; f++ {
		var b strings.Builder
		sym := "general"
		if f == 5 {
			sym = "symmetric"
		}
		b.WriteString("%%MatrixMarket matrix coordinate real " + sym + "\n% a comment\n\n")
		const n, m = 9, 9
		var lines []string
		for e := 0; e < 30+f*7; e++ {
			i, j := 1+rng.IntN(n), 1+rng.IntN(m)
			if sym == "symmetric" && i < j {
				i, j = j, i
			}
			lines = append(lines, fmt.Sprintf("%d %d %v", i, j, rng.Float64()*10))
			if rng.IntN(6) == 0 {
				lines = append(lines, "% comment "+strings.Repeat("x", rng.IntN(40)))
			}
			if rng.IntN(8) == 0 {
				lines = append(lines, "")
			}
		}
		entries := 0
		for _, l := range lines {
			if l != "" && l[0] != '%' {
				entries++
			}
		}
		fmt.Fprintf(&b, "%d %d %d\n", n, m, entries)
		end := "\n"
		if f == 2 {
			end = "\r\n"
		}
		b.WriteString(strings.Join(lines, end))
		if f != 3 {
			b.WriteString(end) // file 3 ends without a newline
		}
		files = append(files, testenv.WriteFile(t, dir, fmt.Sprintf("f%d.mtx", f), []byte(b.String())))
	}
	for _, path := range files {
		whole, _, err := ReadMatrixMarketFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		fileLines := strings.Count(string(data), "\n")
		if data[len(data)-1] != '\n' {
			fileLines++
		}
		for parts := 1; parts <= 12; parts++ {
			entries, lines, err := readAllParts(t, path, parts)
			if err != nil {
				t.Fatalf("%s, %d parts: %v", path, parts, err)
			}
			p, _ := ReadMTXParts(path)
			if lines != fileLines-p.lines {
				t.Fatalf("%s, %d parts: %d lines read, the data have %d", path, parts, lines, fileLines-p.lines)
			}
			var ri, ci []int
			var v []float64
			for _, e := range entries {
				ri, ci, v = append(ri, int(e[0])), append(ci, int(e[1])), append(v, e[2])
			}
			a, err := p.Matrix(0, p.Rows, ri, ci, v)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, whole) {
				t.Fatalf("%s, %d parts: the matrix differs from the whole reader's", path, parts)
			}
		}
	}
	// Errors: the file's line, as the whole reader names it.
	bad := []string{
		"%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 x\n3 3 1\n",
		"%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n% c\n2 9 1\n3 3 1\n",
		"%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n2 2 1\n3 3 1\n",
		"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 2 1\n3 3 1\n",
	}
	for q, body := range bad {
		path := testenv.WriteFile(t, dir, fmt.Sprintf("bad%d.mtx", q), []byte(body))
		_, _, werr := ReadMatrixMarketFile(path)
		var wpe *ParseError
		if !errors.As(werr, &wpe) {
			t.Fatalf("bad %d: whole reader: %v", q, werr)
		}
		for parts := 1; parts <= 5; parts++ {
			_, _, err := readAllParts(t, path, parts)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("bad %d, %d parts: %v", q, parts, err)
			}
			if q >= 2 {
				// A count against the size line: known once every
				// part is read, so the file is named without a line.
				if !strings.Contains(err.Error(), "entries") || !strings.Contains(err.Error(), "size line") {
					t.Errorf("bad %d, %d parts: %v", q, parts, err)
				}
				continue
			}
			if pe.Line != wpe.Line {
				t.Errorf("bad %d, %d parts: line %d, the whole reader says %d (%v)", q, parts, pe.Line, wpe.Line, err)
			}
		}
	}
	for _, c := range []struct{ name, body, want string }{
		{"a.mtx.gz", "", "compressed"},
		{"b.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "array file cannot be read in parts"},
		{"c.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 100\n", "size line claims"},
	} {
		path := testenv.WriteFile(t, dir, c.name, []byte(c.body))
		if _, err := ReadMTXParts(path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// FuzzMTXParts: any file read in parts is read or refused as the whole
// reader reads or refuses it, with the same matrix, whatever the parts.
func FuzzMTXParts(f *testing.F) {
	f.Add([]byte("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2.5\n3 1 1e3\n"), uint8(3))
	f.Add([]byte("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n% x\n3 3\n"), uint8(2))
	f.Add([]byte("%%MatrixMarket matrix coordinate integer general\r\n2 2 2\r\n1 1 4\r\n\r\n1 1 5"), uint8(4))
	f.Fuzz(func(t *testing.T, body []byte, parts uint8) {
		path := testenv.WriteFile(t, t.TempDir(), "f.mtx", body)
		whole, dense, werr := ReadMatrixMarketFile(path)
		if dense != nil {
			return // an array file: not read in parts
		}
		p, err := ReadMTXParts(path)
		if err != nil {
			if werr == nil {
				t.Fatalf("header refused in parts only: %v", err)
			}
			return
		}
		var ri, ci []int
		var v []float64
		total, lines := 0, 0
		for q := 0; q < int(parts%6)+1; q++ {
			n, e, err := p.ReadPart(context.Background(), q, int(parts%6)+1, func(i, j int, x float64) {
				ri, ci, v = append(ri, i), append(ci, j), append(v, x)
			})
			if err != nil {
				if werr == nil {
					t.Fatalf("part %d refused, the whole read: %v", q, p.Rebase(err, lines))
				}
				return
			}
			lines, total = lines+n, total+e
		}
		if err := p.CheckCount(total); err != nil {
			if werr == nil {
				t.Fatalf("count refused in parts only: %v", err)
			}
			return
		}
		a, err := p.Matrix(0, p.Rows, ri, ci, v)
		if (err == nil) != (werr == nil) {
			t.Fatalf("parts: %v, whole: %v", err, werr)
		}
		if err == nil && !reflect.DeepEqual(a, whole) {
			t.Fatal("the matrices differ")
		}
	})
}
