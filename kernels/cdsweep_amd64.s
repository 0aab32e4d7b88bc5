//go:build amd64 && !noasm

#include "textflag.h"

// func cdSweepAVX2(f, grad, s, invH []float64, d float64) float64
//
// One coordinate-descent sweep (see CDSweep): per coordinate c a scalar
// step, then, when it moved, grad += delta * s[c*k:(c+1)*k] four at a time
// with a scalar tail. Registers: SI f, DI grad, R8 s, R9 invH, R10 the row
// s[c*k:], R11 its stride in bytes, CX k, DX k rounded down to 4, BX c,
// X13 the gain, X14 d, X15 zero.
TEXT ·cdSweepAVX2(SB), NOSPLIT, $0-112
	MOVQ   f_base+0(FP), SI
	MOVQ   f_len+8(FP), CX
	MOVQ   grad_base+24(FP), DI
	MOVQ   s_base+48(FP), R8
	MOVQ   invH_base+72(FP), R9
	VMOVSD d+96(FP), X14
	VXORPD X15, X15, X15
	VXORPD X13, X13, X13
	MOVQ   CX, R11
	SHLQ   $3, R11
	MOVQ   CX, DX
	ANDQ   $-4, DX
	XORQ   BX, BX
	MOVQ   R8, R10

coord:
	CMPQ BX, CX
	JAE  done
	VMOVSD   (R9)(BX*8), X0
	VUCOMISD X15, X0
	JEQ      next               // invH[c] == 0: skip the coordinate
	VMOVSD   (SI)(BX*8), X2     // f[c]
	VMOVSD   (DI)(BX*8), X1     // grad[c]
	VMOVAPD  X2, X3
	VFNMADD231SD X0, X1, X3     // x = f[c] - grad[c]*invH[c]
	VMAXSD   X15, X3, X3        // max(x, 0); 0 when x is NaN
	VSUBSD   X2, X3, X4         // delta = x - f[c]
	VUCOMISD X15, X4
	JEQ      next               // no move
	VMOVSD   X3, (SI)(BX*8)
	VBROADCASTSD X4, Y5
	XORQ     AX, AX
	CMPQ     DX, $0
	JEQ      tail

loop4:
	VMOVUPD     (R10)(AX*8), Y6
	VFMADD213PD (DI)(AX*8), Y5, Y6
	VMOVUPD     Y6, (DI)(AX*8)
	ADDQ        $4, AX
	CMPQ        AX, DX
	JB          loop4

tail:
	CMPQ AX, CX
	JAE  moved

loop1:
	VMOVSD      (R10)(AX*8), X6
	VFMADD213SD (DI)(AX*8), X5, X6
	VMOVSD      X6, (DI)(AX*8)
	INCQ        AX
	CMPQ        AX, CX
	JB          loop1

moved:
	VMOVSD      (DI)(BX*8), X6
	VFMADD231SD X14, X4, X6     // grad[c] += d*delta
	VMOVSD      X6, (DI)(BX*8)
	VMOVSD      (R10)(BX*8), X7
	VADDSD      X14, X7, X7     // S_cc + d
	VMULSD      X4, X4, X8
	VFMADD231SD X8, X7, X13     // gain += delta^2 (S_cc + d)

next:
	INCQ BX
	ADDQ R11, R10
	JMP  coord

done:
	VMOVSD X13, ret+104(FP)
	VZEROUPPER
	RET
