//! The Python-visible `torch` package: the native `torch.Tensor` type, one callable per op of
//! the registry, and the embedded Python sources of `torch`.
//!
//! ```text
//!   import torch  ->  torch/__init__.py (frozen)  ->  torch._C (native: module.rs)
//!   torch.add(x, y) / x.add(y) / x + y
//!     -> ops::bind_overload (schema binding)  -> rynamo_graph::registry::call (eager kernel)
//!     -> tensor::wrap_tensor (a new torch.Tensor)
//! ```
//!
//! [`register`] adds both halves to an interpreter builder; the `rynamo` interpreter calls it, so
//! `import torch` works in every `rynamo::Interpreter` and in the `rynamo` binary. Dynamo uses the
//! same pieces while tracing: [`as_tensor`] and [`PyTensor::meta`] read a tensor without Python
//! calls, [`op_function`] recognises `torch.add` and friends, and [`bind_overload`] binds
//! arguments for any tensor stand-in.
//!
//! ```
//! let interp = rynamo::Interpreter::builder().build();
//! interp.run_source("import torch\nx = torch.tensor([[1., 2.], [3., 4.]])\n", "<doc>")?;
//! let text: String = interp.eval("repr(x.sum(dim=0))")?;
//! assert_eq!(text, "tensor([4., 6.])");
//! // The Python object holds the runtime tensor; Rust reads it without copying.
//! let sum = interp.with_vm(|vm, scope| {
//!     let x = scope.globals.get_item("x", vm)?;
//!     Ok(rynamo_shims::as_tensor(&x).expect("a tensor").to_vec::<f32>().iter().sum::<f32>())
//! })?;
//! assert_eq!(sum, 10.0);
//! # Ok::<(), rynamo::Error>(())
//! ```
//!
//! **Invariant:** every tensor-producing call from Python runs through
//! `rynamo_graph::registry::call`, so the dispatch counter (`torch._C._dispatch_count()`) counts
//! every eager op.

#![warn(missing_docs)]

mod args;
pub mod autocast;
mod autocast_module;
pub mod autograd;
mod call;
mod convert;
mod creation;
pub mod dtype;
pub mod generator;
mod indexing;
mod memory_format;
mod metadata;
mod module;
pub mod nn_module;
mod number;
pub mod ops;
pub mod py_method;
pub mod repr;
mod safetensors;
mod serialization;
pub mod size;
pub mod state;
pub mod tensor;

pub use convert::legacy_type_name;
pub use creation::tensor_from_data;
pub use dtype::{PyDType, PyDevice, dtype_object};
pub use ops::{
    PyOpFunction, PyOpMethod, Surface, bind_overload, op_function, py_to_index, py_to_value,
    to_py_err,
};
pub use size::{PySize, new_size};
pub use tensor::{PyTensor, as_tensor, wrap_tensor};

mod frozen_sources {
    include!(concat!(env!("OUT_DIR"), "/frozen_sources.rs"));
}

/// The source text of a frozen module of the `torch` package (`"torch.nn.modules.linear"`), for
/// messages and printed graphs that quote the line being run (frozen code has no file).
pub fn frozen_source(module: &str) -> Option<&'static str> {
    frozen_sources::FROZEN_SOURCES
        .iter()
        .find(|(name, _)| *name == module)
        .map(|(_, text)| *text)
}

/// Adds the native modules and the frozen `torch` package to an interpreter builder.
pub fn register(builder: rustpython_vm::InterpreterBuilder) -> rustpython_vm::InterpreterBuilder {
    init_types();
    let def = module::module_def(&builder.ctx);
    let autograd_def = autograd::module_def(&builder.ctx);
    let ser = serialization::module_def(&builder.ctx);
    let st = safetensors::module_def(&builder.ctx);
    let amp = autocast_module::module_def(&builder.ctx);
    builder
        .add_native_module(def)
        .add_native_module(autograd_def)
        .add_native_module(ser)
        .add_native_module(st)
        .add_native_module(amp)
        .add_frozen_modules(rustpython_vm::py_freeze!(dir = "../python"))
}

/// Creates the native types (process-wide, idempotent): they must exist before the first object
/// of each is made.
pub fn init_types() {
    use rustpython_vm::class::PyClassImpl;
    let _ = PyTensor::make_static_type();
    let _ = PySize::make_static_type();
    let _ = PyDType::make_static_type();
    let _ = PyDevice::make_static_type();
    let _ = PyOpFunction::make_static_type();
    let _ = PyOpMethod::make_static_type();
    let _ = py_method::PyPythonMethod::make_static_type();
    let _ = generator::PyGenerator::make_static_type();
    let _ = autograd::PyNode::make_static_type();
}
