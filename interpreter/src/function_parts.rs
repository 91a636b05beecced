//! Reading a Python function's parts on every intercepted call, cheaply.
//!
//! RustPython 0.6 keeps `PyFunction`'s fields crate-private, so Rynamo reads them as attributes.
//! An attribute read by a `&str` name hashes the name into the intern pool and walks the
//! function type's MRO: about 60 ns each, and a compiled call read five of them and built a
//! replacement function object besides (a third of W5's 1.5 µs; a fifth of W6). This module
//! keeps that cost off the hot path:
//! - the attribute names are interned once per thread ([`Names`]);
//! - the parts a function can never change (`__globals__`, `__builtins__`, `__closure__`) are
//!   remembered by the function's version ([`fixed_parts`]);
//! - the function that runs a transformed code object in place of the user's is made once and
//!   reused while the user function keeps its version ([`replacement`]).
//!
//! **Versions.** RustPython numbers every function from a global counter when it is made, and
//! zeroes the number when `__code__`, `__defaults__` or `__kwdefaults__` is assigned;
//! `get_version_for_current_state` then hands out a fresh one. So two functions never share a
//! non-zero version, and an equal version means the same function object in the same state.
//! Version 0 (the counter exhausted) disables both caches.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::ptr::NonNull;

use rustpython_vm::builtins::{PyCode, PyDictRef, PyFunction, PyStrInterned};
use rustpython_vm::{AsObject, Py, PyObject, PyObjectRef, PyRef, PyResult, VirtualMachine};

/// Interned attribute names, so that a read skips the intern pool's hash lookup.
#[derive(Clone, Copy)]
pub struct Names {
    pub code: &'static PyStrInterned,
    pub defaults: &'static PyStrInterned,
    pub kwdefaults: &'static PyStrInterned,
    globals: &'static PyStrInterned,
    builtins: &'static PyStrInterned,
    closure: &'static PyStrInterned,
    name: &'static PyStrInterned,
    qualname: &'static PyStrInterned,
}

/// Slots of the fixed-parts cache (direct-mapped by version): enough for the functions of one
/// compiled region; a collision only costs the attribute reads again.
const FIXED_SLOTS: usize = 64;

thread_local! {
    static NAMES: OnceCell<Names> = const { OnceCell::new() };
    static FIXED: RefCell<[Option<Fixed>; FIXED_SLOTS]> = const { RefCell::new([const { None }; FIXED_SLOTS]) };
    /// The last replacement function made for each transformed code object, by the code's
    /// address.
    static REPLACEMENTS: RefCell<HashMap<usize, Replacement>> = RefCell::new(HashMap::new());
}

/// This thread's interned attribute names.
pub fn names(vm: &VirtualMachine) -> Names {
    NAMES.with(|n| {
        *n.get_or_init(|| Names {
            code: vm.ctx.intern_str("__code__"),
            defaults: vm.ctx.intern_str("__defaults__"),
            kwdefaults: vm.ctx.intern_str("__kwdefaults__"),
            globals: vm.ctx.intern_str("__globals__"),
            builtins: vm.ctx.intern_str("__builtins__"),
            closure: vm.ctx.intern_str("__closure__"),
            name: vm.ctx.intern_str("__name__"),
            qualname: vm.ctx.intern_str("__qualname__"),
        })
    })
}

/// A function's code object (`func.__code__`), or `None` if it is not a code object.
pub fn code(func: &Py<PyFunction>, vm: &VirtualMachine) -> Option<PyRef<PyCode>> {
    let code = func.as_object().get_attr(names(vm).code, vm).ok()?;
    code.downcast().ok()
}

/// The parts of a function that it holds for its whole life.
pub struct FixedParts {
    pub globals: PyDictRef,
    /// `__builtins__` as a dict (a module's dict when the function holds the module).
    pub builtins: PyObjectRef,
    /// `__closure__`: a tuple of cells, or `None`.
    pub closure: PyObjectRef,
}

/// The same parts as borrowed pointers, valid while their function is alive: the function owns
/// them and RustPython offers no way to replace them (the three attributes are read-only).
struct Fixed {
    version: u32,
    globals: NonNull<PyObject>,
    builtins: NonNull<PyObject>,
    closure: NonNull<PyObject>,
}

/// `func`'s globals, builtins and closure.
pub fn fixed_parts(func: &Py<PyFunction>, vm: &VirtualMachine) -> PyResult<FixedParts> {
    let version = func.get_version_for_current_state();
    let slot = version as usize % FIXED_SLOTS;
    let hit = FIXED.with(|f| {
        let f = f.borrow();
        let e = f[slot]
            .as_ref()
            .filter(|e| version != 0 && e.version == version)?;
        // SAFETY: the version is equal and non-zero, so `e` was made from `func` itself (see
        // the module note); `func` is alive (borrowed by the caller) and still owns these
        // objects, since none of the three can be replaced. Each is cloned (a new strong
        // reference) while that ownership holds.
        unsafe {
            Some((
                e.globals.as_ref().to_owned(),
                e.builtins.as_ref().to_owned(),
                e.closure.as_ref().to_owned(),
            ))
        }
    });
    let (globals, builtins, closure) = match hit {
        Some(parts) => parts,
        None => {
            let n = names(vm);
            let f = func.as_object();
            let parts = (
                f.get_attr(n.globals, vm)?,
                f.get_attr(n.builtins, vm)
                    .unwrap_or_else(|_| vm.builtins.dict().into()),
                f.get_attr(n.closure, vm)?,
            );
            if version != 0 {
                let entry = Fixed {
                    version,
                    globals: NonNull::from(&*parts.0),
                    builtins: NonNull::from(&*parts.1),
                    closure: NonNull::from(&*parts.2),
                };
                FIXED.with(|f| f.borrow_mut()[slot] = Some(entry));
            }
            parts
        }
    };
    let globals = globals
        .downcast()
        .map_err(|_| vm.new_type_error("function globals are not a dict"))?;
    let builtins = match builtins.downcast::<rustpython_vm::builtins::PyModule>() {
        Ok(m) => m.dict().into(),
        Err(b) => b,
    };
    Ok(FixedParts {
        globals,
        builtins,
        closure,
    })
}

/// A replacement function, valid while the user function keeps the version it had when it was
/// made.
struct Replacement {
    version: u32,
    function: PyObjectRef,
    /// Keeps the key's address from being reused by another code object.
    _code: PyRef<PyCode>,
}

/// The function that runs `new_code` in place of `func`: made by [`function_with_code`] on the
/// first call and reused while `func` keeps its version. One entry per code object: a code
/// shared by several live closures is rebuilt when they alternate. The entry holds the last such
/// function's globals, defaults and closure until the code is run for another function or
/// `torch._dynamo.reset()` ([`clear_replacements`]).
pub fn replacement(
    func: &Py<PyFunction>,
    new_code: &PyRef<PyCode>,
    vm: &VirtualMachine,
) -> PyResult<PyObjectRef> {
    let key = new_code.as_object() as *const PyObject as usize;
    let version = func.get_version_for_current_state();
    if version != 0 {
        let hit = REPLACEMENTS.with(|r| {
            r.borrow()
                .get(&key)
                .filter(|e| e.version == version)
                .map(|e| e.function.clone())
        });
        if let Some(function) = hit {
            return Ok(function);
        }
    }
    let function = function_with_code(func, new_code.clone(), vm)?;
    if version != 0 {
        let entry = Replacement {
            version,
            function: function.clone(),
            _code: new_code.clone(),
        };
        REPLACEMENTS.with(|r| r.borrow_mut().insert(key, entry));
    }
    Ok(function)
}

/// Forgets every cached replacement function (`torch._dynamo.reset()`).
pub fn clear_replacements() {
    REPLACEMENTS.with(|r| r.borrow_mut().clear());
}

/// A new function object running `code` with `func`'s globals, name, defaults, closure and
/// keyword defaults (`types.FunctionType(code, globals, name, argdefs, closure, kwdefaults)`).
pub fn function_with_code(
    func: &Py<PyFunction>,
    code: PyRef<PyCode>,
    vm: &VirtualMachine,
) -> PyResult<PyObjectRef> {
    let n = names(vm);
    let obj = func.as_object();
    let fixed = fixed_parts(func, vm)?;
    let name = obj.get_attr(n.name, vm)?;
    let defaults = obj.get_attr(n.defaults, vm)?;
    let kwdefaults = obj.get_attr(n.kwdefaults, vm)?;
    let code: PyObjectRef = code.into();
    let globals: PyObjectRef = fixed.globals.into();
    let new_func = vm.ctx.types.function_type.as_object().call(
        (code, globals, name, defaults, fixed.closure, kwdefaults),
        vm,
    )?;
    if let Ok(qualname) = obj.get_attr(n.qualname, vm) {
        new_func.set_attr(n.qualname, qualname, vm)?;
    }
    Ok(new_func)
}
