//! `Tensor.is_contiguous(memory_format=...)` in a trace: the format argument is a constant
//! `torch.memory_format`, and the answer is folded from the tensor's guarded strides.

use rustpython_vm::VirtualMachine;
use rynamo_tensor::memory_format::MemoryFormat;

use super::exc::{GraphBreak, GraphBreakKind};
use super::variables::Vt;

/// The format `is_contiguous` was asked about (positional or `memory_format=`); none given is
/// row-major, and so is `preserve_format`, as in eager (`stdlib-shims`' `is_contiguous`).
pub fn format_arg(
    args: &[Vt],
    kwargs: &[(String, Vt)],
    vm: &VirtualMachine,
) -> Result<MemoryFormat, GraphBreak> {
    let arg = args.first().or_else(|| {
        kwargs
            .iter()
            .find(|(k, _)| k == "memory_format")
            .map(|(_, v)| v)
    });
    let Some(arg) = arg else {
        return Ok(MemoryFormat::Contiguous);
    };
    let unsupported = || {
        GraphBreak::new(
            GraphBreakKind::UnsupportedOperation,
            "is_contiguous(memory_format=...) with a format that is not a constant",
        )
    };
    let name = arg
        .as_const()
        .and_then(|c| c.get_attr("_name", vm).ok())
        .and_then(|n| n.str(vm).ok().map(|s| s.to_string()))
        .ok_or_else(unsupported)?;
    Ok(match name.as_str() {
        "channels_last" => MemoryFormat::ChannelsLast,
        "channels_last_3d" => MemoryFormat::ChannelsLast3d,
        "contiguous_format" | "preserve_format" => MemoryFormat::Contiguous,
        _ => return Err(unsupported()),
    })
}
