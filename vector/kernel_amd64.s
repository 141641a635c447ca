#include "textflag.h"

// func dotLanes(q *float64, v *float32, n int, acc *[8]float64)
// Y0 holds lanes 0-3, Y1 lanes 4-7; per 8 elements: widen v, multiply by q,
// add to the lanes.
TEXT ·dotLanes(SB), NOSPLIT, $0-32
	MOVQ q+0(FP), SI
	MOVQ v+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ acc+24(FP), DX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1

dotloop:
	CMPQ CX, $8
	JLT  dotdone
	VCVTPS2PD (DI), Y2
	VCVTPS2PD 16(DI), Y3
	VMULPD    (SI), Y2, Y2
	VMULPD    32(SI), Y3, Y3
	VADDPD    Y2, Y0, Y0
	VADDPD    Y3, Y1, Y1
	ADDQ      $32, DI
	ADDQ      $64, SI
	SUBQ      $8, CX
	JMP       dotloop

dotdone:
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VZEROUPPER
	RET

// func sqDistLanes(q *float64, v *float32, n int, acc *[8]float64)
TEXT ·sqDistLanes(SB), NOSPLIT, $0-32
	MOVQ q+0(FP), SI
	MOVQ v+8(FP), DI
	MOVQ n+16(FP), CX
	MOVQ acc+24(FP), DX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1

sqloop:
	CMPQ CX, $8
	JLT  sqdone
	VCVTPS2PD (DI), Y2
	VCVTPS2PD 16(DI), Y3
	VMOVUPD   (SI), Y4
	VMOVUPD   32(SI), Y5
	VSUBPD    Y2, Y4, Y4
	VSUBPD    Y3, Y5, Y5
	VMULPD    Y4, Y4, Y4
	VMULPD    Y5, Y5, Y5
	VADDPD    Y4, Y0, Y0
	VADDPD    Y5, Y1, Y1
	ADDQ      $32, DI
	ADDQ      $64, SI
	SUBQ      $8, CX
	JMP       sqloop

sqdone:
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VZEROUPPER
	RET
