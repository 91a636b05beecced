//! A graph compiled by a plugin, run through `execute` with DLPack-style descriptors.

use std::sync::Arc;

use parking_lot::Mutex;
use rynamo_graph::Graph;
use rynamo_plugin_abi::*;
use rynamo_plugin_wire::{self as wire, TensorDesc};
use rynamo_tensor::{Tensor, TensorMeta};

use crate::{Error, PluginLibrary, Result};

/// A plugin executable. Holds its library: the library stays loaded while this (or any output
/// tensor it produced) is alive.
pub struct PluginExecutable {
    lib: Arc<PluginLibrary>,
    handle: *mut RynamoExecutable,
    inputs: Vec<TensorMeta>,
    outputs: Vec<TensorMeta>,
    /// Serialises `execute` unless the plugin declared `RYNAMO_CAP_CONCURRENT_EXECUTE`.
    serial: Option<Mutex<()>>,
}

// SAFETY: the ABI allows every plugin function on any thread; concurrent `execute` on one handle
// happens only when the plugin declared it safe (otherwise `serial` locks), and `destroy` runs once,
// in `Drop`, when no call can be in flight.
unsafe impl Send for PluginExecutable {}
// SAFETY: as above.
unsafe impl Sync for PluginExecutable {}

impl std::fmt::Debug for PluginExecutable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginExecutable")
            .field("plugin", &self.lib.name())
            .field("inputs", &self.inputs.len())
            .field("outputs", &self.outputs.len())
            .finish()
    }
}

impl PluginExecutable {
    pub(crate) fn new(lib: Arc<PluginLibrary>, handle: *mut RynamoExecutable, g: &Graph) -> Self {
        let metas =
            |ids: &[rynamo_graph::ValueId]| ids.iter().map(|&v| g.value(v).meta.clone()).collect();
        let serial = (!lib.has(RYNAMO_CAP_CONCURRENT_EXECUTE)).then(|| Mutex::new(()));
        PluginExecutable {
            inputs: metas(g.inputs()),
            outputs: metas(g.outputs()),
            lib,
            handle,
            serial,
        }
    }

    /// The library this executable came from.
    pub fn library(&self) -> &Arc<PluginLibrary> {
        &self.lib
    }

    /// Runs on tensors matching the graph's inputs; checks every output against the graph.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        if inputs.len() != self.inputs.len() {
            return Err(rynamo_backend::Error::Inputs(format!(
                "graph takes {} inputs, got {}",
                self.inputs.len(),
                inputs.len()
            ))
            .into());
        }
        for (k, (t, m)) in inputs.iter().zip(&self.inputs).enumerate() {
            if t.dtype() != m.dtype || t.shape() != m.shape.as_slice() {
                return Err(rynamo_backend::Error::Inputs(format!(
                    "input {k}: expected {}{:?}, got {}{:?}",
                    m.dtype.name(),
                    m.shape,
                    t.dtype().name(),
                    t.shape()
                ))
                .into());
            }
        }
        self.run_unchecked(inputs)
    }

    /// Like [`PluginExecutable::run`] without checking the inputs against the graph, so a
    /// conformance test can see how the plugin itself handles bad calls.
    pub fn run_unchecked(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let f = self.lib.fns.execute.ok_or_else(|| Error::Unimplemented {
            plugin: self.lib.name().to_string(),
            function: "execute",
        })?;
        // Without the strided capability, hand over row-major copies (kept alive for the call).
        let strided = self.lib.has(RYNAMO_CAP_STRIDED_INPUTS);
        let owned: Vec<Tensor> = inputs
            .iter()
            .map(|t| {
                if strided || t.is_contiguous() {
                    t.clone()
                } else {
                    t.contiguous()
                }
            })
            .collect();
        let descs: Vec<TensorDesc> = owned.iter().map(TensorDesc::new).collect();
        let raw: Vec<RynamoTensor> = descs.iter().map(|d| *d.raw()).collect();
        let mut outs: Vec<*mut RynamoManagedTensor> =
            vec![std::ptr::null_mut(); self.outputs.len()];
        let mut args = RynamoExecuteArgs {
            struct_size: size_of::<RynamoExecuteArgs>(),
            executable: self.handle,
            inputs: raw.as_ptr(),
            num_inputs: raw.len(),
            outputs: outs.as_mut_ptr(),
            num_outputs: outs.len(),
        };
        let err = {
            let _guard = self.serial.as_ref().map(|m| m.lock());
            // SAFETY: a live handle; `raw`, `descs`, `owned` and `outs` outlive the call.
            unsafe { f(&mut args) }
        };
        let checked = self.lib.check("execute", err);
        // Adopt every non-NULL output, even on error, so each is released exactly once.
        let mut tensors = Vec::with_capacity(outs.len());
        let mut first_bad: Option<Error> = None;
        for (i, &m) in outs.iter().enumerate() {
            if m.is_null() {
                tensors.push(None);
                continue;
            }
            // SAFETY: the plugin handed `m` over; `adopt` takes ownership and keeps the library
            // alive until the deleter has run.
            match unsafe { wire::adopt(m, Box::new(self.lib.clone())) } {
                Ok(t) => tensors.push(Some(t)),
                Err(e) => {
                    tensors.push(None);
                    first_bad.get_or_insert(self.bad_output(i, e.to_string()));
                }
            }
        }
        checked?;
        if let Some(e) = first_bad {
            return Err(e);
        }
        tensors
            .into_iter()
            .zip(&self.outputs)
            .enumerate()
            .map(|(i, (t, m))| {
                let t = t.ok_or_else(|| self.bad_output(i, "left NULL".into()))?;
                if t.dtype() != m.dtype || t.shape() != m.shape.as_slice() {
                    return Err(self.bad_output(
                        i,
                        format!(
                            "expected {}{:?}, got {}{:?}",
                            m.dtype.name(),
                            m.shape,
                            t.dtype().name(),
                            t.shape()
                        ),
                    ));
                }
                Ok(t)
            })
            .collect()
    }

    fn bad_output(&self, index: usize, reason: String) -> Error {
        Error::BadOutput {
            plugin: self.lib.name().to_string(),
            index,
            reason,
        }
    }
}

impl Drop for PluginExecutable {
    fn drop(&mut self) {
        self.lib.destroy_executable(self.handle);
    }
}
