//! One small graph per op, with random inputs from a seeded generator: what the per-op check
//! compiles on the plugin and on `EagerBackend`. Inputs are kept in each op's domain (positive for
//! `log`, in range for `embedding`), so both sides compute finite, comparable values.

use rynamo_graph::{Arg, Graph, GraphBuilder, Op, OpFlags, Value};
use rynamo_tensor::random::{Generator, randint, randn};
use rynamo_tensor::{DType, Tensor};

/// A graph and inputs for it.
#[derive(Clone, Debug)]
pub struct Sample {
    /// One node applying the op to the graph inputs (plus literal arguments).
    pub graph: Graph,
    /// Random inputs.
    pub inputs: Vec<Tensor>,
}

struct B {
    b: GraphBuilder,
    inputs: Vec<Tensor>,
    g: Generator,
    strided: bool,
}

/// The same values with transposed strides (2-d tensors with both dims > 1).
pub fn strided(t: &Tensor) -> Tensor {
    if t.ndim() == 2 && t.shape()[0] > 1 && t.shape()[1] > 1 {
        t.t()
            .and_then(|x| x.contiguous().t())
            .expect("invariant: 2-d transpose")
    } else {
        t.clone()
    }
}

impl B {
    fn input(&mut self, t: Tensor) -> Arg {
        let t = if self.strided { strided(&t) } else { t };
        let name = format!("in{}", self.inputs.len());
        let v = self.b.input(&name, t.meta());
        self.inputs.push(t);
        Value::Tensor(v)
    }
    fn randn(&mut self, shape: &[usize]) -> Tensor {
        randn(shape, None, Some(&self.g)).expect("invariant: randn of a valid shape")
    }
    fn f32(&mut self, shape: &[usize]) -> Arg {
        let t = self.randn(shape);
        self.input(t)
    }
    fn f64(&mut self, shape: &[usize]) -> Arg {
        let t = self.randn(shape).to_dtype(DType::Float64);
        self.input(t)
    }
    /// Values in `[0.5, ...)`.
    fn pos(&mut self, shape: &[usize]) -> Arg {
        let v: Vec<f32> = self
            .randn(shape)
            .to_vec::<f32>()
            .iter()
            .map(|x| x.abs() + 0.5)
            .collect();
        let t = Tensor::from_vec(v, shape).expect("invariant: matching length");
        self.input(t)
    }
    /// Values in `[-1, 1]` (for asin/acos, in f64 as the op table samples them).
    fn unit(&mut self, shape: &[usize]) -> Arg {
        let v: Vec<f64> = self
            .randn(shape)
            .to_vec::<f64>()
            .iter()
            .map(|x| x.tanh())
            .collect();
        let t = Tensor::from_vec(v, shape).expect("invariant: matching length");
        self.input(t)
    }
    fn ints(&mut self, lo: i64, hi: i64, shape: &[usize]) -> Arg {
        let t = randint(lo, hi, shape, None, Some(&self.g)).expect("invariant: valid bounds");
        self.input(t)
    }
    fn mask(&mut self, shape: &[usize]) -> Arg {
        let t = randint(0, 2, shape, None, Some(&self.g))
            .expect("invariant: valid bounds")
            .to_dtype(DType::Bool);
        self.input(t)
    }
}

/// Whether the host ever sends `op` to a plugin (see `rynamo_plugin_host::partition::host_policy`).
pub fn host_sends(op: Op) -> bool {
    let f = op.flags();
    !(f.contains(OpFlags::INPLACE)
        || f.contains(OpFlags::MUTATES_ARGS)
        || f.contains(OpFlags::RANDOM)
        || f.contains(OpFlags::DATA_DEPENDENT)
        || f.contains(OpFlags::HOST))
}

/// Whether the op's output values are unspecified (`empty`): compare dtype and shape only.
pub fn values_unspecified(op: Op) -> bool {
    matches!(op, Op::Empty | Op::EmptyLike)
}

/// Samples for `op` (none for ops the host never sends to plugins): the main call, plus for binary
/// pointwise ops a same-shape tensor-tensor call and a tensor-number call. With `strided`, 2-d
/// inputs have transposed strides and the graph says so; variants whose meta rule rejects strided
/// inputs (`view`) are left out.
pub fn samples(op: Op, seed: u64, strided: bool) -> Vec<Sample> {
    if !host_sends(op) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for variant in 0..3 {
        if let Some(s) = build(op, seed, strided, variant) {
            out.push(s);
        }
    }
    out
}

fn is_binary(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        Add | Sub
            | Mul
            | Div
            | Maximum
            | Minimum
            | Atan2
            | MaxOther
            | MinOther
            | Eq
            | Ne
            | Lt
            | Le
            | Gt
            | Ge
    )
}

fn build(op: Op, seed: u64, strided: bool, variant: u32) -> Option<Sample> {
    let mut s = B {
        b: GraphBuilder::new(),
        inputs: Vec::new(),
        g: Generator::new(seed),
        strided,
    };
    if variant > 0 && !is_binary(op) {
        return None;
    }
    if variant > 0 {
        let x = s.f32(&[2, 3]);
        let y = if variant == 1 {
            s.f32(&[2, 3])
        } else if matches!(
            op,
            Op::Maximum | Op::Minimum | Op::Atan2 | Op::MaxOther | Op::MinOther
        ) {
            return None;
        } else {
            Value::Float(2.5)
        };
        let outs = s.b.call_py(op, vec![x, y], vec![]).ok()?;
        return Some(Sample {
            graph: s.b.finish(outs),
            inputs: s.inputs,
        });
    }
    let kw = |k: &str, v: Arg| vec![(k.to_string(), v)];
    use Op::*;
    use Value as V;
    let (pos, kws): (Vec<Arg>, Vec<(String, Arg)>) = match op {
        Log | Log2 | Log10 | Sqrt | Rsqrt | Reciprocal => (vec![s.pos(&[2, 3])], vec![]),
        Asin | Acos => (vec![s.unit(&[2, 3])], vec![]),
        LogicalNot | BitwiseNot => (vec![s.ints(-8, 8, &[2, 3])], vec![]),
        LeakyRelu => (vec![s.f32(&[2, 3]), V::Float(0.2)], vec![]),
        Gelu => (
            vec![s.f32(&[2, 3])],
            kw("approximate", V::Str("tanh".into())),
        ),
        Round => (vec![s.f32(&[2, 3])], kw("decimals", V::Int(2))),
        NanToNum => (vec![s.f32(&[2, 3]), V::Float(0.0)], vec![]),
        Clamp | Clip => (vec![s.f32(&[2, 3]), V::Float(-0.5), V::Float(0.5)], vec![]),
        Add | Sub => (vec![s.f32(&[2, 3]), s.f32(&[3])], kw("alpha", V::Int(2))),
        Div => (
            vec![s.ints(-9, 9, &[2, 3]), V::Int(2)],
            kw("rounding_mode", V::Str("floor".into())),
        ),
        FloorDivide | Remainder => (vec![s.ints(-9, 9, &[2, 3]), V::Int(-3)], vec![]),
        Pow => (vec![s.pos(&[2, 3]), V::Float(1.5)], vec![]),
        BitwiseAnd | BitwiseOr | BitwiseXor => (vec![s.ints(-9, 9, &[2, 3]), V::Int(6)], vec![]),
        LogicalAnd | LogicalOr | LogicalXor => (vec![s.mask(&[2, 3]), V::Bool(true)], vec![]),
        Where => (vec![s.mask(&[2, 3]), s.f32(&[2, 3]), V::Float(0.0)], vec![]),
        MaskedFill => (
            vec![s.f32(&[2, 3]), s.mask(&[2, 3]), V::Float(-1.0)],
            vec![],
        ),
        Sum | Mean => (
            vec![s.f32(&[2, 3]), V::IntList(vec![0, 1])],
            kw("keepdim", V::Bool(true)),
        ),
        Prod | Argmax | Argmin => (vec![s.f32(&[2, 3]), V::Int(1)], vec![]),
        All | Any => (vec![s.mask(&[2, 3]), V::Int(0)], vec![]),
        Amax | Amin | LogSumExp => (vec![s.f32(&[2, 3]), V::Int(-1)], vec![]),
        MaxDim | MinDim => (vec![s.f32(&[2, 3]), V::Int(1), V::Bool(true)], vec![]),
        Var | Std => (vec![s.f32(&[2, 3]), V::Int(1)], kw("correction", V::Int(0))),
        Softmax | LogSoftmax => (vec![s.f32(&[2, 3]), V::Int(-1)], vec![]),
        Matmul | Mm => (vec![s.f32(&[2, 3]), s.f32(&[3, 4])], vec![]),
        Bmm => (vec![s.f32(&[2, 2, 3]), s.f32(&[2, 3, 2])], vec![]),
        Addmm => (
            vec![s.f32(&[3]), s.f32(&[3, 2]), s.f32(&[2, 3])],
            kw("beta", V::Float(0.5)),
        ),
        Linear => (vec![s.f32(&[2, 3]), s.f32(&[4, 3]), s.f32(&[4])], vec![]),
        View | Reshape => (vec![s.f32(&[2, 3]), V::Int(3), V::Int(-1)], vec![]),
        Permute => (vec![s.f32(&[2, 3]), V::Int(1), V::Int(0)], vec![]),
        Transpose => (vec![s.f32(&[2, 3]), V::Int(0), V::Int(-1)], vec![]),
        Expand => (vec![s.f32(&[3]), V::Int(4), V::Int(-1)], vec![]),
        Slice => (
            vec![s.f32(&[2, 3]), V::Int(1), V::Int(1), V::None, V::Int(1)],
            vec![],
        ),
        Select => (vec![s.f32(&[2, 3]), V::Int(1), V::Int(-1)], vec![]),
        Narrow => (
            vec![s.f32(&[2, 3]), V::Int(1), V::Int(1), V::Int(2)],
            vec![],
        ),
        Unsqueeze => (vec![s.f32(&[2, 3]), V::Int(-1)], vec![]),
        Squeeze => (vec![s.f32(&[1, 3, 1])], vec![]),
        Unflatten => (
            vec![s.f32(&[2, 3]), V::Int(1), V::IntList(vec![3, 1])],
            vec![],
        ),
        Flatten => (vec![s.f32(&[2, 3, 2])], vec![]),
        AsStrided => (
            vec![
                s.f32(&[2, 3]),
                V::IntList(vec![2, 2]),
                V::IntList(vec![1, 2]),
            ],
            vec![],
        ),
        Diagonal => (vec![s.f32(&[3, 3]), V::Int(1)], vec![]),
        To | Type => (vec![s.f32(&[2, 3]), V::DType(DType::Float16)], vec![]),
        Cat | Stack => {
            let (a, b) = (s.f32(&[2, 3]), s.f32(&[2, 3]));
            let ts = vec![a, b]
                .into_iter()
                .map(|x| match x {
                    V::Tensor(v) => v,
                    _ => unreachable!("invariant: inputs are tensors"),
                })
                .collect();
            (vec![V::TensorList(ts), V::Int(1)], vec![])
        }
        Split => (vec![s.f32(&[2, 3]), V::Int(2), V::Int(1)], vec![]),
        SplitSizes => (
            vec![s.f32(&[2, 3]), V::IntList(vec![1, 2]), V::Int(1)],
            vec![],
        ),
        Chunk => (vec![s.f32(&[2, 3]), V::Int(3), V::Int(1)], vec![]),
        Zeros | Ones | Empty => (vec![V::Int(2), V::Int(3)], vec![]),
        Full => (vec![V::IntList(vec![2]), V::Int(7)], vec![]),
        FullLike => (vec![s.f32(&[2, 3]), V::Bool(true)], vec![]),
        ZerosLike | OnesLike | EmptyLike => (vec![s.f64(&[2, 3])], vec![]),
        Arange => (vec![V::Int(1), V::Float(2.0), V::Float(0.25)], vec![]),
        Linspace => (vec![V::Int(0), V::Int(1), V::Int(5)], vec![]),
        Eye => (vec![V::Int(3)], kw("dtype", V::DType(DType::Int32))),
        ScalarTensor => (vec![V::Float(2.5)], vec![]),
        LayerNorm => (
            vec![
                s.f32(&[2, 3]),
                V::IntList(vec![3]),
                s.f32(&[3]),
                s.f32(&[3]),
            ],
            vec![],
        ),
        Embedding => (vec![s.ints(0, 2, &[3]), s.f32(&[2, 3])], vec![]),
        MaxOther | MinOther | Maximum | Minimum | Atan2 => {
            (vec![s.f32(&[2, 3]), s.f32(&[3])], vec![])
        }
        Eq | Ne | Lt | Le | Gt | Ge => (vec![s.f32(&[2, 3]), V::Float(0.0)], vec![]),
        Mul => (vec![V::Int(2), s.f32(&[2, 3])], vec![]),
        Contiguous => {
            let t = s.randn(&[3, 2]).t().expect("invariant: 2-d transpose");
            (vec![s.input(t)], vec![])
        }
        _ => (vec![s.f32(&[2, 3])], vec![]),
    };
    let outs = match s.b.call_py(op, pos, kws) {
        Ok(o) => o,
        Err(_) if strided => return None,
        Err(e) => panic!("invariant: the {op} sample binds and has a meta: {e}"),
    };
    Some(Sample {
        graph: s.b.finish(outs),
        inputs: s.inputs,
    })
}

/// `n` random f32 tensors of one shape.
pub fn f32_inputs(n: usize, shape: &[usize], seed: u64) -> Vec<Tensor> {
    let g = Generator::new(seed);
    (0..n)
        .map(|_| randn(shape, None, Some(&g)).expect("invariant: randn of a valid shape"))
        .collect()
}
