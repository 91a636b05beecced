//! Fusion: which values get buffers, and which kernel computes each of them.
//!
//! Every node is classified ([`Class`]). Pointwise, view and constant nodes are *inline*: they
//! are recomputed inside each kernel that reads them, through affine index maps, so chains of
//! them never touch memory. A value is *materialised* (given a buffer) when it is a graph output,
//! feeds an opaque node (matmul, fallbacks), or is a reduction read by another kernel.
//!
//! Kernels are formed in graph order. A materialised pointwise value or a reduction joins the
//! latest kernel with the same domain (and reduced dims) whose position in the schedule is after
//! every buffer it reads; reductions of that kernel it reads become per-row values of an earlier
//! phase. Otherwise it opens a new kernel. So softmax becomes one kernel of three phases (max, sum,
//! normalise) and a layer norm one kernel of three, each reading the row from L1 after the first.

use std::collections::{HashMap, HashSet};

use rynamo_graph::{Graph, Lowering, NodeId, Op, OpFlags, Value, ValueId};
use rynamo_tensor::ops::reduce::reduce_dims;
use rynamo_tensor::{DType, Shaped};

use crate::index_map::{self, Map};
use crate::loop_ir::{RedOp, Ty};

/// The kernel value type of a dtype, if kernels handle it.
pub fn ty_of(d: DType) -> Option<Ty> {
    match d {
        DType::Float32 => Some(Ty::F32),
        DType::Float64 => Some(Ty::F64),
        DType::Int64 => Some(Ty::I64),
        DType::Bool => Some(Ty::Bool),
        _ => None,
    }
}

/// A lowerable reduction.
#[derive(Clone, Debug)]
pub struct ReduceInfo {
    /// Kind.
    pub op: RedOp,
    /// Reduced input.
    pub input: ValueId,
    /// Per input dim: reduced or not.
    pub reduced: Vec<bool>,
    /// Keepdim.
    pub keepdim: bool,
    /// The type the input is cast to before accumulating.
    pub acc: Ty,
}

/// How a node is lowered.
#[derive(Clone, Debug)]
pub enum Class {
    /// Elementwise: recomputed inline.
    Pointwise,
    /// An affine view of its first argument: folded into index maps.
    View(Map),
    /// A constant-filled creation: an inline constant.
    Const,
    /// A reduction: a phase of a row kernel.
    Reduction(ReduceInfo),
    /// Run by the registry's eager kernel (matmuls through the runtime's GEMM, views that are
    /// not affine, and everything the JIT does not lower).
    Opaque,
}

/// One step of the schedule, before lowering.
#[derive(Clone, Debug)]
pub enum StepPlan {
    /// A fused kernel.
    Kernel(KernelPlan),
    /// One node through its eager kernel.
    Node(NodeId),
}

/// A kernel's members.
#[derive(Clone, Debug, Default)]
pub struct KernelPlan {
    /// Domain shape.
    pub domain: Vec<usize>,
    /// Reduced domain dims (all false for a pointwise kernel).
    pub reduced: Vec<bool>,
    /// `(reduction node output, phase)`.
    pub reductions: Vec<(ValueId, usize)>,
    /// `(stored pointwise value, phase)`.
    pub stores: Vec<(ValueId, usize)>,
}

/// The fusion result.
#[derive(Debug)]
pub struct Plan {
    /// Per node.
    pub classes: Vec<Class>,
    /// Producer node of each value (inputs have none).
    pub producer: HashMap<ValueId, NodeId>,
    /// Values with buffers.
    pub materialized: HashSet<ValueId>,
    /// Steps in execution order.
    pub steps: Vec<StepPlan>,
}

fn adjacent(reduced: &[bool]) -> bool {
    let idx: Vec<usize> = (0..reduced.len()).filter(|&d| reduced[d]).collect();
    idx.windows(2).all(|w| w[1] == w[0] + 1)
}

/// Classifies one node.
pub fn classify(g: &Graph, id: NodeId) -> Class {
    let n = &g.nodes()[id.0 as usize];
    let metas: Vec<_> = n.outputs.iter().map(|&o| &g.value(o).meta).collect();
    let ins: Vec<_> = n.inputs().map(|v| &g.value(v).meta).collect();
    let all_typed = metas.iter().chain(&ins).all(|m| ty_of(m.dtype).is_some());
    if n.op.flags().is_impure() || n.outputs.len() != 1 || !all_typed {
        return Class::Opaque;
    }
    let out = metas[0];
    match n.op.lowering() {
        Lowering::View => {
            let Some(x) = ins.first() else {
                return Class::Opaque;
            };
            match index_map::view_map(n.op, &n.args, x, &out.shape) {
                Some(m) => Class::View(m),
                None => Class::Opaque,
            }
        }
        Lowering::Pointwise => match n.op {
            Op::Contiguous | Op::To | Op::Type
                if ins[0].dtype == out.dtype && ins[0].strides == out.strides =>
            {
                // An alias: eager returns its input, so only a no-op view keeps aliasing intact.
                Class::View(Map::identity(out.shape.len()))
            }
            Op::To | Op::Type
                if ins[0].dtype.is_floating_point()
                    && !out.dtype.is_floating_point()
                    && out.dtype != DType::Bool =>
            {
                // Float-to-int casts saturate differently in hardware; leave them to eager.
                Class::Opaque
            }
            _ if crate::lower::pointwise_supported(g, n) => Class::Pointwise,
            _ => Class::Opaque,
        },
        Lowering::Creation if n.op.fill_value(&n.args).is_some() => Class::Const,
        Lowering::Creation => Class::Opaque,
        Lowering::Reduction => reduction(g, n).map_or(Class::Opaque, Class::Reduction),
        Lowering::MatMul | Lowering::Extern => Class::Opaque,
    }
}

fn reduction(g: &Graph, n: &rynamo_graph::Node) -> Option<ReduceInfo> {
    let a = rynamo_graph::Args(&n.args);
    let Value::Tensor(x) = n.args.first()? else {
        return None;
    };
    let xm = &g.value(*x).meta;
    let out = &g.value(n.outputs[0]).meta;
    let (op, dims, keepdim, dtype) = match n.op {
        Op::Sum => (
            RedOp::Sum,
            a.opt_ints(1).ok()?.map(<[i64]>::to_vec),
            a.bool(2).ok()?,
            a.opt_dtype(3).ok()?,
        ),
        Op::Mean => (
            RedOp::Mean,
            a.opt_ints(1).ok()?.map(<[i64]>::to_vec),
            a.bool(2).ok()?,
            a.opt_dtype(3).ok()?,
        ),
        Op::Amax => (
            RedOp::Max,
            Some(a.ints(1).ok()?.to_vec()),
            a.bool(2).ok()?,
            None,
        ),
        Op::Amin => (
            RedOp::Min,
            Some(a.ints(1).ok()?.to_vec()),
            a.bool(2).ok()?,
            None,
        ),
        Op::Max => (RedOp::Max, None, false, None),
        Op::Min => (RedOp::Min, None, false, None),
        _ => return None,
    };
    let src = ty_of(dtype.unwrap_or(xm.dtype))?;
    let acc = match (op, src) {
        (_, Ty::F32 | Ty::F64) => src,
        (RedOp::Sum, Ty::I64 | Ty::Bool) => Ty::I64,
        (RedOp::Max | RedOp::Min, Ty::I64) => Ty::I64,
        _ => return None,
    };
    if ty_of(out.dtype)? != acc {
        return None;
    }
    let ds = reduce_dims(xm.ndim(), dims.as_deref()).ok()?;
    let mut reduced = vec![false; xm.ndim()];
    for d in ds {
        reduced[d] = true;
    }
    if !adjacent(&reduced) || outer(xm, &reduced) {
        return None;
    }
    Some(ReduceInfo {
        op,
        input: *x,
        reduced,
        keepdim,
        acc,
    })
}

/// Whether the input's innermost dim (smallest stride among dims longer than 1) is kept: the
/// kernel's column loop would then step through memory with a stride, one scalar and one new
/// cache line per element, while the eager kernel reduces such dims with vectors along the
/// kept inner dim. Measured on `sum(x, [0])` of `f32[4096, 1024]`: 16.2 ms as a kernel, 1.24 ms
/// eagerly. Such reductions run their eager kernel (their pointwise neighbours still fuse).
fn outer(x: &rynamo_tensor::TensorMeta, reduced: &[bool]) -> bool {
    let inner = (0..x.ndim())
        .filter(|&d| x.shape[d] > 1)
        .min_by_key(|&d| (x.strides[d].unsigned_abs(), std::cmp::Reverse(d)));
    inner.is_some_and(|d| !reduced[d])
}

/// A buffer or reduction an inline expression reaches, with the map from the kernel domain.
#[derive(Clone, Debug)]
pub enum Leaf {
    /// A materialised value or graph input.
    Buffer(ValueId),
    /// A materialised pointwise value, with the map from the domain (recomputed inline when its
    /// kernel is the reader's, read from its buffer otherwise).
    Stored(ValueId, Map),
    /// A reduction output, with the map from the domain.
    Reduction(ValueId, Map),
}

/// The leaves of `v`'s inline expression at `map`.
pub fn leaves(
    g: &Graph,
    p: &Plan,
    v: ValueId,
    map: &Map,
    out: &mut Vec<Leaf>,
    seen: &mut HashSet<(ValueId, Map)>,
) {
    leaves_at(g, p, v, map, out, seen, true);
}

fn leaves_at(
    g: &Graph,
    p: &Plan,
    v: ValueId,
    map: &Map,
    out: &mut Vec<Leaf>,
    seen: &mut HashSet<(ValueId, Map)>,
    root: bool,
) {
    if !seen.insert((v, map.clone())) {
        return;
    }
    // As deep as the longest fused chain: on a fresh stack segment when little is left (issue 30).
    stacker::maybe_grow(crate::STACK_RED_ZONE, crate::STACK_SEGMENT, || {
        leaves_of_node(g, p, v, map, out, seen, root)
    })
}

/// [`leaves_at`] for a value not seen yet.
fn leaves_of_node(
    g: &Graph,
    p: &Plan,
    v: ValueId,
    map: &Map,
    out: &mut Vec<Leaf>,
    seen: &mut HashSet<(ValueId, Map)>,
    root: bool,
) {
    let Some(&nid) = p.producer.get(&v) else {
        out.push(Leaf::Buffer(v));
        return;
    };
    match &p.classes[nid.0 as usize] {
        Class::Pointwise if root => {
            let shape = &g.value(v).meta.shape;
            let inputs: Vec<ValueId> = g.nodes()[nid.0 as usize].inputs().collect();
            for u in inputs {
                let m = index_map::broadcast(&g.value(u).meta.shape, shape).compose(map);
                leaves_at(g, p, u, &m, out, seen, false);
            }
        }
        Class::Reduction(_) => out.push(Leaf::Reduction(v, map.clone())),
        Class::Pointwise if p.materialized.contains(&v) => out.push(Leaf::Stored(v, map.clone())),
        _ if p.materialized.contains(&v) => out.push(Leaf::Buffer(v)),
        Class::Opaque => out.push(Leaf::Buffer(v)),
        Class::Const => {}
        Class::View(vm) => {
            if let Some(Value::Tensor(x)) = g.nodes()[nid.0 as usize].args.first() {
                leaves_at(g, p, *x, &vm.compose(map), out, seen, false);
            }
        }
        Class::Pointwise => {
            let shape = &g.value(v).meta.shape;
            let inputs: Vec<ValueId> = g.nodes()[nid.0 as usize].inputs().collect();
            for u in inputs {
                let m = index_map::broadcast(&g.value(u).meta.shape, shape).compose(map);
                leaves_at(g, p, u, &m, out, seen, false);
            }
        }
    }
}

/// Classifies, picks buffers, and groups kernels.
pub fn plan(g: &Graph) -> Plan {
    let classes: Vec<Class> = (0..g.nodes().len())
        .map(|i| classify(g, NodeId(i as u32)))
        .collect();
    let mut producer = HashMap::new();
    for (i, n) in g.nodes().iter().enumerate() {
        for &o in &n.outputs {
            producer.insert(o, NodeId(i as u32));
        }
    }
    let mut materialized: HashSet<ValueId> = g.outputs().iter().copied().collect();
    for (i, n) in g.nodes().iter().enumerate() {
        if matches!(classes[i], Class::Opaque) {
            materialized.extend(n.inputs());
            materialized.extend(n.outputs.iter().copied());
        }
    }
    // A materialised view is computed by its eager kernel on a real tensor, so its input needs a
    // buffer too (transitively through chains of views); so does a materialised creation op's
    // (`ones_like(x + 1)` as an output runs `ones_like`'s eager kernel on `x + 1`).
    for (i, n) in g.nodes().iter().enumerate().rev() {
        if matches!(classes[i], Class::View(_) | Class::Const)
            && materialized.contains(&n.outputs[0])
        {
            materialized.extend(n.inputs());
        }
    }
    let mut p = Plan {
        classes,
        producer,
        materialized,
        steps: Vec::new(),
    };
    group(g, &mut p);
    p
}

/// Step position of each value's producer (graph inputs: none).
fn group(g: &Graph, p: &mut Plan) {
    let mut pos: HashMap<ValueId, usize> = HashMap::new();
    let mut red_kernel: HashMap<ValueId, (usize, usize)> = HashMap::new();
    for (i, n) in g.nodes().iter().enumerate() {
        let id = NodeId(i as u32);
        let v = n.outputs.first().copied();
        match p.classes[i].clone() {
            Class::Opaque => {
                p.steps.push(StepPlan::Node(id));
                for &o in &n.outputs {
                    pos.insert(o, p.steps.len() - 1);
                }
            }
            Class::View(_) if v.is_some_and(|v| p.materialized.contains(&v)) => {
                p.steps.push(StepPlan::Node(id));
                pos.insert(n.outputs[0], p.steps.len() - 1);
            }
            Class::Const if v.is_some_and(|v| p.materialized.contains(&v)) => {
                p.steps.push(StepPlan::Node(id));
                pos.insert(n.outputs[0], p.steps.len() - 1);
            }
            Class::Reduction(info) => {
                let v = n.outputs[0];
                let domain = g.value(info.input).meta.shape.clone();
                let map = Map::identity(domain.len());
                let (k, phase) = place(
                    g,
                    p,
                    &pos,
                    &red_kernel,
                    info.input,
                    &map,
                    &domain,
                    Some(&info.reduced),
                );
                if let StepPlan::Kernel(kp) = &mut p.steps[k] {
                    kp.reductions.push((v, phase));
                }
                pos.insert(v, k);
                red_kernel.insert(v, (k, phase));
            }
            Class::Pointwise if v.is_some_and(|v| p.materialized.contains(&v)) => {
                let v = n.outputs[0];
                let domain = g.value(v).meta.shape.clone();
                let map = Map::identity(domain.len());
                let (k, phase) = place(g, p, &pos, &red_kernel, v, &map, &domain, None);
                if let StepPlan::Kernel(kp) = &mut p.steps[k] {
                    kp.stores.push((v, phase));
                }
                pos.insert(v, k);
            }
            _ => {}
        }
    }
}

/// Finds (or opens) the kernel for the expression of `v` over `domain`; returns it and the phase.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site; a struct would only rename them"
)]
fn place(
    g: &Graph,
    p: &mut Plan,
    pos: &HashMap<ValueId, usize>,
    red_kernel: &HashMap<ValueId, (usize, usize)>,
    v: ValueId,
    map: &Map,
    domain: &[usize],
    reduced: Option<&[bool]>,
) -> (usize, usize) {
    let mut ls = Vec::new();
    leaves(g, p, v, map, &mut ls, &mut HashSet::new());
    let want_reduced: Vec<bool> =
        reduced.map_or_else(|| vec![false; domain.len()], <[bool]>::to_vec);
    'kernels: for k in (0..p.steps.len()).rev() {
        let StepPlan::Kernel(kp) = &p.steps[k] else {
            continue;
        };
        let has_red = !kp.reductions.is_empty();
        if kp.domain != domain || (reduced.is_some() && has_red && kp.reduced != want_reduced) {
            continue;
        }
        let mut phase = 0;
        for l in &ls {
            match l {
                Leaf::Buffer(b) => {
                    if pos.get(b).is_some_and(|&s| s >= k) {
                        continue 'kernels;
                    }
                }
                Leaf::Stored(b, m) => match pos.get(b) {
                    Some(&s) if s == k => {
                        let StepPlan::Kernel(kp) = &p.steps[k] else {
                            continue 'kernels;
                        };
                        let shape = &g.value(*b).meta.shape;
                        if !m.same_on(&Map::identity(shape.len()), shape) {
                            continue 'kernels;
                        }
                        let sp = kp.stores.iter().find(|(x, _)| x == b).map_or(0, |s| s.1);
                        phase = phase.max(sp);
                    }
                    Some(&s) if s > k => continue 'kernels,
                    _ => {}
                },
                Leaf::Reduction(r, m) => match red_kernel.get(r) {
                    Some(&(rk, rphase)) if rk == k => {
                        let info = reduce_info(p, g, *r);
                        let canon =
                            index_map::reduction_output(domain.len(), &kp.reduced, info.keepdim);
                        if kp.reduced.len() != info.reduced.len()
                            || kp.reduced != info.reduced
                            || !m.same_on(&canon, &g.value(*r).meta.shape)
                        {
                            continue 'kernels;
                        }
                        phase = phase.max(rphase + 1);
                    }
                    Some(&(rk, _)) if rk > k => continue 'kernels,
                    _ => {}
                },
            }
        }
        // Reductions of other kernels are read from their buffers.
        mark_reduction_buffers(p, &ls, red_kernel, k);
        if let (Some(r), StepPlan::Kernel(kp)) = (reduced, &mut p.steps[k]) {
            kp.reduced = r.to_vec();
        }
        return (k, phase);
    }
    let k = p.steps.len();
    mark_reduction_buffers(p, &ls, red_kernel, k);
    p.steps.push(StepPlan::Kernel(KernelPlan {
        domain: domain.to_vec(),
        reduced: want_reduced,
        ..KernelPlan::default()
    }));
    (k, 0)
}

fn mark_reduction_buffers(
    p: &mut Plan,
    ls: &[Leaf],
    red_kernel: &HashMap<ValueId, (usize, usize)>,
    k: usize,
) {
    for l in ls {
        if let Leaf::Reduction(r, _) = l
            && red_kernel.get(r).is_some_and(|&(rk, _)| rk != k)
        {
            p.materialized.insert(*r);
        }
    }
}

/// The reduction info of a reduction output.
pub fn reduce_info(p: &Plan, _g: &Graph, v: ValueId) -> ReduceInfo {
    match &p.classes[p.producer[&v].0 as usize] {
        Class::Reduction(i) => i.clone(),
        _ => unreachable!("invariant: leaves of kind Reduction come from reduction nodes"),
    }
}

/// Whether a graph contains anything that mutates (then it runs eagerly, node by node).
pub fn has_mutation(g: &Graph) -> bool {
    g.nodes()
        .iter()
        .any(|n| n.op.flags().contains(OpFlags::INPLACE))
}
