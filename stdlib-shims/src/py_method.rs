//! `torch.Tensor` methods implemented by Python functions of the `torch` package (the
//! `torch._refs*` decompositions behind `x.movedim(...)`, `x.allclose(...)`).
//!
//! The Tensor type is shared by every interpreter of the process, so such a method holds the
//! function's module and name, never a function object of one interpreter: each call looks the
//! function up in the calling interpreter's module and calls it with the tensor first.

use rustpython_vm::function::FuncArgs;
use rustpython_vm::types::{Callable, GetDescriptor, Representable};
use rustpython_vm::{Py, PyObject, PyObjectRef, PyPayload, PyResult, VirtualMachine, pyclass};

use crate::tensor::PyTensor;

/// A `torch.Tensor` method that calls `<module>.<name>(self, ...)`.
#[pyclass(module = "torch", name = "_PythonMethod")]
#[derive(Debug, PyPayload)]
pub struct PyPythonMethod {
    /// The module holding the function (`torch`, `torch._refs_data`).
    pub module: String,
    /// The function's name there (and the method's name).
    pub name: String,
}

impl PyPythonMethod {
    /// The function this method calls, in `vm`'s interpreter.
    pub fn resolve(&self, vm: &VirtualMachine) -> PyResult {
        // `import a.b` gives `a`: walk down to the submodule.
        let mut module = vm.import(vm.ctx.intern_str(self.module.as_str()), 0)?;
        for part in self.module.split('.').skip(1) {
            module = module.get_attr(vm.ctx.intern_str(part), vm)?;
        }
        module.get_attr(vm.ctx.intern_str(self.name.as_str()), vm)
    }
}

#[pyclass(with(Callable, GetDescriptor, Representable), flags(METHOD_DESCRIPTOR))]
impl PyPythonMethod {
    #[pygetset]
    fn __name__(zelf: &Py<Self>) -> String {
        zelf.name.clone()
    }

    #[pygetset]
    fn __qualname__(zelf: &Py<Self>) -> String {
        format!("Tensor.{}", zelf.name)
    }
}

impl Callable for PyPythonMethod {
    type Args = FuncArgs;

    fn call(zelf: &Py<Self>, args: FuncArgs, vm: &VirtualMachine) -> PyResult {
        zelf.resolve(vm)?.call(args, vm)
    }
}

impl GetDescriptor for PyPythonMethod {
    fn descr_get(
        zelf: &PyObject,
        obj: Option<&PyObject>,
        _cls: Option<&PyObject>,
        vm: &VirtualMachine,
    ) -> PyResult {
        Ok(crate::ops::bind_to_instance(zelf, obj, vm))
    }
}

impl Representable for PyPythonMethod {
    fn repr_str(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<String> {
        Ok(format!(
            "<method '{}' of 'torch.Tensor' objects>",
            zelf.name
        ))
    }
}

/// Adds `module.<name>` as `Tensor.<name>` for each of `names`. Names the type defines natively
/// or as registry ops are left alone; reinstalling (every interpreter's `import torch` does)
/// replaces an equivalent method.
pub fn install(module: &str, names: &[String], vm: &VirtualMachine) {
    let class = PyTensor::class(&vm.ctx);
    for name in names {
        let key = vm.ctx.intern_str(name.as_str());
        if class
            .get_attr(key)
            .is_some_and(|m| m.downcast_ref::<PyPythonMethod>().is_none())
        {
            continue;
        }
        let method = PyPythonMethod {
            module: module.to_owned(),
            name: name.clone(),
        };
        class.set_attr(key, method.into_ref(&vm.ctx).into());
    }
}

/// The Python function behind `method` when it is a [`PyPythonMethod`], in `vm`'s interpreter.
pub fn target(method: &PyObject, vm: &VirtualMachine) -> Option<PyObjectRef> {
    method
        .downcast_ref::<PyPythonMethod>()
        .and_then(|m| m.resolve(vm).ok())
}
