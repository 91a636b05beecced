//! Data types, Python scalars, and PyTorch's type-promotion rules.
//!
//! Promotion follows `c10::promoteTypes` (the lattice) and `at::native::result_type` (the category rule
//! that lets Python scalars and zero-dim tensors take part without up-casting a tensor of the same
//! category).

use std::fmt;

use crate::{Error, Result};

/// Element type of a tensor. ORDER DTYPE: wire-format order; append only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `torch.bool`, one byte per element (0 or 1).
    Bool,
    /// `torch.uint8`.
    UInt8,
    /// `torch.int8`.
    Int8,
    /// `torch.int16`.
    Int16,
    /// `torch.int32`.
    Int32,
    /// `torch.int64`.
    Int64,
    /// `torch.float16`, computed in f32.
    Float16,
    /// `torch.bfloat16`, computed in f32.
    BFloat16,
    /// `torch.float32`.
    Float32,
    /// `torch.float64`.
    Float64,
    /// `torch.complex64` (`cfloat`): two interleaved f32s per element, real part first (C's
    /// `float _Complex` layout, which `view_as_real` exposes as a trailing dimension of 2).
    Complex64,
    /// `torch.complex128` (`cdouble`): two interleaved f64s per element, real part first.
    Complex128,
}

/// The dtype that Python floats become (`torch.get_default_dtype()`).
pub const DEFAULT_FLOAT: DType = DType::Float32;

/// The dtype that Python complex numbers become: the complex type of [`DEFAULT_FLOAT`].
pub const DEFAULT_COMPLEX: DType = DType::Complex64;

impl DType {
    /// Every dtype, in wire order.
    pub const ALL: [DType; 12] = [
        DType::Bool,
        DType::UInt8,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ];

    /// The real (non-complex) dtypes, in wire order: what real-valued kernels, fuzzers and
    /// property tests range over.
    pub const REAL: [DType; 10] = [
        DType::Bool,
        DType::UInt8,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
    ];

    /// PyTorch's name without the `torch.` prefix: `"float32"`.
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "uint8",
            DType::Int8 => "int8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::Float16 => "float16",
            DType::BFloat16 => "bfloat16",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
        }
    }

    /// Short spelling used in graph text: `f32`, `i64`, `b8`.
    pub const fn short_name(self) -> &'static str {
        match self {
            DType::Bool => "b8",
            DType::UInt8 => "u8",
            DType::Int8 => "i8",
            DType::Int16 => "i16",
            DType::Int32 => "i32",
            DType::Int64 => "i64",
            DType::Float16 => "f16",
            DType::BFloat16 => "bf16",
            DType::Float32 => "f32",
            DType::Float64 => "f64",
            DType::Complex64 => "c64",
            DType::Complex128 => "c128",
        }
    }

    /// The C++ scalar-type name PyTorch uses in kernel errors: `"Float"`, `"Long"`.
    pub const fn aten_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::UInt8 => "Byte",
            DType::Int8 => "Char",
            DType::Int16 => "Short",
            DType::Int32 => "Int",
            DType::Int64 => "Long",
            DType::Float16 => "Half",
            DType::BFloat16 => "BFloat16",
            DType::Float32 => "Float",
            DType::Float64 => "Double",
            DType::Complex64 => "ComplexFloat",
            DType::Complex128 => "ComplexDouble",
        }
    }

    /// The C++ element type's name as PyTorch's `TypeMeta` prints it (`"float"`, `"long int"`,
    /// `"c10::complex<float>"`), in the errors of kernels that compare element types.
    pub const fn cpp_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::UInt8 => "unsigned char",
            DType::Int8 => "signed char",
            DType::Int16 => "short int",
            DType::Int32 => "int",
            DType::Int64 => "long int",
            DType::Float16 => "c10::Half",
            DType::BFloat16 => "c10::BFloat16",
            DType::Float32 => "float",
            DType::Float64 => "double",
            DType::Complex64 => "c10::complex<float>",
            DType::Complex128 => "c10::complex<double>",
        }
    }

    /// Parses [`DType::name`], [`DType::short_name`] or a `torch.`-prefixed name, plus PyTorch's
    /// aliases (`float`, `double`, `half`, `long`, `int`, `short`, `cfloat`, `cdouble`).
    pub fn from_name(s: &str) -> Option<DType> {
        let s = s.strip_prefix("torch.").unwrap_or(s);
        let alias = match s {
            "float" => Some(DType::Float32),
            "double" => Some(DType::Float64),
            "half" => Some(DType::Float16),
            "long" => Some(DType::Int64),
            "int" => Some(DType::Int32),
            "short" => Some(DType::Int16),
            "cfloat" => Some(DType::Complex64),
            "cdouble" => Some(DType::Complex128),
            _ => None,
        };
        alias.or_else(|| {
            DType::ALL
                .into_iter()
                .find(|d| d.name() == s || d.short_name() == s)
        })
    }

    /// Bytes per element.
    pub const fn itemsize(self) -> usize {
        match self {
            DType::Bool | DType::UInt8 | DType::Int8 => 1,
            DType::Int16 | DType::Float16 | DType::BFloat16 => 2,
            DType::Int32 | DType::Float32 => 4,
            DType::Int64 | DType::Float64 | DType::Complex64 => 8,
            DType::Complex128 => 16,
        }
    }

    /// Complex64 or Complex128 (`torch.is_complex`, `dtype.is_complex`).
    pub const fn is_complex(self) -> bool {
        matches!(self, DType::Complex64 | DType::Complex128)
    }

    /// The dtype of one component of a complex dtype (`x.real.dtype`, `view_as_real(x).dtype`):
    /// complex64 -> float32, complex128 -> float64; a real dtype is its own value type.
    pub const fn to_real(self) -> DType {
        match self {
            DType::Complex64 => DType::Float32,
            DType::Complex128 => DType::Float64,
            d => d,
        }
    }

    /// `c10::toComplexType`: the complex dtype whose components are `self` (float32 -> complex64,
    /// float64 -> complex128), or None where PyTorch's answer is a dtype Rynamo does not have
    /// (float16 -> complex32, bfloat16 -> its bcomplex32) or there is none (integers, bool).
    pub const fn to_complex(self) -> Option<DType> {
        match self {
            DType::Float32 | DType::Complex64 => Some(DType::Complex64),
            DType::Float64 | DType::Complex128 => Some(DType::Complex128),
            _ => None,
        }
    }

    /// Float16, BFloat16, Float32 or Float64.
    pub const fn is_floating_point(self) -> bool {
        matches!(
            self,
            DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64
        )
    }

    /// An integer type; with `include_bool`, Bool counts too (as `c10::isIntegralType`).
    pub const fn is_integral(self, include_bool: bool) -> bool {
        match self {
            DType::Bool => include_bool,
            DType::UInt8 | DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => true,
            _ => false,
        }
    }

    /// Signed integer or floating type.
    pub const fn is_signed(self) -> bool {
        !matches!(self, DType::Bool | DType::UInt8)
    }

    /// The promotion category: bool < integral < floating < complex.
    pub const fn category(self) -> Category {
        if self.is_complex() {
            Category::Complex
        } else if self.is_floating_point() {
            Category::Float
        } else if matches!(self, DType::Bool) {
            Category::Bool
        } else {
            Category::Int
        }
    }

    /// The dtype kernels compute in: half types compute in f32, everything else in itself.
    pub const fn compute_dtype(self) -> DType {
        match self {
            DType::Float16 | DType::BFloat16 => DType::Float32,
            d => d,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "torch.{}", self.name())
    }
}

/// The kind-of-number ladder used by [`result_type`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// Booleans.
    Bool,
    /// Integers.
    Int,
    /// Floating point.
    Float,
    /// Complex.
    Complex,
}

/// A Python number: what `1`, `2.5` and `True` are before they meet a tensor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// `True` / `False`.
    Bool(bool),
    /// A Python int (kept in i64).
    Int(i64),
    /// A Python float.
    Float(f64),
}

impl Scalar {
    /// The dtype a tensor made from this scalar gets (`torch.tensor(x)`).
    pub const fn dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::Int64,
            Scalar::Float(_) => DEFAULT_FLOAT,
        }
    }

    /// The promotion category.
    pub const fn category(self) -> Category {
        match self {
            Scalar::Bool(_) => Category::Bool,
            Scalar::Int(_) => Category::Int,
            Scalar::Float(_) => Category::Float,
        }
    }

    /// The value as f64 (bools as 0/1).
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => f64::from(u8::from(b)),
            Scalar::Int(i) => i as f64,
            Scalar::Float(x) => x,
        }
    }

    /// The value as i64; floats truncate toward zero.
    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => i64::from(b),
            Scalar::Int(i) => i,
            Scalar::Float(x) => x as i64,
        }
    }

    /// Truthiness, as Python's `bool(x)`.
    pub fn to_bool(self) -> bool {
        match self {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::Float(x) => x != 0.0,
        }
    }

    /// An integral scalar's value, or a TypeError naming `what`.
    pub fn expect_int(self, what: &str) -> Result<i64> {
        match self {
            Scalar::Int(i) => Ok(i),
            Scalar::Bool(b) => Ok(i64::from(b)),
            Scalar::Float(_) => Err(Error::Type(format!("{what} must be an integer, not float"))),
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(true) => f.write_str("True"),
            Scalar::Bool(false) => f.write_str("False"),
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Float(x) => fmt_f64(*x, f),
        }
    }
}

/// Writes an f64 so that it parses back to the same bits and always reads as a float (`1.0`, `inf`).
pub(crate) fn fmt_f64(x: f64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if x.is_nan() {
        f.write_str("nan")
    } else if x.is_infinite() {
        f.write_str(if x > 0.0 { "inf" } else { "-inf" })
    } else {
        let s = format!("{x:?}");
        if s.contains(['.', 'e', 'E']) {
            f.write_str(&s)
        } else {
            write!(f, "{s}.0")
        }
    }
}

impl From<bool> for Scalar {
    fn from(v: bool) -> Self {
        Scalar::Bool(v)
    }
}
impl From<i64> for Scalar {
    fn from(v: i64) -> Self {
        Scalar::Int(v)
    }
}
impl From<f64> for Scalar {
    fn from(v: f64) -> Self {
        Scalar::Float(v)
    }
}

/// `torch.promote_types`: the smallest dtype both `a` and `b` convert to without losing their kind.
///
/// Int16 is in the lattice so that `uint8 + int8` gives `int16` as in PyTorch.
pub fn promote_types(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    match (lo, hi) {
        // complex64 holds every real dtype but float64 exactly enough; float64 needs complex128.
        (Float64, Complex64) => Complex128,
        (_, c) if c.is_complex() => c,
        (Bool, x) => x,
        // uint8 with a signed integer needs a signed type that holds 0..=255.
        (UInt8, Int8) => Int16,
        (UInt8, x) | (Int8, x) | (Int16, x) | (Int32, x) if x.is_integral(false) => x,
        (x, f) if x.is_integral(false) && f.is_floating_point() => f,
        // the two 16-bit float formats cannot represent each other.
        (Float16, BFloat16) => Float32,
        (_, hi) => hi,
    }
}

/// One operand of [`result_type`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    /// A tensor with at least one dimension.
    Dimensioned(DType),
    /// A zero-dim tensor: it counts like a scalar of its category, but keeps its own dtype.
    ZeroDim(DType),
    /// A Python number ("wrapped number"): ints count as int64, floats as the default float dtype.
    Scalar(Category),
}

/// `torch.result_type` over any number of operands; an error where PyTorch's answer is a dtype
/// Rynamo does not have ([`try_result_type`]) is raised ([`crate::unwind::raise`]).
pub fn result_type(operands: &[Operand]) -> DType {
    try_result_type(operands).unwrap_or_else(|e| crate::unwind::raise(e))
}

/// `torch.result_type` over any number of operands.
///
/// Three priority groups, highest first: dimensioned tensors, zero-dim tensors, Python scalars. A lower
/// group only changes the result when it is of a higher category (bool < int < float); then the result
/// is the promotion of the two (`int32 tensor + 2.5 -> float32`, `uint8 tensor + 300 -> uint8`,
/// `int32 tensor + float64 zero-dim -> float64`, `float16 tensor + float64 zero-dim -> float16`).
/// A complex lower group turns a floating result into the complex type of the same precision
/// (`float64 tensor + 1j -> complex128`, `float32 tensor + complex128 zero-dim -> complex64`); for
/// float16/bfloat16 that is complex32/bcomplex32, which Rynamo lacks: an error, never a guess.
pub fn try_result_type(operands: &[Operand]) -> Result<DType> {
    let mut dim: Option<DType> = None;
    let mut zero: Option<DType> = None;
    let mut wrapped: Option<DType> = None;
    let merge = |slot: &mut Option<DType>, d: DType| {
        *slot = Some(slot.map_or(d, |s| promote_types(s, d)));
    };
    for op in operands {
        match *op {
            Operand::Dimensioned(d) => merge(&mut dim, d),
            Operand::ZeroDim(d) => merge(&mut zero, d),
            Operand::Scalar(c) => {
                let d = match c {
                    Category::Bool => DType::Bool,
                    Category::Int => DType::Int64,
                    Category::Float => DEFAULT_FLOAT,
                    Category::Complex => DEFAULT_COMPLEX,
                };
                merge(&mut wrapped, d)
            }
        }
    }
    let lower = combine_categories(zero, wrapped)?;
    Ok(combine_categories(dim, lower)?.unwrap_or(DEFAULT_FLOAT))
}

/// `at::native::combine_categories`: `higher` wins unless `lower` is of a higher category.
fn combine_categories(higher: Option<DType>, lower: Option<DType>) -> Result<Option<DType>> {
    Ok(match (higher, lower) {
        (None, l) => l,
        (Some(h), None) => Some(h),
        (Some(h), Some(l)) => {
            if h.is_complex() {
                Some(h)
            } else if l.is_complex() {
                if h.is_floating_point() {
                    // the higher group keeps its precision, the lower one adds the imaginary part.
                    Some(h.to_complex().ok_or_else(|| {
                        Error::NotImplemented(format!(
                            "the complex counterpart of {h} (torch.complex32/bcomplex32) is not \
                             supported by Rynamo"
                        ))
                    })?)
                } else {
                    Some(l)
                }
            } else if h.is_floating_point() {
                Some(h)
            } else if h == DType::Bool || l.is_floating_point() {
                Some(promote_types(h, l))
            } else {
                Some(h)
            }
        }
    })
}

/// Whether an in-place op may write a `from` result into a `to` tensor (`torch.can_cast`): no
/// category may be lost.
pub fn can_cast(from: DType, to: DType) -> bool {
    from.category() <= to.category()
}
