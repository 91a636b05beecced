//! The per-op spec table's types: how to generate a call, which NumPy expression is the reference,
//! the dtype rules (written independently of the kernels) and the tolerance.

use rynamo_graph::{IValue, Op, Value};
use rynamo_tensor::{DType, Scalar, Tensor};

use crate::compare::{Opd, result_type};
use crate::inputs::{self, ALL_DTYPES, Domain, Rng};

/// Arguments of one call, by schema parameter name.
pub type Args = Vec<(&'static str, IValue)>;

/// Generation state for one case.
pub struct Ctx<'a> {
    pub rng: &'a mut Rng,
    /// The case's primary dtype.
    pub dt: DType,
    /// Whether to mix in edge values (NaN, infinities, -0.0, denormals, integer extremes).
    pub edges: bool,
    /// Whether this is the case with one large tensor (vectorised and parallel paths).
    pub big: bool,
}

impl Ctx<'_> {
    /// A read-only tensor argument (any layout, including stride-0 broadcasts).
    pub fn t(&mut self, shape: &[usize], dt: DType, dom: Domain) -> Tensor {
        let l = inputs::layout(self.rng, true);
        inputs::tensor(self.rng, shape, dt, dom, self.edges, l)
    }
    /// A tensor that an in-place op writes (no stride-0 dims).
    pub fn tm(&mut self, shape: &[usize], dt: DType, dom: Domain) -> Tensor {
        let l = inputs::layout(self.rng, false);
        inputs::tensor(self.rng, shape, dt, dom, self.edges, l)
    }
    /// A random shape of rank 0..=4 (one large 1-D or 2-D shape for the big case).
    pub fn shape(&mut self) -> Vec<usize> {
        if self.big {
            return if self.rng.chance(0.5) {
                vec![270_000]
            } else {
                vec![300, 901]
            };
        }
        inputs::shape(self.rng, 0, 4)
    }
    /// A shape of rank `lo..=hi`.
    pub fn shape_r(&mut self, lo: usize, hi: usize) -> Vec<usize> {
        inputs::shape(self.rng, lo, hi)
    }
    /// The primary dtype half the time, else any dtype.
    pub fn dt2(&mut self) -> DType {
        if self.rng.chance(0.5) {
            self.dt
        } else {
            self.rng.pick(&ALL_DTYPES)
        }
    }
    pub fn chance(&mut self, p: f64) -> bool {
        self.rng.chance(p)
    }
    pub fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        self.rng.pick(xs)
    }
    /// A Python number suited to `dt`.
    pub fn num(&mut self, dt: DType, dom: Domain) -> Scalar {
        inputs::scalar(self.rng, dt, dom)
    }
    /// A valid dim of a tensor of rank `nd` (possibly negative).
    pub fn dim(&mut self, nd: usize) -> i64 {
        let n = nd.max(1) as i64;
        let d = self.rng.range(0, n - 1);
        if self.rng.chance(0.3) { d - n } else { d }
    }
}

/// What the dtype rules see of a case.
pub struct Info<'a> {
    pub args: &'a Args,
    /// `torch.result_type` of the castable operands (independent reference).
    pub promoted: DType,
}

impl Info<'_> {
    pub fn get(&self, name: &str) -> Option<&IValue> {
        self.args.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
    /// The dtype of the first tensor argument.
    pub fn arg0(&self) -> DType {
        self.args
            .iter()
            .find_map(|(_, v)| match v {
                Value::Tensor(t) => Some(t.dtype()),
                Value::TensorList(ts) => ts.first().map(Tensor::dtype),
                _ => None,
            })
            .unwrap_or(DType::Float32)
    }
    pub fn tensor(&self, name: &str) -> Option<&Tensor> {
        match self.get(name) {
            Some(Value::Tensor(t)) => Some(t),
            _ => None,
        }
    }
    /// The `dtype=` argument, when given.
    pub fn dtype_param(&self) -> Option<DType> {
        match self.get("dtype") {
            Some(Value::DType(d)) => Some(*d),
            _ => None,
        }
    }
    /// The `dtype=` argument, else the promoted dtype.
    pub fn basis(&self) -> DType {
        self.dtype_param().unwrap_or(self.promoted)
    }
}

/// The parameters whose values are operands (cast to the compute dtype, part of promotion)
/// unless a spec lists them explicitly.
const NOT_OPERANDS: &[&str] = &[
    "mask",
    "condition",
    "index",
    "indices",
    "target",
    "attn_mask",
    "running_mean",
    "running_var",
];

/// Whether parameter `name` of `op` is an operand.
pub fn castable(op: Op, spec: &Spec, name: &str) -> bool {
    if let Some(list) = spec.castable {
        return list.contains(&name);
    }
    if NOT_OPERANDS.contains(&name) {
        return false;
    }
    op.schema().params.iter().any(|p| {
        p.name == name
            && matches!(
                p.ty,
                rynamo_graph::ParamType::Tensor
                    | rynamo_graph::ParamType::TensorOrScalar
                    | rynamo_graph::ParamType::TensorList
            )
    })
}

/// The promotion of the castable operands.
pub fn promoted(op: Op, spec: &Spec, args: &Args) -> DType {
    let mut ops = Vec::new();
    for (name, v) in args {
        // Plain `Scalar` parameters (alpha, value) never take part in promotion.
        let operand = op
            .schema()
            .params
            .iter()
            .any(|p| p.name == *name && p.ty != rynamo_graph::ParamType::Scalar);
        if !castable(op, spec, name) || !operand {
            continue;
        }
        match v {
            Value::Tensor(t) if t.ndim() == 0 => ops.push(Opd::Zero(t.dtype())),
            Value::Tensor(t) => ops.push(Opd::Dim(t.dtype())),
            Value::TensorList(ts) => ops.extend(ts.iter().map(|t| Opd::Dim(t.dtype()))),
            Value::Scalar(s) => ops.push(Opd::Num(s.dtype_of_number())),
            _ => {}
        }
    }
    result_type(&ops)
}

/// The dtype a Python number promotes as.
pub trait NumberDType {
    fn dtype_of_number(&self) -> DType;
}
impl NumberDType for Scalar {
    fn dtype_of_number(&self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::Int64,
            Scalar::Float(_) => DType::Float32,
        }
    }
}

pub type Rule = fn(&Info<'_>) -> DType;

/// One op's differential spec.
#[derive(Clone)]
pub struct Spec {
    pub make: fn(&mut Ctx<'_>) -> Args,
    /// NumPy expression over the parameters (by schema name) and the helpers of `numpy_ref.py`.
    pub np: &'static str,
    /// NumPy expression of the error scale (accumulations), or "".
    pub scale: &'static str,
    /// How operands reach the expression: 0 native, 1 float64 (after rounding to the target
    /// dtype), 2 in the target dtype (halves as float32).
    pub cast: u8,
    /// Dtype operands are cast to (default: the expected output dtype).
    pub target: Option<Rule>,
    /// Expected dtype of output 0 (of the out-of-place result for in-place ops).
    pub out: Rule,
    /// Expected dtypes of outputs 1.. (default: `out`).
    pub extra: Option<Rule>,
    /// Inputs PyTorch rejects (the op must fail).
    pub reject: fn(&Info<'_>) -> bool,
    pub ulps: u64,
    /// Ulps for float16/bfloat16 results (default: 1 when `ulps` > 0): more where PyTorch rounds
    /// intermediates to the half type.
    pub half_ulps: Option<u64>,
    pub k: f64,
    pub dtypes: &'static [DType],
    pub cases: usize,
    pub castable: Option<&'static [&'static str]>,
    /// Arguments mutated by the op, compared after the call (after the outputs).
    pub mutated: &'static [&'static str],
    /// An in-place op: the result lands in `self` (its dtype), which the result must cast into.
    pub inplace: bool,
    /// Compare values (false: shapes and dtypes only, for uninitialised outputs).
    pub values: bool,
    pub edges: bool,
    pub big: bool,
}

pub fn never(_: &Info<'_>) -> bool {
    false
}
pub fn promoted_rule(i: &Info<'_>) -> DType {
    i.promoted
}
pub fn arg0_rule(i: &Info<'_>) -> DType {
    i.arg0()
}
pub fn bool_rule(_: &Info<'_>) -> DType {
    DType::Bool
}
pub fn long_rule(_: &Info<'_>) -> DType {
    DType::Int64
}
/// Integers (and bool) promote to the default float dtype.
pub fn float_rule(i: &Info<'_>) -> DType {
    if i.basis().is_floating_point() {
        i.basis()
    } else {
        DType::Float32
    }
}
/// `dtype=` or the input dtype.
pub fn param_rule(i: &Info<'_>) -> DType {
    i.dtype_param().unwrap_or(i.arg0())
}
/// `dtype=`, else int64 for integers and bool, else the input dtype (sum, prod, cumsum).
pub fn sum_rule(i: &Info<'_>) -> DType {
    match i.dtype_param() {
        Some(d) => d,
        None if i.arg0().is_integral(true) => DType::Int64,
        None => i.arg0(),
    }
}
pub fn not_float(i: &Info<'_>) -> bool {
    !i.basis().is_floating_point()
}
pub fn is_float(i: &Info<'_>) -> bool {
    i.basis().is_floating_point()
}
pub fn is_bool(i: &Info<'_>) -> bool {
    i.basis() == DType::Bool
}

impl Spec {
    pub fn new(make: fn(&mut Ctx<'_>) -> Args, np: &'static str) -> Spec {
        Spec {
            make,
            np,
            scale: "",
            cast: 1,
            target: None,
            out: promoted_rule,
            extra: None,
            reject: never,
            ulps: 0,
            half_ulps: None,
            k: 0.0,
            dtypes: &ALL_DTYPES,
            cases: 20,
            castable: None,
            mutated: &[],
            inplace: false,
            values: true,
            edges: true,
            big: false,
        }
    }
    pub fn out(mut self, r: Rule) -> Spec {
        self.out = r;
        self
    }
    pub fn extra(mut self, r: Rule) -> Spec {
        self.extra = Some(r);
        self
    }
    pub fn target(mut self, r: Rule) -> Spec {
        self.target = Some(r);
        self
    }
    pub fn reject(mut self, r: fn(&Info<'_>) -> bool) -> Spec {
        self.reject = r;
        self
    }
    pub fn tol(mut self, ulps: u64, k: f64) -> Spec {
        self.ulps = ulps;
        self.k = k;
        self
    }
    pub fn half_ulps(mut self, u: u64) -> Spec {
        self.half_ulps = Some(u);
        self
    }
    pub fn scale(mut self, s: &'static str) -> Spec {
        self.scale = s;
        self
    }
    pub fn cast(mut self, c: u8) -> Spec {
        self.cast = c;
        self
    }
    pub fn dtypes(mut self, d: &'static [DType]) -> Spec {
        self.dtypes = d;
        self
    }
    pub fn cases(mut self, n: usize) -> Spec {
        self.cases = n;
        self
    }
    pub fn castable(mut self, c: &'static [&'static str]) -> Spec {
        self.castable = Some(c);
        self
    }
    pub fn mutated(mut self, m: &'static [&'static str]) -> Spec {
        self.mutated = m;
        self
    }
    pub fn inplace(mut self) -> Spec {
        self.inplace = true;
        self
    }
    pub fn shapes_only(mut self) -> Spec {
        self.values = false;
        self
    }
    pub fn no_edges(mut self) -> Spec {
        self.edges = false;
        self
    }
    pub fn big(mut self) -> Spec {
        self.big = true;
        self
    }
}

/// Wraps helpers for building argument lists.
pub fn t(x: Tensor) -> IValue {
    Value::Tensor(x)
}
pub fn s(x: Scalar) -> IValue {
    Value::Scalar(x)
}
pub fn i(x: i64) -> IValue {
    Value::Int(x)
}
pub fn f(x: f64) -> IValue {
    Value::Float(x)
}
pub fn b(x: bool) -> IValue {
    Value::Bool(x)
}
pub fn st(x: &str) -> IValue {
    Value::Str(x.to_string())
}
pub fn il(x: Vec<i64>) -> IValue {
    Value::IntList(x)
}
