//! What one guard checks ([`Check`]), the constants it compares against ([`ConstValue`]), and
//! the texts of its failures in PyTorch's wording. The guard tree that runs these checks is in
//! `guards.rs`.

use std::rc::Rc;

use rustpython_vm::builtins::{PyFloat, PyInt, PyStr};
use rustpython_vm::{AsObject, PyObject, PyObjectRef, VirtualMachine};
use rynamo_tensor::{DType, TensorMeta};

use super::bridge;

/// A constant a guard compares against.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    /// `None`.
    None,
    /// A bool (checked before ints: `True == 1` must not pass for a bool guard).
    Bool(bool),
    /// An int that fits in 64 bits.
    Int(i64),
    /// A float (compared by bits, so `nan` matches `nan` and `-0.0` does not match `0.0`).
    Float(f64),
    /// A str.
    Str(Rc<str>),
}

impl ConstValue {
    /// The constant for `obj`, if it is one of the guardable literal types.
    pub fn of(obj: &PyObject, vm: &VirtualMachine) -> Option<Self> {
        if vm.is_none(obj) {
            return Some(Self::None);
        }
        if obj.class().is(vm.ctx.types.bool_type) {
            return Some(Self::Bool(obj.is(&vm.ctx.true_value)));
        }
        if obj.class().is(vm.ctx.types.int_type) {
            let i = obj.downcast_ref::<PyInt>()?;
            return i.try_to_primitive::<i64>(vm).ok().map(Self::Int);
        }
        if obj.class().is(vm.ctx.types.float_type) {
            return obj
                .downcast_ref::<PyFloat>()
                .map(|f| Self::Float(f.to_f64()));
        }
        if obj.class().is(vm.ctx.types.str_type) {
            return obj
                .downcast_ref::<PyStr>()
                .and_then(|s| s.to_str())
                .map(|s| Self::Str(s.into()));
        }
        None
    }

    fn matches(&self, obj: &PyObject, vm: &VirtualMachine) -> bool {
        match self {
            Self::None => vm.is_none(obj),
            Self::Bool(b) => {
                obj.class().is(vm.ctx.types.bool_type) && obj.is(&vm.ctx.true_value) == *b
            }
            Self::Int(i) => {
                obj.class().is(vm.ctx.types.int_type)
                    && obj
                        .downcast_ref::<PyInt>()
                        .and_then(|v| v.try_to_primitive::<i64>(vm).ok())
                        == Some(*i)
            }
            Self::Float(f) => {
                obj.class().is(vm.ctx.types.float_type)
                    && obj
                        .downcast_ref::<PyFloat>()
                        .is_some_and(|v| v.to_f64().to_bits() == f.to_bits())
            }
            Self::Str(s) => {
                obj.class().is(vm.ctx.types.str_type)
                    && obj.downcast_ref::<PyStr>().and_then(|v| v.to_str()) == Some(&**s)
            }
        }
    }

    fn py_repr(&self) -> String {
        match self {
            Self::None => "None".into(),
            Self::Bool(b) => if *b { "True" } else { "False" }.into(),
            Self::Int(i) => i.to_string(),
            Self::Float(f) => {
                if f.is_nan() {
                    "nan".into()
                } else if f.is_infinite() {
                    if *f > 0.0 {
                        "inf".into()
                    } else {
                        "-inf".into()
                    }
                } else if f.fract() == 0.0 && f.abs() < 1e16 {
                    format!("{f:.1}")
                } else {
                    format!("{f}")
                }
            }
            Self::Str(s) => format!("'{s}'"),
        }
    }
}

/// What a guard checks about the value at its source.
#[derive(Clone, Debug)]
pub enum Check {
    /// `type(x) is T` (Dynamo's TYPE_MATCH).
    TypeMatch {
        /// The type, kept alive so its address cannot be reused.
        ty: PyObjectRef,
    },
    /// `x is obj` (ID_MATCH; FUNCTION_MATCH for functions).
    IdMatch {
        /// The object, kept alive so its address cannot be reused.
        obj: PyObjectRef,
    },
    /// `x == value` for a literal (EQUALS_MATCH), with the type checked too.
    Equals(ConstValue),
    /// A tensor with this dtype, shape, strides and requires_grad (TENSOR_MATCH).
    Tensor {
        /// dtype, shape, strides.
        meta: TensorMeta,
        /// The `requires_grad` flag.
        requires_grad: bool,
        /// Bit `d` set: dimension `d` is dynamic, its size unchecked here (a [`Check::DimRange`]
        /// bounds it) and, for a contiguous tensor, the strides checked as contiguity.
        dynamic: u64,
    },
    /// `min <= x.size()[dim] <= max` for a dynamic dimension (a shape-environment guard,
    /// Dynamo's `LAMBDA_GUARD: 2 <= L['x'].size()[0]`).
    DimRange {
        /// The dimension.
        dim: usize,
        /// Smallest size allowed.
        min: usize,
        /// Largest, if bounded.
        max: Option<usize>,
    },
    /// `len(x) == n` for sequences and dicts (SEQUENCE_LENGTH / DICT_LENGTH).
    Length(usize),
    /// The dict's keys, in order (DICT_KEYS).
    DictKeys(Vec<ConstValue>),
    /// `type(x) is type(obj) and x == obj` for an immutable value that is not a [`ConstValue`]
    /// (a range, a big int, bytes, a complex, a slice, a device): EQUALS_MATCH on the object.
    ValueMatch {
        /// The value seen while tracing.
        obj: PyObjectRef,
    },
    /// `hasattr(x, name) == present` (HASATTR): what a trace that found an attribute missing
    /// (so `hasattr` was False, `getattr`'s default was used, `except AttributeError` ran)
    /// assumed about the object.
    HasAttr {
        /// The attribute.
        name: String,
        /// Whether it existed while tracing.
        present: bool,
    },
    /// `key in x` for a dict, by the key's identity or equality as the dict decides
    /// (DICT_CONTAINS): what a trace that found an object key missing assumed.
    DictContains {
        /// The key object, kept alive so its address cannot be reused.
        key: PyObjectRef,
        /// The key's source text, for the guard's code.
        key_text: String,
        /// Whether it was present while tracing.
        present: bool,
    },
}

impl Check {
    pub(super) fn kind_name(&self) -> &'static str {
        match self {
            Check::TypeMatch { .. } => "TYPE_MATCH",
            Check::IdMatch { .. } => "ID_MATCH",
            Check::Equals(_) => "EQUALS_MATCH",
            Check::Tensor { .. } => "TENSOR_MATCH",
            Check::Length(_) => "LENGTH_CHECK",
            Check::DictKeys(_) => "DICT_KEYS_MATCH",
            Check::ValueMatch { .. } => "EQUALS_MATCH",
            Check::HasAttr { .. } => "HASATTR",
            Check::DimRange { .. } => "LAMBDA_GUARD",
            Check::DictContains { .. } => "DICT_CONTAINS",
        }
    }

    /// Whether `other` checks the same thing (one guard per source and kind; `HASATTR` once
    /// per attribute).
    pub(super) fn same_key(&self, other: &Check) -> bool {
        match (self, other) {
            (Check::HasAttr { name: a, .. }, Check::HasAttr { name: b, .. }) => a == b,
            (Check::DimRange { dim: a, .. }, Check::DimRange { dim: b, .. }) => a == b,
            (Check::DictContains { key: a, .. }, Check::DictContains { key: b, .. }) => a.is(b),
            _ => self.kind_name() == other.kind_name(),
        }
    }

    /// The guard's code, as Dynamo prints it in guard dumps and recompile reasons.
    pub(super) fn code(&self, src: &str) -> String {
        match self {
            Check::TypeMatch { ty } => format!("___check_type_id({src}, {})", obj_id(ty)),
            Check::IdMatch { obj } => format!("___check_obj_id({src}, {})", obj_id(obj)),
            Check::Equals(v) => format!("{src} == {}", v.py_repr()),
            Check::Tensor {
                meta,
                requires_grad,
                dynamic,
            } => format!(
                "check_tensor({src}, Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), {}, device=None, requires_grad={}, size={}, stride={})",
                dtype_py(meta.dtype),
                if *requires_grad { "True" } else { "False" },
                dims_text(&meta.shape, |d| dynamic & (1 << d) != 0),
                dims_text(&meta.strides, |d| stride_is_dynamic(meta, *dynamic, d))
            ),
            Check::DimRange { dim, min, max } => match max {
                Some(m) => format!("{min} <= {src}.size()[{dim}] <= {m}"),
                None => format!("{min} <= {src}.size()[{dim}]"),
            },
            Check::Length(n) => format!("len({src}) == {n}"),
            Check::HasAttr { name, present } => format!(
                "{}hasattr({src}, '{name}')",
                if *present { "" } else { "not " }
            ),
            Check::ValueMatch { obj } => format!("{src} == {}", obj_repr(obj)),
            Check::DictContains {
                key_text, present, ..
            } => format!(
                "{}___dict_contains({key_text}, {src})",
                if *present { "" } else { "not " }
            ),
            Check::DictKeys(keys) => format!(
                "list({src}.keys()) == [{}]",
                keys.iter()
                    .map(ConstValue::py_repr)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// `Ok` when `value` passes; otherwise the failure in PyTorch's recompile-reason wording.
    /// `src` is only formatted on failure: the passing path allocates nothing.
    pub(super) fn check(
        &self,
        value: &PyObject,
        src: &dyn std::fmt::Display,
        vm: &VirtualMachine,
    ) -> Result<(), String> {
        let fail = || Err(self.code(&src.to_string()));
        match self {
            Check::TypeMatch { ty } => {
                if value.class().as_object().is(ty) {
                    Ok(())
                } else {
                    fail()
                }
            }
            Check::IdMatch { obj } => {
                if value.is(obj) {
                    Ok(())
                } else {
                    fail()
                }
            }
            Check::Equals(v) => {
                if v.matches(value, vm) {
                    Ok(())
                } else {
                    fail()
                }
            }
            Check::Tensor {
                meta,
                requires_grad,
                dynamic,
            } => {
                if *dynamic == 0
                    && bridge::tensor_matches(value, meta, *requires_grad) == Some(true)
                {
                    return Ok(());
                }
                let Some((actual, rg)) = bridge::tensor_meta(value) else {
                    return Err(format!(
                        "expected type of '{src}' to be a tensor type, ' but found {}",
                        value.class().name()
                    ));
                };
                check_tensor(src, meta, *requires_grad, *dynamic, &actual, rg)
            }
            Check::DimRange { dim, min, max } => {
                let size = bridge::tensor_meta(value).and_then(|(m, _)| m.shape.get(*dim).copied());
                match size {
                    Some(n) if n >= *min && max.is_none_or(|m| n <= m) => Ok(()),
                    _ => fail(),
                }
            }
            Check::ValueMatch { obj } => {
                let ok = value.class().is(obj.class()) && vm.bool_eq(value, obj).unwrap_or(false);
                if ok { Ok(()) } else { fail() }
            }
            Check::HasAttr { name, present } => {
                let has = value.get_attr(&vm.ctx.new_str(name.as_str()), vm).is_ok();
                if has == *present { Ok(()) } else { fail() }
            }
            Check::DictContains { key, present, .. } => {
                let has = value
                    .downcast_ref::<rustpython_vm::builtins::PyDict>()
                    .and_then(|d| d.get_item_opt(&**key, vm).ok())
                    .map(|v| v.is_some());
                if has == Some(*present) {
                    Ok(())
                } else {
                    fail()
                }
            }
            Check::Length(n) => match value.length(vm) {
                Ok(len) if len == *n => Ok(()),
                _ => fail(),
            },
            Check::DictKeys(keys) => {
                let ok = value
                    .downcast_ref::<rustpython_vm::builtins::PyDict>()
                    .is_some_and(|d| {
                        let actual: Vec<_> = d.keys_vec();
                        actual.len() == keys.len()
                            && actual.iter().zip(keys).all(|(a, k)| k.matches(a, vm))
                    });
                if ok { Ok(()) } else { fail() }
            }
        }
    }
}

/// TENSOR_MATCH, with Dynamo's failure messages.
fn check_tensor(
    src: &dyn std::fmt::Display,
    want: &TensorMeta,
    want_rg: bool,
    dynamic: u64,
    got: &TensorMeta,
    got_rg: bool,
) -> Result<(), String> {
    if want.dtype != got.dtype {
        return Err(format!(
            "tensor '{src}' dtype mismatch. expected {}, actual {}",
            want.dtype.aten_name(),
            got.dtype.aten_name()
        ));
    }
    if want_rg != got_rg {
        return Err(format!(
            "tensor '{src}' requires_grad mismatch. expected requires_grad={}",
            u8::from(want_rg)
        ));
    }
    if want.shape.len() != got.shape.len() {
        return Err(format!(
            "tensor '{src}' rank mismatch. expected {}, actual {}",
            want.shape.len(),
            got.shape.len()
        ));
    }
    for (i, (w, g)) in want.shape.iter().zip(&got.shape).enumerate() {
        if w != g && dynamic & (1 << i) == 0 {
            return Err(format!(
                "tensor '{src}' size mismatch at index {i}. expected {w}, actual {g}"
            ));
        }
    }
    // With dynamic sizes, a contiguous tensor's strides follow its sizes: checked as
    // contiguity. Other layouts keep their exact strides (a change recompiles).
    let contiguous =
        dynamic != 0 && rynamo_tensor::layout::is_contiguous(&want.shape, &want.strides);
    if contiguous {
        if !rynamo_tensor::layout::is_contiguous(&got.shape, &got.strides) {
            return Err(format!("tensor '{src}' is not contiguous"));
        }
        return Ok(());
    }
    for (i, (w, g)) in want.strides.iter().zip(&got.strides).enumerate() {
        if w != g {
            return Err(format!(
                "tensor '{src}' stride mismatch at index {i}. expected {w}, actual {g}"
            ));
        }
    }
    Ok(())
}

/// `[None, 4]`: sizes or strides with the dynamic ones as `None`, as Dynamo prints them.
fn dims_text<T: std::fmt::Display>(xs: &[T], dynamic: impl Fn(usize) -> bool) -> String {
    let items: Vec<String> = xs
        .iter()
        .enumerate()
        .map(|(d, x)| {
            if dynamic(d) {
                "None".to_owned()
            } else {
                x.to_string()
            }
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// Whether stride `d` of a guarded tensor varies with its dynamic sizes (a contiguous tensor's
/// stride is the product of the later sizes).
fn stride_is_dynamic(meta: &TensorMeta, dynamic: u64, d: usize) -> bool {
    dynamic != 0
        && rynamo_tensor::layout::is_contiguous(&meta.shape, &meta.strides)
        && (d + 1..meta.shape.len()).any(|j| dynamic & (1 << j) != 0)
}

/// PyTorch's Python name of a dtype (`torch.float32`).
pub fn dtype_py(d: DType) -> String {
    format!("torch.{}", d.name())
}

/// A value's repr for guard text, without a VM at hand (ranges, slices and the like print as
/// their type name and address when it cannot be computed).
fn obj_repr(obj: &PyObjectRef) -> String {
    format!("<{} at {:#x}>", obj.class().name(), obj_id(obj))
}

fn obj_id(obj: &PyObjectRef) -> usize {
    obj.as_object() as *const PyObject as usize
}

/// A guard-failure reason as PyTorch's recompile logs print it (`strip_local_scope`): each
/// frame-local source `L['x']` becomes `x`, so `tensor 'x' size mismatch ...` and `n == 2` name
/// the user's variables; globals keep their `G['...']`.
pub fn strip_local_scope(reason: &str) -> String {
    let mut out = String::with_capacity(reason.len());
    let mut rest = reason;
    while let Some(at) = rest.find("L[") {
        out.push_str(&rest[..at]);
        match local_name(&rest[at + 2..]) {
            Some((name, used)) => {
                out.push_str(name);
                rest = &rest[at + 2 + used..];
            }
            None => {
                out.push_str("L[");
                rest = &rest[at + 2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// After `L[`: optional spaces, a quote, the shortest name up to a quote followed by optional
/// spaces and `]` (the pattern `L\[\s*['"](.*?)['"]\s*\]`). Returns the name and the bytes read.
fn local_name(s: &str) -> Option<(&str, usize)> {
    let open = s.len() - s.trim_start().len();
    let body = &s[open..];
    if !body.starts_with(['\'', '"']) {
        return None;
    }
    let inner = &body[1..];
    for (i, c) in inner.char_indices() {
        if c == '\'' || c == '"' {
            let after = &inner[i + 1..];
            let pad = after.len() - after.trim_start().len();
            if after[pad..].starts_with(']') {
                return Some((&inner[..i], open + 1 + i + 1 + pad + 1));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::strip_local_scope;

    #[test]
    fn locals_lose_their_scope_globals_keep_it() {
        let cases = [
            (
                "tensor 'L['x']' size mismatch at index 0. expected 2, actual 3",
                "tensor 'x' size mismatch at index 0. expected 2, actual 3",
            ),
            ("L['d']['a'] == 1.0", "d['a'] == 1.0"),
            ("len(L['lst']) == 1", "len(lst) == 1"),
            ("2 <= L[ \"x\" ].size()[0]", "2 <= x.size()[0]"),
            ("G['SCALE'] == 2.0", "G['SCALE'] == 2.0"),
            ("L[0] and L['", "L[0] and L['"),
        ];
        for (given, want) in cases {
            assert_eq!(strip_local_scope(given), want, "{given}");
        }
    }
}
