//! Shape-environment guards on SymInt comparisons: a traced `if T > 8:` evaluates the comparison
//! on the hints and keeps the branch it took only while the relation keeps its truth value
//! (PyTorch's ShapeEnv guard `L['x'].size()[1] > 8`). The expressions' leaves are indexes into
//! the guard's own list of `(tensor source, dimension)` pairs, read from the frame at check time.

use std::rc::Rc;

use super::source::Source;
use super::sym::{Num, SymExpr, VALUE};

/// The comparison operators (`COMPARE_OP`'s order: `<`, `<=`, `==`, `!=`, `>`, `>=`).
const OPS: [&str; 6] = ["<", "<=", "==", "!=", ">", ">="];
/// The operator that holds exactly when `OPS[i]` does not.
const NEGATED: [usize; 6] = [5, 4, 3, 2, 1, 0];

/// Whether `a OPS[which] b` (for floats IEEE's comparisons, which are Python's: NaN compares
/// unequal to everything).
pub fn compare<T: PartialOrd>(which: usize, a: T, b: T) -> bool {
    match which {
        0 => a < b,
        1 => a <= b,
        2 => a == b,
        3 => a != b,
        4 => a > b,
        _ => a >= b,
    }
}

/// Whether `a OPS[which] b` for ints or floats, as Python compares them (an int and a float
/// exactly: only ints a float holds exactly, |i| <= 2**53, are compared here; `None` beyond).
pub fn compare_num(which: usize, a: Num, b: Num) -> Option<bool> {
    const EXACT: u64 = 1 << 53;
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some(compare(which, x, y)),
        (Num::Int(i), _) | (_, Num::Int(i)) if i.unsigned_abs() > EXACT => None,
        _ => Some(compare(which, a.as_f64(), b.as_f64())),
    }
}

/// `lhs OPS[op] rhs`, which must hold; leaves are `Dim(k, 0)` for `leaves[k]`.
#[derive(Clone, Debug)]
pub struct SymGuard {
    /// The tensor dimensions (or, [`VALUE`], ints) the expressions read.
    pub leaves: Vec<(Rc<Source>, usize)>,
    /// Left side.
    pub lhs: SymExpr,
    /// Operator index into `OPS`.
    pub op: usize,
    /// Right side.
    pub rhs: SymExpr,
}

impl SymGuard {
    /// The guard that `lhs OPS[which] rhs` evaluates to `holds`, over graph-input dimensions
    /// (`source_of` names each input's source).
    pub fn new(
        lhs: &SymExpr,
        which: usize,
        rhs: &SymExpr,
        holds: bool,
        source_of: &dyn Fn(usize) -> Option<Rc<Source>>,
    ) -> Option<SymGuard> {
        let mut leaves: Vec<(Rc<Source>, usize)> = Vec::new();
        let lhs = relabel(lhs, &mut leaves, source_of)?;
        let rhs = relabel(rhs, &mut leaves, source_of)?;
        Some(SymGuard {
            leaves,
            lhs,
            op: if holds { which } else { NEGATED[which] },
            rhs,
        })
    }

    /// Whether the guard holds for the leaf sizes `size(k)`.
    pub fn holds(&self, size: &dyn Fn(usize) -> Option<i64>) -> bool {
        let at = |k: usize, _| size(k);
        let none = |_: &str, _| None;
        match (self.lhs.eval_num(&at, &none), self.rhs.eval_num(&at, &none)) {
            (Some(a), Some(b)) => compare_num(self.op, a, b).unwrap_or(false),
            _ => false,
        }
    }

    /// The guard's code, as PyTorch prints shape guards (`L['x'].size()[1] > 8`).
    pub fn code(&self) -> String {
        let name = |k: usize, _| {
            let (src, d) = &self.leaves[k];
            match *d {
                VALUE => src.to_string(),
                d => format!("{src}.size()[{d}]"),
            }
        };
        // PyTorch keeps a true division's parentheses (`(L['n'] / 2) > 1.2`).
        let side = |e: &SymExpr| match e {
            SymExpr::TrueDiv(..) => e.render(&name),
            _ => strip(e.render(&name)),
        };
        format!("{} {} {}", side(&self.lhs), OPS[self.op], side(&self.rhs))
    }
}

/// A SymInt (or SymFloat) expression over frame values: one a region returns (or stores) is rebuilt from
/// the frame on each call (`Recon::SymInt`), as PyTorch's graphs return SymInts, instead of
/// being frozen at its traced value (which would specialise its dimensions).
#[derive(Clone, Debug)]
pub struct FrameSym {
    /// The tensor dimensions (or ints) the expression reads.
    pub leaves: Vec<(Rc<Source>, usize)>,
    /// The expression; leaves are `Dim(k, 0)` for `leaves[k]`.
    pub expr: SymExpr,
}

impl FrameSym {
    /// `expr` over graph-input dimensions, with its leaves named by their sources; `None` when
    /// it reads a computed tensor's size.
    pub fn new(expr: &SymExpr, source_of: &dyn Fn(usize) -> Option<Rc<Source>>) -> Option<Self> {
        let mut leaves = Vec::new();
        let expr = relabel(expr, &mut leaves, source_of)?;
        Some(FrameSym { leaves, expr })
    }

    /// The value (an int, or a SymFloat's float), reading leaf `k` through `leaf(k)`.
    pub fn eval(&self, leaf: &dyn Fn(usize) -> Option<i64>) -> Option<super::sym::Num> {
        self.expr.eval_num(&|k, _| leaf(k), &|_, _| None)
    }
}

/// The value of a leaf `(source, d)` whose object is `obj`: dimension `d` of a tensor, or the
/// int itself for [`VALUE`].
pub fn leaf_value(
    obj: &rustpython_vm::PyObject,
    d: usize,
    vm: &rustpython_vm::VirtualMachine,
) -> Option<i64> {
    if d == VALUE {
        return obj.try_to_value::<i64>(vm).ok();
    }
    super::bridge::tensor_meta(obj).and_then(|(m, _)| m.shape.get(d).map(|s| *s as i64))
}

/// Drops the outer parentheses of a rendered binary expression.
fn strip(s: String) -> String {
    match s.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
        Some(inner) if balanced(inner) => inner.to_owned(),
        _ => s,
    }
}

fn balanced(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

fn relabel(
    e: &SymExpr,
    leaves: &mut Vec<(Rc<Source>, usize)>,
    source_of: &dyn Fn(usize) -> Option<Rc<Source>>,
) -> Option<SymExpr> {
    Some(match e {
        SymExpr::Int(i) => SymExpr::Int(*i),
        // A computed tensor's size is not readable from the frame.
        SymExpr::Val(..) => return None,
        SymExpr::Dim(v, d) => {
            let src = source_of(*v)?;
            let k = match leaves.iter().position(|(s, dd)| *s == src && dd == d) {
                Some(k) => k,
                None => {
                    leaves.push((src, *d));
                    leaves.len() - 1
                }
            };
            SymExpr::Dim(k, 0)
        }
        SymExpr::Bin(op, a, b) => SymExpr::Bin(
            *op,
            Box::new(relabel(a, leaves, source_of)?),
            Box::new(relabel(b, leaves, source_of)?),
        ),
        SymExpr::Neg(a) => SymExpr::Neg(Box::new(relabel(a, leaves, source_of)?)),
        SymExpr::Abs(a) => SymExpr::Abs(Box::new(relabel(a, leaves, source_of)?)),
        SymExpr::Float(f) => SymExpr::Float(*f),
        SymExpr::ToFloat(a) => SymExpr::ToFloat(Box::new(relabel(a, leaves, source_of)?)),
        SymExpr::Fn(f, a) => SymExpr::Fn(*f, Box::new(relabel(a, leaves, source_of)?)),
        SymExpr::TrueDiv(a, b) => SymExpr::TrueDiv(
            Box::new(relabel(a, leaves, source_of)?),
            Box::new(relabel(b, leaves, source_of)?),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::super::sym::SymOp;
    use super::*;

    #[test]
    fn a_false_comparison_guards_its_negation() {
        let x = Rc::new(Source::Local {
            name: "x".into(),
            index: 0,
        });
        let t = SymExpr::Dim(7, 1);
        let lhs = SymExpr::bin(SymOp::Mul, t, SymExpr::Int(2));
        let g = SymGuard::new(&lhs, 4, &SymExpr::Int(8), false, &|_| Some(x.clone())).unwrap();
        assert_eq!(g.code(), "L['x'].size()[1] * 2 <= 8");
        assert!(g.holds(&|_| Some(4)));
        assert!(!g.holds(&|_| Some(5)));
        // A SymFloat relation (`n / 2 > 1.2`) holds as Python compares floats.
        let half = SymExpr::TrueDiv(Box::new(SymExpr::Dim(0, VALUE)), Box::new(SymExpr::Int(2)));
        let g = SymGuard::new(&half, 4, &SymExpr::Float(1.2), true, &|_| Some(x.clone())).unwrap();
        assert_eq!(g.code(), "(L['x'] / 2) > 1.2");
        assert!(g.holds(&|_| Some(3)));
        assert!(!g.holds(&|_| Some(2)));
    }
}
