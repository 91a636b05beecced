//! Random inputs: a seeded PRNG, shapes, strided layouts and values with edge cases.

use rynamo_tensor::{DType, IndexItem, Scalar, Tensor};

/// SplitMix64: small, seedable, good enough for test inputs.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i64
    }
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (1.0 - self.unit(), self.unit());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    pub fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }
    /// A random permutation of `0..n`.
    pub fn perm(&mut self, n: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            v.swap(i, self.below(i + 1));
        }
        v
    }
}

/// Which values a tensor holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Domain {
    /// Normal floats (scale 3), ints in [-20, 20].
    Real,
    /// Floats in (0.1, 10), ints in [1, 20].
    Pos,
    /// Floats and ints in [-1, 1].
    Unit,
    /// Like `Real` without zeros.
    NonZero,
    /// Floats in [0, 4), ints in [0, 5].
    Small,
    /// Distinct values (no ties).
    Distinct,
    /// Floats in [0, 100), exactly representable as integers after truncation in every dtype.
    CastSafe,
    /// Ints in `[lo, hi]` for every dtype.
    Ints(i64, i64),
}

/// How a tensor's memory is laid out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Layout {
    Contiguous,
    /// Reversed dims, permuted back: non-contiguous, every element distinct.
    Transposed,
    /// Every dim strided by 2 in a larger buffer, at an offset.
    Strided,
    /// A stride-0 broadcast view (read-only arguments only).
    Expanded,
}

pub const ALL_DTYPES: [DType; 10] = DType::REAL;
pub const FLOAT_DTYPES: [DType; 4] = [
    DType::Float32,
    DType::Float64,
    DType::Float16,
    DType::BFloat16,
];

fn int_range(dt: DType) -> (i64, i64) {
    match dt {
        DType::Bool => (0, 1),
        DType::UInt8 => (0, 255),
        DType::Int8 => (-128, 127),
        DType::Int16 => (-32768, 32767),
        DType::Int32 => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    }
}

/// Special float values, in f64 (cast into the target dtype later).
fn float_edge(rng: &mut Rng, dt: DType) -> f64 {
    let (tiny, big) = match dt {
        DType::Float16 => (6.0e-8, 65504.0),
        DType::BFloat16 => (1.0e-39, 3.0e38),
        DType::Float32 => (1.0e-40, 3.0e38),
        _ => (1.0e-310, 1.0e308),
    };
    rng.pick(&[
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        0.0,
        tiny,
        -tiny,
        big,
        -big,
        1.0,
        -1.0,
        0.5,
    ])
}

/// One element.
pub fn value(rng: &mut Rng, dt: DType, dom: Domain, edges: bool) -> f64 {
    if dt == DType::Bool {
        return f64::from(u8::from(dom == Domain::NonZero || rng.chance(0.5)));
    }
    let float = dt.is_floating_point();
    let (lo, hi) = int_range(dt);
    if edges && rng.chance(0.12) {
        if float {
            return float_edge(rng, dt);
        }
        let v = rng.pick(&[lo, hi, 0, -1, 1, lo + 1, hi - 1]).clamp(lo, hi);
        // Integer division by zero is an error in PyTorch, not a value: keep divisors non-zero.
        return if v == 0 && dom == Domain::NonZero {
            1.0
        } else {
            v as f64
        };
    }
    let v = match (dom, float) {
        (Domain::Real, true) => rng.normal() * 3.0,
        (Domain::Real, false) => rng.range(-20, 20) as f64,
        (Domain::Pos, true) => 0.1 + rng.unit() * 9.9,
        (Domain::Pos, false) => rng.range(1, 20) as f64,
        (Domain::Unit, true) => rng.unit() * 2.0 - 1.0,
        (Domain::Unit, false) => rng.range(-1, 1) as f64,
        (Domain::NonZero, true) => {
            let v = rng.normal() * 3.0;
            if v == 0.0 { 1.0 } else { v }
        }
        (Domain::NonZero, false) => {
            let v = rng.range(1, 20);
            (if lo < 0 && rng.chance(0.5) { -v } else { v }) as f64
        }
        (Domain::Small, true) => rng.unit() * 4.0,
        (Domain::Small, false) => rng.range(0, 5) as f64,
        (Domain::Distinct, _) => unreachable!("distinct values are generated per tensor"),
        (Domain::CastSafe, _) => rng.range(0, 99) as f64,
        (Domain::Ints(a, b), _) => rng.range(a, b) as f64,
    };
    if float {
        v
    } else {
        v.clamp(lo as f64, hi as f64)
    }
}

/// A contiguous tensor of `shape` with values from `dom`.
pub fn contiguous(rng: &mut Rng, shape: &[usize], dt: DType, dom: Domain, edges: bool) -> Tensor {
    let n: usize = shape.iter().product();
    let vals: Vec<f64> = if dom == Domain::Distinct {
        let p = rng.perm(n);
        let (lo, hi) = int_range(dt);
        p.into_iter()
            .map(|v| {
                if dt.is_floating_point() {
                    v as f64 * 0.5 - n as f64 / 4.0
                } else if lo == 0 {
                    (v as i64).clamp(lo, hi) as f64
                } else {
                    (v as i64 - (n as i64 / 2)).clamp(lo, hi) as f64
                }
            })
            .collect()
    } else {
        (0..n).map(|_| value(rng, dt, dom, edges)).collect()
    };
    let t = Tensor::from_vec(vals, shape).expect("shape fits");
    if dt.is_floating_point() || dt == DType::Bool {
        t.to_dtype(dt)
    } else {
        // Through int64 so the values land exactly (f64 -> int casts truncate).
        t.to_dtype(DType::Int64).to_dtype(dt)
    }
}

/// A tensor with the given logical shape laid out as `layout`.
pub fn tensor(
    rng: &mut Rng,
    shape: &[usize],
    dt: DType,
    dom: Domain,
    edges: bool,
    layout: Layout,
) -> Tensor {
    let nd = shape.len();
    match layout {
        Layout::Transposed if nd >= 2 => {
            let rev: Vec<usize> = shape.iter().rev().copied().collect();
            let perm: Vec<i64> = (0..nd as i64).rev().collect();
            contiguous(rng, &rev, dt, dom, edges)
                .permute(&perm)
                .expect("valid perm")
        }
        Layout::Strided if nd >= 1 => {
            let big: Vec<usize> = shape.iter().map(|&d| d * 2 + 1).collect();
            let b = contiguous(rng, &big, dt, dom, edges);
            let items: Vec<IndexItem<Tensor>> = (0..nd)
                .map(|_| IndexItem::Slice {
                    start: Some(1),
                    stop: None,
                    step: Some(2),
                })
                .collect();
            let v = rynamo_tensor::ops::index::getitem(&b, &items).expect("slices");
            let v = v.narrow(0, 0, shape[0] as i64).expect("fits");
            let mut cur = v;
            for (d, &s) in shape.iter().enumerate().skip(1) {
                cur = cur.narrow(d as i64, 0, s as i64).expect("fits");
            }
            cur
        }
        Layout::Expanded if nd >= 1 && shape.iter().any(|&d| d > 1) => {
            let small: Vec<usize> = shape
                .iter()
                .map(|&d| if d > 1 && rng.chance(0.5) { 1 } else { d })
                .collect();
            let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            contiguous(rng, &small, dt, dom, edges)
                .expand(&sizes)
                .expect("expandable")
        }
        _ => contiguous(rng, shape, dt, dom, edges),
    }
}

/// A random shape: rank `0..=max_rank`, dims `0..=5` (zero-size dims rarely).
pub fn shape(rng: &mut Rng, min_rank: usize, max_rank: usize) -> Vec<usize> {
    let r = min_rank + rng.below(max_rank - min_rank + 1);
    (0..r)
        .map(|_| {
            if rng.chance(0.06) {
                0
            } else {
                1 + rng.below(5)
            }
        })
        .collect()
}

/// A shape that broadcasts to `out`: some leading dims dropped, some dims set to 1.
pub fn broadcastable(rng: &mut Rng, out: &[usize]) -> Vec<usize> {
    let drop = rng
        .below(out.len() + 1)
        .min(if rng.chance(0.5) { 0 } else { out.len() });
    out[drop..]
        .iter()
        .map(|&d| if rng.chance(0.25) { 1 } else { d })
        .collect()
}

/// A random layout (Expanded only when `read_only`).
pub fn layout(rng: &mut Rng, read_only: bool) -> Layout {
    let opts: &[Layout] = if read_only {
        &[
            Layout::Contiguous,
            Layout::Contiguous,
            Layout::Transposed,
            Layout::Strided,
            Layout::Expanded,
        ]
    } else {
        &[
            Layout::Contiguous,
            Layout::Contiguous,
            Layout::Transposed,
            Layout::Strided,
        ]
    };
    rng.pick(opts)
}

/// A Python number of the kind that suits `dt`.
pub fn scalar(rng: &mut Rng, dt: DType, dom: Domain) -> Scalar {
    if dt == DType::Bool {
        return Scalar::Bool(dom == Domain::NonZero || rng.chance(0.5));
    }
    let v = value(
        rng,
        if dt.is_floating_point() {
            DType::Float64
        } else {
            DType::Int64
        },
        dom,
        false,
    );
    if dt.is_floating_point() {
        Scalar::Float(v)
    } else {
        Scalar::Int(v as i64)
    }
}
