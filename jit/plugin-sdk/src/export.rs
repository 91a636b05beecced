//! The C entry points, generic over the plugin type and instantiated by [`crate::export_plugin!`].
//! Every `extern "C"` body runs inside [`guard`] (or an equivalent `catch_unwind`): a panic becomes a
//! `RYNAMO_ERROR_INTERNAL` error and never unwinds into the host.

use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock};

use rynamo_plugin_abi::*;
use rynamo_plugin_wire as wire;
use rynamo_tensor::Tensor;

use crate::{Error, Executable, HostInfo, Plugin, Result, log};

/// The plugin instance and the table that points into it.
pub struct Instance<P> {
    plugin: P,
    _name: CString,
    _version: CString,
    api: RynamoPluginApi,
}

/// Where [`crate::export_plugin!`] keeps the instance (one static per plugin type).
pub struct Cell<P>(OnceLock<Instance<P>>);

// SAFETY: the table's raw pointers point into the same immutable `Instance` (static strings and
// function pointers); nothing is mutated after initialisation, and `P: Sync`.
unsafe impl<P: Plugin> Sync for Cell<P> {}

impl<P> Cell<P> {
    /// An empty cell.
    pub const fn new() -> Cell<P> {
        Cell(OnceLock::new())
    }
}

impl<P> Default for Cell<P> {
    fn default() -> Self {
        Self::new()
    }
}

/// Implemented by [`crate::export_plugin!`]: finds the plugin's cell.
pub trait Exported: Plugin {
    /// The static cell.
    fn cell() -> &'static Cell<Self>;
}

fn valid_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 64
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
}

/// Body of `rynamo_plugin_get_api`: builds the instance once. Returns NULL if construction panics
/// or the name is invalid.
pub fn get_api<P: Exported>(init: impl FnOnce() -> P) -> *const RynamoPluginApi {
    let r = catch_unwind(AssertUnwindSafe(|| {
        let inst = P::cell().0.get_or_init(|| {
            let plugin = init();
            let name = CString::new(plugin.name()).expect("plugin name has no NUL byte");
            assert!(
                valid_name(plugin.name()),
                "invalid plugin name {:?}",
                plugin.name()
            );
            let version = CString::new(plugin.version()).expect("plugin version has no NUL byte");
            let api = RynamoPluginApi {
                struct_size: size_of::<RynamoPluginApi>(),
                abi_major: RYNAMO_ABI_MAJOR,
                abi_minor: RYNAMO_ABI_MINOR,
                name: name.as_ptr(),
                version: version.as_ptr(),
                capabilities: plugin.capabilities().bits(),
                error_destroy: Some(error_destroy),
                error_message: Some(error_message),
                error_code: Some(error_code),
                supports: Some(supports::<P>),
                compile: Some(compile::<P>),
                executable_destroy: Some(executable_destroy::<P>),
                execute: Some(execute::<P>),
                initialize: Some(initialize::<P>),
            };
            Instance {
                plugin,
                _name: name,
                _version: version,
                api,
            }
        });
        &inst.api as *const RynamoPluginApi
    }));
    r.unwrap_or(std::ptr::null())
}

fn plugin<P: Exported>() -> Result<&'static P> {
    P::cell()
        .0
        .get()
        .map(|i| &i.plugin)
        .ok_or_else(|| Error::Internal("called before rynamo_plugin_get_api".into()))
}

// === Errors ===

struct SdkError {
    code: u32,
    message: CString,
}

fn make_error(e: &Error) -> *mut RynamoError {
    let text = e.to_string().replace('\0', "\u{fffd}");
    let b = Box::new(SdkError {
        code: e.code(),
        message: CString::new(text).expect("invariant: NUL bytes were replaced"),
    });
    Box::into_raw(b).cast::<RynamoError>()
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string payload".into())
}

/// Runs an entry point body: `Ok` -> NULL, `Err` -> an error object, panic -> INTERNAL error.
pub fn guard(f: impl FnOnce() -> Result<()>) -> *mut RynamoError {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => std::ptr::null_mut(),
        Ok(Err(e)) => make_error(&e),
        Err(p) => {
            let msg = format!("plugin panicked: {}", panic_message(&*p));
            log::log(log::Level::Error, &msg);
            make_error(&Error::Internal(msg))
        }
    }
}

unsafe extern "C" fn error_destroy(e: *mut RynamoError) {
    let _ = catch_unwind(|| {
        if !e.is_null() {
            // SAFETY: `e` came from `make_error` and the host frees it once.
            drop(unsafe { Box::from_raw(e.cast::<SdkError>()) });
        }
    });
}

unsafe extern "C" fn error_message(
    e: *const RynamoError,
    msg: *mut *const c_char,
    len: *mut usize,
) {
    let _ = catch_unwind(|| {
        if e.is_null() || msg.is_null() || len.is_null() {
            return;
        }
        // SAFETY: `e` came from `make_error` and is alive; the out-params are valid (checked
        // non-NULL; the ABI requires them writable).
        unsafe {
            let e = &*e.cast::<SdkError>();
            *msg = e.message.as_ptr();
            *len = e.message.as_bytes().len();
        }
    });
}

unsafe extern "C" fn error_code(e: *const RynamoError) -> u32 {
    catch_unwind(|| {
        if e.is_null() {
            return RYNAMO_ERROR_INTERNAL;
        }
        // SAFETY: `e` came from `make_error` and is alive.
        unsafe { (*e.cast::<SdkError>()).code }
    })
    .unwrap_or(RYNAMO_ERROR_INTERNAL)
}

// === Entry points ===

/// Borrows an args struct after checking it is there and has the fields we read.
///
/// # Safety
/// `p` is NULL or points to a `T` whose first field is `struct_size` and that lives for `'a`.
unsafe fn args<'a, T>(p: *mut T, need: usize, what: &str) -> Result<&'a mut T> {
    if p.is_null() {
        return Err(Error::InvalidArgument(format!("{what}: args is NULL")));
    }
    // SAFETY: every args struct starts with `size_t struct_size` (caller contract).
    let size = unsafe { *p.cast::<usize>() };
    if size < need {
        return Err(Error::InvalidArgument(format!(
            "{what}: struct_size {size} < {need}; the host is older than this plugin"
        )));
    }
    // SAFETY: non-NULL, and the host says at least `need` bytes (all fields we read) are there.
    Ok(unsafe { &mut *p })
}

/// # Safety
/// `p` points to `len` readable bytes (or `len` is 0).
unsafe fn bytes<'a>(p: *const u8, len: usize) -> Result<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::InvalidArgument("graph is NULL".into()));
    }
    // SAFETY: caller contract.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

unsafe extern "C" fn initialize<P: Exported>(a: *mut RynamoInitializeArgs) -> *mut RynamoError {
    guard(|| {
        // SAFETY: the host passes a valid args struct for this call.
        let a = unsafe {
            args(
                a,
                struct_size!(RynamoInitializeArgs, log_user_data),
                "initialize",
            )
        }?;
        if let Some(f) = a.log {
            log::set_sink(f, a.log_user_data as usize);
        }
        plugin::<P>()?.initialize(&HostInfo {
            abi_major: a.host_abi_major,
            abi_minor: a.host_abi_minor,
        })
    })
}

unsafe extern "C" fn supports<P: Exported>(a: *mut RynamoSupportsArgs) -> *mut RynamoError {
    guard(|| {
        // SAFETY: the host passes a valid args struct for this call.
        let a = unsafe { args(a, struct_size!(RynamoSupportsArgs, num_nodes), "supports") }?;
        // SAFETY: the ABI says `graph_len` bytes at `graph`, borrowed for the call.
        let b = unsafe { bytes(a.graph, a.graph_len) }?;
        let mask = match wire::decode(b) {
            Ok(g) => {
                if g.nodes().len() != a.num_nodes {
                    return Err(Error::InvalidArgument(format!(
                        "num_nodes is {} but the graph has {} nodes",
                        a.num_nodes,
                        g.nodes().len()
                    )));
                }
                let m = plugin::<P>()?.supports(&g);
                if m.len() != a.num_nodes {
                    return Err(Error::Internal(format!(
                        "supports() answered for {} nodes, the graph has {}",
                        m.len(),
                        a.num_nodes
                    )));
                }
                m
            }
            // NOTE: a newer host may send ops this build does not know: decline them all, so the
            // host falls back instead of failing.
            Err(e @ wire::Error::UnknownOp { .. }) => {
                log::log(log::Level::Info, &format!("supports: declining graph: {e}"));
                vec![false; a.num_nodes]
            }
            Err(e) => return Err(e.into()),
        };
        if a.num_nodes > 0 && a.node_supported.is_null() {
            return Err(Error::InvalidArgument("node_supported is NULL".into()));
        }
        for (i, s) in mask.into_iter().enumerate() {
            // SAFETY: the host owns `num_nodes` writable bytes at `node_supported`.
            unsafe { *a.node_supported.add(i) = s as u8 };
        }
        Ok(())
    })
}

unsafe extern "C" fn compile<P: Exported>(a: *mut RynamoCompileArgs) -> *mut RynamoError {
    guard(|| {
        // SAFETY: the host passes a valid args struct for this call.
        let a = unsafe { args(a, struct_size!(RynamoCompileArgs, executable), "compile") }?;
        a.executable = std::ptr::null_mut();
        // SAFETY: the ABI says `graph_len` bytes at `graph`, borrowed for the call.
        let g = wire::decode(unsafe { bytes(a.graph, a.graph_len) }?)?;
        let exe = plugin::<P>()?.compile(g)?;
        a.executable = Box::into_raw(Box::new(exe)).cast::<RynamoExecutable>();
        Ok(())
    })
}

unsafe extern "C" fn executable_destroy<P: Exported>(e: *mut RynamoExecutable) {
    let _ = catch_unwind(|| {
        if !e.is_null() {
            // SAFETY: `e` came from `compile::<P>` and the host destroys it once.
            drop(unsafe { Box::from_raw(e.cast::<P::Executable>()) });
        }
    });
}

unsafe extern "C" fn execute<P: Exported>(a: *mut RynamoExecuteArgs) -> *mut RynamoError {
    guard(|| {
        // SAFETY: the host passes a valid args struct for this call.
        let a = unsafe { args(a, struct_size!(RynamoExecuteArgs, num_outputs), "execute") }?;
        if a.executable.is_null() {
            return Err(Error::InvalidArgument("executable is NULL".into()));
        }
        // SAFETY: a live executable from `compile::<P>`, shared (the host serialises unless the
        // plugin declared concurrent execution, and `Executable: Sync`).
        let exe = unsafe { &*a.executable.cast::<P::Executable>() };
        if a.num_inputs > 0 && a.inputs.is_null() || a.num_outputs > 0 && a.outputs.is_null() {
            return Err(Error::InvalidArgument("inputs or outputs is NULL".into()));
        }
        let inputs: Vec<Tensor> = (0..a.num_inputs)
            // SAFETY: `num_inputs` descriptors at `inputs`, borrowed for this call, as is their
            // memory; the tensors are dropped (or checked unshared) before we return.
            .map(|i| unsafe { wire::borrow(&*a.inputs.add(i)) })
            .collect::<Result<_, _>>()?;
        let outs = exe.execute(&inputs)?;
        if outs.len() != a.num_outputs {
            return Err(Error::Internal(format!(
                "executable produced {} outputs, the graph has {}",
                outs.len(),
                a.num_outputs
            )));
        }
        // Outputs must own their memory: copy any that view a borrowed input.
        let outs: Vec<Tensor> = outs
            .into_iter()
            .map(|t| {
                if t.storage().is_external() {
                    t.deep_clone()
                } else {
                    t
                }
            })
            .collect();
        if let Some(k) = inputs
            .iter()
            .position(|t| Arc::strong_count(t.storage()) > 1)
        {
            return Err(Error::Internal(format!(
                "the executable kept a reference to borrowed input {k}"
            )));
        }
        drop(inputs);
        for (i, t) in outs.into_iter().enumerate() {
            // SAFETY: the host's array has `num_outputs` slots.
            unsafe { *a.outputs.add(i) = wire::export(t) };
        }
        Ok(())
    })
}
