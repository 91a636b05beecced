//! Encoder and decoder of the graph wire format.
#![doc = include_str!("../WIRE_FORMAT.md")]

use rynamo_graph::{Arg, Graph, Op, Value, ValueId, ValueInfo};
use rynamo_plugin_abi::RYNAMO_GRAPH_WIRE_VERSION;
use rynamo_tensor::{DType, IndexItem, Scalar, TensorMeta};

use crate::{Error, Result};

/// The first four bytes of every wire graph.
pub const MAGIC: [u8; 4] = *b"RYGW";
/// Bytes before the first value.
pub const HEADER_LEN: usize = 24;

macro_rules! wire_consts {
    ($($(#[doc = $doc:literal])* $name:ident = $v:literal;)*) => {
        $( $(#[doc = $doc])* pub const $name: u8 = $v; )*
        /// Every tag, for the generated header.
        pub(crate) const TAGS: &[(&str, u8)] = &[$((stringify!($name), $v)),*];
    };
}

wire_consts! {
    /// `None`.
    ARG_NONE = 0;
    /// A tensor: `u32` value id.
    ARG_TENSOR = 1;
    /// A tensor list: `u32 n`, `u32 ids[n]`.
    ARG_TENSOR_LIST = 2;
    /// A Python number: `u8 kind`, then the payload.
    ARG_SCALAR = 3;
    /// `i64`.
    ARG_INT = 4;
    /// `u32 n`, `i64 v[n]`.
    ARG_INT_LIST = 5;
    /// `f64`.
    ARG_FLOAT = 6;
    /// `u8`.
    ARG_BOOL = 7;
    /// `u32 len`, UTF-8.
    ARG_STR = 8;
    /// `u8` wire dtype.
    ARG_DTYPE = 9;
    /// `u32 n`, index items.
    ARG_INDEX = 10;
    /// Scalar kind: `u8` bool.
    SCALAR_BOOL = 0;
    /// Scalar kind: `i64`.
    SCALAR_INT = 1;
    /// Scalar kind: `f64`.
    SCALAR_FLOAT = 2;
    /// Index item: `i64`.
    INDEX_INT = 0;
    /// Index item: `u8 present`, then the present parts.
    INDEX_SLICE = 1;
    /// Index item: `None`.
    INDEX_NONE = 2;
    /// Index item: `...`.
    INDEX_ELLIPSIS = 3;
    /// Index item: `u8` bool.
    INDEX_BOOL = 4;
    /// Index item: `u32` value id.
    INDEX_TENSOR = 5;
}

/// The counts in a wire graph's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Wire version.
    pub version: u32,
    /// Values (inputs plus node outputs).
    pub num_values: u32,
    /// Graph inputs.
    pub num_inputs: u32,
    /// Nodes.
    pub num_nodes: u32,
    /// Graph outputs.
    pub num_outputs: u32,
}

/// The wire code of a dtype (its `DType::ALL` index).
pub fn dtype_code(d: DType) -> u8 {
    DType::ALL
        .iter()
        .position(|x| *x == d)
        .expect("invariant: DType::ALL lists every dtype") as u8
}

/// The dtype of a wire code.
pub fn dtype_from_code(c: u8) -> Option<DType> {
    DType::ALL.get(c as usize).copied()
}

// === Encoding ===

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

// === Decoding ===

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
