//! The x86-64 target: AVX2+FMA (8 lanes) or SSE2 (4 lanes), chosen at run time.
//!
//! ```text
//!   loop_ir::Kernel --[emit.rs: loops, reductions; isel.rs: per node]--> dynasm Assembler
//!                   --[math.rs: vector exp/log/sin/cos/tanh/sigmoid/erf]
//!                   --[finalize]--> ExecutableBuffer (W^X)  --[disasm.rs]--> listing
//! ```

#![allow(
    clippy::useless_conversion,
    reason = "dynasm's macro converts dynamic register operands with `.into()`"
)]

mod asm;
mod disasm;
mod emit;
mod isel;
mod math;
mod reduce;
mod trig;
mod unroll;

use dynasmrt::x64::Assembler;

use crate::loop_ir::Kernel;
use crate::target::{CompiledKernel, Target};
use crate::{Error, Result};

/// Instruction-set level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
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
    /// The best ISA this CPU supports, unless `RYNAMO_JIT_ISA=sse2` asks for the baseline.
    pub fn host() -> X64Target {
        let forced = std::env::var("RYNAMO_JIT_ISA").ok();
        let avx = std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma");
        let isa = match forced.as_deref() {
            Some("sse2") => Isa::Sse2,
            _ if avx => Isa::Avx2,
            _ => Isa::Sse2,
        };
        X64Target { isa }
    }
}

impl Target for X64Target {
    fn name(&self) -> &'static str {
        match self.isa {
            Isa::Avx2 => "x64-avx2",
            Isa::Sse2 => "x64-sse2",
        }
    }

    fn lanes(&self) -> usize {
        match self.isa {
            Isa::Avx2 => 8,
            Isa::Sse2 => 4,
        }
    }

    fn compile(&self, k: &Kernel) -> Result<CompiledKernel> {
        let ops = Assembler::new().map_err(|e| Error::Emit(e.to_string()))?;
        let a = asm::Asm { ops, isa: self.isa };
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
}
