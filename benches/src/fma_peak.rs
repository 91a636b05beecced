//! The machine's FP32 peak measured by code the runtime does not use: a loop of independent
//! fused multiply-adds assembled at run time (AVX-512 `zmm` where the CPU has it, else AVX2+FMA
//! `ymm`), run on every core at once. A GEMM can at best reach this figure, so W4's roofline is
//! not the project's own gemm crate measured against itself (issue 31).
//!
//! ```text
//!   vxorps ymm0..ymm13          zero every register (zeros: no denormal slow path; VEX zeroes
//!                               the upper zmm lanes too)
//! top:
//!   vfmadd231ps v0, v12, v13   \
//!   ...                         > ACCUMULATORS independent chains: more than latency x ports
//!   vfmadd231ps v11, v12, v13  /
//!   dec rdi ; jnz top
//!   vzeroupper ; ret
//! ```

use std::sync::Barrier;
use std::time::Instant;

use crate::median;

/// Independent accumulator chains: FMA latency (4 cycles) times FMA ports (2) is 8 on the CPUs
/// this runs on; 12 leaves headroom and the two source registers.
const ACCUMULATORS: u32 = 12;

/// Which vector width the loop runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// AVX-512F: 16 f32 lanes per FMA.
    Avx512,
    /// AVX2 + FMA3: 8 lanes.
    Avx2,
}

impl Isa {
    fn lanes(self) -> u32 {
        match self {
            Isa::Avx512 => 16,
            Isa::Avx2 => 8,
        }
    }

    /// The widest FMA this CPU runs, if any.
    pub fn detect() -> Option<Isa> {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Some(Isa::Avx512);
            }
            if std::arch::is_x86_feature_detected!("fma")
                && std::arch::is_x86_feature_detected!("avx2")
            {
                return Some(Isa::Avx2);
            }
        }
        None
    }
}

/// The assembled loop: `iters` iterations of `ACCUMULATORS` FMAs.
#[cfg(target_arch = "x86_64")]
struct FmaLoop {
    code: dynasmrt::ExecutableBuffer,
    entry: dynasmrt::AssemblyOffset,
}

#[cfg(target_arch = "x86_64")]
impl FmaLoop {
    fn assemble(isa: Isa) -> Result<FmaLoop, String> {
        use dynasmrt::{DynasmApi, DynasmLabelApi, dynasm};
        use iced_x86::{Code, Encoder, Instruction, Register};

        let encode = |ins: Instruction| -> Result<Vec<u8>, String> {
            let mut enc = Encoder::new(64);
            enc.encode(&ins, 0).map_err(|e| e.to_string())?;
            Ok(enc.take_buffer())
        };
        let ymm = |i: u32| Register::YMM0 + i;
        let (fma, v) = match isa {
            Isa::Avx512 => (
                Code::EVEX_Vfmadd231ps_zmm_k1z_zmm_zmmm512b32_er,
                Register::ZMM0,
            ),
            Isa::Avx2 => (Code::VEX_Vfmadd231ps_ymm_ymm_ymmm256, Register::YMM0),
        };
        let mut ops = dynasmrt::x64::Assembler::new().map_err(|e| e.to_string())?;
        let entry = ops.offset();
        for i in 0..ACCUMULATORS + 2 {
            let xor = Instruction::with3(Code::VEX_Vxorps_ymm_ymm_ymmm256, ymm(i), ymm(i), ymm(i))
                .map_err(|e| e.to_string())?;
            ops.extend(encode(xor)?);
        }
        dynasm!(ops ; .arch x64 ; ->top:);
        for i in 0..ACCUMULATORS {
            let ins = Instruction::with3(fma, v + i, v + ACCUMULATORS, v + (ACCUMULATORS + 1))
                .map_err(|e| e.to_string())?;
            ops.extend(encode(ins)?);
        }
        dynasm!(ops ; .arch x64 ; dec rdi ; jnz ->top);
        // vzeroupper: no AVX-SSE transition penalty in the caller.
        ops.extend([0xC5, 0xF8, 0x77]);
        dynasm!(ops ; .arch x64 ; ret);
        let code = ops
            .finalize()
            .map_err(|_| "could not finalize the FMA loop".to_string())?;
        Ok(FmaLoop { code, entry })
    }

    fn run(&self, iters: u64) {
        // SAFETY: `entry` is the start of the function assembled above: it reads only rdi (the
        // iteration count, > 0 as `dec; jnz` needs), writes only caller-saved vector registers
        // and rdi, touches no memory, and returns; the buffer outlives the call.
        unsafe {
            let f: extern "sysv64" fn(u64) = std::mem::transmute(self.code.ptr(self.entry));
            f(iters.max(1));
        }
    }
}

/// FP32 GFLOP/s of the FMA loop on `threads` threads at once (median of `reps` timed runs of
/// about 0.1 s each), with the ISA it ran; `Err` on a CPU without FMA or off x86-64.
pub fn fma_peak(threads: usize, reps: usize) -> Result<(f64, Isa), String> {
    let isa = Isa::detect().ok_or("no AVX2+FMA or AVX-512 on this CPU")?;
    #[cfg(target_arch = "x86_64")]
    {
        let kernel = FmaLoop::assemble(isa)?;
        let flops_per_iter = f64::from(ACCUMULATORS * isa.lanes() * 2);
        // Calibrate one thread to about 0.1 s per run.
        let probe = 1_000_000u64;
        let start = Instant::now();
        kernel.run(probe);
        let per_iter = start.elapsed().as_secs_f64() / probe as f64;
        let iters = ((0.1 / per_iter.max(1e-12)) as u64).clamp(probe, 1 << 34);
        let threads = threads.max(1);
        let mut samples = Vec::with_capacity(reps);
        for _ in 0..reps.max(1) {
            let barrier = Barrier::new(threads + 1);
            let elapsed = std::thread::scope(|s| {
                for _ in 0..threads {
                    s.spawn(|| {
                        barrier.wait();
                        kernel.run(iters);
                    });
                }
                barrier.wait();
                Instant::now()
            })
            .elapsed();
            samples.push(elapsed);
        }
        let t = median(samples).as_secs_f64();
        Ok((
            flops_per_iter * iters as f64 * threads as f64 / t / 1e9,
            isa,
        ))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (threads, reps, isa);
        Err("the FMA loop is x86-64 only".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fma_loop_runs_and_reports_a_plausible_peak() {
        let Ok((gflops, isa)) = fma_peak(1, 1) else {
            return; // no FMA here: nothing to measure
        };
        // One core's FMA peak is between a slow 1 GHz core with one 8-lane port (16 GFLOP/s)
        // and a 6 GHz core with two 16-lane ports (384); the floor is loose for a shared CI box.
        assert!(
            gflops > 1.0 && gflops < 400.0,
            "{gflops} GFLOP/s on {isa:?}"
        );
    }
}
