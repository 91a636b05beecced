//! Random number generation: a seedable [`Generator`] (ChaCha8, a well-studied counter-based
//! stream cipher RNG) and the random ops. Streams differ from PyTorch's mt19937; only the
//! distributions and the seeding contract (same seed, same numbers) match.

use std::sync::{Mutex, OnceLock};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::bail;
use crate::ops::pointwise::broadcast_to;
use crate::unwind::{check_alloc, try_vec};
use crate::{DEFAULT_FLOAT, DType, Result, Tensor, TensorMeta};

/// PyTorch's default seed for a fresh process.
pub const DEFAULT_SEED: u64 = 67280421310721;

/// A seedable random generator (`torch.Generator`).
#[derive(Debug)]
pub struct Generator {
    state: Mutex<(u64, ChaCha8Rng)>,
}

impl Generator {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Generator {
        Generator {
            state: Mutex::new((seed, ChaCha8Rng::seed_from_u64(seed))),
        }
    }

    /// Re-seeds (`manual_seed`).
    pub fn manual_seed(&self, seed: u64) {
        *self.lock() = (seed, ChaCha8Rng::seed_from_u64(seed));
    }

    /// The seed last set (`initial_seed`).
    pub fn initial_seed(&self) -> u64 {
        self.lock().0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (u64, ChaCha8Rng)> {
        // A panic while holding the lock cannot leave the RNG state invalid.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Length of [`Generator::get_state`]'s bytes.
    pub const STATE_LEN: usize = 64;

    /// The whole state as bytes (`torch.get_rng_state`): the initial seed, ChaCha's key, stream
    /// and word position, little-endian.
    pub fn get_state(&self) -> Vec<u8> {
        let st = self.lock();
        let mut out = Vec::with_capacity(Self::STATE_LEN);
        out.extend(st.0.to_le_bytes());
        out.extend(st.1.get_seed());
        out.extend(st.1.get_stream().to_le_bytes());
        out.extend(st.1.get_word_pos().to_le_bytes());
        out
    }

    /// Restores a state from [`Generator::get_state`] (`torch.set_rng_state`).
    pub fn set_state(&self, bytes: &[u8]) -> Result<()> {
        if bytes.len() != Self::STATE_LEN {
            bail!(
                Runtime,
                "Expected either a at::kByte tensor of {} bytes (a Rynamo generator state), but got {} bytes",
                Self::STATE_LEN,
                bytes.len()
            );
        }
        let word = |r: std::ops::Range<usize>| bytes[r].to_vec();
        let seed = u64::from_le_bytes(word(0..8).try_into().expect("8 bytes"));
        let key: [u8; 32] = word(8..40).try_into().expect("32 bytes");
        let stream = u64::from_le_bytes(word(40..48).try_into().expect("8 bytes"));
        let pos = u128::from_le_bytes(word(48..64).try_into().expect("16 bytes"));
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(stream);
        rng.set_word_pos(pos);
        *self.lock() = (seed, rng);
        Ok(())
    }

    /// Runs `f` with exclusive access to the RNG.
    pub fn with<R>(&self, f: impl FnOnce(&mut ChaCha8Rng) -> R) -> R {
        f(&mut self.lock().1)
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

fn gen_or_default(g: Option<&Generator>) -> &Generator {
    g.unwrap_or_else(|| default_generator())
}

/// Shape/dtype rule of `rand`/`randn`: float dtypes only.
pub fn rand_meta(shape: &[usize], dtype: Option<DType>, name: &str) -> Result<TensorMeta> {
    let dt = dtype.unwrap_or(DEFAULT_FLOAT);
    if !dt.is_floating_point() && !dt.is_complex() {
        bail!(
            Runtime,
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
    let mut vals = try_vec::<f64>(n)?;
    gen_or_default(g).with(|r| {
        vals.extend((0..n).map(|_| {
            if meta.dtype == DType::Float64 {
                r.r#gen::<f64>()
            } else {
                // 24 random bits: every value is exactly representable in f32 and < 1.
                f64::from(r.r#gen::<u32>() >> 8) / f64::from(1u32 << 24)
            }
        }))
    });
    Ok(Tensor::from_vec(vals, shape)?.to_dtype(meta.dtype))
}

/// Standard normal samples (`torch.randn`), by the Box-Muller transform.
pub fn randn(shape: &[usize], dtype: Option<DType>, g: Option<&Generator>) -> Result<Tensor> {
    if let Some(c) = dtype.filter(|d| d.is_complex()) {
        // A standard complex normal: E|z|^2 = 1, so each component is N(0, 1/2) (PyTorch's).
        let r = randn(&complex_shape(shape), Some(c.to_real()), g)?;
        let r = crate::ops::pointwise::binary(
            crate::BinaryOp::Mul,
            crate::TensorOrScalar::Tensor(&r),
            crate::TensorOrScalar::Scalar(crate::Scalar::Float(std::f64::consts::FRAC_1_SQRT_2)),
            crate::Scalar::Int(1),
        )?;
        return crate::ops::complex::view_as_complex(&r);
    }
    let meta = rand_meta(shape, dtype, "normal_kernel_cpu")?;
    let n: usize = meta.shape.iter().product();
    check_alloc(&meta.shape, meta.dtype)?;
    let mut v = try_vec::<f64>(n + 1)?;
    let vals: Vec<f64> = gen_or_default(g).with(|r| {
        while v.len() < n {
            let u1: f64 = 1.0 - r.r#gen::<f64>(); // (0, 1]: log is finite
            let u2: f64 = r.r#gen::<f64>();
            let rad = (-2.0 * u1.ln()).sqrt();
            let th = 2.0 * std::f64::consts::PI * u2;
            v.push(rad * th.cos());
            v.push(rad * th.sin());
        }
        v.truncate(n);
        v
    });
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
    gen_or_default(g).with(|r| vals.extend((0..n).map(|_| r.gen_range(low..high))));
    Ok(Tensor::from_vec(vals, shape)?.to_dtype(meta.dtype))
}

/// A random permutation of `0..n` (`torch.randperm`), by Fisher-Yates.
pub fn randperm(n: i64, dtype: Option<DType>, g: Option<&Generator>) -> Result<Tensor> {
    if n < 0 {
        bail!(Runtime, "n must be non-negative, got{n}");
    }
    check_alloc(&[n as usize], dtype.unwrap_or(DType::Int64))?;
    let mut v = try_vec::<i64>(n as usize)?;
    v.extend(0..n);
    gen_or_default(g).with(|r| {
        for i in (1..v.len()).rev() {
            let j = r.gen_range(0..=i);
            v.swap(i, j);
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
    Ok(TensorMeta::contiguous(x.dtype(), x.shape()))
}

/// `dropout(x, p, training)`: zeroes each element with probability `p` and scales the rest by
/// `1 / (1 - p)`; the identity (a contiguous copy) when not training.
pub fn dropout(x: &Tensor, p: f64, training: bool, g: Option<&Generator>) -> Result<Tensor> {
    dropout_meta(x, p)?;
    if !training || p == 0.0 {
        return Ok(x.deep_clone());
    }
    if p == 1.0 {
        return Ok(Tensor::zeros(x.shape(), x.dtype()));
    }
    let n = x.numel();
    let mut keep = try_vec::<f64>(n)?;
    gen_or_default(g).with(|r| {
        keep.extend((0..n).map(|_| {
            if r.r#gen::<f64>() < p {
                0.0
            } else {
                1.0 / (1.0 - p)
            }
        }))
    });
    let mask = Tensor::from_vec(keep, x.shape())?.to_dtype(x.dtype().compute_dtype());
    let scaled = crate::ops::pointwise::binary(
        crate::BinaryOp::Mul,
        crate::TensorOrScalar::Tensor(x),
        crate::TensorOrScalar::Tensor(&broadcast_to(&mask, x.shape())?),
        crate::Scalar::Int(1),
    )?;
    Ok(scaled.to_dtype(x.dtype()))
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
    let z = randn(x.shape(), Some(DType::Float64), g)?;
    let v = z
        .to_vec::<f64>()
        .into_iter()
        .map(|v| mean + std * v)
        .collect();
    x.copy_(&Tensor::from_vec::<f64>(v, x.shape())?)
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
    let u = rand(x.shape(), Some(DType::Float64), g)?;
    let v = u
        .to_vec::<f64>()
        .into_iter()
        .map(|v| from + (to - from) * v)
        .collect();
    x.copy_(&Tensor::from_vec::<f64>(v, x.shape())?)
}
