//! Batched f32 matmuls (`matmul`/`bmm` of two tensors with the same batch dims), run by the
//! runtime itself: one single-threaded GEMM (the `gemm` crate) per matrix, matrices spread over
//! rayon threads, output from the buffer pool ([`crate::buffers`]).
//!
//! Why: attention's `q @ k^T` and `p @ v` (W8 of `benchmarks.md`) are 8 small GEMMs
//! (256x256x64). The eager kernel runs them one after another, each split across threads, and
//! `perf` shows the threads waiting on each other (`LockLatch::wait_and_reset`, futexes) between
//! the small blocks; whole matrices per thread need no synchronisation until the end. Anything
//! else (2-D operands, broadcast batch dims, other dtypes, empty dims, a single matrix) goes to
//! the eager kernel.

use rayon::prelude::*;
use rynamo_graph::{Graph, Node, Op};
use rynamo_tensor::{DType, Tensor};

/// Element offsets of every matrix of `t` (batch dims in row-major order).
fn batch_offsets(t: &Tensor, nb: usize) -> Vec<isize> {
    let mut offs = vec![0isize];
    for d in 0..nb {
        let stride = t.strides()[d];
        offs = offs
            .iter()
            .flat_map(|&o| (0..t.shape()[d] as isize).map(move |i| o + i * stride))
            .collect();
    }
    offs
}

#[derive(Clone, Copy)]
struct SendPtr(*mut f32);
// SAFETY: each task writes its own output matrix; the operands are only read.
unsafe impl Send for SendPtr {}
// SAFETY: as above.
unsafe impl Sync for SendPtr {}

/// Runs `n` when it is a batched f32 matmul this module handles: the output, or `None`.
pub fn run(g: &Graph, n: &Node, env: &[Option<Tensor>]) -> Option<Tensor> {
    if !matches!(n.op, Op::Matmul | Op::Bmm) || n.outputs.len() != 1 {
        return None;
    }
    let mut ins = n.inputs();
    let (a, b) = (ins.next()?, ins.next()?);
    let (a, b) = (env[a.0 as usize].as_ref()?, env[b.0 as usize].as_ref()?);
    let nd = a.ndim();
    let ok = a.dtype() == DType::Float32
        && b.dtype() == DType::Float32
        && nd >= 3
        && b.ndim() == nd
        && a.shape()[..nd - 2] == b.shape()[..nd - 2]
        && a.shape()[nd - 1] == b.shape()[nd - 2]
        && a.numel() > 0
        && b.numel() > 0;
    if !ok {
        return None;
    }
    let (m, k, p) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    let batches: usize = a.shape()[..nd - 2].iter().product();
    if batches < 2 || rayon::current_num_threads() < 2 {
        return None;
    }
    // Later kernels were compiled for the output's meta layout: it must be the contiguous one.
    let meta = &g.value(n.outputs[0]).meta;
    let shape_ok = meta.dtype == DType::Float32
        && meta.shape.len() == nd
        && meta.shape[..nd - 2] == a.shape()[..nd - 2]
        && meta.shape[nd - 2..] == [m, p];
    if !shape_ok || !rynamo_tensor::layout::is_contiguous(&meta.shape, &meta.strides) {
        return None;
    }
    let out = crate::buffers::output(&meta.shape, DType::Float32);
    let (oa, ob) = (batch_offsets(a, nd - 2), batch_offsets(b, nd - 2));
    let (sa, sb) = (a.strides(), b.strides());
    let (pa, pb, po) = (
        SendPtr(a.data_ptr::<f32>()),
        SendPtr(b.data_ptr::<f32>()),
        SendPtr(out.data_ptr::<f32>()),
    );
    let (a_rs, a_cs, b_rs, b_cs) = (sa[nd - 2], sa[nd - 1], sb[nd - 2], sb[nd - 1]);
    (0..batches).into_par_iter().for_each(|i| {
        let (pa, pb, po) = (pa, pb, po);
        // SAFETY: the offsets and strides describe in-bounds m x k and k x p matrices of `a` and
        // `b` (their own layouts); `out` is a fresh contiguous tensor of which task `i` alone
        // writes matrix `i`; `k > 0`, so gemm writes every element without reading `out`.
        unsafe {
            gemm::gemm::<f32>(
                m,
                p,
                k,
                po.0.add(i * m * p),
                1,
                p as isize,
                false,
                pa.0.offset(oa[i]),
                a_cs,
                a_rs,
                pb.0.offset(ob[i]),
                b_cs,
                b_rs,
                0.0,
                1.0,
                false,
                false,
                false,
                gemm::Parallelism::None,
            );
        }
    });
    Some(out)
}
