//! Binary pointwise ops: the dtype rule ([`BinaryOp::out_dtype`]) and the kernels.

use super::map::map2;
use super::math::{Flt, Int, div_floor, max_nan, min_nan, rem_float};
use crate::error::bail;
use crate::iter::Geometry;
use crate::{DEFAULT_FLOAT, DType, Element, Error, Result, Scalar, Tensor, dispatch_all};

/// A binary pointwise op. `Add`/`Sub` take their `alpha` separately.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(
    missing_docs,
    reason = "each variant is the PyTorch op of the same name"
)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// True division (`/`): integers give floats.
    Div,
    /// `div(rounding_mode='trunc')`.
    DivTrunc,
    /// `div(rounding_mode='floor')` and `floor_divide`.
    DivFloor,
    /// Python's `%`: the result has the divisor's sign.
    Remainder,
    Pow,
    Maximum,
    Minimum,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    BitwiseAnd,
    BitwiseOr,
    BitwiseXor,
    Atan2,
    /// C's `fmod`: the result has the dividend's sign.
    Fmod,
    /// `sqrt(a^2 + b^2)` without undue overflow.
    Hypot,
    /// `a << b`; shifts of the bit width or more (or negative) give 0.
    LeftShift,
    /// Arithmetic `a >> b`; shifts of the bit width or more (or negative) fill with the sign.
    RightShift,
}

impl BinaryOp {
    /// PyTorch's name of the op.
    pub fn name(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            Div => "div",
            DivTrunc => "div_trunc",
            DivFloor => "floor_divide",
            Remainder => "remainder",
            Pow => "pow",
            Maximum => "maximum",
            Minimum => "minimum",
            Eq => "eq",
            Ne => "ne",
            Lt => "lt",
            Le => "le",
            Gt => "gt",
            Ge => "ge",
            LogicalAnd => "logical_and",
            LogicalOr => "logical_or",
            LogicalXor => "logical_xor",
            BitwiseAnd => "bitwise_and",
            BitwiseOr => "bitwise_or",
            BitwiseXor => "bitwise_xor",
            Atan2 => "atan2",
            Fmod => "fmod",
            Hypot => "hypot",
            LeftShift => "bitwise_left_shift",
            RightShift => "bitwise_right_shift",
        }
    }

    /// Whether the result is bool whatever the inputs.
    pub fn is_predicate(self) -> bool {
        use BinaryOp::*;
        matches!(
            self,
            Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr | LogicalXor
        )
    }

    /// Whether `a op b == b op a`.
    pub fn is_commutative(self) -> bool {
        use BinaryOp::*;
        matches!(
            self,
            Add | Mul
                | Hypot
                | Maximum
                | Minimum
                | Eq
                | Ne
                | LogicalAnd
                | LogicalOr
                | LogicalXor
                | BitwiseAnd
                | BitwiseOr
                | BitwiseXor
        )
    }

    /// Output dtype given the promoted input dtype `common` (see [`crate::result_type`]).
    pub fn out_dtype(self, common: DType) -> Result<DType> {
        use BinaryOp::*;
        match self {
            _ if self.is_predicate() => Ok(DType::Bool),
            Div | Atan2 if !common.is_floating_point() => Ok(DEFAULT_FLOAT),
            Sub if common == DType::Bool => Err(Error::Runtime(
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.".into(),
            )),
            DivTrunc | DivFloor | Remainder | Pow if common == DType::Bool => {
                Err(Error::NotImplementedFor {
                    op: self.kernel_name(),
                    dtype: "Bool",
                })
            }
            Hypot if !common.is_floating_point() => Err(Error::NotImplementedFor {
                op: self.kernel_name(),
                dtype: common.aten_name(),
            }),
            Fmod if common == DType::Bool => Err(Error::NotImplementedFor {
                op: self.kernel_name(),
                dtype: "Bool",
            }),
            LeftShift | RightShift if common.is_floating_point() || common == DType::Bool => {
                Err(Error::NotImplementedFor {
                    op: self.kernel_name(),
                    dtype: common.aten_name(),
                })
            }
            BitwiseAnd | BitwiseOr | BitwiseXor if common.is_floating_point() => {
                Err(Error::NotImplementedFor {
                    op: self.kernel_name(),
                    dtype: common.aten_name(),
                })
            }
            _ => Ok(common),
        }
    }

    /// The dtype the kernel computes in for promoted dtype `common`.
    pub fn compute_dtype(self, common: DType) -> Result<DType> {
        if self.is_predicate() {
            Ok(common.compute_dtype())
        } else {
            Ok(self.out_dtype(common)?.compute_dtype())
        }
    }

    fn kernel_name(self) -> &'static str {
        use BinaryOp::*;
        match self {
            DivTrunc => "div_trunc_cpu",
            DivFloor => "div_floor_cpu",
            Remainder => "remainder_cpu",
            Pow => "pow",
            BitwiseAnd => "bitwise_and_cpu",
            BitwiseOr => "bitwise_or_cpu",
            BitwiseXor => "bitwise_xor_cpu",
            Fmod => "fmod_cpu",
            Hypot => "hypot_cpu",
            LeftShift => "lshift_cpu",
            RightShift => "rshift_cpu",
            _ => "binary",
        }
    }
}

/// `out = a op b` where `a`, `b` are already of the compute dtype and broadcast to `out`'s shape, and
/// `out` has the compute dtype (predicates: Bool). `alpha` scales `b` for Add/Sub.
pub fn binary_into(
    op: BinaryOp,
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    alpha: Scalar,
) -> Result<()> {
    let c = a.dtype();
    if op.is_predicate() {
        dispatch_all!(c, T => predicate::<T>(op, out, a, b));
        return Ok(());
    }
    match c {
        DType::Float32 => float_kernel::<f32>(op, out, a, b, alpha.to_f64() as f32),
        DType::Float64 => float_kernel::<f64>(op, out, a, b, alpha.to_f64()),
        DType::Bool => bool_kernel(op, out, a, b, alpha.to_bool())?,
        DType::UInt8 => int_kernel::<u8>(op, out, a, b, alpha.to_i64())?,
        DType::Int8 => int_kernel::<i8>(op, out, a, b, alpha.to_i64())?,
        DType::Int16 => int_kernel::<i16>(op, out, a, b, alpha.to_i64())?,
        DType::Int32 => int_kernel::<i32>(op, out, a, b, alpha.to_i64())?,
        DType::Int64 => int_kernel::<i64>(op, out, a, b, alpha.to_i64())?,
        DType::Float16 | DType::BFloat16 => unreachable!("invariant: halves compute in f32"),
        DType::Complex64 | DType::Complex128 => {
            return Err(crate::Error::NotImplementedFor {
                op: op.name(),
                dtype: c.aten_name(),
            });
        }
    }
    Ok(())
}

fn predicate<T: Element>(op: BinaryOp, out: &Tensor, a: &Tensor, b: &Tensor) {
    use BinaryOp::*;
    match op {
        Eq => map2::<T, T, bool>(out, a, b, |x, y| x == y),
        Ne => map2::<T, T, bool>(out, a, b, |x, y| x != y),
        Lt => map2::<T, T, bool>(out, a, b, |x, y| x < y),
        Le => map2::<T, T, bool>(out, a, b, |x, y| x <= y),
        Gt => map2::<T, T, bool>(out, a, b, |x, y| x > y),
        Ge => map2::<T, T, bool>(out, a, b, |x, y| x >= y),
        LogicalAnd => map2::<T, T, bool>(out, a, b, |x, y| x.to_bool() & y.to_bool()),
        LogicalOr => map2::<T, T, bool>(out, a, b, |x, y| x.to_bool() | y.to_bool()),
        LogicalXor => map2::<T, T, bool>(out, a, b, |x, y| x.to_bool() != y.to_bool()),
        _ => unreachable!("invariant: predicate op"),
    }
}

fn float_kernel<F: Flt>(op: BinaryOp, out: &Tensor, a: &Tensor, b: &Tensor, alpha: F) {
    use BinaryOp::*;
    let one = F::one();
    match op {
        Add if alpha == one => map2::<F, F, F>(out, a, b, |x, y| x + y),
        Add => map2::<F, F, F>(out, a, b, move |x, y| x + alpha * y),
        Sub if alpha == one => map2::<F, F, F>(out, a, b, |x, y| x - y),
        Sub => map2::<F, F, F>(out, a, b, move |x, y| x - alpha * y),
        Mul => map2::<F, F, F>(out, a, b, |x, y| x * y),
        Div => map2::<F, F, F>(out, a, b, |x, y| x / y),
        DivTrunc => map2::<F, F, F>(out, a, b, |x, y| (x / y).trunc()),
        DivFloor => map2::<F, F, F>(out, a, b, div_floor),
        Remainder => map2::<F, F, F>(out, a, b, rem_float),
        Pow => map2::<F, F, F>(out, a, b, |x, y| x.powf(y)),
        Maximum => map2::<F, F, F>(out, a, b, max_nan),
        Minimum => map2::<F, F, F>(out, a, b, min_nan),
        Atan2 => map2::<F, F, F>(out, a, b, |x, y| x.atan2(y)),
        Fmod => map2::<F, F, F>(out, a, b, |x, y| x % y),
        Hypot => map2::<F, F, F>(out, a, b, |x, y| x.hypot(y)),
        _ => unreachable!("invariant: out_dtype rejected op for floats"),
    }
}

/// Whether any element of `t` satisfies `pred` (a sequential scan; used for error checks).
fn any<T: Element>(t: &Tensor, pred: impl Fn(T) -> bool) -> bool {
    let g = Geometry::new(t.shape(), [t.strides()]);
    let [s] = g.inner_strides();
    let p = t.data_ptr::<T>();
    let mut found = false;
    g.for_each_run(0..g.numel(), |[o], len| {
        for i in 0..len as isize {
            // SAFETY: offsets come from `t`'s own geometry.
            found |= pred(unsafe { *p.offset(o + i * s) });
        }
    });
    found
}

fn int_kernel<T: Int>(
    op: BinaryOp,
    out: &Tensor,
    a: &Tensor,
    b: &Tensor,
    alpha: i64,
) -> Result<()> {
    use BinaryOp::*;
    let al = T::from_i64(alpha);
    let zero = T::ZERO;
    if matches!(op, DivTrunc | DivFloor | Remainder | Fmod) && any::<T>(b, |v| v == zero) {
        return Err(Error::ZeroDivision);
    }
    match op {
        Add if alpha == 1 => map2::<T, T, T>(out, a, b, |x, y| x.wrapping_add(&y)),
        Add => map2::<T, T, T>(out, a, b, move |x, y| x.wrapping_add(&al.wrapping_mul(&y))),
        Sub if alpha == 1 => map2::<T, T, T>(out, a, b, |x, y| x.wrapping_sub(&y)),
        Sub => map2::<T, T, T>(out, a, b, move |x, y| x.wrapping_sub(&al.wrapping_mul(&y))),
        Mul => map2::<T, T, T>(out, a, b, |x, y| x.wrapping_mul(&y)),
        // MIN / -1 wraps like C++ two's complement instead of trapping.
        DivTrunc => map2::<T, T, T>(out, a, b, |x, y| {
            T::from_i64(x.to_i64().wrapping_div(y.to_i64()))
        }),
        DivFloor => map2::<T, T, T>(out, a, b, |x, y| {
            let (x, y) = (x.to_i64(), y.to_i64());
            let q = x.wrapping_div(y);
            T::from_i64(if (x.wrapping_rem(y) != 0) && ((x < 0) != (y < 0)) {
                q - 1
            } else {
                q
            })
        }),
        Remainder => map2::<T, T, T>(out, a, b, |x, y| {
            let (x, y) = (x.to_i64(), y.to_i64());
            let r = x.wrapping_rem(y);
            T::from_i64(if r != 0 && ((r < 0) != (y < 0)) {
                r + y
            } else {
                r
            })
        }),
        // A negative tensor exponent is allowed (only a Python-int one is an error, checked by
        // `binary_meta`): the exact power truncated toward zero, as ATen's `powi`.
        Pow => map2::<T, T, T>(out, a, b, |x, y| {
            if y < zero {
                return match x.to_i64() {
                    1 => T::ONE,
                    -1 if y.to_i64() % 2 != 0 => x,
                    -1 => T::ONE,
                    _ => zero,
                };
            }
            let (mut base, mut e, mut acc) = (x, y.to_i64() as u64, T::ONE);
            while e > 0 {
                if e & 1 == 1 {
                    acc = acc.wrapping_mul(&base);
                }
                base = base.wrapping_mul(&base);
                e >>= 1;
            }
            acc
        }),
        Maximum => map2::<T, T, T>(out, a, b, |x, y| x.max(y)),
        Minimum => map2::<T, T, T>(out, a, b, |x, y| x.min(y)),
        BitwiseAnd => map2::<T, T, T>(out, a, b, |x, y| x & y),
        BitwiseOr => map2::<T, T, T>(out, a, b, |x, y| x | y),
        BitwiseXor => map2::<T, T, T>(out, a, b, |x, y| x ^ y),
        // MIN % -1 is 0 (wrapping_rem), as C++ on the values PyTorch computes.
        Fmod => map2::<T, T, T>(out, a, b, |x, y| {
            T::from_i64(x.to_i64().wrapping_rem(y.to_i64()))
        }),
        LeftShift => {
            let bits = (std::mem::size_of::<T>() * 8) as i64;
            map2::<T, T, T>(out, a, b, move |x, y| {
                let s = y.to_i64();
                if (0..bits).contains(&s) {
                    x << s as usize
                } else {
                    zero
                }
            })
        }
        RightShift => {
            let bits = (std::mem::size_of::<T>() * 8) as i64;
            let signed = T::min_value() < zero;
            map2::<T, T, T>(out, a, b, move |x, y| {
                let s = y.to_i64();
                if (0..bits).contains(&s) {
                    x >> s as usize
                } else if signed {
                    // Out-of-range shifts fill with the sign bit.
                    x >> (bits - 1) as usize
                } else {
                    zero
                }
            })
        }
        _ => unreachable!("invariant: out_dtype handled this op"),
    }
    Ok(())
}

fn bool_kernel(op: BinaryOp, out: &Tensor, a: &Tensor, b: &Tensor, alpha: bool) -> Result<()> {
    use BinaryOp::*;
    match op {
        Add => map2::<bool, bool, bool>(out, a, b, move |x, y| x | (alpha & y)),
        Mul | BitwiseAnd | Minimum => map2::<bool, bool, bool>(out, a, b, |x, y| x & y),
        BitwiseOr | Maximum => map2::<bool, bool, bool>(out, a, b, |x, y| x | y),
        BitwiseXor => map2::<bool, bool, bool>(out, a, b, |x, y| x != y),
        _ => bail!(Runtime, "\"{}\" not implemented for 'Bool'", op.name()),
    }
    Ok(())
}
