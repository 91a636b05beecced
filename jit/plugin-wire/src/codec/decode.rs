//! Wire bytes to graph, checking every count, id and tag.

use rynamo_graph::{Arg, Graph, Op, Value, ValueId, ValueInfo};
use rynamo_plugin_abi::RYNAMO_GRAPH_WIRE_VERSION;
use rynamo_tensor::{IndexItem, Scalar, TensorMeta};

use super::*;
use crate::{Error, Result};

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        let rest = self.b.len() - self.pos;
        if rest < n {
            return Err(Error::Truncated {
                at: self.pos,
                what,
                need: n - rest,
            });
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn arr<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        Ok(self
            .take(N, what)?
            .try_into()
            .expect("invariant: take returned N bytes"))
    }
    fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.arr::<1>(what)?[0])
    }
    fn u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.arr(what)?))
    }
    fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.arr(what)?))
    }
    fn i64(&mut self, what: &'static str) -> Result<i64> {
        Ok(i64::from_le_bytes(self.arr(what)?))
    }
    fn f64(&mut self, what: &'static str) -> Result<f64> {
        Ok(f64::from_le_bytes(self.arr(what)?))
    }
    fn bool(&mut self, what: &'static str) -> Result<bool> {
        let at = self.pos;
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(self.bad(at, format!("{what}: bool byte {v}"))),
        }
    }
    /// A count of items of at least `min_item` bytes each, checked against the bytes left so a
    /// hostile count cannot make us allocate.
    fn count(&mut self, what: &'static str, min_item: usize) -> Result<usize> {
        let at = self.pos;
        let n = self.u32(what)? as usize;
        if n.saturating_mul(min_item) > self.b.len() - self.pos {
            return Err(self.bad(at, format!("{what}: count {n} exceeds the bytes left")));
        }
        Ok(n)
    }
    fn bad(&self, at: usize, msg: String) -> Error {
        Error::Malformed { at, msg }
    }
}

/// Reads and checks the header only (magic and version).
pub fn header(bytes: &[u8]) -> Result<Header> {
    let mut r = Reader { b: bytes, pos: 0 };
    read_header(&mut r)
}

fn read_header(r: &mut Reader<'_>) -> Result<Header> {
    if r.arr::<4>("magic")? != MAGIC {
        return Err(Error::BadMagic);
    }
    let version = r.u32("version")?;
    if version != RYNAMO_GRAPH_WIRE_VERSION {
        return Err(Error::Version {
            found: version,
            supported: RYNAMO_GRAPH_WIRE_VERSION,
        });
    }
    Ok(Header {
        version,
        num_values: r.u32("num_values")?,
        num_inputs: r.u32("num_inputs")?,
        num_nodes: r.u32("num_nodes")?,
        num_outputs: r.u32("num_outputs")?,
    })
}

/// Decodes a wire graph. Checks framing, ids and define-before-use; run `rynamo_graph::verify` on
/// the result for schema and meta checks.
pub fn decode(bytes: &[u8]) -> Result<Graph> {
    let mut r = Reader { b: bytes, pos: 0 };
    let h = read_header(&mut r)?;
    let left = bytes.len() - r.pos;
    // Every value takes at least 4 bytes, every node 8, every output 4: cap counts by the bytes.
    if h.num_values as usize > left / 4 || h.num_nodes as usize > left / 8 {
        return Err(r.bad(8, "counts exceed the bytes present".into()));
    }
    if h.num_inputs > h.num_values {
        return Err(r.bad(12, "more inputs than values".into()));
    }
    let mut values = Vec::with_capacity(h.num_values as usize);
    for _ in 0..h.num_values {
        values.push(read_value(&mut r)?);
    }
    let mut g = Graph::new();
    for v in values.iter().take(h.num_inputs as usize) {
        g.add_input(v.name.clone(), v.meta.clone());
    }
    let mut defined = h.num_inputs as usize;
    for k in 0..h.num_nodes as usize {
        let at = r.pos;
        let id = r.u16("op")?;
        let op = Op::from_id(id).ok_or(Error::UnknownOp {
            node: k,
            id,
            known: Op::ALL.len(),
        })?;
        let nargs = r.u16("num_args")?;
        let mut args = Vec::with_capacity(nargs as usize);
        for _ in 0..nargs {
            args.push(read_arg(&mut r, defined)?);
        }
        let nout = r.count("num_outputs", 0)?;
        if defined + nout > values.len() {
            return Err(r.bad(at, format!("node {k} defines values past num_values")));
        }
        let outs = (defined..defined + nout)
            .map(|i| g.add_value(values[i].name.clone(), values[i].meta.clone()))
            .collect();
        defined += nout;
        g.push_node(op, args, outs);
    }
    if defined != values.len() {
        return Err(r.bad(
            r.pos,
            format!("{} values are never defined", values.len() - defined),
        ));
    }
    let mut outputs = Vec::with_capacity(h.num_outputs.min(left as u32 / 4) as usize);
    for _ in 0..h.num_outputs {
        outputs.push(value_id(&mut r, defined, "output id")?);
    }
    g.set_outputs(outputs);
    if r.pos != bytes.len() {
        return Err(r.bad(r.pos, format!("{} trailing bytes", bytes.len() - r.pos)));
    }
    Ok(g)
}

fn read_value(r: &mut Reader<'_>) -> Result<ValueInfo> {
    let at = r.pos;
    let code = r.u8("dtype")?;
    let dtype = dtype_from_code(code).ok_or_else(|| r.bad(at, format!("dtype code {code}")))?;
    let ndim = r.u8("ndim")? as usize;
    let name_len = r.u16("name_len")? as usize;
    let name = std::str::from_utf8(r.take(name_len, "name")?)
        .map_err(|_| r.bad(at, "value name is not UTF-8".into()))?
        .to_string();
    let mut shape = Vec::with_capacity(ndim);
    for _ in 0..ndim {
        let s = r.i64("size")?;
        shape.push(usize::try_from(s).map_err(|_| r.bad(at, format!("negative size {s}")))?);
    }
    let mut strides = Vec::with_capacity(ndim);
    for _ in 0..ndim {
        let s = r.i64("stride")?;
        strides.push(isize::try_from(s).map_err(|_| r.bad(at, format!("stride {s}")))?);
    }
    Ok(ValueInfo {
        name,
        meta: TensorMeta {
            dtype,
            shape,
            strides,
        },
    })
}

fn value_id(r: &mut Reader<'_>, defined: usize, what: &'static str) -> Result<ValueId> {
    let at = r.pos;
    let v = r.u32(what)?;
    if v as usize >= defined {
        return Err(r.bad(at, format!("{what} {v} is not defined yet")));
    }
    Ok(ValueId(v))
}

fn read_arg(r: &mut Reader<'_>, defined: usize) -> Result<Arg> {
    let at = r.pos;
    Ok(match r.u8("arg tag")? {
        ARG_NONE => Value::None,
        ARG_TENSOR => Value::Tensor(value_id(r, defined, "tensor id")?),
        ARG_TENSOR_LIST => {
            let n = r.count("tensor list", 4)?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(value_id(r, defined, "tensor id")?);
            }
            Value::TensorList(v)
        }
        ARG_SCALAR => {
            let at = r.pos;
            Value::Scalar(match r.u8("scalar kind")? {
                SCALAR_BOOL => Scalar::Bool(r.bool("scalar")?),
                SCALAR_INT => Scalar::Int(r.i64("scalar")?),
                SCALAR_FLOAT => Scalar::Float(r.f64("scalar")?),
                k => return Err(r.bad(at, format!("scalar kind {k}"))),
            })
        }
        ARG_INT => Value::Int(r.i64("int")?),
        ARG_INT_LIST => {
            let n = r.count("int list", 8)?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(r.i64("int")?);
            }
            Value::IntList(v)
        }
        ARG_FLOAT => Value::Float(r.f64("float")?),
        ARG_BOOL => Value::Bool(r.bool("bool")?),
        ARG_STR => {
            let n = r.count("string", 1)?;
            let s = std::str::from_utf8(r.take(n, "string")?)
                .map_err(|_| r.bad(at, "string is not UTF-8".into()))?;
            Value::Str(s.to_string())
        }
        ARG_DTYPE => {
            let c = r.u8("dtype")?;
            Value::DType(dtype_from_code(c).ok_or_else(|| r.bad(at, format!("dtype code {c}")))?)
        }
        ARG_INDEX => {
            let n = r.count("index", 1)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(read_index_item(r, defined)?);
            }
            Value::Index(items)
        }
        t => return Err(r.bad(at, format!("argument tag {t}"))),
    })
}

fn read_index_item(r: &mut Reader<'_>, defined: usize) -> Result<IndexItem<ValueId>> {
    let at = r.pos;
    Ok(match r.u8("index kind")? {
        INDEX_INT => IndexItem::Int(r.i64("index")?),
        INDEX_SLICE => {
            let mask = r.u8("slice mask")?;
            if mask & !7 != 0 {
                return Err(r.bad(at, format!("slice mask {mask:#x}")));
            }
            let mut part = |bit: u8| -> Result<Option<i64>> {
                if mask & bit != 0 {
                    r.i64("slice part").map(Some)
                } else {
                    Ok(None)
                }
            };
            let (start, stop, step) = (part(1)?, part(2)?, part(4)?);
            IndexItem::Slice { start, stop, step }
        }
        INDEX_NONE => IndexItem::None,
        INDEX_ELLIPSIS => IndexItem::Ellipsis,
        INDEX_BOOL => IndexItem::Bool(r.bool("index bool")?),
        INDEX_TENSOR => IndexItem::Tensor(value_id(r, defined, "index tensor id")?),
        k => return Err(r.bad(at, format!("index kind {k}"))),
    })
}
