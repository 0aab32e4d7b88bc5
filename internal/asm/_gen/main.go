package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/pass"
	avoprinter "github.com/mmcloughlin/avo/printer"
	. "github.com/mmcloughlin/avo/reg"
	"github.com/mmcloughlin/avo/x86"
)

// A file is one assembly file of package asm and the function that
// writes its contents.
type file struct {
	name  string
	write func(*gen)
}

var files = []file{
	{"axpy_amd64.s", axpy},
	{"dot_amd64.s", dot},
	{"mulupdate_amd64.s", mulUpdate},
	{"extrapolate_amd64.s", extrapolate},
	{"projgrad_amd64.s", projGrad},
	{"klstep_amd64.s", klStep},
	{"cg_amd64.s", cg},
	{"gather_amd64.s", gather},
	{"scatter_amd64.s", scatter},
	{"dotgather_amd64.s", dotGather},
	{"dotgathert_amd64.s", dotGatherT},
	{"cdgather_amd64.s", cdGather},
	{"cdgather2_amd64.s", cdGather2},
	{"prefetch_amd64.s", prefetch},
}

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// dir is package asm, seen from the generator's directory, where
// go generate runs it (gen.go there): the stubs are read and the assembly
// written there.
const dir = ".."

func run(args []string, stderr io.Writer) error {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "usage: go run . (in internal/asm/_gen; or go generate ./internal/asm)")
		return fmt.Errorf("unexpected arguments %q", args)
	}
	sigs, err := stubs(dir)
	if err != nil {
		return err
	}
	// The header names the command that runs the generator.
	argv := []string{"go", "generate", "./internal/asm"}
	header := avoprinter.Config{Argv: argv}
	for _, f := range files {
		g := &gen{Context: build.NewContext(), sigs: sigs}
		// avo parses the old syntax and prints it as
		// //go:build amd64 && !noasm.
		g.ConstraintExpr("amd64,!noasm")
		f.write(g)
		var buf bytes.Buffer
		cfg := &build.Config{
			ErrOut:    stderr,
			MaxErrors: 10,
			Passes: []pass.Interface{
				pass.Compile,
				pass.Func(g.dropBases),
				&pass.Output{Writer: nopCloser{&buf}, Printer: avoprinter.NewGoAsm(header)},
			},
		}
		if build.Main(cfg, g.Context) != 0 {
			return fmt.Errorf("%s: avo failed", f.name)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// stubs reads the Go declarations of the assembly functions (those without
// a body) from the amd64 files in dir and returns each one's signature as a
// func type expression, so that the generator takes the signatures from
// the package rather than repeating them.
func stubs(dir string) (map[string]string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*_amd64.go"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no *_amd64.go files in %s", dir)
	}
	fset := token.NewFileSet()
	sigs := make(map[string]string)
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body != nil || fd.Recv != nil {
				continue
			}
			var b strings.Builder
			if err := printer.Fprint(&b, fset, fd.Type); err != nil {
				return nil, err
			}
			sigs[fd.Name.Name] = b.String()
		}
	}
	return sigs, nil
}

// gen is the avo build context of one assembly file, with the stubs'
// signatures and the helpers the kernels share.
type gen struct {
	*build.Context
	sigs     map[string]string
	baseless []*ir.Instruction // see leaIndex
}

// text starts the NOSPLIT function name, with the signature of its Go
// declaration.
func (g *gen) text(name string) {
	sig, ok := g.sigs[name]
	if !ok {
		panic("gen: no Go declaration of " + name)
	}
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(sig)
}

// addr is the frame address of an argument or result (or of a slice's
// base or length), for the instructions that read it from memory.
func (g *gen) addr(c gotypes.Component) Mem {
	b, err := c.Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// mem is the operand disp(base).
func mem(disp int, base Register) Mem {
	return Mem{Disp: disp, Base: base}
}

// idx is the operand disp(base)(index*scale).
func idx(disp int, base, index Register, scale uint8) Mem {
	return Mem{Disp: disp, Base: base, Index: index, Scale: scale}
}

// leaIndex writes LEAQ (index*scale), dst. avo wants a base register in
// every address it checks, so the instruction goes in as
// LEAQ (index)(index*scale), dst and dropBases takes the base out after
// avo's passes, before the file is printed.
func (g *gen) leaIndex(index Register, scale uint8, dst Register) {
	i, err := x86.LEAQ(idx(0, index, index, scale), dst)
	if err != nil {
		panic(err)
	}
	g.Instruction(i)
	g.baseless = append(g.baseless, i)
}

// dropBases is the pass that gives the instructions of leaIndex their
// base-less address.
func (g *gen) dropBases(*ir.File) error {
	for _, i := range g.baseless {
		m := i.Operands[0].(Mem)
		m.Base = nil
		i.Operands[0] = m
	}
	return nil
}

// elem is disp(base)(AX*8): entry AX of the array of doubles at base,
// disp bytes further, as the streaming kernels index their arrays.
func elem(disp int, base Register) Mem {
	return idx(disp, base, RAX, 8)
}

// lbl is a jump's target.
func lbl(name string) LabelRef { return LabelRef(name) }

var (
	ys = [16]VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}
	xs = [16]VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15}
)

// A shape is one of the two widths of a loop body: four doubles a YMM
// register (each instruction's packed form) or one in the low lane of an
// XMM register (its scalar form). A kernel writes its four-wide and its
// one-wide body with one Go function of a shape. Instructions without a
// scalar form (VANDPD, VBLENDVPD, VMOVAPD, VXORPD) take the shape's
// registers directly: on XMM registers they act on the low lane as well.
type shape struct {
	n int                     // doubles a register: 4 or 1
	r func(i int) VecPhysical // register i, Yi or Xi

	mov   func(...Op) // VMOVUPD or VMOVSD
	bcast func(...Op) // VBROADCASTSD or VMOVSD from memory

	add, sub, mul, div, max            func(...Op)
	fmadd213, fmadd231, fnmadd231, cmp func(...Op)
}

// vec is the four-wide shape, scalar the one-wide.
func (g *gen) vec() shape {
	return shape{
		n: 4, r: func(i int) VecPhysical { return ys[i] },
		mov: g.VMOVUPD, bcast: g.VBROADCASTSD,
		add: g.VADDPD, sub: g.VSUBPD, mul: g.VMULPD, div: g.VDIVPD, max: g.VMAXPD,
		fmadd213: g.VFMADD213PD, fmadd231: g.VFMADD231PD, fnmadd231: g.VFNMADD231PD,
		cmp: g.VCMPPD,
	}
}

func (g *gen) scalar() shape {
	return shape{
		n: 1, r: func(i int) VecPhysical { return xs[i] },
		mov: g.VMOVSD, bcast: g.VMOVSD,
		add: g.VADDSD, sub: g.VSUBSD, mul: g.VMULSD, div: g.VDIVSD, max: g.VMAXSD,
		fmadd213: g.VFMADD213SD, fmadd231: g.VFMADD231SD, fnmadd231: g.VFNMADD231SD,
		cmp: g.VCMPSD,
	}
}

// done ends a kernel: VZEROUPPER, since the callers are compiled Go code
// whose SSE instructions would pay for dirty upper halves, then RET.
func (g *gen) done() {
	g.VZEROUPPER()
	g.RET()
}

// okBad ends a kernel that returns whether every index was in range: true
// at "ok", false at "bad".
func (g *gen) okBad() {
	ret := g.addr(g.ReturnIndex(0))
	g.Label("ok")
	g.MOVB(U8(1), ret)
	g.done()
	g.Label("bad")
	g.MOVB(U8(0), ret)
	g.done()
}

// dispatch jumps to labels[n-1] for n (a register) in 1..len(labels), to
// "bad" otherwise: the choice of a loop for the register count, once a call.
func (g *gen) dispatch(n Register, labels []string) {
	for i, l := range labels {
		g.CMPQ(n, U8(i+1))
		g.JEQ(lbl(l))
	}
	g.JMP(lbl("bad"))
}

// strided is the loop over i < n (i in AX, n in CX, indices scaled by 8)
// of the streaming kernels: wide16 sixteen entries a step if it is not
// nil, then fourThenOne. It leaves the label "done" for the kernel's
// epilogue.
func (g *gen) strided(wide16 func(), body func(shape), between func()) {
	g.XORQ(RAX, RAX)
	g.MOVQ(RCX, RDX)
	if wide16 != nil {
		g.ANDQ(I8(-16), RDX)
		g.JZ(lbl("quad"))

		g.Label("loop16")
		wide16()
		g.ADDQ(U8(16), RAX)
		g.CMPQ(RAX, RDX)
		g.JB(lbl("loop16"))

		g.Label("quad")
		g.MOVQ(RCX, RDX)
		g.ANDQ(I8(-4), RDX)
		g.CMPQ(RAX, RDX)
		g.JAE(lbl("tail"))
	} else {
		g.ANDQ(I8(-4), RDX)
		g.JZ(lbl("tail"))
	}

	g.fourThenOne(body, between, "done")
}

// fourThenOne is the end of a loop over the columns i < n (i in AX, n in
// CX, DX = n &^ 3): body(vec) four a step from i to DX, between (may be
// nil: the horizontal sums of kernels whose vector sums end there), then
// body(scalar) one a step; it leaves the label end after them.
func (g *gen) fourThenOne(body func(shape), between func(), end string) {
	g.Label("loop4")
	body(g.vec())
	g.ADDQ(U8(4), RAX)
	g.CMPQ(RAX, RDX)
	g.JB(lbl("loop4"))

	g.Label("tail")
	if between != nil {
		between()
	}
	g.CMPQ(RAX, RCX)
	g.JAE(lbl(end))

	g.Label("loop1")
	body(g.scalar())
	g.INCQ(RAX)
	g.CMPQ(RAX, RCX)
	g.JB(lbl("loop1"))

	g.Label(end)
}

// hsum leaves in x, y's low half, the sum of y's four lanes as
// (l0 + l2) + (l1 + l3), with scratch an XMM register.
func (g *gen) hsum(y, x, scratch VecPhysical) {
	g.VEXTRACTF128(U8(1), y, scratch)
	g.VADDPD(scratch, x, x)
	g.VHADDPD(x, x, x)
}

// laneMasks writes the table name<>: at byte 8*s, four lane masks of
// which the first 4-s are set, the mask of a last register that covers
// only 4-s columns. A <> symbol is private to its file, so each file that
// needs the table has its own copy.
func (g *gen) laneMasks(name string) Mem {
	m := g.StaticGlobal(name)
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for i := 0; i < 8; i++ {
		v := U64(0)
		if i < 4 {
			v = ^U64(0)
		}
		g.AddDatum(8*i, v)
	}
	return m
}
