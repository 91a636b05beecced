//! The x86-64 target: AVX-512 (16 lanes), AVX2+FMA (8 lanes) or SSE2 (4 lanes), chosen at run
//! time.
//!
//! ```text
//!   loop_ir::Kernel --[emit.rs: loops, reductions; isel.rs: per node]--> dynasm Assembler
//!                   --[math.rs: vector exp/log/sin/cos/tanh/sigmoid/erf]
//!                   --[asm.rs, asm_mem.rs: one operation per ISA; zmm.rs + evex.rs: AVX-512
//!                      forms, encoded by iced-x86 and appended to dynasm's buffer]
//!                   --[finalize]--> ExecutableBuffer (W^X)  --[disasm.rs]--> listing
//! ```
//!
//! The AVX-512 tier is the AVX2 tier at twice the width: the same algorithms, register model
//! (zmm0-15), frame layout with 64-byte vector slots, and masks as all-ones lanes; only packed
//! operations change form, scalar ones keep their VEX encodings.

#![allow(
    clippy::useless_conversion,
    reason = "dynasm's macro converts dynamic register operands with `.into()`"
)]

mod asm;
mod asm_mem;
mod bool_lanes;
mod call;
mod disasm;
mod div;
mod emit;
mod evex;
mod frame;
mod isel;
mod math;
pub(crate) mod pins;
mod reduce;
mod select;
mod trig;
mod unroll;
mod zmm;

use dynasmrt::x64::Assembler;

use crate::loop_ir::Kernel;
use crate::target::{CompiledKernel, Target};
use crate::{Error, Result};

/// Instruction-set level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// AVX-512 (F, DQ; EVEX packed forms): 16 f32 lanes; scalar forms as AVX2.
    Avx512,
    /// AVX2 + FMA: 8 f32 lanes, three-operand forms.
    Avx2,
    /// The x86-64 baseline: 4 f32 lanes.
    Sse2,
}

/// The x86-64 target at one ISA level.
#[derive(Clone, Copy, Debug)]
pub struct X64Target {
    /// ISA level.
    pub isa: Isa,
}

impl X64Target {
    /// The best ISA this CPU supports, unless `RYNAMO_JIT_ISA=avx2` or `=sse2` asks for a lower
    /// tier (a tier the CPU lacks is never chosen). AVX-512 needs F and DQ (`vpmovd2m`,
    /// `vpmovm2d`, `vextractf32x8`) besides AVX2+FMA, whose VEX forms it keeps for scalars.
    pub fn host() -> X64Target {
        let forced = std::env::var("RYNAMO_JIT_ISA").ok();
        let avx = std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma");
        let avx512 = avx
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq");
        let isa = match forced.as_deref() {
            Some("sse2") => Isa::Sse2,
            Some("avx2") if avx => Isa::Avx2,
            _ if avx512 => Isa::Avx512,
            _ if avx => Isa::Avx2,
            _ => Isa::Sse2,
        };
        X64Target { isa }
    }
}

impl Target for X64Target {
    fn name(&self) -> &'static str {
        match self.isa {
            Isa::Avx512 => "x64-avx512",
            Isa::Avx2 => "x64-avx2",
            Isa::Sse2 => "x64-sse2",
        }
    }

    fn lanes(&self) -> usize {
        match self.isa {
            Isa::Avx512 => 16,
            Isa::Avx2 => 8,
            Isa::Sse2 => 4,
        }
    }

    fn compile(&self, k: &Kernel) -> Result<CompiledKernel> {
        let ops = Assembler::new().map_err(|e| Error::Emit(e.to_string()))?;
        let a = asm::Asm::new(ops, self.isa);
        let (a, entry) = emit::emit(a, k).map_err(Error::Emit)?;
        let buf = a
            .ops
            .finalize()
            .map_err(|_| Error::Emit("finalize failed".into()))?;
        Ok(CompiledKernel::new(buf, entry, self.name()))
    }

    fn disassemble(&self, code: &[u8], addr: u64) -> String {
        disasm::listing(code, addr)
    }

    fn stream_align(&self) -> Option<usize> {
        // movntps/vmovntps fault on an address that is not a multiple of the vector size.
        Some(4 * self.lanes())
    }
}
