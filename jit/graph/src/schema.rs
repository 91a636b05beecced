//! ATen-style op schemas: parsing (once per op) and argument binding.
//!
//! Grammar: `name[.overload](Type name[=default], ..., *, kwonly...) -> Returns`. Types: `Tensor`,
//! `Tensor?`, `Tensor[]`, `Tensor|Scalar` (a tensor or a Python number: PyTorch's wrapped numbers),
//! `Tensor|Scalar?`, `Scalar`, `Scalar?`, `int`, `int?`, `int[]` (`int[N]` also accepts one int),
//! `int[]?`, `float`, `float?`, `bool`, `bool?`, `str`, `str?`, `ScalarType?`, `Index[]`. Returns:
//! `Tensor`, `Tensor[]`, or `(Tensor a, Tensor b)`.

use rynamo_tensor::{DType, Scalar};

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
    /// The schema spelling of the type.
    pub fn spelling(self) -> &'static str {
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
    /// A fixed tuple of named tensors; empty for ops returning nothing (`-> ()`).
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
    pub(crate) n_positional: usize,
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
        let text = crate::schema_syntax::split_schema(src).map_err(|m| err(src, m))?;
        let params = text
            .params
            .iter()
            .map(|p| typed_param(src, p))
            .collect::<Result<Vec<_>>>()?;
        let returns = match text.returns {
            "Tensor" => Returns::Tensor,
            "Tensor[]" => Returns::List,
            // In-place multi-tensor ops (`_fused_adam_`) return nothing (Python's `None`).
            "()" => Returns::Tuple(Vec::new()),
            r if r.starts_with('(') && r.ends_with(')') => Returns::Tuple(
                crate::schema_syntax::split_top(&r[1..r.len() - 1])
                    .map(|p| p.split_whitespace().last().unwrap_or("").to_string())
                    .collect(),
            ),
            r => return Err(err(src, format!("unknown return `{r}`"))),
        };
        let n_positional = params.iter().take_while(|p| !p.kw_only).count();
        Ok(Schema {
            name: text.name.to_string(),
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
}

fn typed_param(src: &str, p: &crate::schema_syntax::ParamText<'_>) -> Result<Param> {
    let ty = match (p.base(), p.is_list()) {
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
        _ => return Err(err(src, format!("unknown type `{}`", p.ty))),
    };
    let default = p.default.map(|d| parse_default(src, d, ty)).transpose()?;
    Ok(Param {
        name: p.name.to_string(),
        ty,
        optional: p.optional,
        default,
        kw_only: p.kw_only,
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
