//! The dynasm JIT: fuses a [`rynamo_graph::Graph`] into loop kernels and emits x86-64 or AArch64
//! machine code for them at run time, behind the `"dynasm"` [`rynamo_backend::Backend`].
//!
//! ```text
//!   Graph --[passes: decompose, fold, fuse bias, CSE, DCE]--> Graph
//!         --[fuse]--> Plan --[schedule]--> loop_ir::Kernel + geometry
//!         --[Target::compile (x64: AVX-512, AVX2+FMA or SSE2; aarch64: NEON)]--> ExecutableBuffer
//!                                                              (W^X, cached)
//!         --[runtime]--> rows split across threads, eager fallbacks in between
//! ```
//!
//! **Invariant:** compiling never fails for a verifiable graph; what the JIT does not lower runs
//! through the registry's eager kernels, and results are checked against [`EagerBackend`] in the
//! tests.
//!
//! ```
//! use rynamo_backend::{Backend, Executable};
//! use rynamo_dynasm::DynasmBackend;
//! use rynamo_graph::parse;
//! use rynamo_tensor::Tensor;
//! let g = parse("graph(%x: f32[3]):\n  %0: f32[3] = mul(%x, 2.0)\n  %1: f32[3] = exp(%0)\n  return (%1)\n").unwrap();
//! let exe = DynasmBackend::new().compile(&g).unwrap();
//! let x = Tensor::from_vec(vec![0.0f32, 0.5, 1.0], &[3]).unwrap();
//! let y = exe.run(&[x]).unwrap()[0].to_vec::<f32>();
//! assert!((y[2] - 2f32.exp()).abs() < 1e-6);
//! ```
//!
//! # What is lowered
//! The same on both architectures: lowering to the loop IR ([`lower`], [`fuse`]) is shared, and
//! each emitter (`x64/`, `aarch64/`) implements every loop-IR instruction, type and stride
//! class, so a graph op that lowers on x86-64 lowers on AArch64 and vice versa.
//! - Pointwise (f32 vectorised: 16 lanes AVX-512, 8 lanes AVX2, 4 lanes SSE2 and NEON; f64,
//!   i64, bool scalar):
//!   the arithmetic, comparison, logical and bitwise ops, `where`, `masked_fill`, `clamp`, casts
//!   (except float to int), the activations (`relu`, `relu6`, `leaky_relu`, `elu`, `gelu` both
//!   forms, `silu`, `mish`, `softplus`, `sigmoid`, `tanh`), `exp`/`log`/`sin`/`cos`/`erf` (vector
//!   polynomials on f32, the same algorithms and table on both architectures), the other math
//!   functions as scalar library calls, rounding (vector `round`/`rndscale`/`frint` on AVX2,
//!   AVX-512 and NEON,
//!   library calls on SSE2), `nan_to_num`, `is*` predicates.
//! - Views folded into index maps (permute, transpose, slices, select, expand, (un)squeeze,
//!   diagonal, splitting reshapes, `as_strided`); merging reshapes of intermediates give their
//!   input a buffer.
//! - Creation ops filled with a constant (`zeros`, `ones`, `full`, `*_like`, `new_*`, `scalar_tensor`).
//! - Reductions `sum`, `mean`, `amax`, `amin`, `max()`, `min()` over any set of adjacent dims
//!   that includes the input's innermost one, with keepdim; `softmax`, `log_softmax`,
//!   `layer_norm`, `var`, `std` by decomposition.
//! - Matmuls run through the runtime's GEMM (eager kernels, the `gemm` crate), with a following
//!   bias add folded into `addmm`; batched f32 matmuls run one matrix per thread (`bmm.rs`).
//! - Everything else (argmax, cat, indexing, RNG, int division, reductions over non-adjacent
//!   dims or that keep the innermost dim, ...) runs per node through the registry's eager kernels.
//!   In-place ops on tensors the graph allocated become out-of-place ops (`passes/functionalize.rs`);
//!   graphs with other in-place ops (on inputs, or on tensors with views) run on the eager
//!   interpreter.
//!
//! Maximum errors of the vector math (ulps against an f64 reference) are in `tests/ulp.rs`; the
//! NEON path measures like AVX2+FMA (both fuse multiply-adds), and AVX-512 is bitwise AVX2.
//!
//! # Performance
//! What the JIT workloads of `benchmarks.md` (`benches/benches/jit_workloads.rs`) measured and
//! what answers it, all bitwise neutral:
//! - Kernel outputs come from a bounded pool of recycled buffers ([`buffers`]): no page faults
//!   or zero-filling per run.
//! - `sin(x)` and `cos(x)` of one `x` share one range reduction (x86-64, `x64/trig.rs`).
//! - Pointwise phases run four, three or two vectors per iteration, interleaved, so that chains of
//!   transcendentals overlap (AVX2 and AVX-512, `x64/unroll.rs`); spilled loads are re-read from
//!   their source rather than a spill slot.
//! - Later phases of a row kernel prefetch the first phase's input two rows ahead (x86-64,
//!   `x64/emit.rs`): a 4 KiB row is a page, where the hardware streamer stops.
//! - The first phase of a row kernel runs one row ahead, just before the last phase (x86-64,
//!   `x64/emit.rs`: `runs_ahead`), so the latency chains at phase boundaries (horizontal folds,
//!   the reciprocal) overlap independent work: W2 3.3% and W3 2% faster single-threaded.
//! - AVX-512 (16 lanes, `x64/zmm.rs`) where the CPU has F and DQ: single-threaded on Sapphire
//!   Rapids W1 4.1 vs 6.2 ms, W2 3.0 vs 3.9, W3 5.2 vs 7.3, W8 1.20 vs 1.34 against AVX2 (512-bit
//!   ops issue on two ports instead of three, so compute-bound kernels gain ~1.5x, not 2x).
//! - Division by a power-of-two constant is a multiplication ([`lower`]).
//! - Batched f32 matmuls run one matrix per thread (`bmm.rs`).
//! - Attention (`matmul`, a row kernel such as softmax, `matmul`) runs per matrix on one thread,
//!   the intermediates in per-thread scratch that stays in L2 ([`attn`]).
//! - Threads split work through `rynamo_tensor::parallel::parallel_for`, where the calling
//!   thread works too: with rayon's `into_par_iter` the blocked caller left a CPU idle and W8
//!   ran serially in most calls of `scripts/bench` (1.3 ms against 0.7-0.9 ms).
//! - On AVX-512, exp scales by `2^k` with one `vscalefps` (`x64/math.rs`).
//! - Large f32 outputs are written with non-temporal stores by a kernel's streaming variant
//!   ([`stream`]; x86-64): `x * 1.5` over 16 MiB 0.64-0.73x the time of plain stores.
//! - An f32 sum of a vector the iteration has just stored converts both halves to f64 from
//!   memory, no shuffle (`x64/reduce.rs`).
//! - exp's polynomial is degree 6, fitted (`poly::exp_coefficients`), not degree-7 Taylor: one
//!   FMA fewer at 0.89 ulp (W2 3% faster single-threaded). The one item here that changes
//!   results: exp's last bits, within the same bound (`tests/ulp.rs`).
//! - On AVX-512, f32 max/min reductions flag NaNs in opmask registers (`x64/reduce.rs`): one
//!   micro-op per pair of vectors instead of three (W2 4-5%).
//! - In a body of four or more copies, the first copy of a division by a hoisted divisor uses
//!   the otherwise idle divider (`x64/div.rs`; W2 2%).
//! - A reduction that keeps the innermost dim (`sum(x, 0)`) runs its eager kernel, which
//!   vectorises along that dim: 0.74 ms against 16.2 ms as a strided kernel (f32[4096, 1024]).
//! - A vector loop reads its most-used constants from registers its body never names, loaded
//!   before the loop (`x64/pins.rs`; AVX2 and AVX-512): W2 8-9% faster on AMD Zen 3, whose two
//!   256-bit loads per cycle bounded the exp loop; no change measured on a Sapphire Rapids-class
//!   Xeon. W1's and W3's unrolled loops use all 16 registers and pin nothing.
//!
//! # Environment
//! - `RYNAMO_JIT_ISA=avx2` / `=sse2`: use the AVX2+FMA (8 lanes) / SSE2 (4 lanes) tier even
//!   where the CPU has a higher one (default: the highest, AVX-512 with F and DQ first; see
//!   `x64::X64Target::host`).
//! - `RYNAMO_JIT_UNROLL=<n>`: at most `n` interleaved vectors per iteration of pointwise
//!   phases on AVX2 and AVX-512 (default 4; 0 or 1: none; see `x64/unroll.rs`; for measuring
//!   it).
//! - `RYNAMO_JIT_ATTN=0`: no fused attention steps (for measuring; see [`attn`]).
//! - `RYNAMO_JIT_PINS=0`: constants stay memory operands (for measuring; see `x64/pins.rs`).
//! - `RYNAMO_JIT_DUMP=1`: print each compiled graph's kernels (loop IR and disassembly) to
//!   stderr; [`DynasmExecutable::dump`] returns the same text.
//! - `RYNAMO_VERIFY=1`, `RYNAMO_DUMP_AFTER=<pass>`: verify / print the graph after the passes
//!   (see `rynamo_passes::PassCx`).
//!
//! # AArch64
//! [`aarch64::NeonTarget`] builds on every host (dynasm assembles AArch64 anywhere), and
//! [`target::host`] picks it on AArch64 machines. The tests run its code under qemu-user from an
//! x86-64 machine (`.cargo/config.toml` sets the cross linker and the runner):
//! ```text
//!   rustup target add aarch64-unknown-linux-gnu
//!   apt-get install qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
//!   cargo test --ignore-rust-version --target aarch64-unknown-linux-gnu -p rynamo-dynasm
//! ```
//! `scripts/test` runs this step when the tools are present (`.ci/run` installs them). The dump's
//! AArch64 listings come from `yaxpeax-arm` (pure Rust, so it builds for both targets with no C
//! toolchain; `bad64` wraps a C decoder).
//!
//! # Adding an architecture
//! Implement [`target::Target`] in a sibling of `x64/` and `aarch64/` (emitter, math,
//! reductions). The loop IR, fusion, register allocation ([`regalloc`], given the target's
//! register pool), the polynomial table ([`poly`]) and the runtime are shared; the
//! argument-block layout and the kernel ABI (`extern "C" fn(*mut u64)`) are part of the contract
//! (see `x64/emit.rs`, `aarch64/emit.rs`).
//!
//! [`EagerBackend`]: rynamo_backend::EagerBackend

#![warn(missing_docs)]

#[allow(
    clippy::useless_conversion,
    reason = "dynasm's macro converts dynamic register operands with `.into()`"
)]
pub mod aarch64;
pub mod attn;
mod backend;
mod bmm;
pub mod buffers;
mod error;
pub mod fuse;
pub mod helpers;
pub mod index_map;
pub mod kernel_cache;
pub mod loop_ir;
pub mod lower;
pub mod passes;
pub mod pipeline;
pub mod poly;
pub mod regalloc;
pub mod runtime;
pub mod schedule;
pub mod stream;
pub mod target;
pub mod vmath;
#[cfg(target_arch = "x86_64")]
pub mod x64;

#[cfg(test)]
mod tests;

pub use backend::{DynasmBackend, DynasmExecutable};

/// Stack left below which a recursive compile step moves to a fresh segment (`stacker`).
pub(crate) const STACK_RED_ZONE: usize = 256 << 10;
/// Size of each fresh stack segment.
pub(crate) const STACK_SEGMENT: usize = 4 << 20;
pub use error::{Error, Result};
