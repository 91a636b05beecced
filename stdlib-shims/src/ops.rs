//! Generic op bindings: one Python callable per op name and surface, all calling through
//! [`rynamo_graph::registry`].
//!
//! ```text
//!   torch.add(x, 1) / x.add(1) / F.relu(x)          (PyOpFunction / PyOpMethod)
//!     -> take_call_options   (out=, device=, requires_grad=, generator=, inplace=)
//!     -> py_to_value          (Python objects -> Value<Tensor>)
//!     -> bind_overload        (first overload whose schema binds, PyTorch's resolution)
//!     -> registry::call       (eager kernel, dispatch counter)
//!     -> outputs              (Tensor / tuple / torch.return_types.*; in-place returns self)
//! ```
//!
//! **Invariant:** [`bind_overload`] is the only place Python-style arguments meet schemas, and it
//! is generic over the tensor stand-in, so Dynamo binds symbolic values with the same code.

use std::sync::OnceLock;

use rustpython_vm::builtins::{PyBaseExceptionRef, PyBoundMethod};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::types::{Callable, GetDescriptor, Representable};
use rustpython_vm::{Py, PyObject, PyObjectRef, PyPayload, PyResult, VirtualMachine, pyclass};
use rynamo_graph::{BindTensor, Error, Op, OpFlags, Value};
use rynamo_tensor::ErrorKind;

pub use crate::args::{py_to_index, py_to_value};
pub use crate::call::{CallOptions, call_op, outputs, take_call_options};

/// Where an op is exposed in Python.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Surface {
    /// `torch.<name>`.
    Function,
    /// `Tensor.<name>`: `self` is the first argument.
    Method,
    /// `torch.nn.functional.<name>`.
    NnFunctional,
}

impl Surface {
    /// The registry flag that puts an op on this surface.
    pub const fn flag(self) -> OpFlags {
        match self {
            Surface::Function => OpFlags::FUNCTION,
            Surface::Method => OpFlags::METHOD,
            Surface::NnFunctional => OpFlags::NN_FUNCTIONAL,
        }
    }

    /// The Python module functions of this surface appear in.
    pub const fn module(self) -> &'static str {
        match self {
            Surface::Function => "torch",
            Surface::Method => "torch.Tensor",
            Surface::NnFunctional => "torch.nn.functional",
        }
    }
}

/// Op names with their overloads, owned (built once from the op table).
type Table = Vec<(&'static str, Vec<Op>)>;
/// The same, borrowing the overloads from the owned table.
type SurfaceTable = Vec<(&'static str, &'static [Op])>;

/// Every op name exposed on `surface` with its overloads, in op-table order.
pub fn surface_table(surface: Surface) -> &'static [(&'static str, &'static [Op])] {
    static TABLES: OnceLock<[SurfaceTable; 3]> = OnceLock::new();
    static OWNED: OnceLock<[Table; 3]> = OnceLock::new();
    let owned = OWNED.get_or_init(|| {
        [Surface::Function, Surface::Method, Surface::NnFunctional].map(|s| {
            let mut table: Table = Vec::new();
            for &op in Op::ALL {
                if !op.flags().contains(s.flag()) {
                    continue;
                }
                match table.iter_mut().find(|(n, _)| *n == op.py_name()) {
                    Some((_, ops)) => ops.push(op),
                    None => table.push((op.py_name(), vec![op])),
                }
            }
            table
        })
    });
    let tables = TABLES.get_or_init(|| {
        [0, 1, 2].map(|i| {
            owned[i]
                .iter()
                .map(|(n, ops)| (*n, ops.as_slice()))
                .collect()
        })
    });
    let i = match surface {
        Surface::Function => 0,
        Surface::Method => 1,
        Surface::NnFunctional => 2,
    };
    &tables[i]
}

/// The overloads of `name` on `surface` (empty when not exposed there).
pub fn overloads(surface: Surface, name: &str) -> &'static [Op] {
    surface_table(surface)
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(&[], |(_, ops)| ops)
}

/// A registry op as a Python callable: `torch.add`, `torch.nn.functional.relu`, ...
#[pyclass(module = "torch", name = "_OpFunction")]
#[derive(Debug, PyPayload)]
pub struct PyOpFunction {
    /// The Python name.
    pub name: &'static str,
    /// The overloads, tried in order.
    pub overloads: &'static [Op],
    /// Where it is exposed.
    pub surface: Surface,
}

#[pyclass(with(Callable, Representable))]
impl PyOpFunction {
    #[pygetset]
    fn __name__(zelf: &Py<Self>) -> &'static str {
        zelf.name
    }

    #[pygetset]
    fn __qualname__(zelf: &Py<Self>) -> &'static str {
        zelf.name
    }

    #[pygetset]
    fn __module__(zelf: &Py<Self>) -> &'static str {
        zelf.surface.module()
    }

    #[pygetset]
    fn __doc__(zelf: &Py<Self>) -> String {
        let sigs: Vec<&str> = zelf.overloads.iter().map(|op| op.schema_src()).collect();
        sigs.join("\n")
    }

    /// The schema names of the overloads (`('max.other', 'max', 'max.dim')`).
    #[pygetset]
    fn _overload_names(zelf: &Py<Self>, vm: &VirtualMachine) -> PyObjectRef {
        let names = zelf
            .overloads
            .iter()
            .map(|op| vm.ctx.new_str(op.name()).into())
            .collect();
        vm.ctx.new_tuple(names).into()
    }

    /// Pickled, and so deep-copied, by reference like a builtin function: a module holding
    /// `F.relu` (`TransformerEncoderLayer.activation`) must survive `copy.deepcopy`.
    #[pymethod]
    fn __reduce__(zelf: &Py<Self>) -> &'static str {
        zelf.name
    }
}

impl Callable for PyOpFunction {
    type Args = FuncArgs;

    fn call(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        call_op(zelf, args, vm)
    }
}

impl Representable for PyOpFunction {
    fn repr_str(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<String> {
        Ok(format!("<built-in function {}>", zelf.name))
    }
}

/// A registry op as a `torch.Tensor` method. A separate type from [`PyOpFunction`] because it
/// binds `self` (a method descriptor), while `torch.add` stored on a class must not.
#[pyclass(module = "torch", name = "_OpMethod")]
#[derive(Debug, PyPayload)]
pub struct PyOpMethod {
    /// The op function; called with the tensor as first positional argument.
    pub func: PyOpFunction,
}

#[pyclass(with(Callable, GetDescriptor, Representable), flags(METHOD_DESCRIPTOR))]
impl PyOpMethod {
    #[pygetset]
    fn __name__(zelf: &Py<Self>) -> &'static str {
        zelf.func.name
    }

    #[pygetset]
    fn __qualname__(zelf: &Py<Self>) -> String {
        format!("Tensor.{}", zelf.func.name)
    }

    #[pygetset]
    fn __doc__(zelf: &Py<Self>) -> String {
        let sigs: Vec<&str> = zelf
            .func
            .overloads
            .iter()
            .map(|op| op.schema_src())
            .collect();
        sigs.join("\n")
    }
}

impl Callable for PyOpMethod {
    type Args = FuncArgs;

    fn call(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        call_op(&zelf.func, args, vm)
    }
}

impl GetDescriptor for PyOpMethod {
    fn descr_get(
        zelf: &PyObject,
        obj: Option<&PyObject>,
        _cls: Option<&PyObject>,
        vm: &VirtualMachine,
    ) -> PyResult {
        Ok(bind_to_instance(zelf, obj, vm))
    }
}

/// A function-like descriptor read through an instance binds it (`x.add` is a bound method);
/// read through the class (`Tensor.add`) or with `None` it is itself.
pub fn bind_to_instance(
    zelf: &PyObject,
    obj: Option<&PyObject>,
    vm: &VirtualMachine,
) -> PyObjectRef {
    match obj {
        Some(obj) if !vm.is_none(obj) => PyBoundMethod::new(obj.to_owned(), zelf.to_owned())
            .into_ref(&vm.ctx)
            .into(),
        _ => zelf.to_owned(),
    }
}

impl Representable for PyOpMethod {
    fn repr_str(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<String> {
        Ok(format!(
            "<method '{}' of 'torch.Tensor' objects>",
            zelf.func.name
        ))
    }
}

/// Recognises a registry op callable (`torch.add`, `F.relu`, `Tensor.add`).
pub fn op_function(obj: &PyObject) -> Option<&PyOpFunction> {
    if let Some(f) = obj.downcast_ref::<PyOpFunction>() {
        return Some(f);
    }
    obj.downcast_ref::<PyOpMethod>().map(|m| &m.func)
}

/// Converts Python call arguments to op values, picks the overload whose schema binds, and binds.
/// Generic so Dynamo can bind symbolic values with the same code: `T` is Tensor (eager), or
/// whatever Dynamo uses for tensors while tracing.
///
/// PyTorch's Python signatures call the first tensor `input` where the ATen schema says `self`;
/// a keyword `input=` binds to `self` here.
pub fn bind_overload<T: BindTensor + Clone>(
    overloads: &[Op],
    mut positional: Vec<Value<T>>,
    mut kwargs: Vec<(String, Value<T>)>,
) -> Result<(Op, Vec<Value<T>>), Error> {
    let overloads = nonzero_as_tuple(overloads, &mut kwargs);
    unbiased_positional(overloads, &mut positional, &mut kwargs);
    match overloads {
        [] => Err(Error::UnknownOp("<no overloads>".to_string())),
        [op] => Ok((*op, bind_one(*op, positional, kwargs)?)),
        _ => {
            for &op in overloads {
                if let Ok(args) = bind_one(op, positional.clone(), kwargs.clone()) {
                    return Ok((op, args));
                }
            }
            Err(Error::Bind(invalid_combination(
                overloads,
                &positional,
                &kwargs,
            )))
        }
    }
}

/// `nonzero(input, *, bool as_tuple=False)` is hand-written in PyTorch as well: the flag picks
/// between two ops with different results, `nonzero` (one tensor) and `nonzero_numpy` (a tuple),
/// which no schema can express. A non-bool `as_tuple` stays and fails to bind.
fn nonzero_as_tuple<'a, T>(overloads: &'a [Op], kwargs: &mut Vec<(String, Value<T>)>) -> &'a [Op] {
    if overloads != [Op::Nonzero] {
        return overloads;
    }
    let Some(i) = kwargs
        .iter()
        .position(|(k, v)| k == "as_tuple" && matches!(v, Value::Bool(_)))
    else {
        return overloads;
    };
    match kwargs.remove(i).1 {
        Value::Bool(true) => &[Op::NonzeroNumpy],
        _ => overloads,
    }
}

/// `x.std(False)` / `torch.var(x, True)`: PyTorch's `std(Tensor self, bool unbiased=True)`
/// overload (and `var`'s), a bool where the registry's one schema has `dim`; binding it as
/// `unbiased=` gives the same op.
fn unbiased_positional<T>(
    overloads: &[Op],
    positional: &mut Vec<Value<T>>,
    kwargs: &mut Vec<(String, Value<T>)>,
) {
    if matches!(overloads, [Op::Std] | [Op::Var])
        && let [_, Value::Bool(_)] = positional.as_slice()
        && let Some(unbiased) = positional.pop()
    {
        kwargs.push(("unbiased".to_string(), unbiased));
    }
}

fn bind_one<T: BindTensor + Clone>(
    op: Op,
    positional: Vec<Value<T>>,
    mut kwargs: Vec<(String, Value<T>)>,
) -> Result<Vec<Value<T>>, Error> {
    let schema = op.schema();
    let has_input = schema.params.iter().any(|p| p.name == "input");
    if !has_input && schema.params.first().is_some_and(|p| p.name == "self") {
        for (k, _) in &mut kwargs {
            if k == "input" {
                *k = "self".to_string();
            }
        }
    }
    schema.bind(positional, kwargs)
}

/// PyTorch's message when no overload accepts the arguments.
fn invalid_combination<T>(
    overloads: &[Op],
    positional: &[Value<T>],
    kwargs: &[(String, Value<T>)],
) -> String {
    let mut got: Vec<String> = positional
        .iter()
        .map(|v| v.type_name().to_string())
        .collect();
    got.extend(kwargs.iter().map(|(k, v)| format!("{k}={}", v.type_name())));
    let sigs: Vec<String> = overloads
        .iter()
        .map(|op| {
            let s = op.schema_src();
            let open = s.find('(').unwrap_or(0);
            let close = s.rfind(" ->").unwrap_or(s.len());
            format!(" * {}", &s[open..close])
        })
        .collect();
    format!(
        "{}() received an invalid combination of arguments - got ({}), but expected one of:\n{}",
        overloads[0].py_name(),
        got.join(", "),
        sigs.join("\n")
    )
}

/// The Python exception for a runtime/graph error: the class by the error's kind, with its
/// message.
pub fn to_py_err(err: &Error, vm: &VirtualMachine) -> PyBaseExceptionRef {
    if let Error::External(e) = err
        && let Some(exc) = e.payload.downcast_ref::<PyBaseExceptionRef>()
    {
        return exc.clone();
    }
    let msg = err.to_string();
    match err.kind() {
        ErrorKind::Runtime => vm.new_runtime_error(msg),
        ErrorKind::Index => vm.new_index_error(msg),
        ErrorKind::Type => vm.new_type_error(msg),
        ErrorKind::Value => vm.new_value_error(msg),
        ErrorKind::NotImplemented => vm.new_not_implemented_error(msg),
    }
}

/// Runs Rust code reached from Python outside the dispatcher (a constructor, a copy) so that an
/// allocation failure raised inside ([`rynamo_tensor::unwind::raise`]) becomes PyTorch's
/// `RuntimeError` and a panic a `RuntimeError` naming `what`: nothing unwinds into the
/// interpreter (issue 30). `f` must not call back into Python code that could be interrupted
/// half-way by the unwind; the callers only allocate after reading their Python arguments.
pub fn guarded<T>(what: &str, vm: &VirtualMachine, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    let run = || {
        rynamo_tensor::unwind::fault::check("convert", what);
        f()
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(r) => r,
        Err(payload) => Err(tensor_err(
            rynamo_tensor::unwind::from_panic(payload, || what.to_string()),
            vm,
        )),
    }
}

/// `to_py_err` for a tensor-runtime error.
pub(crate) fn tensor_err(err: rynamo_tensor::Error, vm: &VirtualMachine) -> PyBaseExceptionRef {
    to_py_err(&Error::Tensor(err), vm)
}
