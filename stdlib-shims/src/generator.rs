//! `torch.Generator`: seedable random streams. `torch.default_generator` is the runtime's
//! process-wide generator; other generators own their stream.

use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use rustpython_vm::builtins::{PyInt, PyType};
use rustpython_vm::function::FuncArgs;
use rustpython_vm::types::{Constructor, Representable};
use rustpython_vm::{
    AsObject, Context, Py, PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine, pyclass,
};
use rynamo_tensor::Generator;
use rynamo_tensor::random::{DEFAULT_SEED, default_generator};

use crate::dtype::PyDevice;

#[derive(Debug)]
enum Stream {
    /// The runtime's default generator (what ops draw from).
    Default,
    /// A generator of its own.
    Own(Box<Generator>),
}

/// `torch.Generator`.
#[pyclass(module = "torch", name = "Generator")]
#[derive(Debug, PyPayload)]
pub struct PyGenerator {
    stream: Stream,
}

impl PyGenerator {
    fn generator(&self) -> &Generator {
        match &self.stream {
            Stream::Default => default_generator(),
            Stream::Own(g) => g,
        }
    }

    /// Runs `f` (an op call) with this generator's stream standing in for the default one: the
    /// ops draw from the default generator, so the two streams are swapped for the call.
    pub(crate) fn with_as_default<R>(&self, f: impl FnOnce() -> R) -> R {
        let Stream::Own(own) = &self.stream else {
            return f();
        };
        let swap =
            || own.with(|mine| default_generator().with(|global| std::mem::swap(mine, global)));
        swap();
        let out = f();
        swap();
        out
    }
}

/// The `torch.default_generator` object.
pub fn default_generator_object() -> PyObjectRef {
    static OBJ: OnceLock<PyRef<PyGenerator>> = OnceLock::new();
    OBJ.get_or_init(|| {
        PyGenerator {
            stream: Stream::Default,
        }
        .into_ref(Context::genesis())
    })
    .clone()
    .into()
}

/// A seed from a Python int: PyTorch takes any int in `[-2**63, 2**64)` and uses its 64 bits.
pub(crate) fn seed_from_py(seed: &Py<PyInt>, vm: &VirtualMachine) -> PyResult<u64> {
    if let Ok(v) = seed.try_to_primitive::<u64>(vm) {
        return Ok(v);
    }
    let v = seed
        .try_to_primitive::<i64>(vm)
        .map_err(|_| vm.new_runtime_error("Overflow when unpacking long"))?;
    Ok(v as u64)
}

/// A fresh non-deterministic seed (`torch.seed()`).
pub(crate) fn fresh_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(DEFAULT_SEED, |d| d.as_nanos() as u64);
    // Mix so that close clock readings give unrelated seeds (splitmix64 finaliser).
    let mut z = nanos.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Constructor for PyGenerator {
    type Args = FuncArgs;

    fn py_new(_cls: &Py<PyType>, args: FuncArgs, vm: &VirtualMachine) -> PyResult<Self> {
        let device = args
            .kwargs
            .get("device")
            .cloned()
            .or_else(|| args.args.first().cloned());
        if let Some(d) = device
            && let Some(d) = PyDevice::from_py(&d, vm)?
        {
            d.check_cpu(vm)?;
        }
        Ok(PyGenerator {
            stream: Stream::Own(Box::new(Generator::new(DEFAULT_SEED))),
        })
    }
}

#[pyclass(with(Constructor, Representable))]
impl PyGenerator {
    #[pymethod]
    fn manual_seed(
        zelf: PyRef<Self>,
        seed: PyRef<PyInt>,
        vm: &VirtualMachine,
    ) -> PyResult<PyRef<Self>> {
        zelf.generator().manual_seed(seed_from_py(&seed, vm)?);
        Ok(zelf)
    }

    #[pymethod]
    fn initial_seed(zelf: &Py<Self>) -> u64 {
        zelf.generator().initial_seed()
    }

    #[pymethod]
    fn seed(zelf: &Py<Self>) -> u64 {
        let s = fresh_seed();
        zelf.generator().manual_seed(s);
        s
    }

    /// The state as a uint8 tensor (`torch.get_rng_state` for the default generator).
    #[pymethod]
    fn get_state(zelf: &Py<Self>, vm: &VirtualMachine) -> PyResult {
        let bytes = zelf.generator().get_state();
        let n = bytes.len();
        let t = rynamo_tensor::Tensor::from_vec(bytes, &[n])
            .map_err(|e| crate::ops::tensor_err(e, vm))?;
        Ok(crate::tensor::wrap_tensor(t, vm))
    }

    /// Restores a state from `get_state`.
    #[pymethod]
    fn set_state(
        zelf: PyRef<Self>,
        state: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult<PyRef<Self>> {
        let t = crate::tensor::as_tensor(&state)
            .ok_or_else(|| vm.new_type_error("expected a torch.ByteTensor state"))?;
        if t.dtype() != rynamo_tensor::DType::UInt8 {
            return Err(vm.new_runtime_error(format!(
                "expected a torch.ByteTensor, but got {}",
                t.dtype().name()
            )));
        }
        let bytes: Vec<u8> = t.contiguous().to_vec::<u8>();
        zelf.generator()
            .set_state(&bytes)
            .map_err(|e| crate::ops::tensor_err(e, vm))?;
        Ok(zelf)
    }

    #[pygetset]
    fn device(_zelf: &Py<Self>, vm: &VirtualMachine) -> PyObjectRef {
        PyDevice::CPU.into_ref(&vm.ctx).into()
    }
}

impl Representable for PyGenerator {
    fn repr_str(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<String> {
        Ok(format!(
            "<torch._C.Generator object at {:#x}>",
            zelf.get_id()
        ))
    }
}
