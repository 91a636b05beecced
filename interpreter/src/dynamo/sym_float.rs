//! SymFloats (PyTorch's `SymFloat`): float arithmetic on SymInts (`n / 2`, `float(n)`,
//! `n * 0.5`) kept as a float-valued [`SymExpr`] over the same leaves, so an int argument used
//! through it stays dynamic. Where one goes (`sym_trace.rs` makes them):
//!
//! ```text
//!   x * (n / 2)   --[op argument]--> a float sentinel (`sym::float_sentinel`) through binding;
//!                 `call_op` records a `SymArg` at `FLOAT_PART`; each instance evaluates it
//!                 as Python does (`Num`) and the op runs with that Python float, as in eager
//!   return n / 2  --> rebuilt from the frame as a Python float (`Recon::SymInt`)
//!   anything else (math.sqrt, int(), a comparison, a size) --> its value, specialising n
//! ```
//!
//! Here: the FX annotation of a SymFloat node as PyTorch 2.15 prints its sympy expression
//! (`Sym(IntTrueDiv(s0, 2))`, `Sym(1.5*(IntTrueDiv(s0, 2)))`, `Sym(ToFloat(s0) + 0.5)`).

use super::sym::{SymExpr, SymOp};

/// A value of a symbolic expression: a SymInt's int or a SymFloat's float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// An int.
    Int(i64),
    /// A float.
    Float(f64),
}

impl Num {
    /// The value as Python's `float()` gives it (an int rounds to nearest, ties to even, as
    /// Rust's `as` does).
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    /// Python's `a op b` on ints and floats; `None` where Python raises (a zero divisor, an
    /// overflow) or where the result is not modelled (floor division and modulo of floats).
    pub fn apply(op: SymOp, a: Num, b: Num) -> Option<Num> {
        match (a, b) {
            (Num::Int(x), Num::Int(y)) => op.apply(x, y).map(Num::Int),
            _ => {
                let (x, y) = (a.as_f64(), b.as_f64());
                Some(Num::Float(match op {
                    SymOp::Add => x + y,
                    SymOp::Sub => x - y,
                    SymOp::Mul => x * y,
                    // `max(3, 2.5)` is the int 3: the type depends on the values.
                    SymOp::FloorDiv | SymOp::Mod | SymOp::Max | SymOp::Min => return None,
                }))
            }
        }
    }

    /// Python's `a / b`: a float; `None` on a zero divisor. Ints beyond 2**53 (where Python
    /// divides exactly before rounding once) have no value here.
    pub fn true_div(a: Num, b: Num) -> Option<Num> {
        const EXACT: u64 = 1 << 53;
        if let Num::Int(x) = a
            && x.unsigned_abs() > EXACT
        {
            return None;
        }
        if let Num::Int(y) = b
            && y.unsigned_abs() > EXACT
        {
            return None;
        }
        let y = b.as_f64();
        (y != 0.0).then(|| Num::Float(a.as_f64() / y))
    }
}

/// The functions of a SymFloat kept symbolic (PyTorch's `torch._sym_sqrt`, `torch.sym_int`,
/// `math.floor`, `math.ceil`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatFn {
    /// `math.sqrt(x)`: a float.
    Sqrt,
    /// `int(x)`: toward zero.
    Trunc,
    /// `math.floor(x)`.
    Floor,
    /// `math.ceil(x)`.
    Ceil,
}

impl FloatFn {
    /// Python's result; `None` where Python raises (`math.sqrt` of a negative number, the int
    /// of an infinity or NaN) or the int leaves the i64 range.
    pub fn apply(self, x: Num) -> Option<Num> {
        if self == FloatFn::Sqrt {
            // `math.sqrt` converts to float first; IEEE's square root is correctly rounded, as C's.
            let f = x.as_f64();
            return (f >= 0.0 || f.is_nan()).then(|| Num::Float(f.sqrt()));
        }
        let f = match x {
            Num::Int(i) => return Some(Num::Int(i)),
            Num::Float(f) => f,
        };
        let r = match self {
            FloatFn::Trunc => f.trunc(),
            FloatFn::Floor => f.floor(),
            _ => f.ceil(),
        };
        // Every float in (-2**63, 2**63) with no fraction is an exact i64.
        (r.is_finite() && r.abs() < 2f64.powi(63)).then_some(Num::Int(r as i64))
    }

    /// The sympy function PyTorch prints.
    pub fn sympy_name(self) -> &'static str {
        match self {
            FloatFn::Sqrt => "OpaqueUnaryFn_sqrt",
            FloatFn::Trunc => "TruncToInt",
            FloatFn::Floor => "FloorToInt",
            FloatFn::Ceil => "CeilToInt",
        }
    }
}

/// A float-valued expression as PyTorch prints it, the integer parts through `int` (the size
/// polynomials of `fx_sym_shapes.rs`); `None` where an integer part has no rendering.
pub fn render(e: &SymExpr, int: &dyn Fn(&SymExpr) -> Option<String>) -> Option<String> {
    if let SymExpr::Fn(f, a) = e {
        // `math.sqrt` of an int converts it (`OpaqueUnaryFn_sqrt(ToFloat(s0))`).
        let inner = match a.is_float() {
            true => render(a, int)?,
            false if *f == FloatFn::Sqrt => format!("ToFloat({})", int(a)?),
            false => int(a)?,
        };
        return Some(format!("{}({inner})", f.sympy_name()));
    }
    if !e.is_float() {
        return match e {
            // An int constant in float arithmetic is a sympy Float (`IntTrueDiv(s0, 2) + 1.0`).
            SymExpr::Int(i) => Some(py_float(*i as f64)),
            _ => int(e),
        };
    }
    let term = |x: &SymExpr| -> Option<String> {
        let r = render(x, int)?;
        // sympy parenthesises the true divisions and sums inside products and sums.
        Some(match x {
            SymExpr::TrueDiv(..) => format!("({r})"),
            _ => r,
        })
    };
    let is_const = |x: &SymExpr| matches!(x, SymExpr::Float(_) | SymExpr::Int(_));
    Some(match e {
        SymExpr::Float(f) => py_float(*f),
        SymExpr::ToFloat(a) => format!("ToFloat({})", int(a)?),
        SymExpr::TrueDiv(a, b) if !a.is_float() && !b.is_float() => {
            format!("IntTrueDiv({}, {})", int(a)?, int(b)?)
        }
        SymExpr::TrueDiv(a, b) => format!("FloatTrueDiv({}, {})", render(a, int)?, render(b, int)?),
        SymExpr::Neg(a) => format!("-{}", term(a)?),
        SymExpr::Abs(a) => format!("Abs({})", render(a, int)?),
        // A constant factor first (`0.5*ToFloat(s0)`).
        SymExpr::Bin(SymOp::Mul, a, b) if is_const(b) && !is_const(a) => {
            format!("{}*{}", render(b, int)?, term(a)?)
        }
        SymExpr::Bin(SymOp::Mul, a, b) => format!("{}*{}", term(a)?, term(b)?),
        // A constant term last, its sign as the operator (`ToFloat(s0) - 0.25`).
        SymExpr::Bin(SymOp::Add, a, b) if is_const(a) && !is_const(b) => sum(term(b)?, '+', a)?,
        SymExpr::Bin(op @ (SymOp::Add | SymOp::Sub), a, b) if is_const(b) => {
            sum(term(a)?, if *op == SymOp::Add { '+' } else { '-' }, b)?
        }
        SymExpr::Bin(SymOp::Add, a, b) => format!("{} + {}", term(a)?, term(b)?),
        SymExpr::Bin(SymOp::Sub, a, b) => format!("{} - {}", term(a)?, term(b)?),
        _ => return None,
    })
}

/// `Max(2, s0)` / `Min(s0, s1)` (of a SymInt, shown beside the SymFloats as both are
/// sympy functions PyTorch prints): nested ones flattened, numbers first, the rest by their
/// text.
pub fn render_min_max(
    op: SymOp,
    e: &SymExpr,
    int: &dyn Fn(&SymExpr) -> Option<String>,
) -> Option<String> {
    fn flatten<'a>(op: SymOp, e: &'a SymExpr, out: &mut Vec<&'a SymExpr>) {
        match e {
            SymExpr::Bin(o, a, b) if *o == op => {
                flatten(op, a, out);
                flatten(op, b, out);
            }
            _ => out.push(e),
        }
    }
    let mut args = Vec::new();
    flatten(op, e, &mut args);
    let mut texts = args.into_iter().map(int).collect::<Option<Vec<_>>>()?;
    texts.sort_by_key(|t| {
        (
            t.parse::<i64>().is_err(),
            t.parse::<i64>().unwrap_or(0),
            t.clone(),
        )
    });
    texts.dedup();
    let f = if op == SymOp::Max { "Max" } else { "Min" };
    Some(format!("{f}({})", texts.join(", ")))
}

/// `lhs ± c` with a constant `c`, a negative constant flipping the sign.
fn sum(lhs: String, sign: char, c: &SymExpr) -> Option<String> {
    let v = match c {
        SymExpr::Float(f) => *f,
        SymExpr::Int(i) => *i as f64,
        _ => return None,
    };
    let (sign, v) = if v < 0.0 {
        (if sign == '+' { '-' } else { '+' }, -v)
    } else {
        (sign, v)
    };
    Some(format!("{lhs} {sign} {}", py_float(v)))
}

/// A float as Python's `repr` writes it for the values programs use (`0.5`, `2.0`).
fn py_float(f: f64) -> String {
    format!("{f:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n() -> SymExpr {
        SymExpr::Dim(0, super::super::sym::VALUE)
    }

    fn render_s0(e: &SymExpr) -> Option<String> {
        render(e, &|i| match i {
            SymExpr::Dim(..) => Some("s0".to_owned()),
            SymExpr::Int(k) => Some(k.to_string()),
            _ => None,
        })
    }

    #[test]
    fn arithmetic_is_pythons() {
        let (i, f) = (Num::Int, Num::Float);
        assert_eq!(Num::true_div(i(3), i(2)), Some(f(1.5)));
        assert_eq!(Num::true_div(i(1), i(3)), Some(f(1.0 / 3.0)));
        assert_eq!(Num::true_div(i(3), i(0)), None);
        assert_eq!(Num::true_div(f(3.0), f(0.0)), None);
        assert_eq!(Num::true_div(i(1 << 60), i(3)), None);
        assert_eq!(Num::apply(SymOp::Mul, i(3), f(0.5)), Some(f(1.5)));
        assert_eq!(Num::apply(SymOp::Add, i(3), i(4)), Some(i(7)));
        assert_eq!(Num::apply(SymOp::FloorDiv, f(3.0), i(2)), None);
        // Python's float(int) rounds to nearest, ties to even.
        assert_eq!(i((1 << 53) + 1).as_f64(), (1u64 << 53) as f64);
        let e = SymExpr::Neg(Box::new(SymExpr::TrueDiv(
            Box::new(n()),
            Box::new(SymExpr::Int(4)),
        )));
        assert!(e.is_float());
        assert_eq!(e.eval_num(&|_, _| Some(6), &|_, _| None), Some(f(-1.5)));
        assert_eq!(e.eval(&|_, _| Some(6)), None);
        // `int()`, `math.floor`, `math.ceil`, `math.sqrt` as Python's.
        assert_eq!(FloatFn::Trunc.apply(f(-1.5)), Some(i(-1)));
        assert_eq!(FloatFn::Floor.apply(f(-1.5)), Some(i(-2)));
        assert_eq!(FloatFn::Ceil.apply(f(1.25)), Some(i(2)));
        assert_eq!(FloatFn::Trunc.apply(f(f64::INFINITY)), None);
        assert_eq!(FloatFn::Sqrt.apply(i(2)), Some(f(2f64.sqrt())));
        assert_eq!(FloatFn::Sqrt.apply(f(-1.0)), None);
        let t = SymExpr::Fn(FloatFn::Trunc, Box::new(e));
        assert!(!t.is_float());
        assert_eq!(t.eval(&|_, _| Some(6)), Some(-1));
    }

    #[test]
    fn renders_as_pytorch_prints_sympy() {
        let half = SymExpr::TrueDiv(Box::new(n()), Box::new(SymExpr::Int(2)));
        assert_eq!(render_s0(&half).unwrap(), "IntTrueDiv(s0, 2)");
        let scaled = SymExpr::Bin(
            SymOp::Mul,
            Box::new(half.clone()),
            Box::new(SymExpr::Float(1.5)),
        );
        assert_eq!(render_s0(&scaled).unwrap(), "1.5*(IntTrueDiv(s0, 2))");
        let f = SymExpr::ToFloat(Box::new(n()));
        let plus = SymExpr::Bin(
            SymOp::Add,
            Box::new(f.clone()),
            Box::new(SymExpr::Float(0.5)),
        );
        assert_eq!(render_s0(&plus).unwrap(), "ToFloat(s0) + 0.5");
        let one = SymExpr::Bin(
            SymOp::Add,
            Box::new(half.clone()),
            Box::new(SymExpr::Int(1)),
        );
        assert_eq!(render_s0(&one).unwrap(), "(IntTrueDiv(s0, 2)) + 1.0");
        let neg = SymExpr::Neg(Box::new(half));
        assert_eq!(render_s0(&neg).unwrap(), "-(IntTrueDiv(s0, 2))");
    }
}
