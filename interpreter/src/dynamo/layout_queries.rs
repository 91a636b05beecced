//! `Tensor.is_contiguous(memory_format=...)` and `Tensor.contiguous/to/clone(memory_format=...)`
//! in a trace: the format argument is a constant `torch.memory_format`; `is_contiguous` is folded
//! from the tensor's guarded strides, and a relayout into channels-last becomes graph ops.

use rustpython_vm::VirtualMachine;
use rynamo_tensor::memory_format::MemoryFormat;

use super::exc::{GraphBreak, GraphBreakKind};
use super::symbolic_convert::Tracer;
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

/// The name of a constant `torch.memory_format` argument (`memory_format=` or positional).
fn format_name(args: &[Vt], kwargs: &[(String, Vt)], vm: &VirtualMachine) -> Option<String> {
    let arg = args.first().or_else(|| {
        kwargs
            .iter()
            .find(|(k, _)| k == "memory_format")
            .map(|(_, v)| v)
    })?;
    let name = arg.as_const()?.get_attr("_name", vm).ok()?;
    name.str(vm).ok().map(|s| s.to_string())
}

/// Whether `kwargs` ask for a channels-last (3-D) layout.
pub fn asks_channels_last(kwargs: &[(String, Vt)], vm: &VirtualMachine) -> bool {
    kwargs.iter().any(|(k, _)| k == "memory_format")
        && matches!(
            format_name(&[], kwargs, vm).as_deref(),
            Some("channels_last" | "channels_last_3d")
        )
}

impl Tracer<'_> {
    /// `x.to(..., memory_format=fmt)` and `x.clone(memory_format=fmt)` for a channels-last
    /// `fmt`: the call without the format (a dtype conversion, or a copy in `x`'s layout), then
    /// [`Tracer::contiguous_in_format`]. Eager's single call gives the same values and strides,
    /// and returns `x` itself from `to` exactly when this does (`x` already in `fmt`, no
    /// conversion); `clone` still copies once more when `x` was not in `fmt`.
    pub(crate) fn call_in_format(
        &mut self,
        recv: Vt,
        name: &str,
        args: Vec<Vt>,
        mut kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let i = kwargs
            .iter()
            .position(|(k, _)| k == "memory_format")
            .expect("invariant: asks_channels_last found it");
        let rank = match format_name(&[], &kwargs, self.vm).as_deref() {
            Some("channels_last") => 4,
            _ => 5,
        };
        if recv
            .as_tensor()
            .is_none_or(|t| t.meta().shape.len() != rank)
        {
            // Checked before anything is traced: eager raises PyTorch's error for the whole call.
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                "memory_format=... of a tensor whose rank does not fit the format",
            ));
        }
        let format = kwargs.remove(i);
        let converted = self.call_tensor_method(recv, name, args, kwargs)?;
        self.contiguous_in_format(converted, &[], &[format])
    }

    /// `x.contiguous(memory_format=fmt)`. A tensor already laid out in `fmt` is returned as it is,
    /// as eager returns `self`. Otherwise channels-last (3-D) is `x.permute(0, 2, 3, 1)` (the
    /// channels moved last), made contiguous, and permuted back: the values of `x` with exactly
    /// the strides PyTorch gives (`[C*H*W, 1, W*C, C]` for 4-D), as ordinary graph ops the
    /// backends and autograd already handle. `preserve_format`, a rank that does not match the
    /// format, or a format that is not a constant leave the call to eager, which raises PyTorch's
    /// error or computes it.
    pub(crate) fn contiguous_in_format(
        &mut self,
        recv: Vt,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let unsupported = |why: &str| GraphBreak::new(GraphBreakKind::UnsupportedOperation, why);
        let Some(t) = recv.as_tensor().cloned() else {
            return Err(unsupported("contiguous() of a non-tensor"));
        };
        let (shape, strides) = (t.meta().shape.clone(), t.meta().strides.clone());
        let (format, rank) = match format_name(args, kwargs, vm).as_deref() {
            Some("contiguous_format") => {
                return self.call_tensor_method(recv, "contiguous", vec![], vec![]);
            }
            Some("channels_last") => (MemoryFormat::ChannelsLast, 4),
            Some("channels_last_3d") => (MemoryFormat::ChannelsLast3d, 5),
            _ => {
                return Err(unsupported(
                    "contiguous(memory_format=...) with preserve_format or a format that is not a constant",
                ));
            }
        };
        if shape.len() != rank {
            return Err(unsupported(
                "contiguous(memory_format=...) of a tensor whose rank does not fit the format",
            ));
        }
        if format.is_contiguous(&shape, &strides) {
            self.out.identity_calls += 1;
            return Ok(recv);
        }
        let dims = |d: &[i64]| -> Vec<Vt> {
            d.iter()
                .map(|&i| Vt::constant(vm.ctx.new_int(i).into()))
                .collect()
        };
        let (last, back): (&[i64], &[i64]) = if rank == 4 {
            (&[0, 2, 3, 1], &[0, 3, 1, 2])
        } else {
            (&[0, 2, 3, 4, 1], &[0, 4, 1, 2, 3])
        };
        let moved = self.call_tensor_method(recv, "permute", dims(last), vec![])?;
        let dense = self.call_tensor_method(moved, "contiguous", vec![], vec![])?;
        self.call_tensor_method(dense, "permute", dims(back), vec![])
    }
}
