//! One loaded plugin library: `dlopen`, the version handshake, and safe wrappers around each table
//! function.
//!
//! **Invariant:** the `libloading::Library` lives inside [`PluginLibrary`], and everything holding a
//! pointer into the library (executables, adopted output tensors) holds an `Arc<PluginLibrary>`, so
//! the code stays mapped while anything from it is alive.

use std::collections::HashMap;
use std::ffi::{CStr, c_char, c_void};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, Weak};

use parking_lot::Mutex;
use rynamo_graph::Graph;
use rynamo_plugin_abi::*;
use rynamo_plugin_wire as wire;

use crate::log::{LogMessage, LogSink, host_log, sink_for};
use crate::{Error, Result};

/// The table's function pointers, copied out at load time. Optional ones are `None` when the
/// plugin left them NULL or its version does not have them.
#[derive(Clone, Copy)]
pub(crate) struct Fns {
    pub(crate) error_destroy: unsafe extern "C" fn(*mut RynamoError),
    pub(crate) error_message:
        unsafe extern "C" fn(*const RynamoError, *mut *const c_char, *mut usize),
    pub(crate) error_code: unsafe extern "C" fn(*const RynamoError) -> u32,
    pub(crate) supports: Option<unsafe extern "C" fn(*mut RynamoSupportsArgs) -> *mut RynamoError>,
    pub(crate) compile: Option<unsafe extern "C" fn(*mut RynamoCompileArgs) -> *mut RynamoError>,
    pub(crate) executable_destroy: Option<unsafe extern "C" fn(*mut RynamoExecutable)>,
    pub(crate) execute: Option<unsafe extern "C" fn(*mut RynamoExecuteArgs) -> *mut RynamoError>,
}

/// A loaded, version-checked, initialised plugin library.
pub struct PluginLibrary {
    path: PathBuf,
    name: String,
    version: String,
    abi_major: u32,
    abi_minor: u32,
    capabilities: u64,
    pub(crate) fns: Fns,
    _lib: libloading::Library,
    log: &'static LogSink,
}

impl std::fmt::Debug for PluginLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginLibrary")
            .field("path", &self.path)
            .field("name", &self.name)
            .field("version", &self.version)
            .field("abi", &(self.abi_major, self.abi_minor))
            .field("capabilities", &self.capabilities)
            .finish()
    }
}

/// Libraries already loaded, by canonical path: loading one twice returns the same object, so its
/// `initialize` runs once per process.
fn loaded() -> &'static Mutex<HashMap<PathBuf, Weak<PluginLibrary>>> {
    static M: OnceLock<Mutex<HashMap<PathBuf, Weak<PluginLibrary>>>> = OnceLock::new();
    M.get_or_init(Default::default)
}

fn valid_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 64
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
}

impl PluginLibrary {
    /// Loads the plugin at `path` (or returns the live instance already loaded from it), checks the
    /// ABI, and calls `initialize` when the plugin's version has it.
    pub fn open(path: impl AsRef<Path>) -> Result<Arc<PluginLibrary>> {
        let path = path.as_ref();
        let canon = std::fs::canonicalize(path).map_err(|_| Error::NotFound {
            path: path.to_path_buf(),
        })?;
        let mut map = loaded().lock();
        if let Some(lib) = map.get(&canon).and_then(Weak::upgrade) {
            return Ok(lib);
        }
        let lib = Arc::new(Self::load(path, &canon)?);
        map.retain(|_, w| w.strong_count() > 0);
        map.insert(canon, Arc::downgrade(&lib));
        Ok(lib)
    }

    fn load(path: &Path, canon: &Path) -> Result<PluginLibrary> {
        let p = || path.to_path_buf();
        if !canon.is_file() {
            return Err(Error::Open {
                path: p(),
                reason: "not a regular file".into(),
            });
        }
        // SAFETY: loading runs the library's initialisers: that is the trust a user extends by
        // naming a plugin. The path is explicit (never searched for).
        let lib = unsafe { libloading::Library::new(canon) }.map_err(|e| Error::Open {
            path: p(),
            reason: e.to_string(),
        })?;
        let sym_name = &RYNAMO_PLUGIN_ENTRY[..RYNAMO_PLUGIN_ENTRY.len() - 1];
        // SAFETY: the ABI fixes the entry symbol's type as `RynamoGetApiFn`.
        let get: RynamoGetApiFn = unsafe { lib.get::<RynamoGetApiFn>(RYNAMO_PLUGIN_ENTRY) }
            .map(|s| *s)
            .map_err(|e| Error::MissingSymbol {
                path: p(),
                symbol: String::from_utf8_lossy(sym_name).into_owned(),
                reason: e.to_string(),
            })?;
        // SAFETY: calling the plugin's entry point per the ABI (no arguments).
        let api = unsafe { get() };
        if api.is_null() {
            return Err(Error::NullApi { path: p() });
        }
        // SAFETY: a non-NULL table starts with `size_t struct_size` (ABI); we read further fields
        // only after `struct_size` says they are there, through raw pointers (no reference to a
        // possibly shorter struct is formed).
        let size = unsafe { std::ptr::addr_of!((*api).struct_size).read() };
        if size < API_VERSION_PREFIX_SIZE {
            return Err(Error::StructTooSmall {
                path: p(),
                got: size,
                need: API_VERSION_PREFIX_SIZE,
                major: 0,
                minor: 0,
            });
        }
        // SAFETY: within `struct_size`, checked above.
        let (major, minor) = unsafe {
            (
                std::ptr::addr_of!((*api).abi_major).read(),
                std::ptr::addr_of!((*api).abi_minor).read(),
            )
        };
        if major != RYNAMO_ABI_MAJOR {
            return Err(Error::AbiMismatch {
                path: p(),
                plugin_major: major,
                plugin_minor: minor,
                host_major: RYNAMO_ABI_MAJOR,
                host_minor: RYNAMO_ABI_MINOR,
            });
        }
        // Fields of versions newer than ours are not read; fields of ours newer than the plugin's
        // are treated as absent.
        let known_minor = minor.min(RYNAMO_ABI_MINOR);
        let need = api_size_for_minor(known_minor);
        if size < need {
            return Err(Error::StructTooSmall {
                path: p(),
                got: size,
                need,
                major,
                minor,
            });
        }
        // SAFETY: `size >= api_size_for_minor(0)`, so every 1.0 field is within the table.
        let v10 = unsafe { read_v10(api) };
        let bad = |reason: String| Error::BadTable { path: p(), reason };
        let name = cstr(v10.name).ok_or_else(|| bad("name is NULL or not UTF-8".into()))?;
        if !valid_name(&name) {
            return Err(bad(format!(
                "name {name:?} must be 1 to 64 characters of [A-Za-z0-9_.-]"
            )));
        }
        let version = cstr(v10.version).unwrap_or_default();
        let fns = Fns {
            error_destroy: v10
                .error_destroy
                .ok_or_else(|| bad("error_destroy is NULL".into()))?,
            error_message: v10
                .error_message
                .ok_or_else(|| bad("error_message is NULL".into()))?,
            error_code: v10
                .error_code
                .ok_or_else(|| bad("error_code is NULL".into()))?,
            supports: v10.supports,
            compile: v10.compile,
            executable_destroy: v10.executable_destroy,
            execute: v10.execute,
        };
        let initialize = if known_minor >= 1 {
            // SAFETY: `size >= api_size_for_minor(1)` (checked above for minor >= 1).
            unsafe { std::ptr::addr_of!((*api).initialize).read() }
        } else {
            None
        };
        let me = PluginLibrary {
            path: p(),
            name,
            version,
            abi_major: major,
            abi_minor: minor,
            capabilities: v10.capabilities,
            fns,
            _lib: lib,
            log: sink_for(canon),
        };
        if let Some(init) = initialize {
            let mut args = RynamoInitializeArgs {
                struct_size: size_of::<RynamoInitializeArgs>(),
                host_abi_major: RYNAMO_ABI_MAJOR,
                host_abi_minor: RYNAMO_ABI_MINOR,
                log: Some(host_log),
                log_user_data: (me.log as *const LogSink).cast_mut().cast::<c_void>(),
            };
            // SAFETY: calling the plugin per the ABI with a valid args struct.
            let err = unsafe { init(&mut args) };
            me.check("initialize", err)?;
        }
        Ok(me)
    }

    /// Backend name the plugin reports.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Plugin version string.
    pub fn version(&self) -> &str {
        &self.version
    }
    /// The path it was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// `(abi_major, abi_minor)` the plugin was built for.
    pub fn abi_version(&self) -> (u32, u32) {
        (self.abi_major, self.abi_minor)
    }
    /// `RYNAMO_CAP_*` bits.
    pub fn capabilities(&self) -> u64 {
        self.capabilities
    }
    /// Whether the plugin has `cap`.
    pub fn has(&self, cap: u64) -> bool {
        self.capabilities & cap == cap
    }
    /// The latest log messages (plugin messages and host notes about this plugin), oldest first.
    pub fn log_messages(&self) -> Vec<LogMessage> {
        self.log.messages()
    }
    /// Adds a host note to the log.
    pub(crate) fn note(&self, level: u32, message: String) {
        self.log.push(level, message);
    }

    /// `Ok` for NULL; otherwise reads, frees and converts the plugin's error.
    pub(crate) fn check(&self, function: &'static str, err: *mut RynamoError) -> Result<()> {
        if err.is_null() {
            return Ok(());
        }
        let mut msg: *const c_char = std::ptr::null();
        let mut len = 0usize;
        // SAFETY: `err` is a live error from this plugin; the out-params are valid locals. The
        // message is copied before the error is destroyed, exactly once.
        let (code, message) = unsafe {
            let code = (self.fns.error_code)(err);
            (self.fns.error_message)(err, &mut msg, &mut len);
            let message = if msg.is_null() {
                "(no message)".to_string()
            } else {
                String::from_utf8_lossy(std::slice::from_raw_parts(msg.cast::<u8>(), len))
                    .into_owned()
            };
            (self.fns.error_destroy)(err);
            (code, message)
        };
        Err(Error::Plugin {
            plugin: self.name.clone(),
            function,
            code,
            message,
        })
    }

    fn unimplemented(&self, function: &'static str) -> Error {
        Error::Unimplemented {
            plugin: self.name.clone(),
            function,
        }
    }

    /// Asks the plugin which nodes of `graph` it can run (one flag per node).
    pub fn supports(&self, graph: &Graph) -> Result<Vec<bool>> {
        let f = self
            .fns
            .supports
            .ok_or_else(|| self.unimplemented("supports"))?;
        let bytes = wire::encode(graph)?;
        let n = graph.nodes().len();
        let mut mask = vec![0u8; n];
        let mut args = RynamoSupportsArgs {
            struct_size: size_of::<RynamoSupportsArgs>(),
            graph: bytes.as_ptr(),
            graph_len: bytes.len(),
            node_supported: mask.as_mut_ptr(),
            num_nodes: n,
        };
        // SAFETY: valid args; `bytes` and `mask` outlive the call.
        self.check("supports", unsafe { f(&mut args) })?;
        Ok(mask.into_iter().map(|b| b != 0).collect())
    }

    /// Compiles the whole of `graph` on the plugin (no partitioning, no fallback).
    pub fn compile(self: &Arc<Self>, graph: &Graph) -> Result<crate::PluginExecutable> {
        let bytes = wire::encode(graph)?;
        self.compile_bytes(&bytes, graph)
    }

    /// Compiles already-encoded bytes; `graph` gives the input and output metas to check against.
    /// Exposed so conformance tests can send malformed bytes.
    pub fn compile_bytes(
        self: &Arc<Self>,
        bytes: &[u8],
        graph: &Graph,
    ) -> Result<crate::PluginExecutable> {
        let f = self
            .fns
            .compile
            .ok_or_else(|| self.unimplemented("compile"))?;
        let mut args = RynamoCompileArgs {
            struct_size: size_of::<RynamoCompileArgs>(),
            graph: bytes.as_ptr(),
            graph_len: bytes.len(),
            executable: std::ptr::null_mut(),
        };
        // SAFETY: valid args; `bytes` outlives the call.
        let err = unsafe { f(&mut args) };
        if let Err(e) = self.check("compile", err) {
            if !args.executable.is_null() {
                self.destroy_executable(args.executable);
            }
            return Err(e);
        }
        if args.executable.is_null() {
            return Err(Error::Plugin {
                plugin: self.name.clone(),
                function: "compile",
                code: RYNAMO_ERROR_INTERNAL,
                message: "returned success but no executable".into(),
            });
        }
        Ok(crate::PluginExecutable::new(
            self.clone(),
            args.executable,
            graph,
        ))
    }

    pub(crate) fn destroy_executable(&self, e: *mut RynamoExecutable) {
        if let Some(d) = self.fns.executable_destroy {
            // SAFETY: `e` is a live executable of this plugin, destroyed once.
            unsafe { d(e) };
        }
    }
}

/// Reads the ABI 1.0 part of the table.
///
/// # Safety
/// `api` points to at least `api_size_for_minor(0)` readable bytes of a table.
unsafe fn read_v10(api: *const RynamoPluginApi) -> RynamoPluginApi {
    // SAFETY: caller contract; `initialize` (past the 1.0 part) is not read.
    unsafe {
        RynamoPluginApi {
            struct_size: std::ptr::addr_of!((*api).struct_size).read(),
            abi_major: std::ptr::addr_of!((*api).abi_major).read(),
            abi_minor: std::ptr::addr_of!((*api).abi_minor).read(),
            name: std::ptr::addr_of!((*api).name).read(),
            version: std::ptr::addr_of!((*api).version).read(),
            capabilities: std::ptr::addr_of!((*api).capabilities).read(),
            error_destroy: std::ptr::addr_of!((*api).error_destroy).read(),
            error_message: std::ptr::addr_of!((*api).error_message).read(),
            error_code: std::ptr::addr_of!((*api).error_code).read(),
            supports: std::ptr::addr_of!((*api).supports).read(),
            compile: std::ptr::addr_of!((*api).compile).read(),
            executable_destroy: std::ptr::addr_of!((*api).executable_destroy).read(),
            execute: std::ptr::addr_of!((*api).execute).read(),
            initialize: None,
        }
    }
}

fn cstr(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the ABI says name/version are static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .ok()
        .map(str::to_string)
}
