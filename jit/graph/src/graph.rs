//! The graph IR: SSA values with metas, nodes that apply an [`Op`], graph inputs and outputs.
//! Values and nodes live in flat arenas indexed by newtype ids; there are no shared pointers.

use std::collections::{HashMap, HashSet};
use std::fmt;

use rynamo_tensor::TensorMeta;

use crate::{Arg, Error, MetaValue, Op, Result, Value};

/// Index of a value (a tensor) in a [`Graph`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

/// Index of a node in a [`Graph`] (its position in execution order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl fmt::Display for ValueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%v{}", self.0)
    }
}

/// A value's name and meta.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueInfo {
    /// Name in the text format (without `%`).
    pub name: String,
    /// Dtype, shape and strides.
    pub meta: TensorMeta,
}

/// One op application.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The op.
    pub op: Op,
    /// Bound arguments, one per schema parameter, tensors as value ids.
    pub args: Vec<Arg>,
    /// The values it defines.
    pub outputs: Vec<ValueId>,
}

impl Node {
    /// The tensor values the node reads.
    pub fn inputs(&self) -> impl Iterator<Item = ValueId> + '_ {
        self.args
            .iter()
            .flat_map(|a| a.tensors().into_iter().copied())
    }
}

/// A captured tensor program in SSA form.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    values: Vec<ValueInfo>,
    nodes: Vec<Node>,
    inputs: Vec<ValueId>,
    outputs: Vec<ValueId>,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Graph {
        Graph::default()
    }

    /// Adds a value without defining it (the caller makes it an input or a node output).
    pub fn add_value(&mut self, name: impl Into<String>, meta: TensorMeta) -> ValueId {
        let id = ValueId(self.values.len() as u32);
        self.values.push(ValueInfo {
            name: name.into(),
            meta,
        });
        id
    }

    /// Adds a graph input.
    pub fn add_input(&mut self, name: impl Into<String>, meta: TensorMeta) -> ValueId {
        let id = self.add_value(name, meta);
        self.inputs.push(id);
        id
    }

    /// Appends a node whose output values already exist. No checks: see [`crate::verify`] and
    /// [`GraphBuilder`] for the checked path.
    pub fn push_node(&mut self, op: Op, args: Vec<Arg>, outputs: Vec<ValueId>) -> NodeId {
        self.nodes.push(Node { op, args, outputs });
        NodeId(self.nodes.len() as u32 - 1)
    }

    /// Sets the graph outputs.
    pub fn set_outputs(&mut self, outputs: Vec<ValueId>) {
        self.outputs = outputs;
    }

    /// Value info; errors for an id not in this graph.
    pub fn try_value(&self, id: ValueId) -> Result<&ValueInfo> {
        self.values
            .get(id.0 as usize)
            .ok_or_else(|| Error::Graph(format!("value {id} is not in the graph")))
    }

    /// Value info. Panics on a foreign id (a caller bug; use [`Graph::try_value`] for untrusted ids).
    pub fn value(&self, id: ValueId) -> &ValueInfo {
        &self.values[id.0 as usize]
    }

    /// All values (including any no node or input defines).
    pub fn values(&self) -> &[ValueInfo] {
        &self.values
    }

    /// Nodes in execution order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Mutable nodes (passes).
    pub fn nodes_mut(&mut self) -> &mut Vec<Node> {
        &mut self.nodes
    }

    /// Graph inputs in order.
    pub fn inputs(&self) -> &[ValueId] {
        &self.inputs
    }

    /// Graph outputs in order.
    pub fn outputs(&self) -> &[ValueId] {
        &self.outputs
    }

    /// Metas of a node's arguments, for running meta rules.
    pub fn arg_metas(&self, args: &[Arg]) -> Result<Vec<MetaValue>> {
        args.iter()
            .map(|a| a.try_map(|v| self.try_value(*v).map(|i| i.meta.clone())))
            .collect()
    }

    /// Rewrites every use (node arguments and graph outputs) of a key of `map` to its value.
    pub fn replace_uses(&mut self, map: &HashMap<ValueId, ValueId>) {
        let sub = |v: &ValueId| Ok::<_, ()>(*map.get(v).unwrap_or(v));
        for n in &mut self.nodes {
            for a in &mut n.args {
                *a = a.try_map(sub).expect("invariant: infallible map");
            }
        }
        for o in &mut self.outputs {
            *o = *map.get(o).unwrap_or(o);
        }
    }

    /// The same program for inputs of other shapes: the inputs take `input_metas` and every
    /// node's outputs are re-inferred by its meta rule, in order (a graph traced with dynamic
    /// dimensions, instantiated for one call's sizes). Errors when the arity differs, when a meta
    /// rule rejects the new shapes, or when a node would now define a different number of values
    /// (`split` into more pieces): the graph is not valid for these shapes.
    pub fn with_input_metas(&self, input_metas: &[TensorMeta]) -> Result<Graph> {
        if input_metas.len() != self.inputs.len() {
            return Err(Error::Graph(format!(
                "{} input shapes for a graph of {} inputs",
                input_metas.len(),
                self.inputs.len()
            )));
        }
        let mut g = self.clone();
        for (v, m) in self.inputs.iter().zip(input_metas) {
            g.values[v.0 as usize].meta = m.clone();
        }
        for i in 0..g.nodes.len() {
            let (op, outs) = (g.nodes[i].op, g.nodes[i].outputs.clone());
            let metas = crate::registry::meta(op, &g.arg_metas(&g.nodes[i].args)?)?;
            if metas.len() != outs.len() {
                return Err(Error::Graph(format!(
                    "{} now defines {} values instead of {}",
                    op.py_name(),
                    metas.len(),
                    outs.len()
                )));
            }
            for (o, m) in outs.iter().zip(metas) {
                g.values[o.0 as usize].meta = m;
            }
        }
        Ok(g)
    }

    /// Drops values that no input or node defines and renumbers the rest (ids change).
    pub fn compact(&mut self) {
        let mut live: Vec<ValueId> = self.inputs.clone();
        live.extend(self.nodes.iter().flat_map(|n| n.outputs.iter().copied()));
        let mut map = HashMap::new();
        let mut values = Vec::with_capacity(live.len());
        for (i, v) in live.iter().enumerate() {
            map.insert(*v, ValueId(i as u32));
            values.push(self.values[v.0 as usize].clone());
        }
        self.values = values;
        let sub = |v: &ValueId| Ok::<_, ()>(*map.get(v).unwrap_or(v));
        for n in &mut self.nodes {
            for a in &mut n.args {
                *a = a.try_map(sub).expect("invariant: infallible map");
            }
            for o in &mut n.outputs {
                *o = map[o];
            }
        }
        for v in self.inputs.iter_mut().chain(self.outputs.iter_mut()) {
            *v = *map.get(v).unwrap_or(v);
        }
    }
}

/// Builds a graph op by op, running each op's meta rule: what Dynamo calls while tracing.
#[derive(Debug, Default)]
pub struct GraphBuilder {
    g: Graph,
    names: HashSet<String>,
    next: usize,
    /// Prefix of generated names (`jit` in passes that rewrite a graph).
    prefix: &'static str,
}

impl GraphBuilder {
    /// An empty builder.
    pub fn new() -> GraphBuilder {
        GraphBuilder::default()
    }

    fn fresh(&mut self, hint: Option<&str>) -> String {
        if let Some(h) = hint
            && self.names.insert(h.to_string())
        {
            return h.to_string();
        }
        loop {
            let n = match hint {
                Some(h) => format!("{h}_{}", self.next),
                None => format!("{}{}", self.prefix, self.next),
            };
            self.next += 1;
            if self.names.insert(n.clone()) {
                return n;
            }
        }
    }

    /// A builder for rewriting `old`: its graph starts with `old`'s inputs (same names and metas),
    /// its generated names (`jit0`, `jit1`, ...) avoid every name `old` uses, and the map takes
    /// `old`'s inputs to the new ones (a pass extends it as it copies or replaces nodes).
    pub fn rewriting(old: &Graph) -> (GraphBuilder, HashMap<ValueId, ValueId>) {
        let mut b = GraphBuilder {
            prefix: "jit",
            ..GraphBuilder::default()
        };
        b.names.extend(old.values.iter().map(|v| v.name.clone()));
        let mut map = HashMap::new();
        for &i in old.inputs() {
            let info = old.value(i);
            map.insert(i, b.g.add_input(info.name.clone(), info.meta.clone()));
        }
        (b, map)
    }

    /// Appends `op(args)` whose outputs keep the given names and metas (a node copied from the
    /// graph being rewritten; no meta rule runs).
    pub fn push_copied(&mut self, op: Op, args: Vec<Arg>, outputs: &[ValueInfo]) -> Vec<ValueId> {
        let outs: Vec<ValueId> = outputs
            .iter()
            .map(|o| {
                self.names.insert(o.name.clone());
                self.g.add_value(o.name.clone(), o.meta.clone())
            })
            .collect();
        self.g.push_node(op, args, outs.clone());
        outs
    }

    /// Drops the nodes after the first `len` (a rewrite that did not apply; their values stay
    /// until [`Graph::compact`]).
    pub fn truncate_nodes(&mut self, len: usize) {
        self.g.nodes.truncate(len);
    }

    /// Adds a graph input (renamed with a suffix if the name is taken).
    pub fn input(&mut self, name: &str, meta: TensorMeta) -> ValueId {
        let n = self.fresh(Some(name));
        self.g.add_input(n, meta)
    }

    /// Appends `op(args)` with bound arguments; returns its outputs, whose metas come from the meta
    /// rule. Errors (bad shapes, dtypes, data-dependent shapes) leave the graph unchanged.
    pub fn call(&mut self, op: Op, args: Vec<Arg>) -> Result<Vec<ValueId>> {
        let metas = crate::registry::meta(op, &self.g.arg_metas(&args)?)?;
        let outs = metas
            .into_iter()
            .map(|m| {
                let n = self.fresh(None);
                self.g.add_value(n, m)
            })
            .collect::<Vec<_>>();
        self.g.push_node(op, args, outs.clone());
        Ok(outs)
    }

    /// Like [`GraphBuilder::call`], binding Python-style arguments first.
    pub fn call_py(
        &mut self,
        op: Op,
        positional: Vec<Arg>,
        kwargs: Vec<(String, Arg)>,
    ) -> Result<Vec<ValueId>> {
        let args = op.schema().bind(positional, kwargs)?;
        self.call(op, args)
    }

    /// The meta of a value.
    pub fn meta(&self, v: ValueId) -> &TensorMeta {
        &self.g.value(v).meta
    }

    /// The graph so far.
    pub fn graph(&self) -> &Graph {
        &self.g
    }

    /// Sets the outputs and returns the graph.
    pub fn finish(mut self, outputs: Vec<ValueId>) -> Graph {
        self.g.set_outputs(outputs);
        self.g
    }
}

/// Converts a value's tensors to names for printing.
pub(crate) fn named<'g>(g: &'g Graph, a: &Arg) -> Value<Name<'g>> {
    a.try_map(|v| {
        Ok::<_, ()>(Name(
            g.values.get(v.0 as usize).map_or("?", |i| i.name.as_str()),
        ))
    })
    .expect("invariant: infallible map")
}

/// A value reference in graph text: `%name`.
pub(crate) struct Name<'a>(pub &'a str);

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

#[cfg(test)]
mod with_input_metas_tests {
    use rynamo_tensor::DType;

    use super::*;

    fn meta(shape: &[usize]) -> TensorMeta {
        TensorMeta::contiguous(DType::Float32, shape)
    }

    #[test]
    fn reinfers_every_node_for_new_input_shapes() {
        let mut b = GraphBuilder::new();
        let x = b.input("x", meta(&[3, 4]));
        let r = b.call_py(Op::Relu, vec![Value::Tensor(x)], vec![]).unwrap()[0];
        let s = b
            .call_py(
                Op::Sum,
                vec![Value::Tensor(r), Value::IntList(vec![0])],
                vec![],
            )
            .unwrap()[0];
        let g = b.finish(vec![s]);
        let g7 = g.with_input_metas(&[meta(&[7, 4])]).unwrap();
        assert_eq!(g7.value(r).meta.shape, vec![7, 4]);
        assert_eq!(g7.value(s).meta.shape, vec![4]);
        assert_eq!(
            g.value(r).meta.shape,
            vec![3, 4],
            "the template is unchanged"
        );
        assert!(g.with_input_metas(&[]).is_err());
    }

    #[test]
    fn rejects_a_node_whose_output_count_changes() {
        let mut b = GraphBuilder::new();
        let x = b.input("x", meta(&[4, 2]));
        let parts = b
            .call_py(Op::Split, vec![Value::Tensor(x), Value::Int(2)], vec![])
            .unwrap();
        assert_eq!(parts.len(), 2);
        let g = b.finish(parts);
        assert!(g.with_input_metas(&[meta(&[4, 2])]).is_ok());
        let err = g.with_input_metas(&[meta(&[6, 2])]).unwrap_err();
        assert!(err.to_string().contains("instead of 2"), "{err}");
    }
}
