//! `_rynamo_autocast`: the autocast state functions PyTorch keeps in `torch._C`
//! (`is_autocast_enabled`, `set_autocast_dtype`, `autocast_increment_nesting`, ...), over the
//! per-thread state in [`crate::autocast`]. `torch/__init__.py` re-exports them under PyTorch's
//! names; Dynamo folds the getters while tracing and breaks the graph at the setters.
//!
//! Rynamo runs on the CPU only: other device types read as disabled with PyTorch's default
//! dtype for them, and enabling one is an error rather than a flag nothing would honour.

pub(crate) use native::module_def;

#[rustpython_vm::pymodule(name = "_rynamo_autocast")]
mod native {
    use rustpython_vm::function::OptionalArg;
    use rustpython_vm::{PyObjectRef, PyRef, PyResult, VirtualMachine};
    use rynamo_tensor::DType;

    use crate::autocast::{self, clear_cache, update};
    use crate::dtype::{PyDType, dtype_object};

    /// PyTorch's device types, in its error message's order.
    const DEVICE_TYPES: &[&str] = &[
        "cpu",
        "cuda",
        "ipu",
        "xpu",
        "mkldnn",
        "opengl",
        "opencl",
        "ideep",
        "hip",
        "ve",
        "fpga",
        "maia",
        "xla",
        "lazy",
        "vulkan",
        "mps",
        "meta",
        "hpu",
        "mtia",
        "privateuseone",
    ];

    /// Checks a device type string; `true` for the CPU.
    fn is_cpu(device_type: &str, vm: &VirtualMachine) -> PyResult<bool> {
        if DEVICE_TYPES.contains(&device_type) {
            return Ok(device_type == "cpu");
        }
        Err(vm.new_runtime_error(format!(
            "Expected one of {} device type at start of device string: {device_type}",
            DEVICE_TYPES.join(", ")
        )))
    }

    /// PyTorch's default autocast dtype of a device type (`autocast_dtype` in autocast_mode.cpp).
    fn default_dtype(device_type: &str) -> DType {
        match device_type {
            "cpu" | "xla" | "hpu" => DType::BFloat16,
            _ => DType::Float16,
        }
    }

    fn only_cpu(
        device_type: &str,
        vm: &VirtualMachine,
    ) -> rustpython_vm::builtins::PyBaseExceptionRef {
        vm.new_runtime_error(format!(
            "Rynamo runs on the CPU only: autocast state for device type '{device_type}' cannot be set"
        ))
    }

    /// `torch.is_autocast_enabled(device_type=None)`: without a device type, CUDA's (deprecated
    /// in PyTorch), which is always off here.
    #[pyfunction]
    fn is_autocast_enabled(
        device_type: OptionalArg<String>,
        vm: &VirtualMachine,
    ) -> PyResult<bool> {
        match device_type {
            OptionalArg::Present(d) => Ok(is_cpu(&d, vm)? && autocast::state().enabled),
            OptionalArg::Missing => Ok(false),
        }
    }

    /// `torch.set_autocast_enabled(device_type, enabled)`.
    #[pyfunction]
    fn set_autocast_enabled(
        device_type: String,
        enabled: bool,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        if !is_cpu(&device_type, vm)? {
            if enabled {
                return Err(only_cpu(&device_type, vm));
            }
            return Ok(());
        }
        update(|s| s.enabled = enabled);
        Ok(())
    }

    thread_local! {
        /// The dtypes set for other device types (their regions are never enabled here, but
        /// `autocast(...).__enter__` saves and restores the dtype as PyTorch's does).
        static OTHER_DTYPES: std::cell::RefCell<Vec<(String, DType)>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }

    /// `torch.get_autocast_dtype(device_type)`.
    #[pyfunction]
    fn get_autocast_dtype(device_type: String, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        let d = if is_cpu(&device_type, vm)? {
            autocast::state().dtype
        } else {
            OTHER_DTYPES.with(|m| {
                m.borrow()
                    .iter()
                    .find(|(k, _)| *k == device_type)
                    .map_or_else(|| default_dtype(&device_type), |(_, d)| *d)
            })
        };
        Ok(dtype_object(d))
    }

    /// `torch.set_autocast_dtype(device_type, dtype)`.
    #[pyfunction]
    fn set_autocast_dtype(
        device_type: String,
        dtype: PyRef<PyDType>,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        if is_cpu(&device_type, vm)? {
            update(|s| s.dtype = dtype.dtype);
        } else {
            OTHER_DTYPES.with(|m| {
                let mut m = m.borrow_mut();
                m.retain(|(k, _)| *k != device_type);
                m.push((device_type, dtype.dtype));
            });
        }
        Ok(())
    }

    #[pyfunction]
    fn is_autocast_cache_enabled() -> bool {
        autocast::state().cache_enabled
    }

    #[pyfunction]
    fn set_autocast_cache_enabled(enabled: bool) {
        update(|s| s.cache_enabled = enabled);
    }

    #[pyfunction]
    fn clear_autocast_cache() {
        clear_cache();
    }

    /// Returns the new depth, as PyTorch's.
    #[pyfunction]
    fn autocast_increment_nesting() -> i64 {
        update(|s| {
            s.nesting += 1;
            s.nesting
        })
    }

    /// Returns the new depth, as PyTorch's (it may go below zero).
    #[pyfunction]
    fn autocast_decrement_nesting() -> i64 {
        update(|s| {
            s.nesting -= 1;
            s.nesting
        })
    }
}
