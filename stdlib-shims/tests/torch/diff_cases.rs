//! Differential cases for the ops appended to the registry after the first batch (scans and
//! sorts, scatter/gather, convolutions and pooling, normalisation, losses, attention, the extra
//! in-place forms); `diff` runs them exactly like its own cases.

use rynamo_tensor::{DType, Tensor};

use crate::diff::A::*;
use crate::diff::{Case, bools, c, f32s, i64s};

/// Pool tensors 22.. (appended to `diff::pool`, so the indices below are absolute).
pub(crate) fn more_pool() -> Vec<Tensor> {
    vec![
        i64s(&[3, 2], 0.35, 0, 3),            // 22: dim-1 indices into a [3, 4]
        i64s(&[2, 4], 1.15, 0, 2),            // 23: dim-0 indices into a [3, 4]
        f32s(&[2, 3, 8], 0.45, -1.0, 1.0),    // 24: conv1d input (N, C, L)
        f32s(&[4, 3, 3], 1.25, -0.5, 0.5),    // 25: conv1d weight
        f32s(&[2, 3, 6, 6], 2.05, -1.0, 1.0), // 26: conv2d / pooling input (N, C, H, W)
        f32s(&[4, 3, 3, 3], 0.95, -0.5, 0.5), // 27: conv2d weight
        f32s(&[3], 1.85, 0.5, 1.5),           // 28: positive per-channel (var, weight)
        i64s(&[3], 2.75, 0, 3),               // 29: class targets for 4 classes
        f32s(&[2, 5, 4], 0.15, -1.0, 1.0),    // 30: attention key
        f32s(&[2, 5, 4], 1.55, -1.0, 1.0),    // 31: attention value
        bools(&[3, 5], 0.65),                 // 32: attention mask
        f32s(&[6, 1, 3], 2.35, -0.5, 0.5),    // 33: grouped conv1d weight (groups = 3)
        // 34: symmetric positive definite (cholesky, eigh; well conditioned for the rest)
        Tensor::from_vec(
            vec![4.0f32, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0],
            &[3, 3],
        )
        .expect("9 values"),
        f32s(&[1, 2, 2, 3, 4], 0.55, -1.0, 1.0), // 35: an NCDHW volume (upsample_trilinear3d)
    ]
}

pub(crate) fn more_cases() -> Vec<Case> {
    let mut v = Vec::new();
    // Special functions and the linear-algebra kernels behind torch.linalg.
    v.extend([
        c("logit", &[T(0)], &[("eps", F(0.25))]),
        c("logit_", &[T(0)], &[("eps", F(0.25))]),
        c("nan_to_num_", &[T(13)], &[("nan", F(0.0))]),
        c("erfinv", &[T(9)], &[]),
        c("xlogy", &[T(0), T(8)], &[]),
        c("multinomial", &[T(28), I(2)], &[]),
        c("_linalg_inv", &[T(34)], &[]),
        c("_linalg_solve", &[T(34), T(0)], &[]),
        c("_linalg_det", &[T(34)], &[]),
        c("_linalg_slogdet", &[T(34)], &[]),
        c("_linalg_cholesky", &[T(34)], &[]),
        c("_linalg_qr", &[T(34)], &[]),
        c("_linalg_svd", &[T(34)], &[("full_matrices", B(false))]),
        c("_linalg_eigh", &[T(34)], &[]),
    ]);
    // In-place unary forms (also `torch.<name>_`).
    for name in [
        "neg_",
        "abs_",
        "exp_",
        "sin_",
        "cos_",
        "tanh_",
        "sigmoid_",
        "relu_",
        "floor_",
        "ceil_",
        "trunc_",
        "reciprocal_",
    ] {
        v.push(c(name, &[T(0)], &[]));
    }
    for name in ["log_", "sqrt_", "rsqrt_"] {
        v.push(c(name, &[T(8)], &[]));
    }
    v.extend(pointwise());
    v.extend(reductions_and_linalg());
    v.extend(shapes_and_indexing());
    v.extend(nn());
    v.extend(crate::diff_special::cases());
    v.extend(crate::diff_complex::cases());
    v
}

fn pointwise() -> Vec<Case> {
    vec![
        c("round_", &[T(0)], &[("decimals", I(1))]),
        c("fmod", &[T(0), F(1.5)], &[]),
        c("fmod", &[T(0), T(8)], &[]),
        c("hypot", &[T(0), T(1)], &[]),
        c("bitwise_left_shift", &[T(4), I(2)], &[]),
        c("bitwise_left_shift", &[T(14), T(4)], &[]),
        c("bitwise_right_shift", &[T(14), I(1)], &[]),
        c("bitwise_right_shift", &[T(14), T(4)], &[]),
        c("clamp_min", &[T(0), F(-0.5)], &[]),
        c("clamp_max", &[T(0), T(1)], &[]),
        c("lerp", &[T(0), T(1), F(0.25)], &[]),
        c("lerp", &[T(0), T(1), T(9)], &[]),
        c("addcmul", &[T(0), T(1), T(2)], &[("value", F(0.5))]),
        c("addcdiv", &[T(0), T(1), T(8)], &[("value", F(2.0))]),
        // In-place binary and ternary methods.
        c("pow_", &[T(8), F(1.5)], &[]),
        c("remainder_", &[T(0), F(1.5)], &[]),
        c("fmod_", &[T(0), T(8)], &[]),
        c("floor_divide_", &[T(4), I(3)], &[]),
        c("lerp_", &[T(0), T(1), F(0.3)], &[]),
        c("addcmul_", &[T(0), T(1), T(2)], &[("value", F(-1.5))]),
        c("addcdiv_", &[T(0), T(1), T(8)], &[]),
        c(
            "index_put_",
            &[T(3), Tl(&[10]), T(20)],
            &[("accumulate", B(true))],
        ),
        c("index_put_", &[T(3), Tl(&[10]), T(12)], &[]),
        c("scatter_", &[T(0), I(1), T(22), T(1)], &[]),
        c(
            "scatter_",
            &[T(0), I(1), T(22), F(2.0)],
            &[("reduce", S("add"))],
        ),
        c("scatter_add_", &[T(0), I(0), T(23), T(1)], &[]),
        c(
            "scatter_reduce_",
            &[T(0), I(1), T(22), T(1), S("mean")],
            &[("include_self", B(false))],
        ),
        // Random fills: the harness seeds both sides identically.
        c("normal_", &[T(0)], &[("mean", F(1.0)), ("std", F(0.5))]),
        c("uniform_", &[T(0), F(-1.0), F(1.0)], &[]),
        c("exponential_", &[T(0)], &[("lambd", F(2.0))]),
        c("bernoulli_", &[T(0), F(0.3)], &[]),
        c("bernoulli", &[T(12)], &[]),
    ]
}

fn reductions_and_linalg() -> Vec<Case> {
    vec![
        c("norm", &[T(0)], &[]),
        c(
            "norm",
            &[T(0)],
            &[("p", I(1)), ("dim", I(1)), ("keepdim", B(true))],
        ),
        c("norm", &[T(0), S("fro")], &[]),
        c("count_nonzero", &[T(14)], &[]),
        c("count_nonzero", &[T(5)], &[("dim", I(1))]),
        c("cumsum", &[T(0), I(1)], &[]),
        c("cumsum", &[T(4), I(0)], &[("dtype", D(DType::Float64))]),
        c("cumprod", &[T(8), I(1)], &[]),
        c("cummax", &[T(13), I(1)], &[]),
        c("cummin", &[T(4), I(0)], &[]),
        c("cummin", &[T(15)], &[("dim", I(-1))]),
        c("logcumsumexp", &[T(13), I(0)], &[]),
        c("logcumsumexp", &[T(6)], &[("dim", I(-1))]),
        c("sort", &[T(0)], &[]),
        c("sort", &[T(0), I(0), B(true)], &[]),
        c("sort", &[T(4)], &[("stable", B(true))]),
        c("argsort", &[T(0), I(1)], &[("descending", B(true))]),
        c("argsort", &[T(4)], &[("stable", B(true))]),
        c("topk", &[T(0), I(2)], &[]),
        c("topk", &[T(0), I(2), I(0), B(false)], &[]),
        // Linear algebra.
        c(
            "baddbmm",
            &[T(20), T(6), T(7)],
            &[("beta", F(0.5)), ("alpha", F(2.0))],
        ),
        c("dot", &[T(2), T(17)], &[]),
        c("mv", &[T(0), T(2)], &[]),
        c("outer", &[T(11), T(2)], &[]),
        c("einsum", &[S("ij,jk->ik"), Tl(&[0, 3])], &[]),
        c("einsum", &[S("bij,bjk->bik"), Tl(&[6, 7])], &[]),
    ]
}

fn shapes_and_indexing() -> Vec<Case> {
    vec![
        c("unbind", &[T(0)], &[]),
        c("unbind", &[T(0), I(1)], &[]),
        c("repeat", &[T(0), L(&[2, 1, 3])], &[]),
        c("repeat", &[T(2), I(2), I(2)], &[]),
        c("tile", &[T(0), L(&[2])], &[]),
        c("flip", &[T(0), L(&[0, 1])], &[]),
        c("roll", &[T(0), I(2)], &[]),
        c("roll", &[T(0), L(&[1, -1]), L(&[0, 1])], &[]),
        c("tril", &[T(0)], &[]),
        c("tril", &[T(0)], &[("diagonal", I(-1))]),
        c("triu", &[T(0), I(1)], &[]),
        c("gather", &[T(0), I(1), T(22)], &[]),
        c("scatter", &[T(0), I(1), T(22), T(1)], &[]),
        c("scatter", &[T(0), I(1), T(22), F(5.0)], &[]),
        c("scatter_add", &[T(0), I(0), T(23), T(1)], &[]),
        c("scatter_reduce", &[T(0), I(1), T(22), T(1), S("amax")], &[]),
        c("index_select", &[T(3), I(0), T(10)], &[]),
        c("nonzero", &[T(14)], &[]),
        c("nonzero", &[T(5)], &[]),
        // Creation from a tensor's dtype.
        c("new_zeros", &[T(0), L(&[2, 3])], &[]),
        c(
            "new_ones",
            &[T(4), L(&[2])],
            &[("dtype", D(DType::Float64))],
        ),
        c("new_empty", &[T(0), L(&[2, 2])], &[]),
        c("new_full", &[T(4), L(&[2, 3]), F(1.5)], &[]),
    ]
}

fn nn() -> Vec<Case> {
    vec![
        c(
            "conv1d",
            &[T(24), T(25), T(2)],
            &[("stride", I(2)), ("padding", I(1))],
        ),
        c("conv1d", &[T(24), T(25)], &[("padding", S("same"))]),
        c("conv1d", &[T(24), T(33)], &[("groups", I(3))]),
        c(
            "conv2d",
            &[T(26), T(27), T(2)],
            &[("stride", L(&[2, 1])), ("padding", I(1))],
        ),
        c("conv2d", &[T(26), T(27)], &[("dilation", I(2))]),
        c("conv2d", &[T(26), T(27), T(2)], &[("padding", S("same"))]),
        c("max_pool2d", &[T(26), I(2)], &[]),
        c(
            "max_pool2d",
            &[T(26), L(&[3, 3])],
            &[("stride", I(2)), ("padding", I(1)), ("ceil_mode", B(true))],
        ),
        c("max_pool2d_with_indices", &[T(26), I(3), I(2)], &[]),
        c("avg_pool2d", &[T(26), I(2)], &[]),
        c(
            "avg_pool2d",
            &[T(26), I(3), I(2), I(1)],
            &[("count_include_pad", B(false))],
        ),
        c("adaptive_avg_pool2d", &[T(26), L(&[4, 3])], &[]),
        c("adaptive_avg_pool2d", &[T(26), I(1)], &[]),
        c("upsample_bilinear2d", &[T(26), L(&[9, 4]), B(true)], &[]),
        c(
            "upsample_bilinear2d",
            &[T(26), L(&[12, 12]), B(false)],
            &[("scales_h", F(2.0)), ("scales_w", F(2.0))],
        ),
        c("upsample_linear1d", &[T(24), L(&[13]), B(false)], &[]),
        c(
            "upsample_linear1d",
            &[T(24), L(&[4]), B(true)],
            &[("scales", F(0.5))],
        ),
        c(
            "upsample_trilinear3d",
            &[T(35), L(&[3, 5, 6]), B(false)],
            &[],
        ),
        c(
            "upsample_trilinear3d",
            &[T(35), L(&[4, 6, 8]), B(true)],
            &[
                ("scales_d", F(2.0)),
                ("scales_h", F(2.0)),
                ("scales_w", F(2.0)),
            ],
        ),
        c(
            "batch_norm",
            &[T(26), T(11), T(28), T(28), T(11)],
            &[("eps", F(1e-3))],
        ),
        c(
            "batch_norm",
            &[T(6), T(11), T(28)],
            &[("training", B(true)), ("momentum", F(0.2))],
        ),
        // PyTorch's order: weight, bias, running_mean, running_var, training, momentum, eps
        c(
            "native_batch_norm",
            &[T(26), T(28), T(11), T(11), T(28), B(true), F(0.1), F(1e-5)],
            &[],
        ),
        c(
            "native_batch_norm",
            &[T(6), T(11), T(28), T(11), T(28), B(false), F(0.1), F(1e-3)],
            &[],
        ),
        c("group_norm", &[T(6), I(3), T(28), T(11)], &[]),
        c("group_norm", &[T(26), I(1)], &[("eps", F(1e-3))]),
        c("pad", &[T(0), L(&[1, 2])], &[("value", F(0.5))]),
        c("pad", &[T(6), L(&[1, 1, 0, 1])], &[]),
        c("pad", &[T(6), L(&[2, 1])], &[("mode", S("reflect"))]),
        c(
            "pad",
            &[T(26), L(&[1, 1, 1, 1])],
            &[("mode", S("replicate"))],
        ),
        // Losses.
        c("cross_entropy", &[T(0), T(29)], &[]),
        c(
            "cross_entropy",
            &[T(0), T(29), T(17)],
            &[("reduction", S("sum")), ("label_smoothing", F(0.1))],
        ),
        c("cross_entropy", &[T(0), T(29)], &[("ignore_index", I(1))]),
        c("nll_loss", &[T(0), T(29)], &[]),
        c(
            "nll_loss",
            &[T(0), T(29), T(17)],
            &[("reduction", S("none"))],
        ),
        c("mse_loss", &[T(0), T(1)], &[]),
        c("mse_loss", &[T(0), T(1)], &[("reduction", S("sum"))]),
        c("l1_loss", &[T(0), T(1)], &[("reduction", S("none"))]),
        // Attention.
        c("scaled_dot_product_attention", &[T(6), T(30), T(31)], &[]),
        c(
            "scaled_dot_product_attention",
            &[T(6), T(6), T(6)],
            &[("is_causal", B(true)), ("scale", F(0.25))],
        ),
        c(
            "scaled_dot_product_attention",
            &[T(6), T(30), T(31), T(32)],
            &[("dropout_p", F(0.5))],
        ),
    ]
}
