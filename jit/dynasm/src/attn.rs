//! Attention fused per matrix: `s = a @ b`, a row kernel `p = f(s)` (softmax), `o = p @ v`,
//! each block of rows of a matrix run by one thread from start to end, with its rows of `s` and
//! `p` in per-thread scratch (rows are independent all the way through).
//!
//! Why: W8 of `benchmarks.md` is three steps over 8 matrices (`q @ k^T`, the softmax kernel,
//! `p @ v`). Run as steps, each waits for all threads at its end, and the 2 MiB `s` and `p`
//! travel between cores and through the cache hierarchy; per matrix, `s` and `p` (256 KiB each)
//! stay in the core's L2 from the GEMM that writes them to the GEMM that reads them. The code
//! run is the same as the steps' (the same GEMMs over row blocks, whose elements the gemm crate
//! accumulates in the same order, and the same compiled kernel over the same rows), so results
//! are bitwise those of the unfused program (`tests/attn.rs` checks it with uneven blocks).
//!
//! [`fuse`] rewrites `[Node(matmul), Kernel, Node(matmul)]` windows of the schedule into
//! [`Step::Attention`] when the kernel reads the first product only row by row, writes only the
//! second matmul's left operand, and neither value is read anywhere else. [`run`] checks the
//! tensors (as `bmm.rs` does) and otherwise runs the three steps one after another.

use std::cell::RefCell;

use rynamo_graph::{Graph, NodeId, Op, ValueId};
use rynamo_tensor::parallel::parallel_for;
use rynamo_tensor::{DType, Tensor};
use smallvec::SmallVec;

use crate::bmm::{Batched, Mat, Mats, SendPtr, gemm_one};
use crate::loop_ir::{AccessKind, ColStride};
use crate::runtime::{self, Launch};
use crate::schedule::{KernelStep, Step};

/// A fused attention step.
#[derive(Clone, Debug)]
pub struct AttnStep {
    /// `s = matmul(a, b)`.
    pub scores: NodeId,
    /// The row kernel from `s` to `p`.
    pub kernel: KernelStep,
    /// `o = matmul(p, v)`.
    pub out: NodeId,
    /// `s`.
    pub s: ValueId,
    /// `p`.
    pub p: ValueId,
}

/// Replaces every fusable `[matmul, row kernel, matmul]` window of `steps` by one
/// [`Step::Attention`] (none with `RYNAMO_JIT_ATTN=0`, for measuring).
pub fn fuse(g: &Graph, steps: Vec<Step>) -> Vec<Step> {
    if std::env::var("RYNAMO_JIT_ATTN").is_ok_and(|v| v == "0") {
        return steps;
    }
    let mut out: Vec<Step> = Vec::with_capacity(steps.len());
    let mut i = 0;
    while i < steps.len() {
        if let Some((a, hoisted, end)) = fusable(g, &steps, i) {
            out.extend(hoisted.into_iter().map(|j| steps[j].clone()));
            out.push(Step::Attention(Box::new(a)));
            i = end;
        } else {
            out.push(steps[i].clone());
            i += 1;
        }
    }
    out
}

/// From `i`: node steps that read neither `s` nor `p` (views of `v`, a mask's producers),
/// which can run before the fused step; their indices and the next step's.
fn free_nodes(
    g: &Graph,
    steps: &[Step],
    mut i: usize,
    s: ValueId,
    p: Option<ValueId>,
) -> (Vec<usize>, usize) {
    let mut free = Vec::new();
    while let Some(Step::Node(n)) = steps.get(i) {
        let node = &g.nodes()[n.0 as usize];
        if node.inputs().any(|u| u == s || Some(u) == p) {
            break;
        }
        free.push(i);
        i += 1;
    }
    (free, i)
}

/// The batched matmul node of a step, with its one output.
fn matmul_at(g: &Graph, s: Option<&Step>) -> Option<(NodeId, ValueId)> {
    let Some(Step::Node(id)) = s else {
        return None;
    };
    let n = &g.nodes()[id.0 as usize];
    let ok =
        matches!(n.op, Op::Matmul | Op::Bmm) && n.outputs.len() == 1 && n.inputs().count() == 2;
    ok.then(|| (*id, n.outputs[0]))
}

/// Whether a step not in `skip` reads `v`.
fn read_elsewhere(g: &Graph, steps: &[Step], skip: &[usize], v: ValueId) -> bool {
    steps.iter().enumerate().any(|(j, s)| {
        !skip.contains(&j)
            && match s {
                Step::Node(n) => g.nodes()[n.0 as usize].inputs().any(|u| u == v),
                Step::Kernel(k) => k.geom.iter().any(|a| a.value == v),
                Step::Attention(a) => {
                    g.nodes()[a.scores.0 as usize].inputs().any(|u| u == v)
                        || g.nodes()[a.out.0 as usize].inputs().any(|u| u == v)
                        || a.kernel.geom.iter().any(|x| x.value == v)
                }
            }
    })
}

/// Whether access `a` of `k` lays global row `r` (batch dims and rows flattened) at element
/// `r * n` with unit column stride: the layout of a contiguous `[.., m, n]` buffer.
fn row_major(k: &KernelStep, a: usize, n: usize) -> bool {
    let g = &k.geom[a];
    let mut want = (n * k.rows) as isize;
    let mut ok = g.offset == 0 && g.cs == 1 && (k.rows <= 1 || g.rs == n as isize);
    for (d, &size) in k.batch.iter().enumerate().rev() {
        ok &= g.batch[d] == want;
        want *= size as isize;
    }
    ok && k.ir.accesses[a].col == ColStride::Contig
}

/// The fused step of the window starting at `i`, the node steps to run before it, and the
/// index after the window.
fn fusable(g: &Graph, steps: &[Step], i: usize) -> Option<(AttnStep, Vec<usize>, usize)> {
    let (scores, s) = matmul_at(g, steps.get(i))?;
    let (mut hoisted, ki) = free_nodes(g, steps, i + 1, s, None);
    let Some(Step::Kernel(k)) = steps.get(ki) else {
        return None;
    };
    let p = *k.outputs.first()?;
    let (more, oi) = free_nodes(g, steps, ki + 1, s, Some(p));
    hoisted.extend(more);
    let (out, _) = matmul_at(g, steps.get(oi))?;
    let mut ins = g.nodes()[out.0 as usize].inputs();
    let (sm, pm) = (&g.value(s).meta, &g.value(p).meta);
    let nd = sm.shape.len();
    let contiguous = |m: &rynamo_tensor::TensorMeta| {
        m.dtype == DType::Float32 && rynamo_tensor::layout::is_contiguous(&m.shape, &m.strides)
    };
    let shapes_ok = nd >= 3
        && sm.shape == pm.shape
        && contiguous(sm)
        && contiguous(pm)
        && sm.shape.iter().all(|&d| d > 0);
    if !shapes_ok {
        return None;
    }
    let (mm, n) = (sm.shape[nd - 2], sm.shape[nd - 1]);
    let total: usize = sm.shape[..nd - 1].iter().product();
    let graph_out = |v: ValueId| g.outputs().contains(&v);
    let ok = k.outputs.len() == 1
        && ins.next() == Some(p)
        && ins.next() != Some(p)
        && !graph_out(s)
        && !graph_out(p)
        && k.cols == n
        && k.batch.iter().product::<usize>() * k.rows == total
        && total.is_multiple_of(mm)
        && !read_elsewhere(g, steps, &[ki], s)
        && !read_elsewhere(g, steps, &[ki, oi], p)
        && k.geom.iter().enumerate().all(|(a, x)| {
            let kind = k.ir.accesses[a].kind;
            if x.value == s {
                kind == AccessKind::Load && row_major(k, a, n)
            } else if x.value == p {
                kind != AccessKind::RowStore && row_major(k, a, n)
            } else {
                kind == AccessKind::Load
            }
        });
    ok.then(|| {
        let a = AttnStep {
            scores,
            kernel: (**k).clone(),
            out,
            s,
            p,
        };
        (a, hoisted, oi + 1)
    })
}

thread_local! {
    /// Fused runs started on this thread (tests check the fused path ran, not the steps).
    #[cfg(test)]
    static FUSED_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Per-thread scratch for `s` and `p` (kept between calls: no allocation per run).
    static SCRATCH: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Fused runs started on this thread so far.
#[cfg(test)]
pub(crate) fn fused_runs() -> usize {
    FUSED_RUNS.with(std::cell::Cell::get)
}

/// Runs with `f` given a 64-byte-aligned scratch of at least `len` floats.
fn with_scratch(len: usize, f: impl FnOnce(*mut f32)) {
    let pad = 16;
    let run = |v: &mut Vec<f32>| {
        if v.len() < len + pad {
            v.resize(len + pad, 0.0);
        }
        let off = v.as_ptr().align_offset(64).min(pad);
        f(v[off..].as_mut_ptr());
    };
    SCRATCH.with(|c| match c.try_borrow_mut() {
        Ok(mut v) => run(&mut v),
        // A nested call on this thread (not expected: the work inside calls no rayon): its own.
        Err(_) => run(&mut Vec::new()),
    });
}

/// Runs a fused attention step: the output of its second matmul into `env`.
pub fn run(
    g: &Graph,
    a: &AttnStep,
    l: &Launch,
    env: &mut [Option<Tensor>],
) -> Result<(), rynamo_graph::Error> {
    if !run_fused(g, a, l, env) {
        runtime::run_node(g, a.scores, env)?;
        let k = &a.kernel;
        runtime::alloc_outputs(g, k, env);
        runtime::launch(k, l, env);
        runtime::run_node(g, a.out, env)?;
    }
    Ok(())
}

/// Row blocks per matrix: enough tasks (8 per thread) that a helper thread woken late still takes
/// its share, blocks of at least 64 rows. W8 (8 matrices of 256 rows, 2 threads) had 8 tasks of
/// ~0.2 ms: a helper starting 0.3 ms late left the caller the last task alone.
fn row_blocks(batches: usize, m: usize, threads: usize) -> usize {
    (8 * threads).div_ceil(batches).clamp(1, (m / 64).max(1))
}

fn tensor(env: &[Option<Tensor>], v: ValueId) -> Option<&Tensor> {
    env.get(v.0 as usize)?.as_ref()
}

/// The fused path; false (nothing done) when the tensors do not fit it.
fn run_fused(g: &Graph, a: &AttnStep, l: &Launch, env: &mut [Option<Tensor>]) -> bool {
    let (sn, on) = (
        &g.nodes()[a.scores.0 as usize],
        &g.nodes()[a.out.0 as usize],
    );
    let mut si = sn.inputs();
    let (Some(x), Some(y)) = (si.next(), si.next()) else {
        return false;
    };
    let Some(v) = on.inputs().nth(1) else {
        return false;
    };
    let (Some(x), Some(y), Some(v)) = (tensor(env, x), tensor(env, y), tensor(env, v)) else {
        return false;
    };
    let Some(first) = Batched::new(x, y) else {
        return false;
    };
    let sm = &g.value(a.s).meta;
    let om = &g.value(on.outputs[0]).meta;
    let nd = sm.shape.len();
    let (m, n) = (first.m, first.p);
    let v_ok = v.dtype() == DType::Float32
        && v.ndim() == nd
        && v.shape()[..nd - 2] == x.shape()[..nd - 2]
        && v.shape()[nd - 2] == n
        && v.numel() > 0;
    if !v_ok
        || x.shape()[..nd - 2] != sm.shape[..nd - 2]
        || sm.shape[nd - 2..] != [m, n]
        // One matrix: nothing to spread over threads; the steps split its GEMMs instead.
        || first.batches < 2
    {
        return false;
    }
    let d = v.shape()[nd - 1];
    let mut want = sm.shape.clone();
    want[nd - 1] = d;
    if om.dtype != DType::Float32
        || om.shape != want
        || !rynamo_tensor::layout::is_contiguous(&om.shape, &om.strides)
    {
        return false;
    }
    // `p @ v` with `p` from the scratch: only `v`'s matrices are needed.
    let vs = Mats::new(v);
    let k = &a.kernel;
    #[cfg(test)]
    FUSED_RUNS.with(|c| c.set(c.get() + 1));
    let out = crate::buffers::output(&om.shape, DType::Float32);
    let po = SendPtr(out.data_ptr::<f32>());
    // Per access: element size and base pointer (null for `s` and `p`, which live in scratch).
    let mut bases: SmallVec<[(SendPtr, isize); 8]> = SmallVec::new();
    for x in &k.geom {
        if x.value == a.s || x.value == a.p {
            bases.push((SendPtr(std::ptr::null_mut()), 4));
            continue;
        }
        let Some(t) = tensor(env, x.value) else {
            return false;
        };
        let size = t.dtype().itemsize() as isize;
        // SAFETY: the access's offset and strides stay inside the tensor (an in-bounds affine
        // map of its layout, as in `runtime::launch`).
        let ptr = unsafe {
            t.storage()
                .as_ptr()
                .offset((t.offset() as isize + x.offset) * size)
        };
        bases.push((SendPtr(ptr.cast()), size));
    }
    let consts = l.pool.as_ptr() as u64;
    let table = crate::poly::table().as_ptr() as u64;
    let entry = l.code.entry();
    let blocks = row_blocks(first.batches, m, rynamo_tensor::parallel::usable_threads());
    let bases = &bases;
    parallel_for(first.batches * blocks, |t| {
        // Task `t`: rows [rb0, rb1) of matrix `i`.
        let (i, j) = (t / blocks, t % blocks);
        let (rb0, rb1) = (j * m / blocks, (j + 1) * m / blocks);
        let (mb, mn) = (rb1 - rb0, (rb1 - rb0) * n);
        with_scratch(2 * mn, |sp| {
            // SAFETY: `sp` holds 2 mb*n floats: `s` then `p`, both contiguous mb x n.
            let (s, p) = (sp, unsafe { sp.add(mn) });
            let qa = first.a.get(i);
            let qa = Mat {
                ptr: qa.ptr.wrapping_offset(rb0 as isize * qa.rs),
                ..qa
            };
            // SAFETY: `first` describes in-bounds operands, rows `rb0..rb1` of `a`'s matrix `i`
            // among them; `s` is this thread's scratch.
            unsafe { gemm_one(mb, first.k, n, s, n as isize, qa, first.b.get(i)) };
            let (r0, r1) = (i * m + rb0, i * m + rb1);
            let mut args: SmallVec<[u64; 28]> = smallvec::smallvec![0u64; 4 + 3 * k.geom.len()];
            let mut r = r0;
            while r < r1 {
                let (b, row) = (r / k.rows, r % k.rows);
                let cnt = (k.rows - row).min(r1 - r);
                args[..4].copy_from_slice(&[cnt as u64, n as u64, consts, table]);
                for (j, x) in k.geom.iter().enumerate() {
                    let (base, es) = bases[j];
                    let (ptr, rs, cs) = if x.value == a.s || x.value == a.p {
                        let scr = if x.value == a.s { s } else { p };
                        (scr.wrapping_add((r - r0) * n).cast::<u8>(), n as isize, 1)
                    } else {
                        let e = runtime::batch_offset(k, j, b) + row as isize * x.rs;
                        (base.0.cast::<u8>().wrapping_offset(e * es), x.rs, x.cs)
                    };
                    args[4 + 3 * j] = ptr as u64;
                    args[5 + 3 * j] = (rs * es) as u64;
                    args[6 + 3 * j] = (cs * es) as u64;
                }
                // SAFETY: the argument block follows the kernel ABI; the scratch rows and the
                // other accesses' rows lie inside live memory for the call.
                unsafe { entry(args.as_mut_ptr()) };
                r += cnt;
            }
            let pm = Mat {
                ptr: p,
                rs: n as isize,
                cs: 1,
            };
            // SAFETY: `p` is mb x n in scratch, `v`'s matrix i is n x d in bounds, and task `t`
            // alone writes rows `r0..r1` of the fresh contiguous `out`; `n > 0`.
            unsafe { gemm_one(mb, n, d, po.get().add(r0 * d), d as isize, pm, vs.get(i)) };
        });
    });
    env[on.outputs[0].0 as usize] = Some(out);
    true
}
