//! The AArch64 target: NEON, 4 f32 lanes, with scalar tails and scalar f64/i64/bool code.
//!
//! ```text
//!   loop_ir::Kernel --[plan.rs: vector or scalar, hoisting, registers; emit.rs: loops,
//!                      addressing; isel.rs: instruction selection;
//!                      reduce.rs: reductions]--> dynasm Assembler (.arch aarch64)
//!                   --[math.rs: vector exp/log/sin/cos/tanh/sigmoid/erf]
//!                   --[finalize]--> ExecutableBuffer (W^X)  --[disasm.rs]--> listing
//! ```
//!
//! Code generation is plain Rust, so this module builds (and its kernels assemble) on every
//! host; [`crate::target::host`] picks it on AArch64 machines, where the kernels run.

mod asm;
mod bool_lanes;
mod disasm;
mod emit;
mod isel;
mod math;
mod plan;
mod reduce;

use dynasmrt::aarch64::Assembler;

use crate::loop_ir::Kernel;
use crate::target::{CompiledKernel, Target};
use crate::{Error, Result};

/// The AArch64 NEON target (Advanced SIMD is part of the AArch64 baseline, so there is no
/// feature detection).
#[derive(Clone, Copy, Debug, Default)]
pub struct NeonTarget;

impl Target for NeonTarget {
    fn name(&self) -> &'static str {
        "aarch64-neon"
    }

    fn lanes(&self) -> usize {
        4
    }

    fn compile(&self, k: &Kernel) -> Result<CompiledKernel> {
        let ops = Assembler::new().map_err(|e| Error::Emit(e.to_string()))?;
        let (a, entry) = emit::emit(asm::Asm { ops }, k).map_err(Error::Emit)?;
        // dynasmrt's finalize flushes the instruction cache for the new code on AArch64.
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
