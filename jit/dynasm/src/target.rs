//! The per-architecture hook: a [`Target`] turns a [`Kernel`] into machine code. Everything above
//! it (fusion, loop IR, register allocation, polynomial tables, the runtime) is shared, so a new
//! architecture is one more implementation of this trait plus its emitter files.

use dynasmrt::{AssemblyOffset, ExecutableBuffer};

use crate::Result;
use crate::loop_ir::Kernel;

/// The kernel ABI: one pointer to the argument block (see the target's emitter for its layout).
pub type KernelFn = unsafe extern "C" fn(*mut u64);

/// Machine code for one kernel, in W^X memory.
pub struct CompiledKernel {
    buf: ExecutableBuffer,
    entry: AssemblyOffset,
    target: &'static str,
}

impl std::fmt::Debug for CompiledKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CompiledKernel({}, {} bytes)",
            self.target,
            self.buf.len()
        )
    }
}

impl CompiledKernel {
    /// Wraps finalized code.
    pub fn new(
        buf: ExecutableBuffer,
        entry: AssemblyOffset,
        target: &'static str,
    ) -> CompiledKernel {
        CompiledKernel { buf, entry, target }
    }

    /// The entry point.
    pub fn entry(&self) -> KernelFn {
        // SAFETY: the buffer holds finalized code whose entry follows the kernel ABI; it lives as
        // long as `self`, and callers keep an `Arc` to it while calling.
        unsafe { std::mem::transmute::<*const u8, KernelFn>(self.buf.ptr(self.entry)) }
    }

    /// The code bytes.
    pub fn code(&self) -> &[u8] {
        &self.buf[..]
    }

    /// The code's address (for listings).
    pub fn addr(&self) -> u64 {
        self.buf.ptr(AssemblyOffset(0)) as u64
    }

    /// The target that produced it.
    pub fn target(&self) -> &'static str {
        self.target
    }
}

/// One architecture (and ISA level).
pub trait Target: Send + Sync {
    /// Name, part of the kernel cache key: `"x64-avx512"`, `"x64-avx2"`, ...
    fn name(&self) -> &'static str;
    /// f32 lanes of the vector path.
    fn lanes(&self) -> usize;
    /// Emits a kernel.
    fn compile(&self, k: &Kernel) -> Result<CompiledKernel>;
    /// A listing of code produced by this target.
    fn disassemble(&self, code: &[u8], addr: u64) -> String;
    /// The alignment (bytes) of the non-temporal vector stores of a kernel's streaming variant
    /// ([`crate::stream`]); `None` where the target emits none (then no variant is built).
    fn stream_align(&self) -> Option<usize> {
        None
    }
}

/// The target for this machine: x86-64 (AVX-512, AVX2+FMA or SSE2, the highest the CPU has;
/// `RYNAMO_JIT_ISA=avx2` or `=sse2` selects a lower tier) or AArch64 NEON; `None` elsewhere
/// (everything then runs eagerly).
pub fn host() -> Option<Box<dyn Target>> {
    #[cfg(target_arch = "x86_64")]
    {
        Some(Box::new(crate::x64::X64Target::host()))
    }
    #[cfg(target_arch = "aarch64")]
    {
        Some(Box::new(crate::aarch64::NeonTarget))
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        None
    }
}
