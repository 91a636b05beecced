//! Random number generation: a seedable [`Generator`] holding PyTorch's CPU stream
//! ([`Engine`]: the same numbers as PyTorch for the same seed and calls) and the random ops, each
//! drawing its numbers in the order and with the transform of ATen's CPU kernel.

use std::sync::{Mutex, OnceLock};

use crate::error::bail;
use crate::random_engine::Engine;
use crate::unwind::{check_alloc, try_vec};
use crate::{DEFAULT_FLOAT, DType, Result, Tensor, TensorMeta};

/// PyTorch's default seed for a fresh process.
pub const DEFAULT_SEED: u64 = 67280421310721;

/// A seedable random generator (`torch.Generator`).
#[derive(Debug)]
pub struct Generator {
    state: Mutex<Engine>,
}

impl Generator {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Generator {
        Generator {
            state: Mutex::new(Engine::new(seed)),
        }
    }

    /// Re-seeds (`manual_seed`); drops the cached normal sample.
    pub fn manual_seed(&self, seed: u64) {
        *self.lock() = Engine::new(seed);
    }

    /// The seed last set (`initial_seed`).
    pub fn initial_seed(&self) -> u64 {
        self.lock().seed()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Engine> {
        // A panic while holding the lock cannot leave the RNG state invalid.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Length of [`Generator::get_state`]'s bytes (PyTorch's).
    pub const STATE_LEN: usize = Engine::STATE_LEN;

    /// The whole state as bytes (`torch.get_rng_state`), in PyTorch's layout.
    pub fn get_state(&self) -> Vec<u8> {
        self.lock().state_bytes()
    }

    /// Restores a state from [`Generator::get_state`] or from PyTorch (`torch.set_rng_state`).
    pub fn set_state(&self, bytes: &[u8]) -> Result<()> {
        let e = Engine::from_state_bytes(bytes)?;
        *self.lock() = e;
        Ok(())
    }

    /// Runs `f` with exclusive access to the stream.
    pub fn with<R>(&self, f: impl FnOnce(&mut Engine) -> R) -> R {
        f(&mut self.lock())
    }
}

/// The process-wide default generator.
pub fn default_generator() -> &'static Generator {
    static G: OnceLock<Generator> = OnceLock::new();
    G.get_or_init(|| Generator::new(DEFAULT_SEED))
}

/// `torch.manual_seed(seed)`.
pub fn manual_seed(seed: u64) {
    default_generator().manual_seed(seed);
}

pub(crate) fn gen_or_default(g: Option<&Generator>) -> &Generator {
    g.unwrap_or_else(|| default_generator())
}

/// Shape/dtype rule of `rand`/`randn`: float dtypes only.
pub fn rand_meta(shape: &[usize], dtype: Option<DType>, name: &str) -> Result<TensorMeta> {
    let dt = dtype.unwrap_or(DEFAULT_FLOAT);
    if !dt.is_floating_point() && !dt.is_complex() {
        bail!(
            NotImplemented,
            "\"{name}\" not implemented for '{}'",
            dt.aten_name()
        );
    }
    Ok(TensorMeta::contiguous(dt, shape))
}

/// The real shape holding a complex tensor of `shape`: a trailing dimension of 2 components.
fn complex_shape(shape: &[usize]) -> Vec<usize> {
    let mut s = shape.to_vec();
    s.push(2);
    s
}

/// `x` rounded to `dt` (a float dtype), as an `f64`.
pub(crate) fn round_to(dt: DType, x: f64) -> f64 {
    match dt {
        DType::Float64 => x,
        DType::Float16 => f64::from(half::f16::from_f64(x)),
        DType::BFloat16 => f64::from(half::bf16::from_f64(x)),
        _ => f64::from(x as f32),
    }
}

/// `n` samples of ATen's `uniform_real_distribution<T>(from, to)` for the float dtype `dt`, in
/// draw order: the bounds rounded to `dt`, then `x * (to - from) + from` with one rounding (the
/// fused multiply-add ATen's compiled kernel does) in `f64` for `f64`, else in `f32`.
fn uniform_values(e: &mut Engine, n: usize, dt: DType, from: f64, to: f64) -> Result<Vec<f64>> {
    let mut v = try_vec::<f64>(n)?;
    if dt == DType::Float64 {
        v.extend((0..n).map(|_| e.uniform_f64().mul_add(to - from, from)));
    } else {
        let (lo, hi) = (round_to(dt, from) as f32, round_to(dt, to) as f32);
        v.extend((0..n).map(|_| round_to(dt, f64::from(e.uniform_f32().mul_add(hi - lo, lo)))));
    }
    Ok(v)
}

/// `n` normal samples for the float dtype `dt` as ATen's CPU `normal_` draws them: 16 or more
/// into contiguous memory take `n` uniforms of `dt` and turn each block of 16 into 8 Box-Muller
/// pairs in `dt`'s arithmetic (a ragged end redraws the last 16); fewer, or strided, take
/// double-precision pairs one value at a time through the generator's cache. (PyTorch's `f32`
/// block kernel is vectorised with its own `log`/`sin`/`cos`, so `f32` values from it can differ
/// from PyTorch's in the last bits; the numbers drawn, and so every later draw, are the same.)
fn normal_values(
    e: &mut Engine,
    n: usize,
    dt: DType,
    dense: bool,
    mean: f64,
    std: f64,
) -> Result<Vec<f64>> {
    let mut v = try_vec::<f64>(n)?;
    if n < 16 || !dense {
        v.extend((0..n).map(|_| round_to(dt, e.normal_f64().mul_add(std, mean))));
        return Ok(v);
    }
    let draw = |e: &mut Engine| {
        if dt == DType::Float64 {
            e.uniform_f64()
        } else {
            round_to(dt, f64::from(e.uniform_f32()))
        }
    };
    v.extend((0..n).map(|_| draw(e)));
    let block = |d: &mut [f64]| {
        for j in 0..8 {
            if dt == DType::Float64 {
                let r = (-2.0 * (1.0 - d[j]).ln()).sqrt();
                let theta = 2.0 * std::f64::consts::PI * d[j + 8];
                d[j] = (r * theta.cos()).mul_add(std, mean);
                d[j + 8] = (r * theta.sin()).mul_add(std, mean);
            } else {
                let q = |x: f32| round_to(dt, f64::from(x)) as f32;
                let r = q(q(-2.0 * q(q(1.0 - d[j] as f32).ln())).sqrt());
                let theta = q((2.0 * std::f64::consts::PI * d[j + 8]) as f32);
                let (s, m) = (q(std as f32), q(mean as f32));
                d[j] = f64::from(q(q(r * q(theta.cos())).mul_add(s, m)));
                d[j + 8] = f64::from(q(q(r * q(theta.sin())).mul_add(s, m)));
            }
        }
    };
    for start in (0..n - 15).step_by(16) {
        block(&mut v[start..start + 16]);
    }
    if !n.is_multiple_of(16) {
        let tail = &mut v[n - 16..];
        for x in tail.iter_mut() {
            *x = draw(e);
        }
        block(tail);
    }
    Ok(v)
}

/// Uniform samples in `[0, 1)` (`torch.rand`).
pub fn rand(shape: &[usize], dtype: Option<DType>, g: Option<&Generator>) -> Result<Tensor> {
    if let Some(c) = dtype.filter(|d| d.is_complex()) {
        // Each component uniform in [0, 1), as PyTorch's complex `rand`.
        let r = rand(&complex_shape(shape), Some(c.to_real()), g)?;
        return crate::ops::complex::view_as_complex(&r);
    }
    let meta = rand_meta(shape, dtype, "check_uniform_bounds")?;
    let n = meta.shape.iter().product();
    check_alloc(&meta.shape, meta.dtype)?;
    let vals = gen_or_default(g).with(|e| uniform_values(e, n, meta.dtype, 0.0, 1.0))?;
    Ok(Tensor::from_vec(vals, shape)?.to_dtype(meta.dtype))
}

/// Standard normal samples (`torch.randn`).
pub fn randn(shape: &[usize], dtype: Option<DType>, g: Option<&Generator>) -> Result<Tensor> {
    if let Some(c) = dtype.filter(|d| d.is_complex()) {
        // A standard complex normal: E|z|^2 = 1, so each component is N(0, 1/2) (PyTorch draws
        // the real view with std 1/sqrt(2)).
        let meta = rand_meta(shape, Some(c.to_real()), "normal_kernel_cpu")?;
        let real = complex_shape(&meta.shape);
        let n = real.iter().product();
        check_alloc(&real, meta.dtype)?;
        let half = std::f64::consts::FRAC_1_SQRT_2;
        let vals = gen_or_default(g).with(|e| normal_values(e, n, meta.dtype, true, 0.0, half))?;
        let r = Tensor::from_vec(vals, &real)?.to_dtype(meta.dtype);
        return crate::ops::complex::view_as_complex(&r);
    }
    let meta = rand_meta(shape, dtype, "normal_kernel_cpu")?;
    let n: usize = meta.shape.iter().product();
    check_alloc(&meta.shape, meta.dtype)?;
    let vals = gen_or_default(g).with(|e| normal_values(e, n, meta.dtype, true, 0.0, 1.0))?;
    Ok(Tensor::from_vec(vals, shape)?.to_dtype(meta.dtype))
}

/// Shape/dtype rule of `randint(low, high, size)`.
pub fn randint_meta(
    low: i64,
    high: i64,
    shape: &[usize],
    dtype: Option<DType>,
) -> Result<TensorMeta> {
    if low >= high {
        bail!(
            Runtime,
            "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        );
    }
    Ok(TensorMeta::contiguous(dtype.unwrap_or(DType::Int64), shape))
}

/// Uniform integers in `[low, high)` (`torch.randint`).
pub fn randint(
    low: i64,
    high: i64,
    shape: &[usize],
    dtype: Option<DType>,
    g: Option<&Generator>,
) -> Result<Tensor> {
    let meta = randint_meta(low, high, shape, dtype)?;
    let n: usize = shape.iter().product();
    check_alloc(&meta.shape, meta.dtype)?;
    let mut vals = try_vec::<i64>(n)?;
    // ATen's `random_from_to`: `draw % range + low`, one 32-bit draw unless the range needs 64
    // bits and the dtype can hold them.
    let range = high.wrapping_sub(low) as u64;
    let wide = range >= 1 << 32
        && matches!(
            meta.dtype,
            DType::Int64 | DType::Float64 | DType::Float32 | DType::BFloat16
        );
    gen_or_default(g).with(|e| {
        vals.extend((0..n).map(|_| {
            let draw = if wide { e.u64() } else { u64::from(e.u32()) };
            (draw % range).wrapping_add(low as u64) as i64
        }))
    });
    Ok(Tensor::from_vec(vals, shape)?.to_dtype(meta.dtype))
}

/// A random permutation of `0..n` (`torch.randperm`), shuffled as ATen does.
pub fn randperm(n: i64, dtype: Option<DType>, g: Option<&Generator>) -> Result<Tensor> {
    if n < 0 {
        bail!(Runtime, "n must be non-negative, got{n}");
    }
    check_alloc(&[n as usize], dtype.unwrap_or(DType::Int64))?;
    let mut v = try_vec::<i64>(n as usize)?;
    v.extend(0..n);
    let n = v.len();
    gen_or_default(g).with(|e| {
        if (n as u64) < u64::from(u32::MAX) / 20 {
            // ATen's swap with a later element, `i + draw % (n - i)`.
            for i in 0..n.saturating_sub(1) {
                let z = i + (e.u32() as usize) % (n - i);
                v.swap(i, z);
            }
        } else {
            // Past 2^32 / 20 elements ATen switches to the inside-out shuffle with 64-bit draws.
            for i in 0..n {
                let z = (e.u64() % (i as u64 + 1)) as usize;
                v[i] = v[z];
                v[z] = i as i64;
            }
        }
    });
    let len = v.len();
    Ok(Tensor::from_vec(v, &[len])?.to_dtype(dtype.unwrap_or(DType::Int64)))
}

/// Shape/dtype rule of `dropout`.
pub fn dropout_meta(x: &impl crate::Shaped, p: f64) -> Result<TensorMeta> {
    if !(0.0..=1.0).contains(&p) {
        bail!(
            Value,
            "dropout probability has to be between 0 and 1, but got {p}"
        );
    }
    // `input * noise` with `noise = empty_like(input)`: the input's memory order.
    Ok(TensorMeta {
        dtype: x.dtype(),
        shape: x.shape().to_vec(),
        strides: crate::preserve::preserved_strides(x.shape(), x.strides()).to_vec(),
    })
}

/// `values`, drawn in order, placed as ATen's serial kernels write them into `x`: in the order of
/// `x`'s memory (for a transposed or sliced tensor, not its row-major order). Returned in
/// row-major order.
pub(crate) fn in_memory_order(x: &impl crate::Shaped, values: Vec<f64>) -> Vec<f64> {
    let (shape, strides) = (x.shape(), x.strides());
    if crate::layout::is_contiguous(shape, strides) {
        return values;
    }
    let mut offsets: Vec<(isize, usize)> = Vec::with_capacity(values.len());
    let mut index = vec![0usize; shape.len()];
    for k in 0..values.len() {
        offsets.push((
            index
                .iter()
                .zip(strides)
                .map(|(&i, &s)| i as isize * s)
                .sum(),
            k,
        ));
        for d in (0..shape.len()).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    offsets.sort_unstable();
    let mut out = vec![0.0; values.len()];
    for ((_, k), v) in offsets.into_iter().zip(values) {
        out[k] = v;
    }
    out
}

/// `dropout(x, p, training)` as ATen's CPU `dropout`: a noise tensor like `x` drawn by
/// `bernoulli_(1 - p)` (one `f64` uniform per element, kept when below `1 - p`), divided by
/// `1 - p` in `x`'s dtype, times `x`. The identity (a contiguous copy) when not training.
pub fn dropout(x: &Tensor, p: f64, training: bool, g: Option<&Generator>) -> Result<Tensor> {
    let meta = dropout_meta(x, p)?;
    if !training || p == 0.0 || x.numel() == 0 {
        return Ok(x.clone_preserving());
    }
    if p == 1.0 {
        return Ok(Tensor::zeros(x.shape(), x.dtype()).with_dense_strides(&meta.strides));
    }
    let n = x.numel();
    let keep_p = 1.0 - p;
    // `noise.div_(1 - p)`: the divisor rounded to the dtype's compute type, one rounding.
    let kept = if x.dtype() == DType::Float64 {
        1.0 / keep_p
    } else {
        round_to(x.dtype(), f64::from(1.0 / keep_p as f32))
    };
    let mut noise = try_vec::<f64>(n)?;
    gen_or_default(g)
        .with(|e| noise.extend((0..n).map(|_| if e.uniform_f64() < keep_p { kept } else { 0.0 })));
    let mask = Tensor::from_vec(in_memory_order(x, noise), x.shape())?.to_dtype(x.dtype());
    crate::ops::pointwise::binary(
        crate::BinaryOp::Mul,
        crate::TensorOrScalar::Tensor(x),
        crate::TensorOrScalar::Tensor(&mask),
        crate::Scalar::Int(1),
    )
    .map(|t| t.laid_out_as(&meta))
}

/// Checks of `x.normal_(mean, std)`.
pub fn normal_check(x: &impl crate::Shaped, std: f64) -> Result<()> {
    if std < 0.0 {
        bail!(Runtime, "normal expects std >= 0.0, but found std {std}");
    }
    if !x.dtype().is_floating_point() {
        return Err(crate::Error::NotImplementedFor {
            op: "normal_kernel_cpu",
            dtype: x.dtype().aten_name(),
        });
    }
    Ok(())
}

/// `x.normal_(mean, std)`: fills `x` in place with normal samples.
pub fn normal_(x: &Tensor, mean: f64, std: f64, g: Option<&Generator>) -> Result<()> {
    normal_check(x, std)?;
    let n = x.numel();
    let dense = x.is_contiguous();
    let v = gen_or_default(g).with(|e| normal_values(e, n, x.dtype(), dense, mean, std))?;
    x.copy_(&Tensor::from_vec::<f64>(in_memory_order(x, v), x.shape())?)
}

/// Checks of `x.uniform_(from, to)`.
pub fn uniform_check(x: &impl crate::Shaped, from: f64, to: f64) -> Result<()> {
    if from > to {
        bail!(
            Runtime,
            "uniform_ expects to return a [from, to) range, but found from={from} > to={to}"
        );
    }
    if !x.dtype().is_floating_point() {
        return Err(crate::Error::NotImplementedFor {
            op: "check_uniform_bounds",
            dtype: x.dtype().aten_name(),
        });
    }
    Ok(())
}

/// `x.uniform_(from, to)`: fills `x` in place with samples from `[from, to)`.
pub fn uniform_(x: &Tensor, from: f64, to: f64, g: Option<&Generator>) -> Result<()> {
    uniform_check(x, from, to)?;
    let n = x.numel();
    let v = gen_or_default(g).with(|e| uniform_values(e, n, x.dtype(), from, to))?;
    x.copy_(&Tensor::from_vec::<f64>(in_memory_order(x, v), x.shape())?)
}
