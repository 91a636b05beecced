//! Exception objects made and raised inside traced code (Dynamo's `ExceptionVariable` in
//! `variables/misc.py`).
//!
//! `raise ValueError("bad")` inside a compiled function makes an [`ExcVar`], not a real object:
//! the tracer unwinds to the handler the code object's exception table names (in the same frame
//! or in an inlining caller), as CPython would, so `try`/`except` around traced code stays in
//! the graph. An exception no traced frame handles stops the trace (Dynamo's "Observed
//! exception"): the frame then runs eagerly from the last point it can resume, and the real
//! exception is raised by the real code, with the user's traceback.
//!
//! Only classes whose construction Dynamo can model are traced: `BaseException` subclasses that
//! keep `BaseException`'s own `__new__` and `__init__` (all built-in exceptions, and user
//! exceptions that only add a name or class attributes).

use rustpython_vm::builtins::PyType;
use rustpython_vm::types::PyTypeFlags;
use rustpython_vm::{AsObject, PyObject, PyObjectRef, VirtualMachine};

use super::Vt;

/// An exception instance made during the trace.
#[derive(Debug)]
pub struct ExcVar {
    /// Its class.
    pub cls: PyObjectRef,
    /// The constructor's positional arguments (`e.args`).
    pub args: Vec<Vt>,
}

impl ExcVar {
    /// The class name, for messages.
    pub fn class_name(&self) -> String {
        self.cls
            .downcast_ref::<PyType>()
            .map_or_else(|| "exception".to_owned(), |t| t.name().to_string())
    }

    /// A real exception equal to this one, when every argument is a constant (for `str(e)`,
    /// f-strings and `repr`).
    pub fn materialize(&self, vm: &VirtualMachine) -> Option<PyObjectRef> {
        let args: Vec<PyObjectRef> = self
            .args
            .iter()
            .map(|a| a.as_const().cloned())
            .collect::<Option<_>>()?;
        self.cls.call(args, vm).ok()
    }

    /// Whether `except <types>` catches it (`types`: a class or a tuple of classes).
    pub fn matches(&self, types: &PyObjectRef, vm: &VirtualMachine) -> Option<bool> {
        let issubclass = vm.builtins.get_attr("issubclass", vm).ok()?;
        issubclass
            .call((self.cls.clone(), types.clone()), vm)
            .ok()?
            .try_to_bool(vm)
            .ok()
    }
}

/// The exception a traced container operation raises as Python would (`KeyError(key)`,
/// `IndexError("list index out of range")`): a handler in the traced code catches it; without
/// one it is an "Observed exception" break and the real operation raises it.
pub fn raise_builtin(
    cls: &'static rustpython_vm::Py<PyType>,
    arg: PyObjectRef,
) -> super::super::exc::GraphBreak {
    super::super::exc::GraphBreak::raised(Vt::new(super::Kind::Exception(std::rc::Rc::new(
        ExcVar {
            cls: cls.to_owned().into(),
            args: vec![Vt::constant(arg)],
        },
    ))))
}

/// `raise cls()` with no arguments (`StopIteration` from an exhausted `next()`).
pub fn raise_builtin_noargs(
    cls: &'static rustpython_vm::Py<PyType>,
) -> super::super::exc::GraphBreak {
    super::super::exc::GraphBreak::raised(Vt::new(super::Kind::Exception(std::rc::Rc::new(
        ExcVar {
            cls: cls.to_owned().into(),
            args: Vec::new(),
        },
    ))))
}

/// Whether calling `cls` makes an exception Dynamo can model: a `BaseException` subclass whose
/// `__new__` and `__init__` come from built-in exception types (which only store `args`). User
/// classes that define either are constructed by their own code, so they are not modelled;
/// `OSError` is not either (its constructor picks a subclass from the errno).
pub fn is_plain_exception_class(cls: &PyObject, vm: &VirtualMachine) -> bool {
    let Some(ty) = cls.downcast_ref::<PyType>() else {
        return false;
    };
    if !ty.fast_issubclass(vm.ctx.exceptions.base_exception_type)
        || ty.fast_issubclass(vm.ctx.exceptions.os_error)
    {
        return false;
    }
    let mut mro = ty.mro_collect();
    if !mro.first().is_some_and(|c| c.is(ty)) {
        mro.insert(0, ty.to_owned());
    }
    let (new, init) = (vm.ctx.intern_str("__new__"), vm.ctx.intern_str("__init__"));
    for name in [new, init] {
        let defining = mro.iter().find(|c| c.get_direct_attr(name).is_some());
        if defining.is_none_or(|c| c.slots.flags.has_feature(PyTypeFlags::HEAPTYPE)) {
            return false;
        }
    }
    true
}
