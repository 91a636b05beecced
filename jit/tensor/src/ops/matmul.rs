//! Matrix products through the `gemm` crate (f32, f64; half types via f32; integers by a plain
//! loop), batched and broadcasting as `torch.matmul`.

use std::ops::Range;

use crate::error::bail;
use crate::iter::SendPtr;
use crate::layout::{Shaped, broadcast_shapes, numel};
use crate::ops::pointwise::broadcast_to;
use crate::ops::product_dtypes;
use crate::{DType, Element, Error, Result, Scalar, Tensor, TensorMeta};

/// Multiply-adds below which one gemm call stays single-threaded.
pub(crate) const PAR_FLOPS: usize = 1 << 18;

/// Runs `f(rows, cols)` over one block per thread of an `m x n` product, split along its longer
/// side (columns in multiples of 16, rows of 8, so that gemm's microkernel tiles stay whole),
/// the calling thread included. Each block is then one single-threaded gemm call: on two
/// threads that beat gemm's own `Parallelism::Rayon` in `benches/examples/gemm_shapes.rs`
/// (best of 15, GFLOP/s): 289 vs 279 at 256x4096x1024, 295 vs 274 at 256x1024x4096 (W4's two
/// products), 324 vs 318 at 2048^3. `benches/src/roofline.rs` measures the GEMM peak this way.
pub fn for_each_block(m: usize, n: usize, f: impl Fn(Range<usize>, Range<usize>) + Sync + Send) {
    let threads = crate::parallel::usable_threads();
    let (len, unit) = if n >= m { (n, 16) } else { (m, 8) };
    let chunk = len.div_ceil(threads).div_ceil(unit) * unit;
    let parts = len.div_ceil(chunk);
    crate::parallel::parallel_for(parts, |i| {
        let r = i * chunk..((i + 1) * chunk).min(len);
        if n >= m { f(0..m, r) } else { f(r, 0..n) }
    });
}

/// PyTorch's error for mismatched inner sizes, named after the ATen kernel the product folds
/// into (`mm`, `addmm`), with the folded row count as that kernel sees it.
fn cannot_multiply(op: &str, n: usize, k1: usize, k2: usize, p: usize) -> Error {
    Error::Runtime(format!(
        "{op}: mat1 and mat2 shapes cannot be multiplied ({n}x{k1} and {k2}x{p})"
    ))
}

/// Shape/dtype rule of `torch.matmul`.
pub fn matmul_meta(a: &impl Shaped, b: &impl Shaped) -> Result<TensorMeta> {
    let (sa, sb) = (a.shape(), b.shape());
    let (da, db) = (sa.len(), sb.len());
    if da == 0 || db == 0 {
        bail!(
            Runtime,
            "both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        );
    }
    let (ta, tb) = (a.dtype(), b.dtype());
    match (da, db) {
        (1, 1) => product_dtypes::dot(ta, tb)?,
        (_, 1) => product_dtypes::addmv(tb, ta, tb)?,
        (_, 2) => product_dtypes::mm(ta, tb)?,
        _ => product_dtypes::bmm(ta, tb)?,
    }
    let shape = match (da, db) {
        (1, 1) => {
            if sa[0] != sb[0] {
                bail!(
                    Runtime,
                    "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but got {} and {} elements respectively",
                    sa[0],
                    sb[0],
                    sa[0],
                    sb[0]
                );
            }
            vec![]
        }
        (2, 1) => {
            if sa[1] != sb[0] {
                bail!(
                    Runtime,
                    "size mismatch, got input ({}), mat ({}x{}), vec ({})",
                    sa[0],
                    sa[0],
                    sa[1],
                    sb[0]
                );
            }
            vec![sa[0]]
        }
        _ => {
            let (n, k1) = if da == 1 {
                (1, sa[0])
            } else {
                (sa[da - 2], sa[da - 1])
            };
            let (k2, p) = if db == 1 {
                (sb[0], 1)
            } else {
                (sb[db - 2], sb[db - 1])
            };
            let ba = &sa[..da.saturating_sub(2)];
            let bb = &sb[..db.saturating_sub(2)];
            // `b` a matrix or a vector: no batch of its own, so this cannot fail.
            let batch = broadcast_shapes(ba, bb)?;
            if k1 != k2 {
                return Err(match db {
                    // PyTorch folds every row of `a` (a vector is one row) into one `mm`.
                    2 => cannot_multiply("mm", numel(&sa[..da - 1]), k1, k2, p),
                    // PyTorch expands both to the broadcast batch and runs one `bmm`.
                    3.. => {
                        let b = numel(&batch);
                        Error::Runtime(format!(
                            "Expected size for first two dimensions of batch2 tensor to be: [{b}, {k1}] but got: [{b}, {k2}]."
                        ))
                    }
                    // `b` a vector and `a` of rank 3 or more (ranks 1 and 2 are handled
                    // above): PyTorch folds `a`'s rows into one `mv`.
                    _ => {
                        let rows = numel(&sa[..da - 1]);
                        Error::Runtime(format!(
                            "size mismatch, got input ({rows}), mat ({rows}x{k1}), vec ({k2})"
                        ))
                    }
                });
            }
            let mut shape = batch.to_vec();
            if da > 1 {
                shape.push(n);
            }
            if db > 1 {
                shape.push(p);
            }
            shape
        }
    };
    Ok(TensorMeta::contiguous(a.dtype(), &shape))
}

/// `torch.matmul(a, b)`.
pub fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let meta = matmul_meta(a, b)?;
    // Lift to [batch..., n, k] @ [batch..., k, p].
    let a3 = if a.ndim() == 1 {
        a.unsqueeze(0)?
    } else {
        a.clone()
    };
    let b3 = if b.ndim() == 1 {
        b.unsqueeze(1)?
    } else {
        b.clone()
    };
    let (na, nb) = (a3.ndim(), b3.ndim());
    let (ae, be, so) = if na > 2 && nb == 2 {
        // ATen's fold: a batch of matrices times one matrix is one product over all the rows
        // ([batch * n, k] @ [k, p]), not `batch` small ones (for nanoGPT's lm_head, four
        // 32-row products cost more in fork/join than in arithmetic).
        let k = a3.shape()[na - 1];
        let rows = numel(&a3.shape()[..na - 1]);
        let folded = a3.reshape(&[rows as i64, k as i64])?;
        (
            folded.unsqueeze(0)?,
            b3.unsqueeze(0)?,
            vec![1, rows, b3.shape()[1]],
        )
    } else {
        let batch = broadcast_shapes(&a3.shape()[..na - 2], &b3.shape()[..nb - 2])?;
        let (n, k, p) = (a3.shape()[na - 2], a3.shape()[na - 1], b3.shape()[nb - 1]);
        let mut sa = batch.to_vec();
        sa.extend([n, k]);
        let mut sb = batch.to_vec();
        sb.extend([k, p]);
        let mut so = batch.to_vec();
        so.extend([n, p]);
        (broadcast_to(&a3, &sa)?, broadcast_to(&b3, &sb)?, so)
    };
    let out = gemm_output(&so, meta.dtype);
    batched_gemm(&out, &ae, &be, None)?;
    out.reshape(&meta.shape.iter().map(|&v| v as i64).collect::<Vec<_>>())
}

/// Shape/dtype rule of `mm(a, b)`.
pub fn mm_meta(a: &impl Shaped, b: &impl Shaped) -> Result<TensorMeta> {
    // PyTorch's order: ranks, then the inner sizes, then the dtypes (in `matmul_meta`).
    mm_dims("mm", a, b)?;
    inner_sizes("mm", a, b)?;
    matmul_meta(a, b)
}

/// The `mm` family's inner-size check on two matrices.
fn inner_sizes(op: &str, a: &impl Shaped, b: &impl Shaped) -> Result<()> {
    let (sa, sb) = (a.shape(), b.shape());
    if sa[1] != sb[0] {
        return Err(cannot_multiply(op, sa[0], sa[1], sb[0], sb[1]));
    }
    Ok(())
}

/// PyTorch's rank checks of the `mm` family's operands, prefixed with the kernel's name.
fn mm_dims(op: &str, a: &impl Shaped, b: &impl Shaped) -> Result<()> {
    if a.ndim() != 2 {
        bail!(
            Runtime,
            "{op}: self must be a matrix, got {}-D tensor",
            a.ndim()
        );
    }
    if b.ndim() != 2 {
        bail!(
            Runtime,
            "{op}: mat2 must be a matrix, got {}-D tensor",
            b.ndim()
        );
    }
    Ok(())
}

/// `mm(a, b)`.
pub fn mm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    mm_meta(a, b)?;
    matmul(a, b)
}

/// Shape/dtype rule of `bmm(a, b)`.
pub fn bmm_meta(a: &impl Shaped, b: &impl Shaped) -> Result<TensorMeta> {
    if a.ndim() != 3 {
        bail!(Runtime, "batch1 must be a 3D tensor");
    }
    if b.ndim() != 3 {
        bail!(Runtime, "batch2 must be a 3D tensor");
    }
    if a.shape()[0] != b.shape()[0] || a.shape()[2] != b.shape()[1] {
        bail!(
            Runtime,
            "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
            a.shape()[0],
            a.shape()[2],
            b.shape()[0],
            b.shape()[1]
        );
    }
    matmul_meta(a, b)
}

/// `bmm(a, b)`.
pub fn bmm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    bmm_meta(a, b)?;
    matmul(a, b)
}

/// Shape/dtype rule of `addmm(self, m1, m2)`.
pub fn addmm_meta<S: Shaped>(this: &S, m1: &S, m2: &S) -> Result<TensorMeta> {
    // PyTorch's order: dtypes, ranks, inner sizes, then `self`'s expansion.
    product_dtypes::addmm(this.dtype(), m1.dtype(), m2.dtype())?;
    mm_dims("addmm", m1, m2)?;
    inner_sizes("addmm", m1, m2)?;
    let meta = matmul_meta(m1, m2)?;
    // `self` is expanded to the product's shape, with `expand`'s errors, as ATen's addmm does.
    let target: Vec<i64> = meta.shape.iter().map(|&v| v as i64).collect();
    crate::views::expand(this, &target)?;
    Ok(meta)
}

/// `addmm(self, m1, m2, beta, alpha) = beta * self + alpha * (m1 @ m2)`; `self` is ignored when
/// `beta == 0` (NaNs in it do not propagate), as PyTorch.
pub fn addmm(
    this: &Tensor,
    m1: &Tensor,
    m2: &Tensor,
    beta: Scalar,
    alpha: Scalar,
) -> Result<Tensor> {
    let meta = addmm_meta(this, m1, m2)?;
    let out = Tensor::empty(&meta.shape, meta.dtype);
    let beta_f = beta.to_f64();
    if beta_f != 0.0 {
        out.copy_(this)?;
    }
    let (o, a, b) = (out.unsqueeze(0)?, m1.unsqueeze(0)?, m2.unsqueeze(0)?);
    batched_gemm(&o, &a, &b, Some((beta_f, alpha.to_f64())))?;
    Ok(out)
}

/// Shape/dtype rule of `linear(input, weight, bias)`: `input @ weight.T + bias`.
pub fn linear_meta<S: Shaped>(x: &S, w: &S, bias: Option<&S>) -> Result<TensorMeta> {
    if w.ndim() != 2 {
        bail!(Runtime, "linear(): weight must be 2-D, got {}-D", w.ndim());
    }
    if x.ndim() == 0 {
        bail!(
            Runtime,
            "both arguments to linear need to be at least 1D, but they are 0D and 2D"
        );
    }
    match bias {
        // With a bias PyTorch runs `addmm(bias, x, w.t())`, without one `matmul(x, w.t())`.
        Some(b) => product_dtypes::addmm(b.dtype(), x.dtype(), w.dtype())?,
        None => product_dtypes::mm(x.dtype(), w.dtype())?,
    }
    let k = x.shape()[x.ndim() - 1];
    if k != w.shape()[1] {
        let rows = numel(&x.shape()[..x.ndim() - 1]);
        // With a bias PyTorch runs `addmm`, without one the folded `mm`.
        let op = if bias.is_some() { "addmm" } else { "mm" };
        return Err(cannot_multiply(op, rows, k, w.shape()[1], w.shape()[0]));
    }
    let mut shape = x.shape()[..x.ndim() - 1].to_vec();
    shape.push(w.shape()[0]);
    if let Some(b) = bias {
        crate::layout::broadcast_strides(b.shape(), b.strides(), &shape)?;
    }
    Ok(TensorMeta::contiguous(x.dtype(), &shape))
}

/// `linear(input, weight, bias)`.
pub fn linear(x: &Tensor, w: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    let meta = linear_meta(x, w, bias)?;
    let (k, p) = (w.shape()[1], w.shape()[0]);
    let rows = numel(&x.shape()[..x.ndim() - 1]);
    let x2 = x.reshape(&[rows as i64, k as i64])?;
    let out = gemm_output(&[rows, p], meta.dtype);
    let acc = match bias {
        Some(b) => {
            fill_rows(&out, b)?;
            Some((1.0, 1.0))
        }
        None => None,
    };
    batched_gemm(
        &out.unsqueeze(0)?,
        &x2.unsqueeze(0)?,
        &w.t()?.unsqueeze(0)?,
        acc,
    )?;
    out.reshape(&meta.shape.iter().map(|&v| v as i64).collect::<Vec<_>>())
}

/// Writes `bias` into every row of the fresh contiguous `[rows, p]` output, for the GEMM to
/// accumulate onto. A contiguous bias of the output's dtype is copied row by row: `copy_`'s
/// broadcasting path cost 2-8 us of a 12-20 us `linear` at 128 x 64 -> 192.
fn fill_rows(out: &Tensor, bias: &Tensor) -> Result<()> {
    let p = out.shape()[1];
    if bias.dtype() != out.dtype() || !bias.is_contiguous() || bias.numel() != p || p == 0 {
        return out.copy_(bias);
    }
    match out.dtype() {
        DType::Float32 => fill_rows_as::<f32>(out, bias),
        DType::Float64 => fill_rows_as::<f64>(out, bias),
        _ => return out.copy_(bias),
    }
    Ok(())
}

fn fill_rows_as<T: Element>(out: &Tensor, bias: &Tensor) {
    let p = bias.numel();
    let (dst, src) = (out.data_ptr::<T>(), bias.data_ptr::<T>().cast_const());
    // Raw copies, not slices: `out` may be unwritten memory ([`gemm_output`]).
    for r in 0..out.numel() / p.max(1) {
        // SAFETY: `out` is a fresh contiguous tensor of whole rows of `p` elements of T, written
        // only here; `bias` is a contiguous tensor of `p` elements of T in another storage.
        unsafe { std::ptr::copy_nonoverlapping(src, dst.add(r * p), p) };
    }
}

/// The output of a product that [`batched_gemm`] writes in full: f32 and f64 outputs go straight
/// to `gemm`, which writes every element (reading none without a bias); other dtypes are converted
/// or accumulated first, so they start from initialised memory.
fn gemm_output(shape: &[usize], dtype: DType) -> Tensor {
    match dtype {
        DType::Float32 | DType::Float64 => Tensor::empty_for_overwrite(shape, dtype),
        _ => Tensor::empty(shape, dtype),
    }
}

/// `out[i] = a[i] @ b[i]` over the leading batch dims (all three already share them). With
/// `acc = Some((beta, alpha))`, `out = beta * out + alpha * a @ b`.
pub(crate) fn batched_gemm(
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    acc: Option<(f64, f64)>,
) -> Result<()> {
    match out.dtype() {
        DType::Float32 => gemm_typed::<f32>(out, a, b, acc),
        DType::Float64 => gemm_typed::<f64>(out, a, b, acc),
        DType::Float16 | DType::BFloat16 => {
            let o32 = out.to_dtype(DType::Float32);
            let o32 = if o32.shares_storage(out) {
                o32.deep_clone()
            } else {
                o32
            };
            gemm_typed::<f32>(
                &o32,
                &a.to_dtype(DType::Float32),
                &b.to_dtype(DType::Float32),
                acc,
            );
            crate::kernels::copy::copy_cast(out, &o32);
        }
        DType::Bool => {
            return Err(Error::NotImplementedFor {
                op: "addmm_impl_cpu_",
                dtype: "Bool",
            });
        }
        DType::Complex64 | DType::Complex128 => crate::ops::complex::batched_gemm(out, a, b, acc)?,
        d => crate::dispatch_all!(d, T => int_gemm::<T>(out, a, b, acc)),
    }
    Ok(())
}

/// Element offsets of each batch matrix in `t` (dims before the last two).
fn batch_offsets(t: &Tensor) -> Vec<isize> {
    let nb = t.ndim() - 2;
    let shape = &t.shape()[..nb];
    let strides = &t.strides()[..nb];
    let mut offs = vec![0isize];
    for d in 0..nb {
        let mut next = Vec::with_capacity(offs.len() * shape[d]);
        for &o in &offs {
            for i in 0..shape[d] {
                next.push(o + i as isize * strides[d]);
            }
        }
        offs = next;
    }
    offs
}

fn gemm_typed<T: Element>(out: &Tensor, a: &Tensor, b: &Tensor, acc: Option<(f64, f64)>) {
    let nd = out.ndim();
    let (n, p) = (out.shape()[nd - 2], out.shape()[nd - 1]);
    let k = a.shape()[nd - 1];
    let (oa, ob, oo) = (batch_offsets(a), batch_offsets(b), batch_offsets(out));
    let (so, sa, sb) = (out.strides(), a.strides(), b.strides());
    let (dst_rs, dst_cs) = (so[nd - 2], so[nd - 1]);
    let (a_rs, a_cs) = (sa[nd - 2], sa[nd - 1]);
    let (b_rs, b_cs) = (sb[nd - 2], sb[nd - 1]);
    let (po, pa, pb) = (
        SendPtr(out.data_ptr::<T>()),
        SendPtr(a.data_ptr::<T>()),
        SendPtr(b.data_ptr::<T>()),
    );
    let (read, alpha_dst, beta_prod) = match acc {
        Some((beta, alpha)) => (beta != 0.0, T::from_f64(beta), T::from_f64(alpha)),
        None => (false, T::ZERO, T::ONE),
    };
    let flops = n * p * k;
    let run_block = |i: usize, rows: Range<usize>, cols: Range<usize>| {
        let (r, c) = (rows.start as isize, cols.start as isize);
        // SAFETY: offsets and strides describe in-bounds matrices of these tensors, and `rows` x
        // `cols` is a block inside them; `out` is fresh (or exclusively ours) and each batch (and
        // block) writes a disjoint part. T is f32 or f64, which `gemm` supports.
        unsafe {
            super::gemm_block::gemm_block::<T>(
                (rows.len(), cols.len(), k),
                po.at(oo[i] + r * dst_rs + c * dst_cs),
                (dst_rs, dst_cs),
                read,
                alpha_dst,
                pa.at(oa[i] + r * a_rs).cast_const(),
                (a_rs, a_cs),
                pb.at(ob[i] + c * b_cs).cast_const(),
                (b_rs, b_cs),
                beta_prod,
            )
        }
    };
    if n == 0 || p == 0 {
        return;
    }
    if k == 0 {
        // gemm's k == 0 leaves dst unscaled; the product is zero.
        let scaled = |v: T| {
            if read {
                T::from_f64(v.to_f64() * alpha_dst.to_f64())
            } else {
                T::ZERO
            }
        };
        crate::kernels::map::map1::<T, T>(out, &out.clone(), scaled);
        return;
    }
    let batches = oo.len();
    if batches > 1 && flops < PAR_FLOPS && batches * flops >= PAR_FLOPS {
        // Small matrices, enough of them: one task per matrix, on the runtime's own team (a
        // rayon `par_iter` from the main thread parks it on a futex and wakes the pool per call).
        crate::parallel::parallel_for(batches, |i| run_block(i, 0..n, 0..p));
    } else if flops >= PAR_FLOPS {
        for i in 0..batches {
            for_each_block(n, p, |rows, cols| run_block(i, rows, cols));
        }
    } else {
        (0..batches).for_each(|i| run_block(i, 0..n, 0..p));
    }
}

fn int_gemm<T: Element>(out: &Tensor, a: &Tensor, b: &Tensor, acc: Option<(f64, f64)>) {
    let nd = out.ndim();
    let (n, p, k) = (out.shape()[nd - 2], out.shape()[nd - 1], a.shape()[nd - 1]);
    let (oa, ob, oo) = (batch_offsets(a), batch_offsets(b), batch_offsets(out));
    let (so, sa, sb) = (out.strides(), a.strides(), b.strides());
    let (beta, alpha) = acc.map_or((0, 1), |(b, a)| (b as i64, a as i64));
    let (po, pa, pb) = (out.data_ptr::<T>(), a.data_ptr::<T>(), b.data_ptr::<T>());
    for bi in 0..oo.len() {
        for i in 0..n {
            for j in 0..p {
                let mut s = 0i64;
                for l in 0..k {
                    // SAFETY: indices are within each matrix's shape; strides are the tensors' own.
                    let (x, y) = unsafe {
                        (
                            *pa.offset(oa[bi] + i as isize * sa[nd - 2] + l as isize * sa[nd - 1]),
                            *pb.offset(ob[bi] + l as isize * sb[nd - 2] + j as isize * sb[nd - 1]),
                        )
                    };
                    s = s.wrapping_add(x.to_i64().wrapping_mul(y.to_i64()));
                }
                // SAFETY: as above, for `out`.
                unsafe {
                    let o = po.offset(oo[bi] + i as isize * so[nd - 2] + j as isize * so[nd - 1]);
                    let prev = if beta != 0 { (*o).to_i64() * beta } else { 0 };
                    *o = T::from_i64(prev.wrapping_add(alpha.wrapping_mul(s)));
                }
            }
        }
    }
}

/// `c = (accumulate ? c : 0) + a @ b` on raw strided matrices (`m x k` times `k x n`), for the
/// kernels that build their own operands (convolution) and for measuring the GEMM peak the way
/// the runtime runs a product (`benches/src/roofline.rs`): with `parallel`, a large one goes over
/// the threads by [`for_each_block`]. `T` must be f32 or f64.
///
/// # Safety
/// Every pointer must address an in-bounds matrix of its shape and strides; `c` must not overlap
/// `a` or `b`, and nothing else may access `c` meanwhile.
#[allow(clippy::too_many_arguments, reason = "a raw GEMM signature")]
pub unsafe fn gemm_raw<T: Element>(
    (m, n, k): (usize, usize, usize),
    c: *mut T,
    (c_rs, c_cs): (isize, isize),
    accumulate: bool,
    a: *const T,
    (a_rs, a_cs): (isize, isize),
    b: *const T,
    (b_rs, b_cs): (isize, isize),
    parallel: bool,
) {
    debug_assert!(matches!(T::DTYPE, DType::Float32 | DType::Float64));
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        // gemm leaves `c` untouched when k == 0; the product is zero.
        if !accumulate {
            for i in 0..m as isize {
                for j in 0..n as isize {
                    // SAFETY: (i, j) is inside the m x n matrix `c`.
                    unsafe { *c.offset(i * c_rs + j * c_cs) = T::ZERO };
                }
            }
        }
        return;
    }
    let (pc, pa, pb) = (SendPtr(c), SendPtr(a.cast_mut()), SendPtr(b.cast_mut()));
    let block = |rows: Range<usize>, cols: Range<usize>| {
        let (r, s) = (rows.start as isize, cols.start as isize);
        // SAFETY: forwarded from the caller, for the block `rows` x `cols` of `c` (disjoint from
        // the other blocks'); gemm reads `c` only when `accumulate`.
        unsafe {
            super::gemm_block::gemm_block::<T>(
                (rows.len(), cols.len(), k),
                pc.at(r * c_rs + s * c_cs),
                (c_rs, c_cs),
                accumulate,
                T::ONE,
                pa.at(r * a_rs).cast_const(),
                (a_rs, a_cs),
                pb.at(s * b_cs).cast_const(),
                (b_rs, b_cs),
                T::ONE,
            )
        }
    };
    if parallel && m * n * k >= PAR_FLOPS {
        for_each_block(m, n, block);
    } else {
        block(0..m, 0..n);
    }
}
