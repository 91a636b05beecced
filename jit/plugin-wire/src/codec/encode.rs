//! Graph to wire bytes.

use rynamo_graph::{Arg, Graph, Value, ValueId, ValueInfo};
use rynamo_plugin_abi::RYNAMO_GRAPH_WIRE_VERSION;
use rynamo_tensor::{IndexItem, Scalar};

use super::*;
use crate::{Error, Result};

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len32(&mut self, n: usize, what: &str) -> Result<()> {
        let n = u32::try_from(n).map_err(|_| Error::Encode(format!("{what}: {n} is too many")))?;
        self.u32(n);
        Ok(())
    }
}

/// Encodes `g`, renumbering its values in wire order (inputs, then node outputs). Fails when a
/// value is used before it is defined or defined twice (run `rynamo_graph::verify` first for a full
/// diagnosis).
pub fn encode(g: &Graph) -> Result<Vec<u8>> {
    // Wire ids: inputs first, then node outputs in node order.
    let mut id: Vec<Option<u32>> = vec![None; g.values().len()];
    let mut order: Vec<&ValueInfo> = Vec::with_capacity(g.values().len());
    for &v in g.inputs() {
        define(g, &mut id, &mut order, v)?;
    }
    // Node outputs are numbered as the nodes are written; uses are checked then.
    let mut defs = Vec::with_capacity(g.nodes().len());
    for n in g.nodes() {
        for &o in &n.outputs {
            define(g, &mut id, &mut order, o)?;
        }
        defs.push(order.len());
    }
    let mut w = Writer(Vec::with_capacity(64 + 32 * order.len()));
    w.0.extend_from_slice(&MAGIC);
    w.u32(RYNAMO_GRAPH_WIRE_VERSION);
    w.len32(order.len(), "values")?;
    w.len32(g.inputs().len(), "inputs")?;
    w.len32(g.nodes().len(), "nodes")?;
    w.len32(g.outputs().len(), "outputs")?;
    for info in &order {
        let m = &info.meta;
        w.u8(dtype_code(m.dtype));
        let ndim = u8::try_from(m.shape.len())
            .map_err(|_| Error::Encode(format!("%{} has more than 255 dims", info.name)))?;
        w.u8(ndim);
        let name = info.name.as_bytes();
        let name = &name[..name.len().min(u16::MAX as usize)];
        w.u16(name.len() as u16);
        w.0.extend_from_slice(name);
        for &s in &m.shape {
            w.i64(s as i64);
        }
        for &s in &m.strides {
            w.i64(s as i64);
        }
    }
    let mut first_out = g.inputs().len();
    for (k, n) in g.nodes().iter().enumerate() {
        // A node may use only values numbered below its first output.
        let wire = |v: &ValueId| -> Result<u32> {
            match id.get(v.0 as usize).copied().flatten() {
                Some(i) if (i as usize) < first_out => Ok(i),
                _ => Err(Error::Encode(format!(
                    "node {k} (`{}`) uses {v} before it is defined",
                    n.op
                ))),
            }
        };
        w.u16(n.op.id());
        let nargs = u16::try_from(n.args.len())
            .map_err(|_| Error::Encode(format!("node {k} has too many arguments")))?;
        w.u16(nargs);
        for a in &n.args {
            write_arg(&mut w, a, &wire)?;
        }
        w.len32(n.outputs.len(), "node outputs")?;
        first_out = defs[k];
    }
    for o in g.outputs() {
        match id.get(o.0 as usize).copied().flatten() {
            Some(i) => w.u32(i),
            None => return Err(Error::Encode(format!("graph output {o} is not defined"))),
        }
    }
    Ok(w.0)
}

/// Gives `v` the next wire id.
fn define<'g>(
    g: &'g Graph,
    id: &mut [Option<u32>],
    order: &mut Vec<&'g ValueInfo>,
    v: ValueId,
) -> Result<()> {
    let info = g
        .try_value(v)
        .map_err(|_| Error::Encode(format!("{v} is not a value of the graph")))?;
    let slot = &mut id[v.0 as usize];
    if slot.is_some() {
        return Err(Error::Encode(format!("%{} is defined twice", info.name)));
    }
    *slot = Some(order.len() as u32);
    order.push(info);
    Ok(())
}

fn write_arg(w: &mut Writer, a: &Arg, wire: &dyn Fn(&ValueId) -> Result<u32>) -> Result<()> {
    match a {
        Value::None => w.u8(ARG_NONE),
        Value::Tensor(t) => {
            w.u8(ARG_TENSOR);
            w.u32(wire(t)?);
        }
        Value::TensorList(ts) => {
            w.u8(ARG_TENSOR_LIST);
            w.len32(ts.len(), "tensor list")?;
            for t in ts {
                w.u32(wire(t)?);
            }
        }
        Value::Scalar(s) => {
            w.u8(ARG_SCALAR);
            match s {
                Scalar::Bool(b) => {
                    w.u8(SCALAR_BOOL);
                    w.u8(*b as u8);
                }
                Scalar::Int(i) => {
                    w.u8(SCALAR_INT);
                    w.i64(*i);
                }
                Scalar::Float(x) => {
                    w.u8(SCALAR_FLOAT);
                    w.f64(*x);
                }
            }
        }
        Value::Int(i) => {
            w.u8(ARG_INT);
            w.i64(*i);
        }
        Value::IntList(v) => {
            w.u8(ARG_INT_LIST);
            w.len32(v.len(), "int list")?;
            for &i in v {
                w.i64(i);
            }
        }
        Value::Float(x) => {
            w.u8(ARG_FLOAT);
            w.f64(*x);
        }
        Value::Bool(b) => {
            w.u8(ARG_BOOL);
            w.u8(*b as u8);
        }
        Value::Str(s) => {
            w.u8(ARG_STR);
            w.len32(s.len(), "string")?;
            w.0.extend_from_slice(s.as_bytes());
        }
        Value::DType(d) => {
            w.u8(ARG_DTYPE);
            w.u8(dtype_code(*d));
        }
        Value::Index(items) => {
            w.u8(ARG_INDEX);
            w.len32(items.len(), "index")?;
            for it in items {
                match it {
                    IndexItem::Int(i) => {
                        w.u8(INDEX_INT);
                        w.i64(*i);
                    }
                    IndexItem::Slice { start, stop, step } => {
                        w.u8(INDEX_SLICE);
                        let parts = [start, stop, step];
                        let mask = parts
                            .iter()
                            .enumerate()
                            .fold(0u8, |m, (i, p)| m | ((p.is_some() as u8) << i));
                        w.u8(mask);
                        for p in parts.into_iter().flatten() {
                            w.i64(*p);
                        }
                    }
                    IndexItem::None => w.u8(INDEX_NONE),
                    IndexItem::Ellipsis => w.u8(INDEX_ELLIPSIS),
                    IndexItem::Bool(b) => {
                        w.u8(INDEX_BOOL);
                        w.u8(*b as u8);
                    }
                    IndexItem::Tensor(t) => {
                        w.u8(INDEX_TENSOR);
                        w.u32(wire(t)?);
                    }
                }
            }
        }
    }
    Ok(())
}
