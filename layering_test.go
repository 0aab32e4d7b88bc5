package manifactor

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/manifactor/manifactor"

// modulePackages returns the module's packages (directories holding
// non-test Go files, but out/, testdata/ and hidden ones), each with the
// module packages its non-test files import directly, by path relative to
// the module root.
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (name == "out" || name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if _, ok := pkgs[dir]; !ok {
			pkgs[dir] = nil
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rel, ok := strings.CutPrefix(p, modulePath+"/"); ok && !slices.Contains(pkgs[dir], rel) {
				pkgs[dir] = append(pkgs[dir], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// closure returns every module package pkg imports, directly or not.
func closure(pkgs map[string][]string, pkg string) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		for _, q := range pkgs[p] {
			if !seen[q] {
				seen[q] = true
				visit(q)
			}
		}
	}
	visit(pkg)
	return seen
}

var mustNot = regexp.MustCompile(`must not import ([^.;]*)`)

// forbidden reads what a package's doc.go says it must not import: "must
// not import a, b or c", "any other package of this module", "anything of
// this module" (with "except x"), and "imports only the standard
// library". Names are matched against the last element of a package's
// path, or its whole path relative to the module.
func forbidden(doc string, pkgs map[string][]string, self string) (map[string]bool, bool) {
	text := strings.Join(strings.Fields(strings.ReplaceAll(doc, "//", " ")), " ")
	out := map[string]bool{}
	all := func(except string) {
		for p := range pkgs {
			if p != self && p != except {
				out[p] = true
			}
		}
	}
	if strings.Contains(text, "imports only the standard library") {
		all("")
		return out, true
	}
	m := mustNot.FindStringSubmatch(text)
	if m == nil {
		return nil, false
	}
	clause := strings.TrimPrefix(m[1], "directly ")
	switch {
	case strings.HasPrefix(clause, "any other package of this module"):
		all("")
	case strings.HasPrefix(clause, "anything of this module"):
		except := ""
		if _, e, ok := strings.Cut(clause, "except "); ok {
			except = strings.TrimSpace(e)
		}
		all(except)
	default:
		for _, w := range strings.FieldsFunc(clause, func(r rune) bool { return r == ',' || r == ' ' }) {
			for p := range pkgs {
				if p == w || filepath.Base(p) == w || strings.HasPrefix(p, w+"/") {
					out[p] = true
				}
			}
		}
	}
	return out, true
}

// TestLayering fails when a package imports, directly or through another,
// a package its doc.go says it must not import: the layering the
// packages' docs state is what the code does.
func TestLayering(t *testing.T) {
	pkgs := modulePackages(t)
	checked := 0
	for pkg := range pkgs {
		b, err := os.ReadFile(filepath.Join(pkg, "doc.go"))
		if err != nil {
			continue
		}
		bad, ok := forbidden(string(b), pkgs, pkg)
		if !ok {
			continue
		}
		checked++
		deps := closure(pkgs, pkg)
		if strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(string(b), "//", " ")), " "), "must not import directly") {
			// The rule is on the package's own imports only.
			deps = map[string]bool{}
			for _, d := range pkgs[pkg] {
				deps[d] = true
			}
		}
		for d := range deps {
			if bad[d] {
				t.Errorf("%s imports %s (directly or through another package), which its doc.go forbids", pkg, d)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d packages state what they must not import; the parser of doc.go has lost them", checked)
	}
	// The reader understands the phrasings in use.
	if f, _ := forbidden("// It must not import solver, cluster or cmd.", map[string][]string{"solver": nil, "cluster": nil, "cmd/manifactor": nil, "sparse": nil}, "x"); !f["solver"] || !f["cluster"] || !f["cmd/manifactor"] || f["sparse"] {
		t.Errorf("a list: %v", f)
	}
	if f, _ := forbidden("// It must not import directly sparse or\n// internal/asm, the rest.", map[string][]string{"sparse": nil, "internal/asm": nil, "model": nil}, "x"); !f["sparse"] || !f["internal/asm"] || f["model"] {
		t.Errorf("a list of direct imports: %v", f)
	}
}
