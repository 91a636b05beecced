//! Bool loads and stores. In memory a bool is one byte per element (0 or 1). Scalar phases keep
//! it as a 0/1 integer; vector phases (`Emitter::masks`, in the vector loop and its scalar tail
//! alike) as an all-ones lane mask, what a compare produces, so that selects, logic ops and casts
//! need no other form. A vector phase loads `lanes` bytes and widens them to 32-bit lanes, and
//! stores lanes by narrowing `mask & 1` back to bytes.
//!
//! Why: a causal attention mask (`masked_fill(~tril, -inf)` before softmax) and its backward
//! read and write bool tensors next to f32 ones. Before these forms existed such a phase ran
//! element by element: W11's masked-softmax kernel was a quarter of its compiled train step.
//!
//! A nonzero byte other than 1 (a `uint8` tensor viewed as bool) loads as true, as eager reads it.

use dynasmrt::DynasmApi;
use iced_x86::Code;

use super::Isa;
use super::asm::{F, Mem, W, x64};
use super::emit::{Emitter, RDX};
use super::evex::K1;
use super::evex::Op::{K, M, X, Z};
use crate::poly::K as Tab;

/// Scratch vector registers (never allocated; see `frame::POOL`).
const T0: u8 = 11;
const T1: u8 = 12;

impl Emitter<'_> {
    /// Loads the bool at `m` into `d` (see the module docs); `bcast`: one byte for every lane.
    pub(super) fn load_bool(&mut self, d: u8, m: Mem, vec: bool, bcast: bool) {
        let (b, o) = (m.base, m.disp);
        if !self.masks {
            x64!(self.a.ops ; movzx edx, BYTE [Rq(b) + o]);
            self.a.movq_from_gp(d, RDX);
            return;
        }
        if !vec || bcast {
            // `neg` sets the carry for a nonzero byte; `sbb` turns it into all ones.
            x64!(self.a.ops ; movzx edx, BYTE [Rq(b) + o] ; neg edx ; sbb edx, edx);
            self.a.movq_from_gp(d, RDX);
            if vec {
                self.splat_lane0(d);
            }
            return;
        }
        match self.a.isa {
            Isa::Avx512 => {
                self.a
                    .ev(Code::EVEX_Vpmovzxbd_zmm_k1z_xmmm128, &[Z(d), M(m)]);
                self.a.ev(
                    Code::EVEX_Vptestmd_kr_k1_zmm_zmmm512b32,
                    &[K(K1), Z(d), Z(d)],
                );
                self.a.ev(Code::EVEX_Vpmovm2d_zmm_kr, &[Z(d), K(K1)]);
            }
            Isa::Avx2 => {
                x64!(self.a.ops
                    ; vmovq Rx(d), QWORD [Rq(b) + o]
                    ; vpmovzxbd Ry(d), Rx(d)
                    ; vpxor Rx(T0), Rx(T0), Rx(T0)
                    ; vpcmpeqd Ry(d), Ry(d), Ry(T0)
                );
                let ones = self.tab(Tab::AllOnes);
                self.a.fm(F::Xor, W::Ps, d, d, ones);
            }
            Isa::Sse2 => {
                x64!(self.a.ops
                    ; movd Rx(d), DWORD [Rq(b) + o]
                    ; pxor Rx(T0), Rx(T0)
                    ; punpcklbw Rx(d), Rx(T0)
                    ; punpcklwd Rx(d), Rx(T0)
                    ; pcmpeqd Rx(d), Rx(T0)
                );
                let ones = self.tab(Tab::AllOnes);
                self.a.fm(F::Xor, W::Ps, d, d, ones);
            }
        }
    }

    /// Stores the bool in `r` at `m` (see the module docs).
    pub(super) fn store_bool(&mut self, m: Mem, r: u8, vec: bool) {
        let (b, o) = (m.base, m.disp);
        if !vec {
            self.a.movq_to_gp(RDX, r);
            if self.masks {
                x64!(self.a.ops ; and edx, 1);
            }
            x64!(self.a.ops ; mov BYTE [Rq(b) + o], dl);
            return;
        }
        let one = self.tab(Tab::IntOne);
        self.a.fm(F::And, W::Ps, T1, r, one);
        match self.a.isa {
            Isa::Avx512 => self
                .a
                .ev(Code::EVEX_Vpmovdb_xmmm128_k1z_zmm, &[M(m), Z(T1)]),
            Isa::Avx2 => x64!(self.a.ops
                ; vextracti128 Rx(T0), Ry(T1), 1
                ; vpackssdw Rx(T1), Rx(T1), Rx(T0)
                ; vpacksswb Rx(T1), Rx(T1), Rx(T1)
                ; vmovq QWORD [Rq(b) + o], Rx(T1)
            ),
            Isa::Sse2 => x64!(self.a.ops
                ; packssdw Rx(T1), Rx(T1)
                ; packsswb Rx(T1), Rx(T1)
                ; movd DWORD [Rq(b) + o], Rx(T1)
            ),
        }
    }

    /// Every lane of `d` = its lane 0.
    fn splat_lane0(&mut self, d: u8) {
        match self.a.isa {
            Isa::Avx512 => self
                .a
                .ev(Code::EVEX_Vpbroadcastd_zmm_k1z_xmmm32, &[Z(d), X(d)]),
            Isa::Avx2 => x64!(self.a.ops ; vpbroadcastd Ry(d), Rx(d)),
            Isa::Sse2 => x64!(self.a.ops ; pshufd Rx(d), Rx(d), 0),
        }
    }
}
