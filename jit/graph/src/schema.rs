//! ATen-style op schemas: parsing (once per op) and argument binding.
//!
//! Grammar: `name[.overload](Type name[=default], ..., *, kwonly...) -> Returns`. Types: `Tensor`,
//! `Tensor?`, `Tensor[]`, `Tensor|Scalar` (a tensor or a Python number: PyTorch's wrapped numbers),
//! `Tensor|Scalar?`, `Scalar`, `Scalar?`, `int`, `int?`, `int[]` (`int[N]` also accepts one int),
//! `int[]?`, `float`, `float?`, `bool`, `bool?`, `str`, `str?`, `ScalarType?`, `Index[]`. Returns:
//! `Tensor`, `Tensor[]`, or `(Tensor a, Tensor b)`.

use rynamo_tensor::{DType, Scalar};

use crate::value::BindTensor;
use crate::{Error, Result, Value};

/// The type of one parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// `Tensor`.
    Tensor,
    /// `Tensor[]`.
    TensorList,
    /// `Tensor|Scalar`.
    TensorOrScalar,
    /// `Scalar`.
    Scalar,
    /// `int`.
    Int,
    /// `int[]` / `int[N]`.
    IntList,
    /// `float`.
    Float,
    /// `bool`.
    Bool,
    /// `str`.
    Str,
    /// `ScalarType`.
    DType,
    /// `Index[]`.
    Index,
}

impl ParamType {
    fn spelling(self) -> &'static str {
        match self {
            ParamType::Tensor => "Tensor",
            ParamType::TensorList => "Tensor[]",
            ParamType::TensorOrScalar => "Tensor|Scalar",
            ParamType::Scalar => "Scalar",
            ParamType::Int => "int",
            ParamType::IntList => "int[]",
            ParamType::Float => "float",
            ParamType::Bool => "bool",
            ParamType::Str => "str",
            ParamType::DType => "ScalarType",
            ParamType::Index => "Index[]",
        }
    }
}

/// A default value (never a tensor).
#[derive(Clone, Debug, PartialEq)]
pub enum Default {
    /// `None`.
    None,
    /// A constant.
    Value(Value<NoTensor>),
}

/// Uninhabited: defaults contain no tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoTensor {}

impl std::fmt::Display for NoTensor {
    fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {}
    }
}

/// One parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Name (also the keyword).
    pub name: String,
    /// Type.
    pub ty: ParamType,
    /// Accepts `None`.
    pub optional: bool,
    /// Default, if any.
    pub default: Option<Default>,
    /// After `*`.
    pub kw_only: bool,
}

/// What an op returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Returns {
    /// One tensor.
    Tensor,
    /// A fixed tuple of named tensors.
    Tuple(Vec<String>),
    /// A list of tensors whose length depends on the arguments.
    List,
}

/// A parsed schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    /// Full name, e.g. `max.dim`.
    pub name: String,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// Return kind.
    pub returns: Returns,
    n_positional: usize,
}

fn err(src: &str, msg: impl Into<String>) -> Error {
    Error::Schema {
        schema: src.to_string(),
        msg: msg.into(),
    }
}

impl Schema {
    /// Parses a schema string.
    pub fn parse(src: &str) -> Result<Schema> {
        let open = src.find('(').ok_or_else(|| err(src, "missing `(`"))?;
        let arrow = src.find("->").ok_or_else(|| err(src, "missing `->`"))?;
        // The params end at the `)` that precedes `->`.
        let close = src[..arrow]
            .rfind(')')
            .ok_or_else(|| err(src, "missing `)`"))?;
        let (name, inner) = (src[..open].trim(), &src[open + 1..close]);
        let mut params = Vec::new();
        let mut kw_only = false;
        for part in split_top(inner) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            if part == "*" {
                kw_only = true;
                continue;
            }
            params.push(parse_param(src, part, kw_only)?);
        }
        let ret = src[arrow + 2..].trim();
        let returns = match ret {
            "Tensor" => Returns::Tensor,
            "Tensor[]" => Returns::List,
            r if r.starts_with('(') && r.ends_with(')') => Returns::Tuple(
                split_top(&r[1..r.len() - 1])
                    .map(|p| p.split_whitespace().last().unwrap_or("").to_string())
                    .collect(),
            ),
            r => return Err(err(src, format!("unknown return `{r}`"))),
        };
        let n_positional = params.iter().take_while(|p| !p.kw_only).count();
        Ok(Schema {
            name: name.to_string(),
            params,
            returns,
            n_positional,
        })
    }

    /// The name without the overload (`max` for `max.dim`).
    pub fn base_name(&self) -> &str {
        self.name.split('.').next().unwrap_or(&self.name)
    }

    /// Number of parameters that may be passed positionally.
    pub fn n_positional(&self) -> usize {
        self.n_positional
    }

    /// Binds Python-style call arguments to the parameters, in schema order: fills defaults,
    /// checks types and converts (a number where `Scalar` is expected, one int for `int[]`, an int
    /// for `float`, a zero-dim tensor for a number, trailing ints packed into an `int[]` as in
    /// `x.view(2, 3)`). Errors are `TypeError`s worded as PyTorch's.
    pub fn bind<T: BindTensor + Clone>(
        &self,
        positional: Vec<Value<T>>,
        kwargs: Vec<(String, Value<T>)>,
    ) -> Result<Vec<Value<T>>> {
        let fname = self.base_name();
        let mut positional = positional;
        let np = self.n_positional;
        if positional.len() > np && np > 0 && self.params[np - 1].ty == ParamType::IntList {
            let tail = positional.split_off(np - 1);
            if tail.iter().all(|v| matches!(v, Value::Int(_))) {
                positional.push(Value::IntList(
                    tail.into_iter()
                        .map(|v| match v {
                            Value::Int(i) => i,
                            _ => unreachable!("invariant: checked above"),
                        })
                        .collect(),
                ));
            } else {
                positional.extend(tail);
            }
        }
        if positional.len() > np {
            return Err(Error::Bind(format!(
                "{fname}() takes {np} positional argument{} but {} were given",
                if np == 1 { "" } else { "s" },
                positional.len()
            )));
        }
        let mut slots: Vec<Option<Value<T>>> = vec![None; self.params.len()];
        for (i, v) in positional.into_iter().enumerate() {
            slots[i] = Some(self.convert(i, v, true)?);
        }
        for (k, v) in kwargs {
            let i = self
                .params
                .iter()
                .position(|p| p.name == k)
                .ok_or_else(|| {
                    Error::Bind(format!(
                        "{fname}() got an unexpected keyword argument '{k}'"
                    ))
                })?;
            if slots[i].is_some() {
                return Err(Error::Bind(format!(
                    "{fname}() got multiple values for argument '{k}'"
                )));
            }
            slots[i] = Some(self.convert(i, v, false)?);
        }
        let missing: Vec<&str> = self
            .params
            .iter()
            .zip(&slots)
            .filter(|(p, s)| s.is_none() && p.default.is_none())
            .map(|(p, _)| p.name.as_str())
            .collect();
        if !missing.is_empty() {
            let names: Vec<String> = missing.iter().map(|n| format!("\"{n}\"")).collect();
            return Err(Error::Bind(format!(
                "{fname}() missing {} required positional argument{}: {}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                names.join(", ")
            )));
        }
        Ok(slots
            .into_iter()
            .zip(&self.params)
            .map(|(s, p)| {
                s.unwrap_or_else(
                    || match p.default.as_ref().expect("invariant: missing checked") {
                        Default::None => Value::None,
                        Default::Value(v) => v
                            .try_map::<T, ()>(|n| match *n {})
                            .expect("invariant: no tensors"),
                    },
                )
            })
            .collect())
    }

    fn convert<T: BindTensor>(&self, i: usize, v: Value<T>, positional: bool) -> Result<Value<T>> {
        let p = &self.params[i];
        if matches!(v, Value::None) && p.optional {
            return Ok(Value::None);
        }
        let number = |v: &Value<T>| -> Option<Scalar> {
            match v {
                Value::Scalar(s) => Some(*s),
                Value::Int(i) => Some(Scalar::Int(*i)),
                Value::Float(x) => Some(Scalar::Float(*x)),
                Value::Bool(b) => Some(Scalar::Bool(*b)),
                Value::Tensor(t) => t.as_scalar(),
                _ => None,
            }
        };
        let out = match (p.ty, v) {
            (ParamType::Tensor, v @ Value::Tensor(_)) => v,
            (ParamType::TensorList, v @ Value::TensorList(_)) => v,
            (ParamType::TensorOrScalar, v @ Value::Tensor(_)) => v,
            (ParamType::TensorOrScalar | ParamType::Scalar, v) if number(&v).is_some() => {
                Value::Scalar(number(&v).expect("invariant: checked"))
            }
            (ParamType::Int, Value::Int(i)) => Value::Int(i),
            (ParamType::Int, Value::Scalar(Scalar::Int(i))) => Value::Int(i),
            (ParamType::Int, Value::Tensor(t)) if matches!(t.as_scalar(), Some(Scalar::Int(_))) => {
                Value::Int(t.as_scalar().map_or(0, Scalar::to_i64))
            }
            (ParamType::IntList, v @ Value::IntList(_)) => v,
            (ParamType::IntList, Value::Int(i)) => Value::IntList(vec![i]),
            (ParamType::Float, Value::Float(x)) => Value::Float(x),
            (ParamType::Float, Value::Int(i)) => Value::Float(i as f64),
            (ParamType::Float, Value::Scalar(s)) if !matches!(s, Scalar::Bool(_)) => {
                Value::Float(s.to_f64())
            }
            (ParamType::Float, Value::Tensor(t)) if t.as_scalar().is_some() => {
                Value::Float(t.as_scalar().map_or(0.0, Scalar::to_f64))
            }
            (ParamType::Bool, Value::Bool(b)) => Value::Bool(b),
            (ParamType::Bool, Value::Scalar(Scalar::Bool(b))) => Value::Bool(b),
            (ParamType::Str, v @ Value::Str(_)) => v,
            (ParamType::DType, v @ Value::DType(_)) => v,
            (ParamType::Index, v @ Value::Index(_)) => v,
            (ty, v) => {
                let want = match ty {
                    ParamType::IntList => "tuple of ints",
                    ParamType::TensorList => "tuple of Tensors",
                    ParamType::Scalar => "Number",
                    ParamType::TensorOrScalar => "Tensor",
                    ParamType::DType => "torch.dtype",
                    ParamType::Index => "index",
                    t => t.spelling(),
                };
                let pos = if positional {
                    format!(" (position {})", i + 1)
                } else {
                    String::new()
                };
                return Err(Error::Bind(format!(
                    "{}(): argument '{}'{pos} must be {want}, not {}",
                    self.base_name(),
                    p.name,
                    v.type_name()
                )));
            }
        };
        Ok(out)
    }

    /// Whether `v` is a legal bound value for parameter `i` (used by the verifier).
    pub fn accepts<T>(&self, i: usize, v: &Value<T>) -> bool {
        let p = &self.params[i];
        matches!(
            (p.ty, v),
            (_, Value::None) if p.optional
        ) || matches!(
            (p.ty, v),
            (ParamType::Tensor, Value::Tensor(_))
                | (ParamType::TensorList, Value::TensorList(_))
                | (
                    ParamType::TensorOrScalar,
                    Value::Tensor(_) | Value::Scalar(_)
                )
                | (ParamType::Scalar, Value::Scalar(_))
                | (ParamType::Int, Value::Int(_))
                | (ParamType::IntList, Value::IntList(_))
                | (ParamType::Float, Value::Float(_))
                | (ParamType::Bool, Value::Bool(_))
                | (ParamType::Str, Value::Str(_))
                | (ParamType::DType, Value::DType(_))
                | (ParamType::Index, Value::Index(_))
        )
    }
}

/// Splits on commas not nested in brackets or quotes.
fn split_top(s: &str) -> impl Iterator<Item = &str> {
    let mut parts = Vec::new();
    let (mut depth, mut start, mut quote) = (0i32, 0usize, false);
    for (i, c) in s.char_indices() {
        match c {
            '\'' => quote = !quote,
            '[' | '(' if !quote => depth += 1,
            ']' | ')' if !quote => depth -= 1,
            ',' if depth == 0 && !quote => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts.into_iter()
}

fn parse_param(src: &str, part: &str, kw_only: bool) -> Result<Param> {
    let (decl, default) = match part.split_once('=') {
        Some((d, v)) => (d.trim(), Some(v.trim())),
        None => (part, None),
    };
    let (ty_s, name) = decl
        .rsplit_once(' ')
        .ok_or_else(|| err(src, format!("bad parameter `{part}`")))?;
    let (ty_s, optional) = match ty_s.trim().strip_suffix('?') {
        Some(t) => (t, true),
        None => (ty_s.trim(), false),
    };
    let base = ty_s.split('[').next().unwrap_or(ty_s);
    let list = ty_s.contains('[');
    let ty = match (base, list) {
        ("Tensor", false) => ParamType::Tensor,
        ("Tensor", true) => ParamType::TensorList,
        ("Tensor|Scalar", false) => ParamType::TensorOrScalar,
        ("Scalar", false) => ParamType::Scalar,
        ("int", false) => ParamType::Int,
        ("int", true) => ParamType::IntList,
        ("float", false) => ParamType::Float,
        ("bool", false) => ParamType::Bool,
        ("str", false) => ParamType::Str,
        ("ScalarType", false) => ParamType::DType,
        ("Index", true) => ParamType::Index,
        _ => return Err(err(src, format!("unknown type `{ty_s}`"))),
    };
    let default = default.map(|d| parse_default(src, d, ty)).transpose()?;
    Ok(Param {
        name: name.trim().to_string(),
        ty,
        optional,
        default,
        kw_only,
    })
}

fn parse_default(src: &str, d: &str, ty: ParamType) -> Result<Default> {
    if d == "None" {
        return Ok(Default::None);
    }
    let bad = || err(src, format!("bad default `{d}` for {}", ty.spelling()));
    let num = |d: &str| -> Result<Scalar> {
        match d {
            "True" => Ok(Scalar::Bool(true)),
            "False" => Ok(Scalar::Bool(false)),
            _ if !d.contains(['.', 'e']) => d.parse::<i64>().map(Scalar::Int).map_err(|_| bad()),
            _ => d.parse::<f64>().map(Scalar::Float).map_err(|_| bad()),
        }
    };
    let v = match ty {
        ParamType::Scalar | ParamType::TensorOrScalar => Value::Scalar(num(d)?),
        ParamType::Int => Value::Int(d.parse().map_err(|_| bad())?),
        ParamType::Float => Value::Float(d.parse().map_err(|_| bad())?),
        ParamType::Bool => Value::Bool(match d {
            "True" => true,
            "False" => false,
            _ => return Err(bad()),
        }),
        ParamType::Str => Value::Str(d.trim_matches('\'').to_string()),
        ParamType::IntList => {
            let inner = d.trim_start_matches('[').trim_end_matches(']');
            Value::IntList(
                inner
                    .split(',')
                    .filter(|s| !s.trim().is_empty())
                    .map(|s| s.trim().parse().map_err(|_| bad()))
                    .collect::<Result<_>>()?,
            )
        }
        ParamType::DType => Value::DType(DType::from_name(d).ok_or_else(bad)?),
        _ => return Err(bad()),
    };
    Ok(Default::Value(v))
}
