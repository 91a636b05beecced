//! Table sizes per ABI version: what the host requires before reading a field.

use crate::RynamoPluginApi;

/// The size of the field `f` selects; used by [`struct_size!`].
#[doc(hidden)]
pub const fn field_size<T, F>(_f: fn(&T) -> &F) -> usize {
    core::mem::size_of::<F>()
}

/// The `struct_size` a plugin built against ABI `1.minor` reports, at least: the table up to the last
/// field that minor version defines. Minors newer than the host's give the host's full table.
pub const fn api_size_for_minor(minor: u32) -> usize {
    match minor {
        0 => struct_size!(RynamoPluginApi, execute),
        _ => struct_size!(RynamoPluginApi, initialize),
    }
}

/// The smallest `struct_size` from which the host may read the version fields.
pub const API_VERSION_PREFIX_SIZE: usize = struct_size!(RynamoPluginApi, abi_minor);
