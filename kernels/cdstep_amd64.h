// The coordinate step that the cdGather kernels share.

// CDMOVE steps four rows of one column, whose values are in Y8 and at
// xm, with the gradient g and the curvature reciprocals at ihm: the new
// values max(0, x - g ih) go to xm, except on rows with ih = 0, which
// keep x, and the change is left in Y10. VMAXPD with zero as its second
// source gives zero for NaN, as the reference's !(y > 0) does. Y9 and
// Y11 are scratch; Y15 must be zero.
#define CDMOVE(g, xm, ihm) \
	VMOVUPD      ihm, Y9; \
	VMOVAPD      Y8, Y10; \
	VFNMADD231PD Y9, g, Y10; \
	VMAXPD       Y15, Y10, Y10; \
	VCMPPD       $0, Y15, Y9, Y11; \
	VBLENDVPD    Y11, Y8, Y10, Y10; \
	VMOVUPD      Y10, xm; \
	VSUBPD       Y8, Y10, Y10

// CDMOVE1 is CDMOVE for one row, in X registers.
#define CDMOVE1(g, xm, ihm) \
	VMOVSD       ihm, X9; \
	VMOVAPD      X8, X10; \
	VFNMADD231SD X9, g, X10; \
	VMAXSD       X15, X10, X10; \
	VCMPSD       $0, X15, X9, X11; \
	VBLENDVPD    X11, X8, X10, X10; \
	VMOVSD       X10, xm; \
	VSUBSD       X8, X10, X10

// CDADVANCE moves the row pointers both kernels keep (u's column 0 and
// column c, p, d and ih at row i) bytes further.
#define CDADVANCE(bytes) \
	ADDQ $bytes, SI; \
	ADDQ $bytes, R11; \
	ADDQ $bytes, R8; \
	ADDQ $bytes, R9; \
	ADDQ $bytes, R10
