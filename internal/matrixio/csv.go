package matrixio

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// WriteCSV writes a as comma-separated text, one row per line, preceded by
// a header row when header is not nil (it must name every column). Values
// are written in the shortest form that reads back to the same float64, so
// dataset.ReadCSV returns a exactly; read with Header: dataset.CSVHeaderYes when every
// header name looks like a number. Values must be finite.
func WriteCSV(w io.Writer, a mat.Matrix, header []string) error {
	r, c := a.Dims()
	if header != nil && len(header) != c {
		return fmt.Errorf("WriteCSV: %d header names for %d columns", len(header), c)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if header != nil {
		cw := csv.NewWriter(bw)
		if err := cw.Write(header); err != nil {
			return fmt.Errorf("WriteCSV: header: %v", err)
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
	}
	buf := make([]byte, 0, 32*c)
	for i := 0; i < r; i++ {
		buf = buf[:0]
		for j := 0; j < c; j++ {
			x := a.At(i, j)
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("WriteCSV: value %v at row %d, column %d (1-based) is not finite", x, i+1, j+1)
			}
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendFloat(buf, x, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
