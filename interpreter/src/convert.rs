//! Conversions between Rust values and Python objects for the embedding API.
//!
//! RustPython's own `ToPyObject`/`TryFromObject` cover scalars and strings; these traits add the
//! containers an embedder passes around (vectors, tuples, options) so that
//! `interp.call::<Vec<f64>>("f", (vec![1.0, 2.0], 3))` just works.

use rustpython_vm::builtins::{PyList, PyTuple};
use rustpython_vm::convert::{ToPyObject, TryFromObject};
use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

/// A Rust value that can become a Python object.
pub trait IntoPy {
    /// Converts `self` into a Python object.
    fn into_py(self, vm: &VirtualMachine) -> PyObjectRef;
}

/// A Rust value that can be read from a Python object.
pub trait FromPy: Sized {
    /// Converts `obj`, raising `TypeError`/`ValueError` as Python would.
    fn from_py(obj: PyObjectRef, vm: &VirtualMachine) -> PyResult<Self>;
}

/// Arguments of a call: a tuple of [`IntoPy`] values (or `()`).
pub trait IntoPyArgs {
    /// The positional arguments.
    fn into_py_args(self, vm: &VirtualMachine) -> Vec<PyObjectRef>;
}

macro_rules! via_rustpython {
    ($($t:ty),*) => {$(
        impl IntoPy for $t {
            fn into_py(self, vm: &VirtualMachine) -> PyObjectRef {
                self.to_pyobject(vm)
            }
        }
        impl FromPy for $t {
            fn from_py(obj: PyObjectRef, vm: &VirtualMachine) -> PyResult<Self> {
                <$t>::try_from_object(vm, obj)
            }
        }
    )*};
}
via_rustpython!(
    i8, i16, i32, i64, u8, u16, u32, u64, usize, isize, f32, f64, bool, String
);

impl IntoPy for &str {
    fn into_py(self, vm: &VirtualMachine) -> PyObjectRef {
        vm.ctx.new_str(self).into()
    }
}

impl IntoPy for PyObjectRef {
    fn into_py(self, _: &VirtualMachine) -> PyObjectRef {
        self
    }
}

impl FromPy for PyObjectRef {
    fn from_py(obj: PyObjectRef, _: &VirtualMachine) -> PyResult<Self> {
        Ok(obj)
    }
}

impl IntoPy for () {
    fn into_py(self, vm: &VirtualMachine) -> PyObjectRef {
        vm.ctx.none()
    }
}

impl FromPy for () {
    fn from_py(_: PyObjectRef, _: &VirtualMachine) -> PyResult<Self> {
        Ok(())
    }
}

impl<T: IntoPy> IntoPy for Option<T> {
    fn into_py(self, vm: &VirtualMachine) -> PyObjectRef {
        self.map_or_else(|| vm.ctx.none(), |v| v.into_py(vm))
    }
}

impl<T: FromPy> FromPy for Option<T> {
    fn from_py(obj: PyObjectRef, vm: &VirtualMachine) -> PyResult<Self> {
        if vm.is_none(&obj) {
            Ok(None)
        } else {
            T::from_py(obj, vm).map(Some)
        }
    }
}

impl<T: IntoPy> IntoPy for Vec<T> {
    fn into_py(self, vm: &VirtualMachine) -> PyObjectRef {
        let items = self.into_iter().map(|v| v.into_py(vm)).collect();
        vm.ctx.new_list(items).into()
    }
}

impl<T: FromPy> FromPy for Vec<T> {
    /// Accepts any iterable (list, tuple, generator, ...), as `list(obj)` would.
    fn from_py(obj: PyObjectRef, vm: &VirtualMachine) -> PyResult<Self> {
        let items: Vec<PyObjectRef> = if let Some(list) = obj.downcast_ref::<PyList>() {
            list.borrow_vec().to_vec()
        } else if let Some(tuple) = obj.downcast_ref::<PyTuple>() {
            tuple.as_slice().to_vec()
        } else {
            vm.extract_elements_with(&obj, Ok)?
        };
        items.into_iter().map(|item| T::from_py(item, vm)).collect()
    }
}

macro_rules! tuples {
    ($($n:literal: ($($t:ident $i:tt),+);)*) => {$(
        impl<$($t: IntoPy),+> IntoPy for ($($t,)+) {
            fn into_py(self, vm: &VirtualMachine) -> PyObjectRef {
                vm.ctx.new_tuple(vec![$(self.$i.into_py(vm)),+]).into()
            }
        }
        impl<$($t: IntoPy),+> IntoPyArgs for ($($t,)+) {
            fn into_py_args(self, vm: &VirtualMachine) -> Vec<PyObjectRef> {
                vec![$(self.$i.into_py(vm)),+]
            }
        }
        impl<$($t: FromPy),+> FromPy for ($($t,)+) {
            fn from_py(obj: PyObjectRef, vm: &VirtualMachine) -> PyResult<Self> {
                let items: Vec<PyObjectRef> = FromPy::from_py(obj, vm)?;
                if items.len() != $n {
                    return Err(vm.new_value_error(format!(
                        "expected a sequence of {} items, got {}", $n, items.len()
                    )));
                }
                let mut it = items.into_iter();
                Ok(($($t::from_py(it.next().expect("invariant: length checked above"), vm)?,)+))
            }
        }
    )*};
}
tuples! {
    1: (A 0);
    2: (A 0, B 1);
    3: (A 0, B 1, C 2);
    4: (A 0, B 1, C 2, D 3);
    5: (A 0, B 1, C 2, D 3, E 4);
    6: (A 0, B 1, C 2, D 3, E 4, F 5);
}

impl IntoPyArgs for () {
    fn into_py_args(self, _: &VirtualMachine) -> Vec<PyObjectRef> {
        Vec::new()
    }
}

impl IntoPyArgs for Vec<PyObjectRef> {
    fn into_py_args(self, _: &VirtualMachine) -> Vec<PyObjectRef> {
        self
    }
}
