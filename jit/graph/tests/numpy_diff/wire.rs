//! The case and result files exchanged with `numpy_ref.py` (format documented there).

use rynamo_graph::{IValue, Value};
use rynamo_tensor::half::{bf16, f16};
use rynamo_tensor::{DType, IndexItem, Scalar, Tensor};

/// One argument as Python sees it.
pub struct PyArg {
    pub name: String,
    pub castable: bool,
    pub value: IValue,
}

/// One case for the reference script.
pub struct PyCase {
    pub id: u32,
    pub expr: String,
    pub scale: String,
    /// 0 native, 1 cast to `target` then float64, 2 cast to `target` (halves as float32).
    pub cast: u8,
    pub target: DType,
    pub args: Vec<PyArg>,
}

fn str_(out: &mut Vec<u8>, s: &str) {
    out.extend((s.len() as u32).to_le_bytes());
    out.extend(s.as_bytes());
}

/// The contiguous little-endian bytes of a tensor.
fn bytes(t: &Tensor) -> Vec<u8> {
    let mut out = Vec::new();
    match t.dtype() {
        DType::Bool => out.extend(t.to_vec::<bool>().into_iter().map(u8::from)),
        DType::UInt8 => out.extend(t.to_vec::<u8>()),
        DType::Int8 => out.extend(t.to_vec::<i8>().into_iter().map(|v| v as u8)),
        DType::Int16 => t
            .to_vec::<i16>()
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
        DType::Int32 => t
            .to_vec::<i32>()
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
        DType::Int64 => t
            .to_vec::<i64>()
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
        DType::Float16 => t
            .to_vec::<f16>()
            .iter()
            .for_each(|v| out.extend(v.to_bits().to_le_bytes())),
        DType::BFloat16 => t
            .to_vec::<bf16>()
            .iter()
            .for_each(|v| out.extend(v.to_bits().to_le_bytes())),
        DType::Float32 => t
            .to_vec::<f32>()
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
        DType::Float64 => t
            .to_vec::<f64>()
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
        DType::Complex64 | DType::Complex128 => {
            unreachable!("invariant: numpy_diff programs use real dtypes only (DType::REAL)")
        }
    }
    out
}

fn array(out: &mut Vec<u8>, t: &Tensor) {
    out.push(t.dtype() as u8);
    out.push(t.ndim() as u8);
    for &d in t.shape() {
        out.extend((d as u64).to_le_bytes());
    }
    out.extend(bytes(t));
}

fn value(out: &mut Vec<u8>, v: &IValue) {
    match v {
        Value::None => out.push(0),
        Value::Int(i) | Value::Scalar(Scalar::Int(i)) => {
            out.push(1);
            out.extend(i.to_le_bytes());
        }
        Value::Float(x) | Value::Scalar(Scalar::Float(x)) => {
            out.push(2);
            out.extend(x.to_le_bytes());
        }
        Value::Bool(b) | Value::Scalar(Scalar::Bool(b)) => {
            out.push(3);
            out.push(u8::from(*b));
        }
        Value::Str(s) => {
            out.push(4);
            str_(out, s);
        }
        Value::DType(d) => {
            out.push(4);
            str_(out, d.name());
        }
        Value::IntList(l) => {
            out.push(5);
            out.extend((l.len() as u32).to_le_bytes());
            l.iter().for_each(|i| out.extend(i.to_le_bytes()));
        }
        Value::Tensor(t) => {
            out.push(6);
            array(out, t);
        }
        Value::TensorList(ts) => {
            out.push(7);
            out.extend((ts.len() as u32).to_le_bytes());
            ts.iter().for_each(|t| array(out, t));
        }
        Value::Index(items) => {
            out.push(8);
            out.extend((items.len() as u32).to_le_bytes());
            for it in items {
                match it {
                    IndexItem::Int(i) => {
                        out.push(0);
                        out.extend(i.to_le_bytes());
                    }
                    IndexItem::Slice { start, stop, step } => {
                        out.push(1);
                        for b in [start, stop, step] {
                            match b {
                                Some(v) => {
                                    out.push(1);
                                    out.extend(v.to_le_bytes());
                                }
                                None => out.push(0),
                            }
                        }
                    }
                    IndexItem::None => out.push(2),
                    IndexItem::Ellipsis => out.push(3),
                    IndexItem::Bool(b) => {
                        out.push(4);
                        out.push(u8::from(*b));
                    }
                    IndexItem::Tensor(t) => {
                        out.push(5);
                        array(out, t);
                    }
                }
            }
        }
    }
}

/// Serialises all cases.
pub fn write_cases(cases: &[PyCase]) -> Vec<u8> {
    let mut out = b"RYND".to_vec();
    out.extend((cases.len() as u32).to_le_bytes());
    for c in cases {
        out.extend(c.id.to_le_bytes());
        str_(&mut out, &c.expr);
        str_(&mut out, &c.scale);
        out.push(c.cast);
        out.push(c.target as u8);
        out.extend((c.args.len() as u32).to_le_bytes());
        for a in &c.args {
            str_(&mut out, &a.name);
            out.push(u8::from(a.castable));
            value(&mut out, &a.value);
        }
    }
    out
}

/// A reference array: values as f64 (floats), i64 (ints) or bool.
#[derive(Clone, Debug)]
pub enum RefData {
    F(Vec<f64>),
    I(Vec<i64>),
    B(Vec<bool>),
}

#[derive(Clone, Debug)]
pub struct RefArray {
    pub shape: Vec<usize>,
    pub data: RefData,
}

/// The script's answer for one case.
pub enum RefResult {
    Ok {
        outs: Vec<RefArray>,
        scale: Vec<RefArray>,
    },
    Err(String),
}

struct Rd<'a>(&'a [u8], usize);

impl Rd<'_> {
    fn take(&mut self, n: usize) -> &[u8] {
        let s = &self.0[self.1..self.1 + n];
        self.1 += n;
        s
    }
    fn u8(&mut self) -> u8 {
        self.take(1)[0]
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take(4).try_into().expect("4 bytes"))
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take(8).try_into().expect("8 bytes"))
    }
    fn array(&mut self) -> RefArray {
        let kind = self.u8();
        let nd = self.u8() as usize;
        let shape: Vec<usize> = (0..nd).map(|_| self.u64() as usize).collect();
        let n: usize = shape.iter().product();
        let data = match kind {
            0 => RefData::F(
                (0..n)
                    .map(|_| f64::from_le_bytes(self.take(8).try_into().expect("8 bytes")))
                    .collect(),
            ),
            1 => RefData::I(
                (0..n)
                    .map(|_| i64::from_le_bytes(self.take(8).try_into().expect("8 bytes")))
                    .collect(),
            ),
            _ => RefData::B((0..n).map(|_| self.u8() != 0).collect()),
        };
        RefArray { shape, data }
    }
}

/// Parses the result file into `(case id, result)` pairs.
pub fn read_results(data: &[u8]) -> Vec<(u32, RefResult)> {
    let mut r = Rd(data, 0);
    assert_eq!(r.take(4), b"RYNR", "bad result file");
    let n = r.u32();
    (0..n)
        .map(|_| {
            let id = r.u32();
            let res = if r.u8() == 1 {
                let k = r.u32();
                let outs = (0..k).map(|_| r.array()).collect();
                let m = r.u32();
                let scale = (0..m).map(|_| r.array()).collect();
                RefResult::Ok { outs, scale }
            } else {
                let len = r.u32() as usize;
                RefResult::Err(String::from_utf8_lossy(r.take(len)).into_owned())
            };
            (id, res)
        })
        .collect()
}
