//! Binding a call's arguments to a function's parameters for a compiled call (CPython's
//! `_PyEval_MakeFrameVector`, Dynamo's `bind_args`): the values guards and compiled code read.
//! This runs on every compiled call, so it allocates and looks up only what the call needs.

use rustpython_vm::builtins::{PyCode, PyDict, PyFunction, PyTuple};
use rustpython_vm::bytecode::CodeFlags;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::{AsObject, Py, PyObjectRef, PyRef, PyResult, VirtualMachine};

use super::source::FrameValues;

/// Binds a call's arguments to the function's parameters, as Python would. `None` when the call
/// does not bind (Python then raises the proper `TypeError` itself).
pub fn bind_frame(
    func: &Py<PyFunction>,
    code: &PyRef<PyCode>,
    args: &FuncArgs,
    vm: &VirtualMachine,
) -> PyResult<Option<FrameValues>> {
    let c = &code.code;
    let f = func.as_object();
    let nvars = c.varnames.len();
    let argc = c.arg_count as usize;
    let posonly = c.posonlyarg_count as usize;
    let kwonly = c.kwonlyarg_count as usize;
    let mut locals: Vec<Option<PyObjectRef>> = vec![None; nvars];
    let has_varargs = c.flags.contains(CodeFlags::VARARGS);
    let has_varkw = c.flags.contains(CodeFlags::VARKEYWORDS);
    let mut extra = Vec::new();
    for (i, a) in args.args.iter().enumerate() {
        if i < argc {
            locals[i] = Some(a.clone());
        } else if has_varargs {
            extra.push(a.clone());
        } else {
            return Ok(None);
        }
    }
    // This runs on every compiled call: nothing is allocated or looked up that the call does
    // not need (no `**kwargs` dict without the parameter, no defaults when every slot is bound).
    let varkw = has_varkw.then(|| vm.ctx.new_dict());
    for (k, v) in args.kwargs.iter() {
        let k = k.to_string();
        let pos = c.varnames[..(argc + kwonly).min(nvars)]
            .iter()
            .position(|n| n.as_str() == k)
            .filter(|&p| p >= posonly);
        match pos {
            Some(p) if locals[p].is_some() => return Ok(None),
            Some(p) => locals[p] = Some(v.clone()),
            None if has_varkw => {
                if let Some(d) = &varkw {
                    d.set_item(k.as_str(), v.clone(), vm)?;
                }
            }
            None => return Ok(None),
        }
    }
    let defaults: Vec<PyObjectRef> = if locals[..argc].iter().any(Option::is_none) {
        f.get_attr(crate::function_parts::names(vm).defaults, vm)?
            .downcast::<PyTuple>()
            .map(|t| t.as_slice().to_vec())
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let first_default = argc.saturating_sub(defaults.len());
    for i in 0..argc {
        if locals[i].is_none() {
            if i >= first_default {
                locals[i] = Some(defaults[i - first_default].clone());
            } else {
                return Ok(None);
            }
        }
    }
    if kwonly > 0 {
        let kwdefaults = f
            .get_attr(crate::function_parts::names(vm).kwdefaults, vm)?
            .downcast::<PyDict>()
            .ok();
        for (slot, name) in locals.iter_mut().zip(&c.varnames).skip(argc).take(kwonly) {
            if slot.is_none() {
                let name = name.as_str();
                match kwdefaults
                    .as_ref()
                    .and_then(|d| d.get_item_opt(name, vm).ok().flatten())
                {
                    Some(v) => *slot = Some(v),
                    None => return Ok(None),
                }
            }
        }
    }
    let mut next = argc + kwonly;
    if has_varargs {
        locals[next] = Some(vm.ctx.new_tuple(extra).into());
        next += 1;
    }
    if let Some(d) = varkw {
        locals[next] = Some(d.into());
    }
    let fixed = crate::function_parts::fixed_parts(func, vm)?;
    let closure: Vec<PyObjectRef> = if c.freevars.is_empty() {
        Vec::new()
    } else {
        match fixed.closure.downcast::<PyTuple>() {
            Ok(t) => t.as_slice().to_vec(),
            Err(_) => Vec::new(),
        }
    };
    let cells = closure
        .iter()
        .map(|cell| cell.get_attr("cell_contents", vm).ok())
        .collect();
    let (globals, builtins) = (fixed.globals, fixed.builtins);
    Ok(Some(FrameValues {
        locals,
        cells,
        closure,
        globals,
        builtins,
    }))
}
