//! `Tensor.is_contiguous(memory_format=...)` and `Tensor.contiguous/to/clone(memory_format=...)`
//! in a trace: the format argument is a constant `torch.memory_format`; `is_contiguous` is folded
//! from the tensor's guarded strides, and a relayout into channels-last becomes graph ops.

use rustpython_vm::VirtualMachine;
use rynamo_tensor::memory_format::MemoryFormat;

use super::exc::{GraphBreak, GraphBreakKind};
use super::symbolic_convert::Tracer;
use super::variables::Vt;

/// The format argument (positional or `memory_format=`), if any.
fn format_value<'a>(args: &'a [Vt], kwargs: &'a [(String, Vt)]) -> Option<&'a Vt> {
    args.first().or_else(|| {
        kwargs
            .iter()
            .find(|(k, _)| k == "memory_format")
            .map(|(_, v)| v)
    })
}

/// The `_name` of a constant `torch.memory_format`; `None` for anything else.
fn format_name(v: &Vt, vm: &VirtualMachine) -> Option<String> {
    let name = v.as_const()?.get_attr("_name", vm).ok()?;
    name.str(vm).ok().map(|s| s.to_string())
}

/// A channels-last format by name, with the rank it needs.
fn channels_last(name: &str) -> Option<(MemoryFormat, usize)> {
    match name {
        "channels_last" => Some((MemoryFormat::ChannelsLast, 4)),
        "channels_last_3d" => Some((MemoryFormat::ChannelsLast3d, 5)),
        _ => None,
    }
}

/// The format `is_contiguous` was asked about (positional or `memory_format=`); none given is
/// row-major, and so is `preserve_format`, as in eager (`stdlib-shims`' `is_contiguous`).
pub fn format_arg(
    args: &[Vt],
    kwargs: &[(String, Vt)],
    vm: &VirtualMachine,
) -> Result<MemoryFormat, GraphBreak> {
    let Some(arg) = format_value(args, kwargs) else {
        return Ok(MemoryFormat::Contiguous);
    };
    let unsupported = || {
        GraphBreak::new(
            GraphBreakKind::UnsupportedOperation,
            "is_contiguous(memory_format=...) with a format that is not a constant",
        )
    };
    let name = format_name(arg, vm).ok_or_else(unsupported)?;
    match name.as_str() {
        "contiguous_format" | "preserve_format" => Ok(MemoryFormat::Contiguous),
        other => channels_last(other).map(|(f, _)| f).ok_or_else(unsupported),
    }
}

/// The channels-last format (and its rank) that `memory_format=` asks for, if it does.
pub fn asked_channels_last(
    kwargs: &[(String, Vt)],
    vm: &VirtualMachine,
) -> Option<(MemoryFormat, usize)> {
    let v = kwargs.iter().find(|(k, _)| k == "memory_format")?;
    channels_last(&format_name(&v.1, vm)?)
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
        let rank = asked_channels_last(&kwargs, self.vm).map(|(_, r)| r);
        if rank.is_none() || recv.as_tensor().map(|t| t.meta().shape.len()) != rank {
            // Checked before anything is traced: eager raises PyTorch's error for the whole call.
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                "memory_format=... of a tensor whose rank does not fit the format",
            ));
        }
        let i = kwargs
            .iter()
            .position(|(k, _)| k == "memory_format")
            .expect("invariant: asked_channels_last found it");
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
        let name = format_value(args, kwargs).and_then(|v| format_name(v, vm));
        if name.as_deref() == Some("contiguous_format") {
            return self.call_tensor_method(recv, "contiguous", vec![], vec![]);
        }
        let Some((format, rank)) = name.as_deref().and_then(channels_last) else {
            return Err(unsupported(
                "contiguous(memory_format=...) with preserve_format or a format that is not a constant",
            ));
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
