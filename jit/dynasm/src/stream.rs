//! Streaming stores: a kernel's variant that writes its large outputs with non-temporal vector
//! stores (`movntps`), which go to memory without reading the line into the caches first.
//!
//! A plain store reads its line in before it writes it (read for ownership), so a kernel that
//! writes a 16 MiB output moves 48 MiB: its input, the output's old contents, and the output.
//! The copy roofline of `benches/` (`memcpy`, whose large copies avoid that read) moves 32 MiB for
//! the same bytes. Written non-temporally, the output costs what the copy's does.
//!
//! A value parked in the output for a later phase (softmax's `e`, see `schedule::parking`) would
//! read the lines in again, so the variant parks it in a per-task row of scratch instead, which
//! stays in L1 or L2 between the phases.
//!
//! The variant is built at compile time, beside the ordinary code, for a kernel whose eligible
//! outputs total at least [`STREAM_MIN_BYTES`] (shapes are static per program). A launch uses it
//! when every streamed output's first row sits on the vector alignment; fresh outputs always do
//! (storage is 64-byte aligned), and the ordinary code runs otherwise. An output is eligible
//! when it is f32 with unit column stride, its offset and its row and batch strides keep every
//! row on the alignment, and the kernel does not read it back.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use crate::loop_ir::{AccessKind, ColStride, Kernel, Ty};
use crate::schedule::KernelStep;
use crate::target::{CompiledKernel, Target};
use crate::{Result, kernel_cache};

/// Output bytes from which a kernel without transcendentals (memory-bound) gets a streaming
/// variant, and [`STREAM_MIN_BYTES_COMPUTE`] for one with (whose stores are a smaller part of
/// its time). Measured with `cargo run --release --example stream_threshold -p rynamo-dynasm`
/// (2 threads, 2026-11-22, three runs, `exp` in one; streaming over plain time, alone /
/// followed by a `sum` of the output): `x * 1.5` 0.83-1.12 / 0.87-0.98 at 4 MiB and 0.64-0.73 /
/// 0.75-0.92 at 16 MiB;
/// `exp` 0.90 / 0.98 at 8 MiB, 0.83 / 0.91 at 16 MiB; softmax rows 0.97-1.03 / 1.05-1.09 at
/// 8 MiB, 0.92-1.04 / 0.93-1.05 at 16 MiB, 0.85-0.88 / 0.93-0.94 at 64 MiB.
pub const STREAM_MIN_BYTES: usize = 4 << 20;
/// See [`STREAM_MIN_BYTES`].
pub const STREAM_MIN_BYTES_COMPUTE: usize = 16 << 20;

/// The override of both thresholds; negative: none.
static MIN_NOW: AtomicI64 = AtomicI64::new(-1);

/// Overrides both thresholds for kernels compiled from now on (for measuring them: 0 builds a
/// variant for every eligible kernel, `usize::MAX` none); `None` restores them.
pub fn set_min_bytes(bytes: Option<usize>) {
    // `usize::MAX` saturates to `i64::MAX`, which no output reaches.
    let b = bytes.map_or(-1, |b| i64::try_from(b).unwrap_or(i64::MAX));
    MIN_NOW.store(b, Ordering::Relaxed);
}

fn min_bytes(k: &Kernel) -> usize {
    match usize::try_from(MIN_NOW.load(Ordering::Relaxed)) {
        Ok(b) => b,
        Err(_) if k.cost_per_element() >= crate::loop_ir::TRANSCENDENTAL_COST => {
            STREAM_MIN_BYTES_COMPUTE
        }
        Err(_) => STREAM_MIN_BYTES,
    }
}

/// Rows whose parked values would need more scratch than this (bytes) get no variant: they would
/// not stay in the caches between phases anyway.
pub const SCRATCH_MAX: usize = 256 << 10;

/// A kernel's streaming variant, with everything a launch needs worked out at compile time.
pub struct Streaming {
    /// Its code.
    pub code: Arc<CompiledKernel>,
    /// The accesses it stores non-temporally (their bases must be aligned).
    streamed: Vec<usize>,
    /// The alignment, bytes.
    pub align: usize,
    /// Where each parked access points in a task's scratch: `(access, byte offset)`.
    pub parks: Vec<(usize, usize)>,
    /// Bytes of scratch per task (0: nothing parked).
    pub scratch_bytes: usize,
    /// Its loop IR (for listings).
    pub ir: Kernel,
}

impl Streaming {
    /// `k`'s streaming variant on `target`, where the target has non-temporal stores and `k`
    /// qualifies (see `variant`).
    pub fn build(k: &KernelStep, target: &dyn Target) -> Result<Option<Streaming>> {
        let Some(align) = target.stream_align() else {
            return Ok(None);
        };
        let Some(ir) = variant(k, align) else {
            return Ok(None);
        };
        let (parks, scratch_bytes) = scratch(k);
        Ok(Some(Streaming {
            code: kernel_cache::get_or_compile(target, &ir)?,
            streamed: (0..ir.accesses.len())
                .filter(|&a| ir.accesses[a].kind == AccessKind::StreamStore)
                .collect(),
            align,
            parks,
            scratch_bytes,
            ir,
        }))
    }

    /// Whether a launch whose access `a` starts at address `base(a)` can run this variant.
    pub fn fits(&self, base: impl Fn(usize) -> usize) -> bool {
        self.streamed
            .iter()
            .all(|&a| base(a).is_multiple_of(self.align))
    }
}

/// The IR of `k`'s streaming variant for stores aligned to `align` bytes, or `None` if no output
/// is eligible or they write less than the threshold.
fn variant(k: &KernelStep, align: usize) -> Option<Kernel> {
    let parked: HashSet<usize> = k.parked.iter().map(|&a| a as usize).collect();
    if scratch(k).1 > SCRATCH_MAX {
        return None;
    }
    let read_back: HashSet<_> = (0..k.geom.len())
        .filter(|a| k.ir.accesses[*a].kind == AccessKind::Load && !parked.contains(a))
        .map(|a| k.geom[a].value)
        .collect();
    let rows: usize = k.batch.iter().product::<usize>() * k.rows;
    let on_line = |elems: isize| (elems * 4).rem_euclid(align as isize) == 0;
    let mut ir = k.ir.clone();
    let mut bytes = 0;
    for (i, a) in ir.accesses.iter_mut().enumerate() {
        let g = &k.geom[i];
        let eligible = a.kind == AccessKind::Store
            && a.ty == Ty::F32
            && a.col == ColStride::Contig
            && !parked.contains(&i)
            && !read_back.contains(&g.value)
            && on_line(g.offset)
            && (k.rows <= 1 || on_line(g.rs))
            && k.batch
                .iter()
                .zip(&g.batch)
                .all(|(&n, &s)| n <= 1 || on_line(s));
        if eligible {
            a.kind = AccessKind::StreamStore;
            bytes += rows * k.cols * 4;
        }
    }
    (bytes > 0 && bytes >= min_bytes(&k.ir)).then_some(ir)
}

/// Where each parked access of `k` points in a task's scratch, `(access, byte offset)`, and the
/// scratch's size in bytes: one row per parked value (its store and its load share it), each
/// starting on a cache line.
fn scratch(k: &KernelStep) -> (Vec<(usize, usize)>, usize) {
    let mut rows: Vec<(rynamo_graph::ValueId, usize)> = Vec::new();
    let mut size = 0;
    let mut at = Vec::with_capacity(k.parked.len());
    for &a in &k.parked {
        let a = a as usize;
        let v = k.geom[a].value;
        let off = if let Some(r) = rows.iter().find(|r| r.0 == v) {
            r.1
        } else {
            rows.push((v, size));
            size += (k.cols * k.ir.accesses[a].ty.size()).next_multiple_of(64);
            rows[rows.len() - 1].1
        };
        at.push((a, off));
    }
    (at, size)
}
