//! `torch.dtype` and `torch.device`.
//!
//! Dtype objects are process-wide singletons (`x.dtype is torch.float32` holds), created once in
//! RustPython's global context, which every interpreter in the process shares.

use std::sync::OnceLock;

use rustpython_vm::builtins::{PyStrRef, PyType};
use rustpython_vm::common::hash::{PyHash, hash_object_id};
use rustpython_vm::function::{OptionalArg, PyComparisonValue};
use rustpython_vm::types::{Comparable, Constructor, Hashable, PyComparisonOp, Representable};
use rustpython_vm::{
    AsObject, Context, Py, PyObject, PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine,
    pyclass,
};
use rynamo_tensor::DType;

/// `torch.dtype`: one singleton object per [`DType`].
#[pyclass(module = "torch", name = "dtype")]
#[derive(Debug, PyPayload)]
pub struct PyDType {
    /// The element type.
    pub dtype: DType,
}

/// The singleton `torch.<dtype>` object for `d`.
pub fn dtype_object(d: DType) -> PyObjectRef {
    static OBJS: OnceLock<Vec<PyRef<PyDType>>> = OnceLock::new();
    let objs = OBJS.get_or_init(|| {
        DType::ALL
            .iter()
            .map(|&dtype| PyDType { dtype }.into_ref(Context::genesis()))
            .collect()
    });
    objs[d as usize].clone().into()
}

/// The dtype a Python object names: a `torch.dtype`, or the Python types `float`/`int`/`bool`
/// (which PyTorch accepts wherever a dtype goes).
pub fn dtype_from_py(obj: &PyObject, vm: &VirtualMachine) -> Option<DType> {
    if let Some(d) = obj.downcast_ref::<PyDType>() {
        return Some(d.dtype);
    }
    let types = &vm.ctx.types;
    if obj.is(types.float_type) {
        Some(crate::state::default_dtype())
    } else if obj.is(types.int_type) {
        Some(DType::Int64)
    } else if obj.is(types.bool_type) {
        Some(DType::Bool)
    } else {
        None
    }
}

#[pyclass(with(Representable, Hashable), flags(DISALLOW_INSTANTIATION))]
impl PyDType {
    #[pygetset]
    fn is_floating_point(zelf: &Py<Self>) -> bool {
        zelf.dtype.is_floating_point()
    }

    #[pygetset]
    fn is_complex(zelf: &Py<Self>) -> bool {
        zelf.dtype.is_complex()
    }

    #[pygetset]
    fn is_signed(zelf: &Py<Self>) -> bool {
        zelf.dtype.is_signed()
    }

    #[pygetset]
    fn itemsize(zelf: &Py<Self>) -> usize {
        zelf.dtype.itemsize()
    }

    /// Pickles as the attribute name in the `torch` module, as PyTorch does.
    #[pymethod]
    fn __reduce__(zelf: &Py<Self>) -> &'static str {
        zelf.dtype.name()
    }

    /// The dtype of a complex dtype's components (`torch.complex64.to_real()` is `torch.float32`);
    /// a real dtype is its own.
    #[pymethod]
    fn to_real(zelf: PyRef<Self>) -> PyObjectRef {
        dtype_object(zelf.dtype.to_real())
    }

    /// The complex dtype whose components are this dtype (`torch.float64.to_complex()` is
    /// `torch.complex128`); PyTorch's error for dtypes without one Rynamo has.
    #[pymethod]
    fn to_complex(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        zelf.dtype.to_complex().map(dtype_object).ok_or_else(|| {
            vm.new_runtime_error(format!(
                "Unknown Complex ScalarType for {}",
                zelf.dtype.aten_name()
            ))
        })
    }
}

impl Representable for PyDType {
    fn repr_str(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<String> {
        Ok(zelf.dtype.to_string())
    }
}

impl Hashable for PyDType {
    fn hash(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<PyHash> {
        Ok(hash_object_id(zelf.get_id()))
    }
}

/// Device types PyTorch knows; only `cpu` holds tensors here.
const DEVICE_TYPES: &[&str] = &[
    "cpu", "cuda", "mps", "meta", "xpu", "xla", "hip", "ipu", "mtia", "lazy", "hpu",
];

/// `torch.device`.
#[pyclass(module = "torch", name = "device")]
#[derive(Debug, Clone, PartialEq, Eq, PyPayload)]
pub struct PyDevice {
    /// `cpu`, `cuda`, ...
    pub kind: &'static str,
    /// The device index, if given.
    pub index: Option<i64>,
}

impl PyDevice {
    /// The CPU device.
    pub const CPU: PyDevice = PyDevice {
        kind: "cpu",
        index: None,
    };

    /// Parses `"cpu"`, `"cuda:1"`, ... as PyTorch's device strings.
    pub fn parse(s: &str, vm: &VirtualMachine) -> PyResult<PyDevice> {
        let bad = || {
            vm.new_runtime_error(format!(
                "Expected one of {} device type at start of device string: {s}",
                DEVICE_TYPES.join(", ")
            ))
        };
        let (kind, index) =
            match s.split_once(':') {
                Some((k, i)) => (
                    k,
                    Some(i.parse::<i64>().map_err(|_| {
                        vm.new_runtime_error(format!("Invalid device string: '{s}'"))
                    })?),
                ),
                None => (s, None),
            };
        let kind = DEVICE_TYPES
            .iter()
            .copied()
            .find(|k| *k == kind)
            .ok_or_else(bad)?;
        Ok(PyDevice { kind, index })
    }

    /// The device a Python object names (a `torch.device` or a string), if any.
    pub fn from_py(obj: &PyObject, vm: &VirtualMachine) -> PyResult<Option<PyDevice>> {
        if let Some(d) = obj.downcast_ref::<PyDevice>() {
            return Ok(Some((**d).clone()));
        }
        if let Some(s) = obj.downcast_ref::<rustpython_vm::builtins::PyStr>() {
            return PyDevice::parse(&s.to_string_lossy(), vm).map(Some);
        }
        Ok(None)
    }

    /// Fails unless this is the CPU, with PyTorch's message for a build without that backend.
    pub fn check_cpu(&self, vm: &VirtualMachine) -> PyResult<()> {
        match self.kind {
            "cpu" => Ok(()),
            "cuda" => Err(vm.new_exception_msg(
                vm.ctx.exceptions.assertion_error.to_owned(),
                "Torch not compiled with CUDA enabled".into(),
            )),
            k => Err(vm.new_runtime_error(format!(
                "Rynamo runs tensors on the CPU only; device '{k}' is not available"
            ))),
        }
    }

    fn text(&self) -> String {
        match self.index {
            Some(i) => format!("{}:{i}", self.kind),
            None => self.kind.to_string(),
        }
    }
}

/// `torch.device(type, index=None)` arguments.
#[derive(rustpython_vm::FromArgs)]
pub struct DeviceArgs {
    #[pyarg(any, name = "type")]
    device_type: PyObjectRef,
    #[pyarg(any, optional)]
    index: OptionalArg<Option<i64>>,
}

impl Constructor for PyDevice {
    type Args = DeviceArgs;

    fn py_new(_cls: &Py<PyType>, args: Self::Args, vm: &VirtualMachine) -> PyResult<Self> {
        let index = args.index.flatten();
        if let Some(d) = args.device_type.downcast_ref::<PyDevice>() {
            return Ok((**d).clone());
        }
        let s: PyStrRef = args.device_type.try_into_value(vm)?;
        let mut dev = PyDevice::parse(&s.to_string_lossy(), vm)?;
        if index.is_some() {
            if dev.index.is_some() {
                return Err(vm.new_runtime_error(format!(
                    "type (string) must not include an index because index was passed explicitly: {}",
                    s.to_string_lossy()
                )));
            }
            dev.index = index;
        }
        Ok(dev)
    }
}

#[pyclass(with(Constructor, Representable, Comparable, Hashable))]
impl PyDevice {
    #[pygetset(name = "type")]
    fn device_type(zelf: &Py<Self>) -> &'static str {
        zelf.kind
    }

    #[pygetset]
    fn index(zelf: &Py<Self>) -> Option<i64> {
        zelf.index
    }

    #[pymethod]
    fn __str__(zelf: &Py<Self>) -> String {
        zelf.text()
    }

    /// `with torch.device(...)`: makes the device the default for factory functions. Only the CPU
    /// exists, so entering it changes nothing, and entering another device fails as a CPU-only
    /// PyTorch build does when that device is first used.
    #[pymethod]
    fn __enter__(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyResult<PyRef<Self>> {
        zelf.check_cpu(vm)?;
        Ok(zelf)
    }

    #[pymethod]
    fn __exit__(_zelf: PyRef<Self>, _args: rustpython_vm::function::FuncArgs) {}

    #[pymethod]
    fn __reduce__(zelf: PyRef<Self>, vm: &VirtualMachine) -> PyObjectRef {
        let cls: PyObjectRef = zelf.class().to_owned().into();
        let args = vm.new_tuple((vm.ctx.new_str(zelf.kind), zelf.index));
        vm.new_tuple((cls, args)).into()
    }
}

impl Representable for PyDevice {
    fn repr_str(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<String> {
        Ok(match zelf.index {
            Some(i) => format!("device(type='{}', index={i})", zelf.kind),
            None => format!("device(type='{}')", zelf.kind),
        })
    }
}

impl Comparable for PyDevice {
    fn cmp(
        zelf: &Py<Self>,
        other: &PyObject,
        op: PyComparisonOp,
        _vm: &VirtualMachine,
    ) -> PyResult<PyComparisonValue> {
        op.eq_only(|| {
            let Some(other) = other.downcast_ref::<PyDevice>() else {
                return Ok(PyComparisonValue::NotImplemented);
            };
            Ok((**zelf == **other).into())
        })
    }
}

impl Hashable for PyDevice {
    fn hash(zelf: &Py<Self>, vm: &VirtualMachine) -> PyResult<PyHash> {
        vm.ctx.new_str(zelf.text()).as_object().hash(vm)
    }
}
