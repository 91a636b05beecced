//! The structs that cross `dlopen`. Every args struct starts with `struct_size` (the size as the
//! caller knows it); out-params say `out`; every pointer says who owns it and for how long.

use core::ffi::{c_char, c_void};
use core::marker::{PhantomData, PhantomPinned};

/// Opaque error made by the plugin. The host reads it with `error_code`/`error_message` and frees it
/// with `error_destroy`; NULL in place of an error means success.
#[repr(C)]
pub struct RynamoError {
    _opaque: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// Opaque compiled graph made by `compile`; the host frees it with `executable_destroy`.
#[repr(C)]
pub struct RynamoExecutable {
    _opaque: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

abi_struct! {
    /// Element type, as DLPack's `DLDataType`.
    pub struct RynamoDataType {
        /// One of `RYNAMO_DTYPE_CODE_*`.
        pub code: u8 => "uint8_t",
        /// Bits per element.
        pub bits: u8 => "uint8_t",
        /// Vector lanes; always 1 in ABI 1.
        pub lanes: u16 => "uint16_t",
    }
}

abi_struct! {
    /// Where a tensor lives, as DLPack's `DLDevice`.
    pub struct RynamoDevice {
        /// `RYNAMO_DEVICE_CPU` in ABI 1.
        pub device_type: i32 => "int32_t",
        /// Device ordinal; 0 for the CPU.
        pub device_id: i32 => "int32_t",
    }
}

abi_struct! {
    /// A strided tensor, laid out exactly as DLPack's `DLTensor`. Element `[i0, i1, ...]` is at
    /// `(char*)data + byte_offset + (i0*strides[0] + i1*strides[1] + ...) * bits/8`.
    pub struct RynamoTensor {
        /// Base of the buffer; may be NULL when the tensor has no elements.
        pub data: *mut c_void => "void*",
        /// The device holding `data`.
        pub device: RynamoDevice => "RynamoDevice",
        /// Number of dimensions.
        pub ndim: i32 => "int32_t",
        /// Element type.
        pub dtype: RynamoDataType => "RynamoDataType",
        /// `ndim` sizes, owned by whoever owns this descriptor.
        pub shape: *const i64 => "const int64_t*",
        /// `ndim` strides in elements, or NULL for row-major contiguous.
        pub strides: *const i64 => "const int64_t*",
        /// Bytes from `data` to element `[0, ..., 0]`.
        pub byte_offset: u64 => "uint64_t",
    }
}

abi_struct! {
    /// A tensor handed over with its ownership, as DLPack's `DLManagedTensor`: the receiver calls
    /// `deleter(self)` exactly once when done. `data` must stay valid, and writable, until then.
    pub struct RynamoManagedTensor {
        /// The tensor (its `shape`/`strides` arrays live as long as the managed tensor).
        pub dl_tensor: RynamoTensor => "RynamoTensor",
        /// Producer's private state.
        pub manager_ctx: *mut c_void => "void*",
        /// Releases the tensor; never NULL.
        pub deleter: Option<unsafe extern "C" fn(*mut RynamoManagedTensor)>
            => "void (*{})(struct RynamoManagedTensor* self)",
    }
}

abi_struct! {
    /// Arguments of `supports`.
    pub struct RynamoSupportsArgs {
        /// `RYNAMO_STRUCT_SIZE(RynamoSupportsArgs, num_nodes)` as the host knows it.
        pub struct_size: usize => "size_t",
        /// The graph in wire format; borrowed for this call only.
        pub graph: *const u8 => "const uint8_t*",
        /// Bytes at `graph`.
        pub graph_len: usize => "size_t",
        /// out: one byte per node, host-owned, zeroed by the host; write 1 for each node the plugin
        /// can run.
        pub node_supported: *mut u8 => "uint8_t*",
        /// Nodes in the graph (bytes at `node_supported`).
        pub num_nodes: usize => "size_t",
    }
}

abi_struct! {
    /// Arguments of `compile`.
    pub struct RynamoCompileArgs {
        /// `RYNAMO_STRUCT_SIZE(RynamoCompileArgs, executable)` as the host knows it.
        pub struct_size: usize => "size_t",
        /// The graph in wire format; borrowed for this call only (copy what you keep).
        pub graph: *const u8 => "const uint8_t*",
        /// Bytes at `graph`.
        pub graph_len: usize => "size_t",
        /// out: the compiled graph, owned by the host from now on (freed with
        /// `executable_destroy`). Left NULL on error.
        pub executable: *mut RynamoExecutable => "RynamoExecutable*",
    }
}

abi_struct! {
    /// Arguments of `execute`. The inputs match the compiled graph's inputs in order, dtype and shape
    /// (the host checks before calling).
    pub struct RynamoExecuteArgs {
        /// `RYNAMO_STRUCT_SIZE(RynamoExecuteArgs, num_outputs)` as the host knows it.
        pub struct_size: usize => "size_t",
        /// The executable from `compile`; borrowed.
        pub executable: *mut RynamoExecutable => "RynamoExecutable*",
        /// `num_inputs` input tensors, borrowed for this call only. Their data is host memory that the
        /// plugin must not write.
        pub inputs: *const RynamoTensor => "const RynamoTensor*",
        /// Number of inputs.
        pub num_inputs: usize => "size_t",
        /// out: a host array of `num_outputs` NULL pointers. The plugin stores one managed tensor per
        /// graph output, which the host then owns. On error, entries left non-NULL are still released
        /// by the host.
        pub outputs: *mut *mut RynamoManagedTensor => "RynamoManagedTensor**",
        /// Number of graph outputs.
        pub num_outputs: usize => "size_t",
    }
}

abi_struct! {
    /// Arguments of `initialize` (ABI 1.1).
    pub struct RynamoInitializeArgs {
        /// `RYNAMO_STRUCT_SIZE(RynamoInitializeArgs, log_user_data)` as the host knows it.
        pub struct_size: usize => "size_t",
        /// The host's `RYNAMO_ABI_MAJOR`.
        pub host_abi_major: u32 => "uint32_t",
        /// The host's `RYNAMO_ABI_MINOR`.
        pub host_abi_minor: u32 => "uint32_t",
        /// Host log sink (may be NULL). Callable from any thread until the library is unloaded;
        /// `message` is UTF-8 of `len` bytes, borrowed for the call.
        pub log: Option<unsafe extern "C" fn(*mut c_void, u32, *const c_char, usize)>
            => "void (*{})(void* user_data, uint32_t level, const char* message, size_t len)",
        /// First argument of `log`.
        pub log_user_data: *mut c_void => "void*",
    }
}

abi_struct! {
    /// The plugin's function table, returned by `rynamo_plugin_get_api`. It lives as long as the
    /// library. It only ever grows at the end; the host reads a field only when both `abi_minor` and
    /// `struct_size` say the plugin has it. Every function may be called from any thread, except that
    /// `execute` on one executable is serialised unless `RYNAMO_CAP_CONCURRENT_EXECUTE` is set.
    pub struct RynamoPluginApi {
        /// `sizeof(RynamoPluginApi)` as the plugin was compiled.
        pub struct_size: usize => "size_t",
        /// `RYNAMO_ABI_MAJOR` the plugin was built against.
        pub abi_major: u32 => "uint32_t",
        /// `RYNAMO_ABI_MINOR` the plugin was built against.
        pub abi_minor: u32 => "uint32_t",
        /// Backend name: static NUL-terminated `[A-Za-z0-9_.-]+`, at most 64 bytes.
        pub name: *const c_char => "const char*",
        /// Plugin version: static NUL-terminated UTF-8 (free form).
        pub version: *const c_char => "const char*",
        /// `RYNAMO_CAP_*` bits.
        pub capabilities: u64 => "uint64_t",
        /// Frees an error. Required.
        pub error_destroy: Option<unsafe extern "C" fn(*mut RynamoError)>
            => "void (*{})(RynamoError* error)",
        /// Reads an error's UTF-8 message (out: pointer and length, valid until the error is
        /// destroyed). Required.
        pub error_message: Option<unsafe extern "C" fn(*const RynamoError, *mut *const c_char, *mut usize)>
            => "void (*{})(const RynamoError* error, const char** message, size_t* len)",
        /// Reads an error's `RYNAMO_ERROR_*` code. Required.
        pub error_code: Option<unsafe extern "C" fn(*const RynamoError) -> u32>
            => "uint32_t (*{})(const RynamoError* error)",
        /// Says per node which nodes the plugin can run. NULL: the host treats this as
        /// unimplemented.
        pub supports: Option<unsafe extern "C" fn(*mut RynamoSupportsArgs) -> *mut RynamoError>
            => "RynamoError* (*{})(RynamoSupportsArgs* args)",
        /// Compiles a graph into an executable.
        pub compile: Option<unsafe extern "C" fn(*mut RynamoCompileArgs) -> *mut RynamoError>
            => "RynamoError* (*{})(RynamoCompileArgs* args)",
        /// Frees an executable. The host calls it once per executable, after its last `execute`.
        pub executable_destroy: Option<unsafe extern "C" fn(*mut RynamoExecutable)>
            => "void (*{})(RynamoExecutable* executable)",
        /// Runs an executable.
        pub execute: Option<unsafe extern "C" fn(*mut RynamoExecuteArgs) -> *mut RynamoError>
            => "RynamoError* (*{})(RynamoExecuteArgs* args)",
        /// ABI 1.1: called once, after the version checks and before any other function. NULL
        /// means nothing to do. An error here fails the load.
        pub initialize: Option<unsafe extern "C" fn(*mut RynamoInitializeArgs) -> *mut RynamoError>
            => "RynamoError* (*{})(RynamoInitializeArgs* args)",
    }
}

// Layout pins: the layout is the API (cf. LuaJIT's LJ_STATIC_ASSERT). These hold on
// every 64-bit target; the generated header repeats them as `_Static_assert`s for C compilers.
#[cfg(target_pointer_width = "64")]
const _: () = {
    assert!(core::mem::size_of::<RynamoTensor>() == 48);
    assert!(core::mem::size_of::<RynamoManagedTensor>() == 64);
    assert!(core::mem::offset_of!(RynamoPluginApi, name) == 16);
    assert!(core::mem::offset_of!(RynamoPluginApi, error_destroy) == 40);
    assert!(core::mem::offset_of!(RynamoPluginApi, compile) == 72);
    assert!(core::mem::offset_of!(RynamoPluginApi, execute) == 88);
    assert!(core::mem::offset_of!(RynamoPluginApi, initialize) == 96);
    assert!(core::mem::size_of::<RynamoPluginApi>() == 104);
};
