//! Batched f32 matmuls (`matmul`/`bmm` of two tensors with the same batch dims), run by the
//! runtime itself: one single-threaded GEMM (the `gemm` crate) per matrix, matrices spread over
//! rayon threads, output from the buffer pool ([`crate::buffers`]).
//!
//! Why: attention's `q @ k^T` and `p @ v` (W8 of `benchmarks.md`) are 8 small GEMMs
//! (256x256x64). The eager kernel runs them one after another, each split across threads, and
//! `perf` shows the threads waiting on each other (`LockLatch::wait_and_reset`, futexes) between
//! the small blocks; whole matrices per thread need no synchronisation until the end. Anything
//! else (2-D operands, broadcast batch dims, other dtypes, empty dims, a single matrix) goes to
//! the eager kernel. Operands are passed to the GEMM with their own strides (a transposed view
//! is not copied). [`crate::attn`] reuses [`Batched`] for its two GEMMs per matrix.

use rynamo_graph::{Graph, Node, Op};
use rynamo_tensor::parallel::parallel_for;
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

/// A raw f32 pointer that crosses threads.
#[derive(Clone, Copy)]
pub(crate) struct SendPtr(pub(crate) *mut f32);
// SAFETY: each task writes its own output matrix; the operands are only read.
unsafe impl Send for SendPtr {}
// SAFETY: as above.
unsafe impl Sync for SendPtr {}

impl SendPtr {
    /// The pointer (a method, so that closures capture the `Send` wrapper, not its field).
    pub(crate) fn get(self) -> *mut f32 {
        self.0
    }
}

/// A strided f32 matrix: first element, row stride, column stride (elements).
#[derive(Clone, Copy)]
pub(crate) struct Mat {
    pub(crate) ptr: *const f32,
    pub(crate) rs: isize,
    pub(crate) cs: isize,
}

/// `dst = a @ b` for an `m x k` `a` and a `k x p` `b`, single-threaded.
///
/// # Safety
/// `a`, `b` and `dst` (an `m x p` matrix with row stride `dst_rs`, unit column stride) must
/// describe in-bounds memory, `dst` writable and overlapping neither operand; `k > 0`.
pub(crate) unsafe fn gemm_one(
    m: usize,
    k: usize,
    p: usize,
    dst: *mut f32,
    dst_rs: isize,
    a: Mat,
    b: Mat,
) {
    // SAFETY: the caller's contract; with `k > 0` and `read_dst` false gemm writes every element
    // of `dst` without reading it.
    unsafe {
        gemm::gemm::<f32>(
            m,
            p,
            k,
            dst,
            1,
            dst_rs,
            false,
            a.ptr,
            a.cs,
            a.rs,
            b.ptr,
            b.cs,
            b.rs,
            0.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// The matrices of a tensor with at least 2 dims (batch dims in row-major order).
pub(crate) struct Mats {
    offs: Vec<isize>,
    ptr: SendPtr,
    rs: isize,
    cs: isize,
}

impl Mats {
    /// The matrices of `t` (an f32 tensor of at least 2 dims).
    pub(crate) fn new(t: &Tensor) -> Mats {
        let nd = t.ndim();
        Mats {
            offs: batch_offsets(t, nd - 2),
            ptr: SendPtr(t.data_ptr::<f32>()),
            rs: t.strides()[nd - 2],
            cs: t.strides()[nd - 1],
        }
    }

    /// Matrix `i`.
    pub(crate) fn get(&self, i: usize) -> Mat {
        Mat {
            ptr: self.ptr.0.wrapping_offset(self.offs[i]),
            rs: self.rs,
            cs: self.cs,
        }
    }
}

/// Two f32 operands of a batched matmul with equal batch dims, checked.
pub(crate) struct Batched {
    /// Rows of `a`.
    pub(crate) m: usize,
    /// Columns of `a` (rows of `b`).
    pub(crate) k: usize,
    /// Columns of `b`.
    pub(crate) p: usize,
    /// Number of matrices.
    pub(crate) batches: usize,
    /// The matrices of `a`.
    pub(crate) a: Mats,
    /// The matrices of `b`.
    pub(crate) b: Mats,
}

impl Batched {
    /// `None` unless both are f32 with at least 3 equal-length dims, equal batch dims, matching
    /// inner dims, and no empty dim.
    pub(crate) fn new(a: &Tensor, b: &Tensor) -> Option<Batched> {
        let nd = a.ndim();
        let ok = a.dtype() == DType::Float32
            && b.dtype() == DType::Float32
            && nd >= 3
            && b.ndim() == nd
            && a.shape()[..nd - 2] == b.shape()[..nd - 2]
            && a.shape()[nd - 1] == b.shape()[nd - 2]
            && a.numel() > 0
            && b.numel() > 0;
        ok.then(|| Batched {
            m: a.shape()[nd - 2],
            k: a.shape()[nd - 1],
            p: b.shape()[nd - 1],
            batches: a.shape()[..nd - 2].iter().product(),
            a: Mats::new(a),
            b: Mats::new(b),
        })
    }
}

/// Runs `n` when it is a batched f32 matmul this module handles: the output, or `None`.
pub fn run(g: &Graph, n: &Node, env: &[Option<Tensor>]) -> Option<Tensor> {
    if !matches!(n.op, Op::Matmul | Op::Bmm) || n.outputs.len() != 1 {
        return None;
    }
    let mut ins = n.inputs();
    let (a, b) = (ins.next()?, ins.next()?);
    let (a, b) = (env[a.0 as usize].as_ref()?, env[b.0 as usize].as_ref()?);
    let bt = Batched::new(a, b)?;
    let nd = a.ndim();
    let (m, p) = (bt.m, bt.p);
    if bt.batches < 2 || rynamo_tensor::parallel::usable_threads() < 2 {
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
    let po = SendPtr(out.data_ptr::<f32>());
    parallel_for(bt.batches, |i| {
        // SAFETY: `Batched` describes in-bounds m x k and k x p matrices of `a` and `b`; `out` is
        // a fresh contiguous tensor of which task `i` alone writes matrix `i`; `k > 0`.
        unsafe {
            gemm_one(
                m,
                bt.k,
                p,
                po.get().add(i * m * p),
                p as isize,
                bt.a.get(i),
                bt.b.get(i),
            );
        }
    });
    Some(out)
}
