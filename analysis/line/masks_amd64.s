//go:build !purego

#include "textflag.h"

// func allMasks(blk *[64]byte) (bs, stop, na, leads uint64)
//
// SSE2 (every amd64 CPU has it), 16 bytes at a time: backslashes and quotes
// by byte equality, control characters as the bytes that a saturating
// subtraction of 0x1F takes to zero, non-ASCII bytes by their high bit, lead
// bytes (>= 0xC0) by the high bit of x & x<<1.
TEXT ·allMasks(SB), NOSPLIT, $0-40
	MOVQ blk+0(FP), SI
	MOVQ $0x5C5C5C5C5C5C5C5C, AX
	MOVQ AX, X8
	PUNPCKLQDQ X8, X8
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X9
	PUNPCKLQDQ X9, X9
	MOVQ $0x1F1F1F1F1F1F1F1F, AX
	MOVQ AX, X10
	PUNPCKLQDQ X10, X10
	PXOR X11, X11

	XORQ R8, R8  // bs
	XORQ R9, R9  // stop
	XORQ R10, R10 // na
	XORQ R11, R11 // leads

#define LANE(off, sh) \
	MOVOU off(SI), X0; \
	MOVO X0, X1; \
	PCMPEQB X8, X1; \
	PMOVMSKB X1, AX; \
	SHLQ $sh, AX; \
	ORQ AX, R8; \
	MOVO X0, X2; \
	PCMPEQB X9, X2; \
	MOVO X0, X3; \
	PSUBUSB X10, X3; \
	PCMPEQB X11, X3; \
	POR X3, X2; \
	PMOVMSKB X2, BX; \
	SHLQ $sh, BX; \
	ORQ BX, R9; \
	PMOVMSKB X0, CX; \
	SHLQ $sh, CX; \
	ORQ CX, R10; \
	MOVO X0, X4; \
	PADDB X4, X4; \
	PAND X0, X4; \
	PMOVMSKB X4, DX; \
	SHLQ $sh, DX; \
	ORQ DX, R11

	LANE(0, 0)
	LANE(16, 16)
	LANE(32, 32)
	LANE(48, 48)

	MOVQ R8, bs+8(FP)
	MOVQ R9, stop+16(FP)
	MOVQ R10, na+24(FP)
	MOVQ R11, leads+32(FP)
	RET
