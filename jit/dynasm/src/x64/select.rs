//! Compare-and-select, `d = (a pred b) ? t : f`, where the mask is not needed afterwards: on
//! AVX-512 the compare's `k1` feeds the blend directly (two instructions, where a compare and a
//! blend through a vector mask take four: `vcmpps k1` + `vpmovm2d`, then `vpmovd2m` +
//! `vblendmps`); other tiers compare into `tmp` and blend as before.

use iced_x86::Code;

use super::asm::{Asm, Mem, W};
use super::evex::K1;
use super::evex::Op::{self, K, M, Z};

impl Asm {
    /// `d = (a pred b) ? t : f` (`pred` as in [`Asm::cmp`]); `tmp` is clobbered except on
    /// AVX-512.
    #[allow(
        clippy::too_many_arguments,
        reason = "the operands of one compare and one blend"
    )]
    pub fn cmp_blend(&mut self, w: W, pred: i8, (d, f, t): (u8, u8, u8), a: u8, b: u8, tmp: u8) {
        if self.zmm() && w == W::Ps {
            return self.z_cmp_blend(pred, (d, f, t), a, Z(b));
        }
        self.cmp(w, pred, tmp, a, b);
        self.blend(w, d, f, t, tmp);
    }

    /// [`Asm::cmp_blend`] against memory.
    pub fn cmp_blend_m(&mut self, w: W, pred: i8, (d, f, t): (u8, u8, u8), a: u8, m: Mem, tmp: u8) {
        if self.zmm() && w == W::Ps {
            return self.z_cmp_blend(pred, (d, f, t), a, M(m));
        }
        self.cmp_m(w, pred, tmp, a, m);
        self.blend(w, d, f, t, tmp);
    }

    fn z_cmp_blend(&mut self, pred: i8, (d, f, t): (u8, u8, u8), a: u8, b: Op) {
        self.ev(
            Code::EVEX_Vcmpps_kr_k1_zmm_zmmm512b32_imm8_sae,
            &[K(K1), Z(a), b, Op::I(pred)],
        );
        self.z_blend_k1(d, f, t);
    }
}
