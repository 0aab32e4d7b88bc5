//go:build amd64 && !noasm

#include "textflag.h"

// func projGradAVX2(pg, ref, f, den, num []float64)
//
// g = den - num; g = 0 where f <= 0 and g >= 0; pg += g*g; ref += num*num.
// VCMPPD's predicate 2 (LE_OS) is false for NaN, as the reference's
// comparisons are, so a NaN keeps its component. Four entries a step, then
// one at a time.
TEXT ·projGradAVX2(SB), NOSPLIT, $0-120
	MOVQ   pg_base+0(FP), DI
	MOVQ   ref_base+24(FP), SI
	MOVQ   f_base+48(FP), R8
	MOVQ   f_len+56(FP), CX
	MOVQ   den_base+72(FP), R9
	MOVQ   num_base+96(FP), R10
	VXORPD Y15, Y15, Y15
	XORQ   AX, AX
	MOVQ   CX, DX
	ANDQ   $-4, DX
	JZ     tail

loop4:
	VMOVUPD     (R9)(AX*8), Y0
	VMOVUPD     (R10)(AX*8), Y1
	VSUBPD      Y1, Y0, Y0       // g = den - num
	VMOVUPD     (R8)(AX*8), Y2
	VCMPPD      $2, Y15, Y2, Y3  // f <= 0
	VCMPPD      $2, Y0, Y15, Y4  // 0 <= g
	VANDPD      Y4, Y3, Y3       // dropped
	VANDNPD     Y0, Y3, Y0       // g, or 0 where dropped
	VMOVUPD     (DI)(AX*8), Y5
	VFMADD231PD Y0, Y0, Y5
	VMOVUPD     Y5, (DI)(AX*8)
	VMOVUPD     (SI)(AX*8), Y6
	VFMADD231PD Y1, Y1, Y6
	VMOVUPD     Y6, (SI)(AX*8)
	ADDQ        $4, AX
	CMPQ        AX, DX
	JB          loop4

tail:
	CMPQ AX, CX
	JAE  done

loop1:
	VMOVSD      (R9)(AX*8), X0
	VMOVSD      (R10)(AX*8), X1
	VSUBSD      X1, X0, X0
	VMOVSD      (R8)(AX*8), X2
	VCMPSD      $2, X15, X2, X3
	VCMPSD      $2, X0, X15, X4
	VANDPD      X4, X3, X3
	VANDNPD     X0, X3, X0
	VMOVSD      (DI)(AX*8), X5
	VFMADD231SD X0, X0, X5
	VMOVSD      X5, (DI)(AX*8)
	VMOVSD      (SI)(AX*8), X6
	VFMADD231SD X1, X1, X6
	VMOVSD      X6, (SI)(AX*8)
	INCQ        AX
	CMPQ        AX, CX
	JB          loop1

done:
	VZEROUPPER
	RET
