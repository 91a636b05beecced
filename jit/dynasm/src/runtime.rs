//! Running a compiled program: a buffer per graph value, steps in order, kernels launched over
//! their rows (split across rayon threads when the work is large enough).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rynamo_graph::{Graph, IValue, registry};
use rynamo_tensor::Tensor;
use rynamo_tensor::parallel::parallel_for;
use rynamo_tensor::preserve::is_non_overlapping_and_dense;
use smallvec::SmallVec;

use crate::lower::ConstVal;
use crate::schedule::{KernelStep, Step};
use crate::stream::Streaming;
use crate::target::CompiledKernel;

/// Default work (elements times the kernel's per-element cost estimate,
/// [`crate::loop_ir::Kernel::cost_per_element`]) below which a kernel stays on the calling
/// thread. Measured with `cargo run --release --example par_threshold -p rynamo-dynasm`, which
/// times the same kernel never split and always split over sizes 2^8..2^20. On the quiet 2-core
/// box (2026-11-22, two runs), waking the second thread costs tens of microseconds: an `exp`
/// kernel first gains between 5.5 M and 11 M cost-weighted elements (split/never 1.08-1.46 at
/// 5.5 M, 0.62-0.78 at 11 M; 2.0-2.1 at 2.75 M), and a memory-bound `add` never does up to 2 M.
/// 2^23 sits in that crossover. (An earlier run under a load average of ~8 put it at 2^21.)
pub const PAR_WORK: usize = 1 << 23;

static PAR_WORK_NOW: AtomicUsize = AtomicUsize::new(PAR_WORK);

/// Sets the split threshold (for measuring it; `usize::MAX` never splits, 0 always does).
pub fn set_par_work(work: usize) {
    PAR_WORK_NOW.store(work, Ordering::Relaxed);
}

/// Pointwise kernels over one long row are re-tiled into rows of at most this many columns (and
/// at least `MIN_TILE`), so that they can be split across threads.
const TILE: usize = 8192;
const MIN_TILE: usize = 1024;

/// A kernel ready to launch: code plus its constant pool.
pub struct Launch {
    /// The code.
    pub code: Arc<CompiledKernel>,
    /// Constants, one 32-byte broadcast slot each.
    pub pool: Vec<[u32; 8]>,
    /// The variant with non-temporal stores, for kernels with large outputs
    /// ([`crate::stream`]).
    pub streaming: Option<Streaming>,
}

/// Builds the constant pool.
pub fn pool(consts: &[ConstVal]) -> Vec<[u32; 8]> {
    consts
        .iter()
        .map(|c| {
            let q = |b: u64| {
                let (lo, hi) = (b as u32, (b >> 32) as u32);
                [lo, hi, lo, hi, lo, hi, lo, hi]
            };
            match *c {
                ConstVal::F32(v) => [v.to_bits(); 8],
                ConstVal::F64(v) => q(v.to_bits()),
                ConstVal::I64(v) => q(v as u64),
                ConstVal::Bool(v) => q(u64::from(v)),
            }
        })
        .collect()
}

#[derive(Clone, Copy)]
struct SendPtr(*mut u8);
// SAFETY: launch chunks write disjoint rows of the output buffers; inputs are only read.
unsafe impl Send for SendPtr {}
// SAFETY: as above.
unsafe impl Sync for SendPtr {}

/// Launches kernel `k` on the tensors in `env`.
pub fn launch(k: &KernelStep, l: &Launch, env: &[Option<Tensor>]) {
    let nbatch: usize = k.batch.iter().product();
    let total = nbatch * k.rows;
    if total == 0 {
        return;
    }
    // Per-call scratch stays on the stack for ordinary kernels (this runs on every compiled call;
    // W5 of benchmarks.md measures it).
    let na = k.geom.len();
    let mut bases: SmallVec<[SendPtr; 8]> = SmallVec::with_capacity(na);
    let mut es: SmallVec<[isize; 8]> = SmallVec::with_capacity(na);
    for g in &k.geom {
        let t = env[g.value.0 as usize]
            .as_ref()
            .expect("invariant: scheduled after its producer");
        let size = t.dtype().itemsize() as isize;
        // SAFETY: the access's offset and strides stay inside the tensor (they come from its
        // layout through an in-bounds affine map).
        let p = unsafe {
            t.storage()
                .as_ptr()
                .offset((t.offset() as isize + g.offset) * size)
        };
        bases.push(SendPtr(p));
        es.push(size);
    }
    let consts = l.pool.as_ptr() as u64;
    let table = crate::poly::table().as_ptr() as u64;
    let streaming = l
        .streaming
        .as_ref()
        .filter(|s| s.fits(|a| bases[a].0 as usize));
    let entry = streaming.map_or_else(|| l.code.entry(), |s| s.code.entry());
    // The streaming variant parks values in a row of scratch per task instead of the output.
    let (parks, scratch_bytes) =
        streaming.map_or((&[][..], 0), |s| (&s.parks[..], s.scratch_bytes));
    let (mut rows, mut cols) = (k.rows, k.cols);
    let mut rs: SmallVec<[isize; 8]> = k.geom.iter().map(|g| g.rs).collect();
    let mut tail = None;
    if !k.ir.has_reductions() && k.batch.is_empty() && k.rows == 1 && k.cols >= 2 * MIN_TILE {
        let threads = rynamo_tensor::parallel::usable_threads();
        let tile = (k.cols / (4 * threads)).clamp(MIN_TILE, TILE) & !15;
        rows = k.cols / tile;
        cols = tile;
        tail = Some((rows * tile, k.cols - rows * tile));
        rs = k.geom.iter().map(|g| g.cs * tile as isize).collect();
    }
    let run = |base_off: &dyn Fn(usize) -> isize,
               r0: usize,
               r1: usize,
               rows: usize,
               cols: usize,
               col0: usize| {
        let mut args: SmallVec<[u64; 28]> = smallvec::smallvec![0u64; 4 + 3 * na];
        // Empty (no allocation) unless this launch parks values in scratch.
        let mut scratch = vec![0u8; scratch_bytes + if scratch_bytes > 0 { 64 } else { 0 }];
        let pad = scratch.as_ptr().align_offset(64).min(scratch.len());
        let scratch = scratch[pad..].as_mut_ptr();
        let mut r = r0;
        while r < r1 {
            let (b, i) = (r / rows, r % rows);
            let n = (rows - i).min(r1 - r);
            args[0] = n as u64;
            args[1] = cols as u64;
            args[2] = consts;
            args[3] = table;
            for a in 0..na {
                let g = &k.geom[a];
                let elems =
                    batch_offset(k, a, b) + i as isize * rs[a] + col0 as isize * g.cs + base_off(a);
                args[4 + 3 * a] = bases[a].0.wrapping_offset(elems * es[a]) as u64;
                args[5 + 3 * a] = (rs[a] * es[a]) as u64;
                args[6 + 3 * a] = (g.cs * es[a]) as u64;
            }
            for &(a, off) in parks {
                args[4 + 3 * a] = scratch.wrapping_add(off) as u64;
                args[5 + 3 * a] = 0;
                args[6 + 3 * a] = es[a] as u64;
            }
            // SAFETY: the argument block follows the kernel ABI; every pointer and stride
            // describes rows inside live tensors held by `env` for the duration of the call.
            unsafe { entry(args.as_mut_ptr()) };
            r += n;
        }
    };
    let zero = |_: usize| 0isize;
    let rows_total = nbatch * rows;
    let work = rows_total * cols * k.ir.cost_per_element();
    let threads = rynamo_tensor::parallel::usable_threads();
    if work >= PAR_WORK_NOW.load(Ordering::Relaxed) && threads > 1 && rows_total > 1 {
        let chunks = (threads * 4).min(rows_total);
        let per = rows_total.div_ceil(chunks);
        parallel_for(chunks, |c| {
            let (r0, r1) = ((c * per).min(rows_total), ((c + 1) * per).min(rows_total));
            run(&zero, r0, r1, rows, cols, 0);
        });
    } else {
        run(&zero, 0, rows_total, rows, cols, 0);
    }
    if let Some((col0, n)) = tail {
        run(&zero, 0, 1, 1, n, col0);
    }
}

/// Element offset of batch `b` (batch dims flattened in row-major order) for access `a` of `k`.
pub fn batch_offset(k: &KernelStep, a: usize, b: usize) -> isize {
    let mut rem = b;
    let mut off = 0isize;
    for (d, &n) in k.batch.iter().enumerate().rev() {
        off += (rem % n) as isize * k.geom[a].batch[d];
        rem /= n;
    }
    off
}

/// Runs a node through the registry's eager kernel.
pub fn run_node(
    g: &Graph,
    id: rynamo_graph::NodeId,
    env: &mut [Option<Tensor>],
) -> Result<(), rynamo_graph::Error> {
    let n = &g.nodes()[id.0 as usize];
    if let Some(t) = crate::bmm::run(g, n, env) {
        env[n.outputs[0].0 as usize] = Some(t);
        return Ok(());
    }
    let args: Vec<IValue> = n
        .args
        .iter()
        .map(|a| {
            a.try_map(|v| {
                env[v.0 as usize].clone().ok_or_else(|| {
                    rynamo_graph::Error::Graph(format!("{v} used before it was computed"))
                })
            })
        })
        .collect::<Result<_, _>>()?;
    let outs = registry::call_uncounted(n.op, &args)?;
    for (&o, t) in n.outputs.iter().zip(outs) {
        env[o.0 as usize] = Some(t);
    }
    Ok(())
}

/// Allocates a kernel's outputs. The kernel stores through its outputs' meta strides, so a dense
/// non-row-major meta (`clone` of a transposed tensor keeps its memory order, as eager does) gets
/// a buffer under those strides.
pub fn alloc_outputs(g: &Graph, k: &KernelStep, env: &mut [Option<Tensor>]) {
    for &v in &k.outputs {
        let m = &g.value(v).meta;
        let t = crate::buffers::output(&m.shape, m.dtype);
        let t = if is_non_overlapping_and_dense(&m.shape, &m.strides) {
            t.with_dense_strides(&m.strides)
        } else {
            t
        };
        env[v.0 as usize] = Some(t);
    }
}

/// Per value: the step after which it is dead (so its buffer can go), `Some(usize::MAX)` for
/// graph outputs, and `None` for values no step reads (those inside a fused kernel never exist
/// as tensors, and clearing their slots on every call would cost more than the kernel on tiny
/// inputs: W5 of benchmarks.md).
pub fn last_uses(g: &Graph, steps: &[Step]) -> Vec<Option<usize>> {
    let mut last = vec![None; g.values().len()];
    for (i, s) in steps.iter().enumerate() {
        match s {
            Step::Node(n) => {
                for v in g.nodes()[n.0 as usize].inputs() {
                    last[v.0 as usize] = Some(i);
                }
            }
            Step::Kernel(k) => {
                for a in &k.geom {
                    last[a.value.0 as usize] = Some(i);
                }
            }
            Step::Attention(a) => {
                let nodes = [a.scores, a.out].map(|n| &g.nodes()[n.0 as usize]);
                let reads = nodes.iter().flat_map(|n| n.inputs());
                for v in reads.chain(a.kernel.geom.iter().map(|x| x.value)) {
                    last[v.0 as usize] = Some(i);
                }
            }
        }
    }
    for &o in g.outputs() {
        last[o.0 as usize] = Some(usize::MAX);
    }
    last
}

/// Whether a run-time input matches the layout the program was compiled for (strides of size-1
/// dims do not matter).
pub fn layout_matches(t: &Tensor, m: &rynamo_tensor::TensorMeta) -> bool {
    t.shape()
        .iter()
        .zip(t.strides().iter().zip(&m.strides))
        .all(|(&n, (a, b))| n <= 1 || a == b)
}
