//! Versions, codes and flags. Numbering follows PJRT/absl for error codes and DLPack for dtype codes
//! and devices, so plugin authors meet familiar values.

abi_consts! {
    /// Bumped on any incompatible change: removing, reordering or retyping a field or argument. The
    /// host refuses a plugin whose major version differs from its own.
    pub const RYNAMO_ABI_MAJOR: u32 = 1;
    /// Bumped when a field is appended to `RynamoPluginApi` or to an args struct. 1.1 appended
    /// `RynamoPluginApi::initialize`. The host reads a field only if the plugin's minor version (and
    /// `struct_size`) says it is there.
    pub const RYNAMO_ABI_MINOR: u32 = 1;
    /// Version of the graph wire format that `supports` and `compile` receive. It is documented in
    /// `jit/plugin-wire/WIRE_FORMAT.md`, and `rynamo_graph_wire.h` holds its op ids and tags.
    pub const RYNAMO_GRAPH_WIRE_VERSION: u32 = 1;

    /// Error code: the host passed something malformed (a graph, a tensor, an args struct).
    pub const RYNAMO_ERROR_INVALID_ARGUMENT: u32 = 3;
    /// Error code: something named does not exist.
    pub const RYNAMO_ERROR_NOT_FOUND: u32 = 5;
    /// Error code: out of memory or another resource.
    pub const RYNAMO_ERROR_RESOURCE_EXHAUSTED: u32 = 8;
    /// Error code: the plugin does not implement this (an op, a dtype, a feature).
    pub const RYNAMO_ERROR_UNIMPLEMENTED: u32 = 12;
    /// Error code: a bug in the plugin (the SDK reports a caught panic with this code).
    pub const RYNAMO_ERROR_INTERNAL: u32 = 13;
    /// Error code: the device is missing or busy.
    pub const RYNAMO_ERROR_UNAVAILABLE: u32 = 14;

    /// Capability: `execute` accepts inputs with any non-negative strides. Without it the host
    /// passes only row-major contiguous inputs (copying where needed).
    pub const RYNAMO_CAP_STRIDED_INPUTS: u64 = 0x1;
    /// Capability: `execute` may run concurrently on one executable. Without it the host serialises
    /// the calls of each executable.
    pub const RYNAMO_CAP_CONCURRENT_EXECUTE: u64 = 0x2;
    /// Capability: `compile` may receive the backward graph of a training region (AOT autograd's
    /// partition: the saved activations, then the output gradients as inputs; the input gradients
    /// as outputs). Without it the host compiles backward graphs on its fallback backend; forward
    /// graphs, which return the saved activations as extra outputs, still come to the plugin.
    pub const RYNAMO_CAP_BACKWARD_GRAPHS: u64 = 0x4;

    /// DLPack type code: signed integer.
    pub const RYNAMO_DTYPE_CODE_INT: u8 = 0;
    /// DLPack type code: unsigned integer.
    pub const RYNAMO_DTYPE_CODE_UINT: u8 = 1;
    /// DLPack type code: IEEE float.
    pub const RYNAMO_DTYPE_CODE_FLOAT: u8 = 2;
    /// DLPack type code: bfloat16.
    pub const RYNAMO_DTYPE_CODE_BFLOAT: u8 = 4;
    /// DLPack type code: complex (two IEEE floats, real part first; `bits` counts both).
    pub const RYNAMO_DTYPE_CODE_COMPLEX: u8 = 5;
    /// DLPack type code: bool (one byte, 0 or 1).
    pub const RYNAMO_DTYPE_CODE_BOOL: u8 = 6;
    /// DLPack device type: host memory. The only device of ABI 1.
    pub const RYNAMO_DEVICE_CPU: i32 = 1;

    /// Log level passed to the host's log callback.
    pub const RYNAMO_LOG_ERROR: u32 = 0;
    /// Log level: warning.
    pub const RYNAMO_LOG_WARN: u32 = 1;
    /// Log level: information.
    pub const RYNAMO_LOG_INFO: u32 = 2;
    /// Log level: debugging detail.
    pub const RYNAMO_LOG_DEBUG: u32 = 3;
}

/// The one symbol a plugin exports, NUL-terminated:
/// `const RynamoPluginApi* rynamo_plugin_get_api(void)`.
pub const RYNAMO_PLUGIN_ENTRY: &[u8] = b"rynamo_plugin_get_api\0";

/// The entry symbol's type. Returning NULL means the plugin cannot run in this process.
pub type RynamoGetApiFn = unsafe extern "C" fn() -> *const crate::RynamoPluginApi;
