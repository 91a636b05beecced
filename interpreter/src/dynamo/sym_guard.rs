//! Shape-environment guards on SymInt comparisons: a traced `if T > 8:` evaluates the comparison
//! on the hints and keeps the branch it took only while the relation keeps its truth value
//! (PyTorch's ShapeEnv guard `L['x'].size()[1] > 8`). The expressions' leaves are indexes into
//! the guard's own list of `(tensor source, dimension)` pairs, read from the frame at check time.

use std::rc::Rc;

use super::source::Source;
use super::sym::{SymExpr, VALUE};

/// The comparison operators (`COMPARE_OP`'s order: `<`, `<=`, `==`, `!=`, `>`, `>=`).
const OPS: [&str; 6] = ["<", "<=", "==", "!=", ">", ">="];
/// The operator that holds exactly when `OPS[i]` does not.
const NEGATED: [usize; 6] = [5, 4, 3, 2, 1, 0];

/// Whether `a OPS[which] b`.
pub fn compare(which: usize, a: i64, b: i64) -> bool {
    match which {
        0 => a < b,
        1 => a <= b,
        2 => a == b,
        3 => a != b,
        4 => a > b,
        _ => a >= b,
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
        match (self.lhs.eval(&at), self.rhs.eval(&at)) {
            (Some(a), Some(b)) => compare(self.op, a, b),
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
        format!(
            "{} {} {}",
            strip(self.lhs.render(&name)),
            OPS[self.op],
            strip(self.rhs.render(&name))
        )
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
    }
}
