//! Symbolic integers (Dynamo's `SymNodeVariable`): a size the trace read from a dynamic
//! dimension, and the arithmetic done on it, kept as an expression over graph-input dimensions
//! together with its value in the traced example (the hint).
//!
//! ```text
//!   B, T, C = x.size()            -> SymInt trackers  s0, s1, 32 (static dims stay constants)
//!   q.view(B, T, 4, C // 4)       -> SymInt arithmetic folds constants: C // 4 is the int 8
//!   --[op argument]--> a sentinel int marks the place through argument binding; `call_op`
//!      swaps in the hint and records a [`SymArg`] (node, argument, slot, expression)
//!   --[per_shape.rs]--> each concrete graph evaluates the expressions from its input shapes
//!      ([`patch`]) before the meta rules re-infer every shape
//! ```
//!
//! Why an expression beside the graph and not a new argument kind in it: the graph, its passes
//! and every backend stay concrete (a graph is always one call's program), and only the
//! instantiation step knows about symbols. A use of a SymInt that Dynamo does not model (a
//! Python call, `int()`, a list index, a dict key, a comparison, printing) reads the hint through
//! [`SymVar::concrete`], which marks it: at the end of the trace every marked SymInt specialises
//! the dimensions it depends on (guarded as constants), so no trace decision rests on a size that
//! the guards let change.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use rustpython_vm::PyObjectRef;
use rynamo_graph::{Arg, Graph, Value, ValueId};
use rynamo_tensor::TensorMeta;
use rynamo_tensor::{IndexItem, Scalar};

pub use super::sym_float::Num;

/// The pseudo-dimension of a dynamic int input: `Dim(pos, VALUE)` is the value of the Python int
/// the graph input at `pos` stands for (a 0-d int64 input, `shape_env.rs`), where other
/// dimensions are sizes. One leaf kind keeps guards, probing and instantiation on one path:
/// everything that reads a leaf reads `VALUE` from the int instead of a size.
pub const VALUE: usize = usize::MAX;

/// An integer expression over graph-input dimensions.
#[derive(Clone, Debug, PartialEq)]
pub enum SymExpr {
    /// A constant.
    Int(i64),
    /// Dimension `.1` of the graph input at position `.0` (positions survive the renumbering
    /// of values by passes); [`VALUE`] for a dynamic int input's value.
    Dim(usize, usize),
    /// Dimension `.1` of the graph value named `.0`, computed by the graph (exact for each
    /// instance: read from its re-inferred metas, or from the value in the FX code).
    Val(String, usize),
    /// A binary operation.
    Bin(SymOp, Box<SymExpr>, Box<SymExpr>),
    /// `-e`.
    Neg(Box<SymExpr>),
    /// `abs(e)`.
    Abs(Box<SymExpr>),
    /// A float constant (a SymFloat's operand).
    Float(f64),
    /// `float(e)` of an integer expression (PyTorch's `ToFloat`).
    ToFloat(Box<SymExpr>),
    /// `a / b`: Python's true division (of ints: `IntTrueDiv`), a float.
    TrueDiv(Box<SymExpr>, Box<SymExpr>),
    /// `math.sqrt(e)` (a float) or the int `int(e)` / `math.floor(e)` / `math.ceil(e)` of a
    /// float.
    Fn(FloatFn, Box<SymExpr>),
}

pub use super::sym_float::FloatFn;

/// The operators a SymInt keeps symbolic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a // b` (Python's floor division).
    FloorDiv,
    /// `a % b` (Python's: the sign of `b`).
    Mod,
    /// `max(a, b)` (PyTorch's `torch.sym_max`).
    Max,
    /// `min(a, b)` (PyTorch's `torch.sym_min`).
    Min,
}

impl SymOp {
    /// The operator of `operator.<name>` (in-place forms included).
    pub fn from_py(name: &str) -> Option<SymOp> {
        Some(match name.trim_start_matches('i') {
            "add" => SymOp::Add,
            "sub" => SymOp::Sub,
            "mul" => SymOp::Mul,
            "floordiv" => SymOp::FloorDiv,
            "mod" => SymOp::Mod,
            _ => return None,
        })
    }

    /// Python's result for ints; `None` on a zero divisor or an overflow.
    pub fn apply(self, a: i64, b: i64) -> Option<i64> {
        match self {
            SymOp::Add => a.checked_add(b),
            SymOp::Sub => a.checked_sub(b),
            SymOp::Mul => a.checked_mul(b),
            SymOp::FloorDiv => floor_div(a, b),
            SymOp::Mod => floor_div(a, b).and_then(|q| a.checked_sub(q.checked_mul(b)?)),
            SymOp::Max => Some(a.max(b)),
            SymOp::Min => Some(a.min(b)),
        }
    }

    fn text(self) -> &'static str {
        match self {
            SymOp::Add => "+",
            SymOp::Sub => "-",
            SymOp::Mul => "*",
            SymOp::FloorDiv => "//",
            SymOp::Mod => "%",
            SymOp::Max => "max",
            SymOp::Min => "min",
        }
    }
}

fn floor_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    Some(if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

impl SymExpr {
    /// `a op b`, folded when both are constants.
    pub fn bin(op: SymOp, a: SymExpr, b: SymExpr) -> SymExpr {
        if let (SymExpr::Int(x), SymExpr::Int(y)) = (&a, &b)
            && let Some(r) = op.apply(*x, *y)
        {
            return SymExpr::Int(r);
        }
        SymExpr::Bin(op, Box::new(a), Box::new(b))
    }

    /// The value for the input dimension sizes `size` gives (no computed values); `None`
    /// where an operation fails.
    pub fn eval(&self, size: &dyn Fn(usize, usize) -> Option<i64>) -> Option<i64> {
        self.eval_with(size, &|_, _| None)
    }

    /// The value for input dimension sizes `size` and computed value sizes `val` (`None` for a
    /// float-valued expression).
    pub fn eval_with(
        &self,
        size: &dyn Fn(usize, usize) -> Option<i64>,
        val: &dyn Fn(&str, usize) -> Option<i64>,
    ) -> Option<i64> {
        match self.eval_num(size, val)? {
            Num::Int(i) => Some(i),
            Num::Float(_) => None,
        }
    }

    /// The value, int or float, as Python computes it, for input dimension sizes `size` and
    /// computed value sizes `val`.
    pub fn eval_num(
        &self,
        size: &dyn Fn(usize, usize) -> Option<i64>,
        val: &dyn Fn(&str, usize) -> Option<i64>,
    ) -> Option<Num> {
        let ev = |e: &SymExpr| e.eval_num(size, val);
        Some(match self {
            SymExpr::Int(i) => Num::Int(*i),
            SymExpr::Float(f) => Num::Float(*f),
            SymExpr::Dim(v, d) => Num::Int(size(*v, *d)?),
            SymExpr::Val(n, d) => Num::Int(val(n, *d)?),
            SymExpr::Bin(op, a, b) => Num::apply(*op, ev(a)?, ev(b)?)?,
            SymExpr::TrueDiv(a, b) => Num::true_div(ev(a)?, ev(b)?)?,
            SymExpr::ToFloat(a) => Num::Float(ev(a)?.as_f64()),
            SymExpr::Fn(f, a) => f.apply(ev(a)?)?,
            SymExpr::Neg(a) => match ev(a)? {
                Num::Int(i) => Num::Int(i.checked_neg()?),
                Num::Float(f) => Num::Float(-f),
            },
            SymExpr::Abs(a) => match ev(a)? {
                Num::Int(i) => Num::Int(i.checked_abs()?),
                Num::Float(f) => Num::Float(f.abs()),
            },
        })
    }

    /// Whether the expression computes a float (a SymFloat's).
    pub fn is_float(&self) -> bool {
        match self {
            SymExpr::Float(_) | SymExpr::ToFloat(_) | SymExpr::TrueDiv(..) => true,
            SymExpr::Fn(f, _) => *f == FloatFn::Sqrt,
            SymExpr::Int(_) | SymExpr::Dim(..) | SymExpr::Val(..) => false,
            SymExpr::Bin(_, a, b) => a.is_float() || b.is_float(),
            SymExpr::Neg(a) | SymExpr::Abs(a) => a.is_float(),
        }
    }

    /// Every computed value dimension the expression reads.
    pub fn vals(&self) -> Vec<(String, usize)> {
        match self {
            SymExpr::Int(_) | SymExpr::Float(_) | SymExpr::Dim(..) => Vec::new(),
            SymExpr::Val(n, d) => vec![(n.clone(), *d)],
            SymExpr::Bin(_, a, b) | SymExpr::TrueDiv(a, b) => {
                let mut v = a.vals();
                v.extend(b.vals());
                v
            }
            SymExpr::Neg(a) | SymExpr::Abs(a) | SymExpr::ToFloat(a) | SymExpr::Fn(_, a) => a.vals(),
        }
    }

    /// Every dimension the expression reads.
    pub fn dims(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        self.collect_dims(&mut out);
        out
    }

    fn collect_dims(&self, out: &mut Vec<(usize, usize)>) {
        match self {
            SymExpr::Int(_) | SymExpr::Float(_) | SymExpr::Val(..) => {}
            SymExpr::Dim(v, d) => {
                if !out.contains(&(*v, *d)) {
                    out.push((*v, *d));
                }
            }
            SymExpr::Bin(_, a, b) | SymExpr::TrueDiv(a, b) => {
                a.collect_dims(out);
                b.collect_dims(out);
            }
            SymExpr::Neg(a) | SymExpr::Abs(a) | SymExpr::ToFloat(a) | SymExpr::Fn(_, a) => {
                a.collect_dims(out)
            }
        }
    }

    /// The expression as PyTorch prints a sympy expression of size symbols (`s0*s1`,
    /// `(s0//2)`), naming dimensions by `name`.
    pub fn render(&self, name: &dyn Fn(usize, usize) -> String) -> String {
        match self {
            SymExpr::Int(i) => i.to_string(),
            SymExpr::Dim(v, d) => name(*v, *d),
            SymExpr::Val(n, d) => format!("{n}.size({d})"),
            SymExpr::Bin(op @ (SymOp::Max | SymOp::Min), a, b) => {
                let f = if *op == SymOp::Max { "Max" } else { "Min" };
                format!("{f}({}, {})", a.render(name), b.render(name))
            }
            SymExpr::Bin(op, a, b) => {
                format!("({} {} {})", a.render(name), op.text(), b.render(name))
            }
            SymExpr::Neg(a) => format!("-{}", a.render(name)),
            SymExpr::Abs(a) => format!("Abs({})", a.render(name)),
            // Rust's `{:?}` keeps a float's point (`2.0`), so a float and an int never print alike.
            SymExpr::Float(f) => format!("{f:?}"),
            SymExpr::ToFloat(a) => format!("ToFloat({})", a.render(name)),
            SymExpr::TrueDiv(a, b) => format!("({} / {})", a.render(name), b.render(name)),
            SymExpr::Fn(f, a) => format!("{}({})", f.sympy_name(), a.render(name)),
        }
    }
}

/// A SymInt tracker's state (`Kind::SymInt`).
#[derive(Debug)]
pub struct SymVar {
    /// Its index among the trace's SymInts (`OutputGraph::syms`).
    pub id: usize,
    /// What it computes.
    pub expr: SymExpr,
    /// Its value in the traced example (a SymInt's; 0 for a SymFloat).
    pub hint: i64,
    /// A SymFloat's value in the traced example (`Kind::SymFloat`, `expr.is_float()`).
    pub float_hint: Option<f64>,
    /// The hint as a Python int (a float for a SymFloat), for uses that need a concrete value.
    pub hint_obj: PyObjectRef,
    /// Whether some use read the hint as a constant (then its dimensions are specialised).
    pub concrete: Cell<bool>,
}

impl SymVar {
    /// The hint, for a use that needs a concrete value: marks the SymInt so the trace
    /// specialises its dimensions.
    pub fn concrete(&self) -> &PyObjectRef {
        self.concrete.set(true);
        &self.hint_obj
    }
}

/// Where a symbolic int sits in a node argument: `item` indexes an `int[]` or an index
/// expression; `part` is 0 for an int, 1/2/3 for a slice's start/stop/step, [`FLOAT_PART`] for
/// a float argument (a SymFloat's place).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Item of a list argument (0 for a scalar one).
    pub item: usize,
    /// Part of an index item.
    pub part: u8,
}

/// The [`Slot::part`] of a float argument (`x * (n / 2)`'s scalar): a SymFloat's value.
pub const FLOAT_PART: u8 = 4;

/// A symbolic int (or float) argument of a graph node.
#[derive(Clone, Debug, PartialEq)]
pub struct SymArg {
    /// The node, by its first output's name (passes renumber values but keep names).
    pub node: String,
    /// The argument's position (bound, schema order).
    pub arg: usize,
    /// Where in the argument.
    pub slot: Slot,
    /// Its value.
    pub expr: SymExpr,
}

/// Calls `f` on every int an argument holds, with its slot.
pub fn int_slots(arg: &mut Arg, f: &mut dyn FnMut(Slot, &mut i64)) {
    let at = |item, part| Slot { item, part };
    match arg {
        Value::Int(i) | Value::Scalar(Scalar::Int(i)) => f(at(0, 0), i),
        Value::IntList(l) => {
            for (k, i) in l.iter_mut().enumerate() {
                f(at(k, 0), i);
            }
        }
        Value::Index(items) => {
            for (k, it) in items.iter_mut().enumerate() {
                match it {
                    IndexItem::Int(i) => f(at(k, 0), i),
                    IndexItem::Slice { start, stop, step } => {
                        for (p, v) in [(1, start), (2, stop), (3, step)] {
                            if let Some(v) = v {
                                f(at(k, p), v);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// Op arguments carry a SymInt as `SENTINEL - id` until `call_op` resolves it: far outside any
/// size, index or scalar a program uses, and exact as an f64 (binding may widen it to a float).
pub const SENTINEL: i64 = -(1 << 50);
const SENTINEL_SPAN: i64 = 1 << 20;

/// The SymInt id a sentinel int stands for.
pub fn sentinel_id(i: i64) -> Option<usize> {
    (i <= SENTINEL && i > SENTINEL - SENTINEL_SPAN).then(|| (SENTINEL - i) as usize)
}

/// The sentinel of SymInt `id`.
pub fn sentinel(id: usize) -> i64 {
    SENTINEL - id as i64
}

/// A SymFloat's op-argument form: its id's int sentinel less a half, which no float binding
/// widened from an int (a SymInt's sentinel) is; exact (an ulp there is a quarter).
pub fn float_sentinel(id: usize) -> f64 {
    sentinel(id) as f64 - 0.5
}

/// The SymFloat id a float sentinel stands for.
pub fn float_sentinel_id(x: f64) -> Option<usize> {
    if x.fract() != -0.5 {
        return None;
    }
    sentinel_id((x + 0.5) as i64)
}

/// Replaces the sentinels in bound arguments by hints (`hint(id)`); returns where symbolic
/// values sit `(argument, slot, id)` (a SymFloat in a float argument at [`FLOAT_PART`]) and the
/// ids of SymInts that reached a float argument (widened by binding), which must be specialised.
pub fn take_sentinels(
    args: &mut [Arg],
    hint: &dyn Fn(usize) -> Num,
) -> (Vec<(usize, Slot, usize)>, Vec<usize>) {
    let mut found = Vec::new();
    let mut floats = Vec::new();
    for (a, arg) in args.iter_mut().enumerate() {
        int_slots(arg, &mut |slot, i| {
            if let Some(id) = sentinel_id(*i)
                && let Num::Int(h) = hint(id)
            {
                *i = h;
                found.push((a, slot, id));
            }
        });
        if let Value::Float(x) | Value::Scalar(Scalar::Float(x)) = arg {
            if let Some(id) = float_sentinel_id(*x) {
                *x = hint(id).as_f64();
                found.push((
                    a,
                    Slot {
                        item: 0,
                        part: FLOAT_PART,
                    },
                    id,
                ));
            } else if x.fract() == 0.0
                && let Some(id) = sentinel_id(*x as i64)
            {
                *x = hint(id).as_f64();
                floats.push(id);
            }
        }
    }
    (found, floats)
}

/// A computed size the trace used as a constant: dimension `dim` of the value named `value`
/// stayed `size` when the dynamic sizes were probed; each instance checks it.
#[derive(Clone, Debug, PartialEq)]
pub struct Assumption {
    /// The value's name.
    pub value: String,
    /// The dimension.
    pub dim: usize,
    /// Its size.
    pub size: i64,
}

/// An input's meta with its dynamic dimensions (`dims[d]`: the symbol of dimension `d`, if any)
/// set to `size_of(symbol)`, contiguous: the input shapes a template is instantiated at.
pub fn meta_at(
    meta: &TensorMeta,
    dims: &[Option<usize>],
    size_of: impl Fn(usize) -> i64,
) -> TensorMeta {
    if dims.iter().all(Option::is_none) {
        return meta.clone();
    }
    let shape: Vec<usize> = meta
        .shape
        .iter()
        .enumerate()
        .map(|(d, s)| {
            dims.get(d)
                .copied()
                .flatten()
                .map_or(*s, |k| size_of(k) as usize)
        })
        .collect();
    TensorMeta::contiguous(meta.dtype, &shape)
}

/// The graph for other input shapes: node by node, the symbolic arguments are evaluated (from
/// the input shapes, the dynamic int inputs' values `ints` by position, and the values computed
/// so far), the meta rule re-infers the outputs, and every count and assumption is checked.
/// Errors name what no longer holds.
pub fn instantiate(
    template: &Graph,
    sym_args: &[SymArg],
    assumptions: &[Assumption],
    input_metas: &[TensorMeta],
    ints: &[Option<i64>],
) -> Result<Graph, String> {
    if input_metas.len() != template.inputs().len() {
        return Err(format!(
            "{} input shapes for a graph of {} inputs",
            input_metas.len(),
            template.inputs().len()
        ));
    }
    let mut g = template.clone();
    let by_name: HashMap<String, ValueId> = (0..g.values().len())
        .map(|i| (g.values()[i].name.clone(), ValueId(i as u32)))
        .collect();
    let metas: RefCell<HashMap<ValueId, TensorMeta>> = RefCell::new(HashMap::new());
    for (v, m) in template.inputs().iter().zip(input_metas) {
        metas.borrow_mut().insert(*v, m.clone());
    }
    let size = |pos: usize, d: usize| match d {
        VALUE => ints.get(pos).copied().flatten(),
        _ => input_metas.get(pos)?.shape.get(d).map(|s| *s as i64),
    };
    let val = |n: &str, d: usize| {
        let v = by_name.get(n)?;
        metas.borrow().get(v)?.shape.get(d).map(|s| *s as i64)
    };
    for i in 0..g.nodes().len() {
        let first = g.nodes()[i]
            .outputs
            .first()
            .map(|o| g.value(*o).name.clone());
        for s in sym_args.iter().filter(|s| Some(&s.node) == first.as_ref()) {
            let v = s.expr.eval_num(&size, &val).ok_or_else(|| {
                format!(
                    "the symbolic size {} has no value for these shapes",
                    s.expr.render(&|p, d| match d {
                        VALUE => format!("input{p}"),
                        _ => format!("input{p}.size({d})"),
                    })
                )
            })?;
            match (g.nodes_mut()[i].args.get_mut(s.arg), v) {
                (Some(Value::Float(x) | Value::Scalar(Scalar::Float(x))), v)
                    if s.slot.part == FLOAT_PART =>
                {
                    *x = v.as_f64();
                }
                (Some(arg), Num::Int(v)) if s.slot.part != FLOAT_PART => {
                    int_slots(arg, &mut |slot, x| {
                        if slot == s.slot {
                            *x = v;
                        }
                    });
                }
                (None, _) => {}
                _ => return Err("a symbolic value does not fit its argument".to_owned()),
            }
        }
        let node = &g.nodes()[i];
        let arg_metas = node
            .args
            .iter()
            .map(|a| {
                a.try_map(|v| {
                    metas
                        .borrow()
                        .get(v)
                        .cloned()
                        .ok_or_else(|| format!("value {v} has no shape"))
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let out = rynamo_graph::registry::meta(node.op, &arg_metas).map_err(|e| e.to_string())?;
        if out.len() != node.outputs.len() {
            return Err(format!(
                "{} now defines {} values instead of {}",
                node.op.py_name(),
                out.len(),
                node.outputs.len()
            ));
        }
        for (o, m) in node.outputs.clone().iter().zip(out) {
            let name = &g.value(*o).name;
            for a in assumptions.iter().filter(|a| &a.value == name) {
                let now = m.shape.get(a.dim).map(|s| *s as i64);
                if now != Some(a.size) {
                    return Err(format!(
                        "the traced program used size {} of dimension {} of %{name} as a constant; these input shapes make it {}",
                        a.size,
                        a.dim,
                        now.map_or_else(|| "absent".to_owned(), |n| n.to_string())
                    ));
                }
            }
            metas.borrow_mut().insert(*o, m);
        }
    }
    // The graph's own re-inference writes the metas just checked (its values are private).
    g.with_input_metas(input_metas).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_floor_division_and_modulo() {
        assert_eq!(SymOp::FloorDiv.apply(-7, 2), Some(-4));
        assert_eq!(SymOp::Mod.apply(-7, 2), Some(1));
        assert_eq!(SymOp::Mod.apply(7, -2), Some(-1));
        assert_eq!(SymOp::FloorDiv.apply(7, 0), None);
    }

    #[test]
    fn expressions_evaluate_from_sizes_and_fold_constants() {
        let t = SymExpr::Dim(0, 1);
        let e = SymExpr::bin(
            SymOp::Mul,
            t.clone(),
            SymExpr::bin(SymOp::FloorDiv, SymExpr::Int(32), SymExpr::Int(4)),
        );
        assert_eq!(
            e,
            SymExpr::Bin(SymOp::Mul, Box::new(t), Box::new(SymExpr::Int(8)))
        );
        assert_eq!(e.eval(&|_, d| Some(d as i64 * 10)), Some(80));
        assert_eq!(e.dims(), vec![(0, 1)]);
        assert_eq!(e.render(&|_, d| format!("s{d}")), "(s1 * 8)");
    }

    #[test]
    fn sentinels_resolve_to_hints_with_their_slots() {
        let mut args = vec![
            Value::Tensor(ValueId(0)),
            Value::IntList(vec![2, sentinel(1), -1]),
            Value::Index(vec![IndexItem::Slice {
                start: None,
                stop: Some(sentinel(0)),
                step: None,
            }]),
            Value::Float(sentinel(2) as f64),
        ];
        let (found, floats) = take_sentinels(&mut args, &|id| Num::Int(10 + id as i64));
        assert_eq!(
            found,
            vec![
                (1, Slot { item: 1, part: 0 }, 1),
                (2, Slot { item: 0, part: 2 }, 0)
            ]
        );
        assert_eq!(floats, vec![2]);
        assert_eq!(args[1], Value::IntList(vec![2, 11, -1]));
        assert_eq!(args[3], Value::Float(12.0));
    }
}
