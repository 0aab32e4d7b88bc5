package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/manifactor/manifactor/dataset"
)

// assignment names a sample's cluster: the sample (its ID in the source,
// such as a file's path, a line's number or a Reuters NEWID; its 1-based
// row where the source has none), its cluster (0-based, -1 for none, as
// in labels.txt) and its class when the data has labels.
type assignment struct {
	ID      string `json:"id"`
	Cluster int    `json:"cluster"`
	Class   string `json:"class,omitempty"`
}

// assignmentsOf pairs the samples of ds with their clusters.
func assignmentsOf(ds *dataset.Dataset, clusters []int) []assignment {
	out := make([]assignment, len(clusters))
	for i, c := range clusters {
		a := assignment{ID: strconv.Itoa(i + 1), Cluster: c}
		if i < len(ds.IDs) {
			// One line a sample: a path's tab or newline is a space.
			a.ID = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(ds.IDs[i])
		}
		if i < len(ds.Labels) {
			l := ds.Labels[i]
			if name, ok := ds.ClassNames[l]; ok {
				a.Class = name
			} else {
				a.Class = strconv.Itoa(l)
			}
		}
		out[i] = a
	}
	return out
}

// assignmentsOutput is assignments.tsv: a header, then the sample, its
// cluster and its class, tab-separated, a line per sample in the data's
// order.
func assignmentsOutput(a []assignment) output {
	return output{"assignments.tsv", func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		fmt.Fprintln(bw, "id\tcluster\tclass")
		for _, s := range a {
			fmt.Fprintf(bw, "%s\t%d\t%s\n", s.ID, s.Cluster, s.Class)
		}
		return bw.Flush()
	}}
}

// printable escapes what would act on a terminal rather than show: the
// control characters (a newline forges a second line, an escape sequence
// recolours or moves the cursor), the marks that reorder text, and bytes
// that are not UTF-8. File names and values from the data reach notes and
// errors, and a user reads them there.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || reorders(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r) || reorders(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// reorders reports the bidirectional formatting characters.
func reorders(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f
}
