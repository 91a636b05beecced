//! EVEX (AVX-512) encodings through iced-x86's [`Encoder`]: dynasm 5.1 has no EVEX, so each
//! AVX-512 instruction is built as an iced [`Instruction`], encoded on its own and its bytes
//! appended to dynasm's buffer.
//!
//! Encoding one instruction at a dummy address is exact because none of them refers to a label
//! or uses a RIP-relative operand: every memory operand is `[base + disp]` on a GP register.
//!
//! Register numbers are the emitters' `u8`s (0-15), mapped to ymm/zmm, k or 64-bit GP
//! registers; the 16-register model of `regalloc` is unchanged (zmm16-31 are never used).

use dynasmrt::x64::Assembler;
use iced_x86::{Code, Encoder, Instruction, OpKind, Register};

use super::asm::Mem;

/// The opmask register every compare, blend and lane test goes through (masks stay all-ones
/// lanes in vector registers between instructions, so no other k register is live).
pub const K1: u8 = 1;

/// One operand of an EVEX instruction.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// zmm register.
    Z(u8),
    /// ymm register.
    Y(u8),
    /// xmm register.
    X(u8),
    /// Opmask register.
    K(u8),
    /// Memory: a full vector, or with [`Mem::bcast`] one element broadcast to every lane
    /// (`{1to16}` / `{1to8}` by the instruction's element size).
    M(Mem),
    /// Memory read as one element (`vbroadcastss zmm, m32`: the element size is the
    /// instruction's, no `{1toN}` flag).
    M1(Mem),
    /// 8-bit immediate.
    I(i8),
}

fn reg(base: Register, r: u8) -> Register {
    debug_assert!(
        r < 16,
        "invariant: the register model has 16 vector and GP registers"
    );
    base + u32::from(r)
}

fn gp(r: u8) -> Register {
    reg(Register::RAX, r)
}

/// The encoder, kept per assembler so that its buffer is reused.
pub struct Evex {
    enc: Encoder,
}

impl Default for Evex {
    fn default() -> Self {
        Evex {
            enc: Encoder::new(64),
        }
    }
}

impl Evex {
    /// Encodes `code` with `ops` (and `{k}` merge-masking by `mask`) and appends it to `out`.
    pub fn emit(&mut self, out: &mut Assembler, code: Code, ops: &[Op], mask: Option<u8>) {
        let mut ins = Instruction::with(code);
        for (i, &op) in ops.iter().enumerate() {
            let i = i as u32;
            match op {
                Op::Z(r) => ins.set_op_register(i, reg(Register::ZMM0, r)),
                Op::Y(r) => ins.set_op_register(i, reg(Register::YMM0, r)),
                Op::X(r) => ins.set_op_register(i, reg(Register::XMM0, r)),
                Op::K(r) => ins.set_op_register(i, reg(Register::K0, r)),
                Op::M(m) | Op::M1(m) => {
                    ins.set_op_kind(i, OpKind::Memory);
                    ins.set_memory_base(gp(m.base));
                    ins.set_memory_index(Register::None);
                    ins.set_memory_index_scale(1);
                    // 1: the shortest displacement that holds it (disp8*N included).
                    ins.set_memory_displ_size(1);
                    ins.set_memory_displacement64(i64::from(m.disp) as u64);
                    ins.set_is_broadcast(matches!(op, Op::M(m) if m.bcast));
                }
                Op::I(v) => {
                    ins.set_op_kind(i, OpKind::Immediate8);
                    ins.set_immediate8(v as u8);
                }
            }
        }
        if let Some(k) = mask {
            ins.set_op_mask(reg(Register::K0, k));
        }
        self.enc.encode(&ins, 0).expect(
            "invariant: every EVEX form used is encodable with register/[base+disp] operands",
        );
        let mut bytes = self.enc.take_buffer();
        out.extend(bytes.iter().copied());
        bytes.clear();
        self.enc.set_buffer(bytes);
    }
}

#[cfg(test)]
mod tests {
    use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter};

    use super::*;

    fn text(code: Code, ops: &[Op], mask: Option<u8>) -> String {
        let mut a = Assembler::new().expect("assembler");
        let mut e = Evex::default();
        e.emit(&mut a, code, ops, mask);
        let buf = a.finalize().expect("finalize");
        let mut d = Decoder::with_ip(64, &buf, 0, DecoderOptions::NONE);
        let ins = d.decode();
        assert_eq!(ins.len(), buf.len(), "one instruction");
        let mut s = String::new();
        IntelFormatter::new().format(&ins, &mut s);
        s
    }

    #[test]
    fn operands_map_to_the_registers_and_memory_forms_asked_for() {
        let full = Mem::vec(4, 128);
        let bc = Mem::bcast(15, 96);
        let cases: [(Code, Vec<Op>, Option<u8>, &str); 7] = [
            (
                Code::EVEX_Vaddps_zmm_k1z_zmm_zmmm512b32_er,
                vec![Op::Z(3), Op::Z(14), Op::Z(9)],
                None,
                "vaddps zmm3,zmm14,zmm9",
            ),
            (
                Code::EVEX_Vmulps_zmm_k1z_zmm_zmmm512b32_er,
                vec![Op::Z(0), Op::Z(1), Op::M(full)],
                None,
                "vmulps zmm0,zmm1,[rsp+80h]",
            ),
            (
                Code::EVEX_Vfmadd213ps_zmm_k1z_zmm_zmmm512b32_er,
                vec![Op::Z(12), Op::Z(13), Op::M(bc)],
                None,
                "vfmadd213ps zmm12,zmm13,[r15+60h]{1to16}",
            ),
            (
                Code::EVEX_Vmulpd_zmm_k1z_zmm_zmmm512b64_er,
                vec![Op::Z(10), Op::Z(14), Op::M(bc)],
                None,
                "vmulpd zmm10,zmm14,[r15+60h]{1to8}",
            ),
            (
                Code::EVEX_Vbroadcastss_zmm_k1z_xmmm32,
                vec![Op::Z(5), Op::M1(Mem::bcast(14, 0))],
                None,
                "vbroadcastss zmm5,[r14]",
            ),
            (
                Code::EVEX_Vcmpps_kr_k1_zmm_zmmm512b32_imm8_sae,
                vec![Op::K(K1), Op::Z(2), Op::Z(7), Op::I(1)],
                None,
                "vcmpltps k1,zmm2,zmm7",
            ),
            (
                Code::EVEX_Vblendmps_zmm_k1z_zmm_zmmm512b32,
                vec![Op::Z(4), Op::Z(5), Op::Z(6)],
                Some(K1),
                "vblendmps zmm4{k1},zmm5,zmm6",
            ),
        ];
        for (code, ops, mask, want) in cases {
            assert_eq!(text(code, &ops, mask), want, "{code:?}");
        }
    }
}
