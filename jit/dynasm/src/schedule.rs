//! Scheduling: turns each fused group into a loop-IR kernel plus the geometry the runtime feeds
//! it (rows, columns, batch dims, and per-access strides), and orders the steps.
//!
//! The kernel domain is permuted to `kept dims ++ reduced dims`, dims of size 1 are dropped and
//! adjacent dims merge wherever every access allows it. The reduced dims must merge into one
//! column dim; a pointwise kernel's last dim is its column dim. The last kept dim is the row
//! dim, and any others are batch dims the runtime loops over.

use std::collections::HashMap;

use rynamo_graph::{Graph, NodeId, ValueId};

use crate::fuse::{Class, KernelPlan, Plan, StepPlan, reduce_info, ty_of};
use crate::index_map::{self, Map};
use crate::loop_ir::{Access, AccessKind, ColStride, Inst, Kernel, MAX_REDUCES, Phase, Reduce, V};
use crate::lower::{Body, ConstVal, lower_pointwise};
use crate::{Error, Result};

/// Where an access's tensor comes from and how it is laid over the kernel domain.
#[derive(Clone, Debug)]
pub struct AccessGeom {
    /// The graph value whose tensor it reads or writes.
    pub value: ValueId,
    /// Element offset from the tensor's first element.
    pub offset: isize,
    /// Element strides of the batch dims.
    pub batch: Vec<isize>,
    /// Row stride (elements).
    pub rs: isize,
    /// Column stride (elements).
    pub cs: isize,
}

/// A scheduled kernel.
#[derive(Clone, Debug)]
pub struct KernelStep {
    /// The loop IR.
    pub ir: Kernel,
    /// Values of the constants.
    pub consts: Vec<ConstVal>,
    /// Per access.
    pub geom: Vec<AccessGeom>,
    /// Values this kernel allocates and writes.
    pub outputs: Vec<ValueId>,
    /// Batch dim sizes.
    pub batch: Vec<usize>,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Graph nodes it covers (for the in-graph op counter).
    pub nodes: usize,
    /// Accesses of values parked in an output for a later phase (the store and the load; see
    /// `parking`): the streaming variant points them at a per-task row of scratch instead.
    pub parked: Vec<u32>,
}

/// One step of a compiled program.
#[derive(Clone, Debug)]
pub enum Step {
    /// A fused kernel.
    Kernel(Box<KernelStep>),
    /// A node through its eager kernel.
    Node(NodeId),
    /// `matmul`, row kernel, `matmul`, fused per matrix ([`crate::attn`]).
    Attention(Box<crate::attn::AttnStep>),
}

struct Cx<'a> {
    g: &'a Graph,
    p: &'a Plan,
    kp: &'a KernelPlan,
    body: Body,
    accesses: Vec<Access>,
    src: Vec<(ValueId, Map, AccessKind)>,
    load_idx: HashMap<(ValueId, Map), u32>,
    slots: HashMap<ValueId, (u32, usize)>,
    slot_tys: Vec<crate::loop_ir::Ty>,
    memo: HashMap<(ValueId, Map), V>,
    phase: usize,
    stored_here: HashMap<ValueId, usize>,
    /// Inline values computed in an earlier phase and parked in an output buffer of this kernel:
    /// value -> (phase that computes it, load access of the buffer).
    parked: HashMap<ValueId, (usize, u32)>,
}

impl Cx<'_> {
    fn access(&mut self, v: ValueId, map: Map, kind: AccessKind) -> Result<u32> {
        if kind == AccessKind::Load
            && let Some(&i) = self.load_idx.get(&(v, map.clone()))
        {
            return Ok(i);
        }
        let ty = ty_of(self.g.value(v).meta.dtype).ok_or_else(|| Error::Lower("dtype".into()))?;
        let i = self.accesses.len() as u32;
        self.accesses.push(Access {
            ty,
            kind,
            col: ColStride::Contig,
        });
        if kind == AccessKind::Load {
            self.load_idx.insert((v, map.clone()), i);
        }
        self.src.push((v, map, kind));
        Ok(i)
    }

    fn load(&mut self, v: ValueId, map: &Map) -> Result<V> {
        let a = self.access(v, map.clone(), AccessKind::Load)?;
        let ty = self.accesses[a as usize].ty;
        Ok(self.body.push(Inst::Load(a), ty))
    }

    fn value(&mut self, v: ValueId, map: &Map) -> Result<V> {
        if let Some(&x) = self.memo.get(&(v, map.clone())) {
            return Ok(x);
        }
        // The recursion is as deep as the longest chain of fused nodes: a Python loop unrolled
        // 2,500 times (5,000 ops) overflowed the 8 MiB main stack (issue 30). `stacker` runs the
        // rest on a fresh heap-allocated stack segment when little is left.
        let x = stacker::maybe_grow(crate::STACK_RED_ZONE, crate::STACK_SEGMENT, || {
            self.value_uncached(v, map)
        })?;
        self.memo.insert((v, map.clone()), x);
        Ok(x)
    }

    fn value_uncached(&mut self, v: ValueId, map: &Map) -> Result<V> {
        let (g, p) = (self.g, self.p);
        if let Some(&(ph, a)) = self.parked.get(&v)
            && ph < self.phase
            && *map == Map::identity(map.a.len())
        {
            let ty = self.accesses[a as usize].ty;
            return Ok(self.body.push(Inst::Load(a), ty));
        }
        let Some(&nid) = p.producer.get(&v) else {
            return self.load(v, map);
        };
        let node = &g.nodes()[nid.0 as usize];
        let shape = &g.value(v).meta.shape;
        match &p.classes[nid.0 as usize] {
            Class::Reduction(info) => {
                let canon = index_map::reduction_output(
                    self.kp.domain.len(),
                    &self.kp.reduced,
                    info.keepdim,
                );
                match self.slots.get(&v) {
                    Some(&(slot, ph))
                        if ph < self.phase
                            && info.reduced == self.kp.reduced
                            && map.same_on(&canon, shape) =>
                    {
                        let ty = self.slot_tys[slot as usize];
                        Ok(self.body.push(Inst::RowVal(slot), ty))
                    }
                    _ => self.load(v, map),
                }
            }
            Class::Opaque => self.load(v, map),
            Class::View(vm) if !p.materialized.contains(&v) => {
                let rynamo_graph::Value::Tensor(x) = node.args[0] else {
                    return Err(Error::Lower("view without input".into()));
                };
                self.value(x, &vm.compose(map))
            }
            Class::View(_) => self.load(v, map),
            Class::Pointwise | Class::Const => {
                let inline = !p.materialized.contains(&v)
                    || matches!(p.classes[nid.0 as usize], Class::Const)
                    || (self.stored_here.contains_key(&v)
                        && map.same_on(&Map::identity(shape.len()), shape));
                if !inline {
                    return self.load(v, map);
                }
                let out_shape = shape.clone();
                let map = map.clone();
                let mut err = None;
                let mut body = std::mem::take(&mut self.body);
                let mut input = |b: &mut Body, x: ValueId| -> std::result::Result<V, String> {
                    let m = index_map::broadcast(&g.value(x).meta.shape, &out_shape).compose(&map);
                    std::mem::swap(b, &mut self.body);
                    let r = self.value(x, &m);
                    std::mem::swap(b, &mut self.body);
                    r.map_err(|e| {
                        let s = e.to_string();
                        err = Some(e);
                        s
                    })
                };
                let r = lower_pointwise(&mut body, g, node, &mut input);
                self.body = body;
                match (r, err) {
                    (Ok(x), _) => Ok(x),
                    (Err(_), Some(e)) => Err(e),
                    (Err(s), None) => Err(Error::Lower(s)),
                }
            }
        }
    }
}

/// Builds the kernel of a plan.
pub fn build_kernel(g: &Graph, p: &Plan, kp: &KernelPlan) -> Result<KernelStep> {
    let nd = kp.domain.len();
    let mut cx = Cx {
        g,
        p,
        kp,
        body: Body::default(),
        accesses: Vec::new(),
        src: Vec::new(),
        load_idx: HashMap::new(),
        slots: HashMap::new(),
        slot_tys: Vec::new(),
        memo: HashMap::new(),
        phase: 0,
        stored_here: kp.stores.iter().copied().collect(),
        parked: HashMap::new(),
    };
    let parks = parking(g, p, kp);
    let id = Map::identity(nd);
    let max_phase = kp
        .reductions
        .iter()
        .chain(&kp.stores)
        .map(|x| x.1)
        .max()
        .unwrap_or(0);
    let mut phases = Vec::new();
    let mut outputs = Vec::new();
    let mut parked = Vec::new();
    for ph in 0..=max_phase {
        let reds: Vec<ValueId> = kp
            .reductions
            .iter()
            .filter(|r| r.1 == ph)
            .map(|r| r.0)
            .collect();
        let stores: Vec<ValueId> = kp
            .stores
            .iter()
            .filter(|s| s.1 == ph)
            .map(|s| s.0)
            .collect();
        // Reductions beyond what one column loop holds get column loops of their own.
        let chunks: Vec<&[ValueId]> = if reds.is_empty() {
            vec![&[]]
        } else {
            reds.chunks(MAX_REDUCES).collect()
        };
        let last = chunks.len() - 1;
        for (ci, chunk) in chunks.into_iter().enumerate() {
            cx.phase = ph;
            cx.memo.clear();
            let mut phase = Phase::default();
            let mut new_slots = Vec::new();
            for &r in chunk {
                let info = reduce_info(p, g, r);
                let x = cx.value(info.input, &id)?;
                let x = cx.body.cast(x, info.acc);
                let slot = cx.slot_tys.len() as u32;
                cx.slot_tys.push(info.acc);
                new_slots.push((r, slot));
                phase.reduces.push(Reduce {
                    op: info.op,
                    value: x,
                    slot,
                });
                if p.materialized.contains(&r) {
                    let canon = index_map::reduction_output(nd, &kp.reduced, info.keepdim);
                    let a = cx.access(r, canon, AccessKind::RowStore)?;
                    phase.row_stores.push((a, slot));
                    outputs.push(r);
                }
            }
            if ci == last {
                // Park expensive values that a later phase reads again (softmax's exp) in the
                // output buffer that phase overwrites: one L1 load instead of a recomputation.
                for &(u, out, q) in &parks {
                    if q == ph {
                        let x = cx.value(u, &id)?;
                        let a = cx.access(out, id.clone(), AccessKind::Store)?;
                        phase.stores.push((a, x));
                        let l = cx.access(out, id.clone(), AccessKind::Load)?;
                        cx.parked.insert(u, (ph, l));
                        parked.extend([a, l]);
                    }
                }
                for &s in &stores {
                    let x = cx.value(s, &id)?;
                    let a = cx.access(s, id.clone(), AccessKind::Store)?;
                    phase.stores.push((a, x));
                    outputs.push(s);
                }
            }
            phase.body = cx.body.next_phase();
            phases.push(phase);
            for (r, slot) in new_slots {
                cx.slots.insert(r, (slot, ph));
            }
        }
    }
    let ir = Kernel {
        accesses: cx.accesses,
        consts: cx.body.consts.iter().map(|c| c.ty()).collect(),
        slots: cx.slot_tys,
        phases,
    };
    let nodes = kp.reductions.len() + kp.stores.len();
    let mut k = geometry(g, kp, ir, cx.body.consts, &cx.src, outputs, nodes)?;
    k.parked = parked;
    Ok(k)
}

/// `(value, output it is parked in, phase computing it)`: a store's operand that is expensive,
/// inline, of the store's shape and dtype, and the whole input of a reduction of an earlier
/// phase (so that phase computes it anyway).
fn parking(g: &Graph, p: &Plan, kp: &KernelPlan) -> Vec<(ValueId, ValueId, usize)> {
    let mut out = Vec::new();
    for &(s, sp) in &kp.stores {
        let Some(&nid) = p.producer.get(&s) else {
            continue;
        };
        if !matches!(p.classes[nid.0 as usize], Class::Pointwise) {
            continue;
        }
        for u in g.nodes()[nid.0 as usize].inputs() {
            let (um, sm) = (&g.value(u).meta, &g.value(s).meta);
            let Some(&un) = p.producer.get(&u) else {
                continue;
            };
            let expensive = matches!(
                g.nodes()[un.0 as usize].op,
                rynamo_graph::Op::Exp
                    | rynamo_graph::Op::Tanh
                    | rynamo_graph::Op::Sin
                    | rynamo_graph::Op::Cos
                    | rynamo_graph::Op::Log
                    | rynamo_graph::Op::Sigmoid
                    | rynamo_graph::Op::Erf
            );
            if !expensive
                || p.materialized.contains(&u)
                || um.shape != sm.shape
                || um.dtype != sm.dtype
            {
                continue;
            }
            let q = kp
                .reductions
                .iter()
                .find(|&&(r, q)| q < sp && reduce_info(p, g, r).input == u)
                .map(|r| r.1);
            if let Some(q) = q
                && !out.iter().any(|&(_, o, _)| o == s)
            {
                out.push((u, s, q));
            }
        }
    }
    out
}

fn geometry(
    g: &Graph,
    kp: &KernelPlan,
    mut ir: Kernel,
    consts: Vec<ConstVal>,
    src: &[(ValueId, Map, AccessKind)],
    outputs: Vec<ValueId>,
    nodes: usize,
) -> Result<KernelStep> {
    let nd = kp.domain.len();
    let reducing = !kp.reductions.is_empty();
    // Domain strides of every access, then the permutation kept ++ reduced.
    let per: Vec<(Vec<isize>, isize)> = src
        .iter()
        .map(|(v, m, _)| m.strides(&g.value(*v).meta.strides, nd))
        .collect();
    let order: Vec<usize> = (0..nd)
        .filter(|&d| !reducing || !kp.reduced[d])
        .chain((0..nd).filter(|&d| reducing && kp.reduced[d]))
        .collect();
    // Groups: (size, strides per access, is_reduced), coalesced.
    let mut dims: Vec<(usize, Vec<isize>, bool)> = Vec::new();
    for &d in &order {
        let n = kp.domain[d];
        if n == 1 {
            continue;
        }
        let red = reducing && kp.reduced[d];
        let st: Vec<isize> = per.iter().map(|(s, _)| s[d]).collect();
        if let Some(last) = dims.last_mut()
            && last.2 == red
            && last.1.iter().zip(&st).all(|(o, i)| *o == i * n as isize)
        {
            last.0 *= n;
            last.1 = st;
            continue;
        }
        dims.push((n, st, red));
    }
    let na = src.len();
    let inner: Vec<_> = dims.iter().filter(|d| d.2).cloned().collect();
    let mut outer: Vec<_> = dims.iter().filter(|d| !d.2).cloned().collect();
    let col = if reducing {
        match inner.len() {
            0 => None,
            1 => Some(inner[0].clone()),
            _ => {
                return Err(Error::Lower(
                    "reduced dims do not coalesce for every access".into(),
                ));
            }
        }
    } else {
        outer.pop()
    };
    let row = outer.pop();
    let (cols, cs) = col.map_or((1, vec![0; na]), |c| (c.0, c.1));
    let (rows, rs) = row.map_or((1, vec![0; na]), |r| (r.0, r.1));
    let numel: usize = kp.domain.iter().product();
    // Output rows: a reduction over an empty dim still writes each of its (kept) rows, its
    // identity or NaN for a mean (`cols` is 0), so only an empty kept domain has no rows.
    let kept: usize = (0..nd)
        .filter(|&d| !reducing || !kp.reduced[d])
        .map(|d| kp.domain[d])
        .product();
    for (i, a) in ir.accesses.iter_mut().enumerate() {
        a.col = match (a.kind, cs[i]) {
            (AccessKind::RowStore, _) => ColStride::Broadcast,
            (_, _) if cols <= 1 => ColStride::Contig,
            (_, 1) => ColStride::Contig,
            (_, 0) => ColStride::Broadcast,
            _ => ColStride::Strided,
        };
        if a.kind == AccessKind::Store && a.col == ColStride::Broadcast && numel > 0 {
            return Err(Error::Lower("store with a zero column stride".into()));
        }
    }
    let geom = (0..na)
        .map(|i| AccessGeom {
            value: src[i].0,
            offset: per[i].1,
            batch: outer.iter().map(|d| d.1[i]).collect(),
            rs: rs[i],
            cs: cs[i],
        })
        .collect();
    Ok(KernelStep {
        ir,
        consts,
        geom,
        outputs,
        batch: outer.iter().map(|d| d.0).collect(),
        rows: if numel == 0 && kept == 0 { 0 } else { rows },
        cols,
        nodes,
        parked: Vec::new(),
    })
}

/// Builds every step of a plan.
pub fn schedule(g: &Graph, p: &Plan) -> Result<Vec<Step>> {
    p.steps
        .iter()
        .map(|s| match s {
            StepPlan::Node(n) => Ok(Step::Node(*n)),
            StepPlan::Kernel(kp) => build_kernel(g, p, kp).map(|k| Step::Kernel(Box::new(k))),
        })
        .collect()
}
