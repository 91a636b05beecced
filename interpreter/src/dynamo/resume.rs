//! Resume functions: `torch_dynamo_resume_in_<fn>_at_<line>`, the rest of a function after a
//! graph break, as an ordinary code object that Dynamo intercepts and compiles in turn.
//!
//! The resume function is the original code with a prologue:
//! ```text
//!   COPY_FREE_VARS                    (the closure: the original's cells, then its free variables)
//!   RESUME 0
//!   LOAD_FAST ___stack0 ...           (rebuild the value stack; PUSH_NULL where it held NULL)
//!   JUMP_FORWARD <resume target>      (into the copied original body)
//! ```
//! Its parameters are the stack values, then the live variables; the original's cells come in as
//! its closure (the same cell objects, so nested functions and the resume function share every
//! `nonlocal` write). Every instruction that names a
//! local or cell slot is renumbered for the new layout, so the body runs exactly as the original
//! would from that point.
//!
//! **Invariant:** the same `(code, target, stack layout, live variables)` always yields the same
//! code object (cached), so converging paths share one resume function and its compiled entries.
//!
//! The code object carries the user's function name (`co_name`, `co_qualname`), so tracebacks
//! through a resume function show the user's function and lines; Dynamo's own name for it
//! (`torch_dynamo_resume_in_f_at_7`, what logs and `explain` show) is [`display_name`].

use std::cell::RefCell;
use std::collections::HashMap;

use rustpython_vm::builtins::PyCode;
use rustpython_vm::bytecode::{CodeFlags, Instruction, Opcode};
use rustpython_vm::{AsObject, PyRef, VirtualMachine};

use super::bytecode::{Bytecode, Instr};
use super::bytecode_analysis::Slots;
use super::codegen::{Assembler, CodeSpec, body_labels, copy_instructions};

/// One value-stack entry at the resume point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StackEntry {
    /// A value, passed as a parameter.
    Value,
    /// The NULL that `LOAD_GLOBAL`/`LOAD_ATTR` push before a callable.
    Null,
}

/// What a resume function needs to know about its resume point.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResumePoint {
    /// Code-unit index of the instruction to resume at.
    pub target: u32,
    /// The value stack, bottom first.
    pub stack: Vec<StackEntry>,
    /// Live variables (localsplus names) passed after the stack values, in this order.
    pub live: Vec<String>,
}

impl ResumePoint {
    /// The resume function's name.
    pub fn name(code: &PyCode, line: u32) -> String {
        format!(
            "torch_dynamo_resume_in_{}_at_{}",
            original_name(&display_name(code)),
            line
        )
    }
}

/// (code object address, resume point) → (the original, kept alive; its resume code).
type ResumeCache = HashMap<(usize, ResumePoint), (PyRef<PyCode>, PyRef<PyCode>)>;

thread_local! {
    static CACHE: RefCell<ResumeCache> = RefCell::new(HashMap::new());
}

thread_local! {
    /// Resume code object address → Dynamo's name for it. The cache keeps the code alive.
    static NAMES: RefCell<HashMap<usize, String>> = RefCell::new(HashMap::new());
    /// Generated code (resume functions and graph-break replacements) → the user code it
    /// stands for, and whether it continues that code after a break (a resume function, or the
    /// replacement of one). Entries live as long as the caches that keep the code alive.
    static LINEAGE: RefCell<HashMap<usize, (usize, bool)>> = RefCell::new(HashMap::new());
}

fn addr(code: &PyCode) -> usize {
    code as *const PyCode as usize
}

fn origin(code: &PyCode) -> (usize, bool) {
    LINEAGE
        .with(|l| l.borrow().get(&addr(code)).copied())
        .unwrap_or((addr(code), false))
}

/// Records that `replacement` is the graph-break replacement of `code`.
pub fn register_replacement(replacement: &PyCode, code: &PyCode) {
    let o = origin(code);
    LINEAGE.with(|l| l.borrow_mut().insert(addr(replacement), o));
}

/// Whether a frame of `next` continues the user function that a frame of `replacement` runs
/// (then a traceback shows only `next`'s entry for that function).
pub fn continues(replacement: &PyCode, next: &PyCode) -> bool {
    let (o1, _) = origin(replacement);
    let (o2, resumed) = origin(next);
    resumed && o1 == o2 && addr(replacement) != addr(next)
}

/// Forgets every resume function (`torch._dynamo.reset()`).
pub fn reset() {
    CACHE.with(|c| c.borrow_mut().clear());
    NAMES.with(|n| n.borrow_mut().clear());
    LINEAGE.with(|l| l.borrow_mut().clear());
}

/// The name logs, `explain` and compile metrics use for a code object: its `co_name`, or for a
/// resume function `torch_dynamo_resume_in_<fn>_at_<line>`.
pub fn display_name(code: &PyCode) -> String {
    NAMES
        .with(|n| n.borrow().get(&addr(code)).cloned())
        .unwrap_or_else(|| code.code.obj_name.to_string())
}

/// The resume function for `point` in `code` (generated once, then cached).
pub fn resume_code(
    code: &PyRef<PyCode>,
    point: &ResumePoint,
    vm: &VirtualMachine,
) -> Result<PyRef<PyCode>, String> {
    let key = (code.as_object() as *const _ as usize, point.clone());
    if let Some(hit) = CACHE.with(|c| c.borrow().get(&key).map(|(_, r)| r.clone())) {
        return Ok(hit);
    }
    let made = generate(code, point, vm)?;
    let bc = Bytecode::decode(code);
    let line = bc
        .position(point.target)
        .and_then(|p| bc.instrs[p].line)
        .unwrap_or(1);
    let name = ResumePoint::name(code, line);
    NAMES.with(|n| n.borrow_mut().insert(addr(&made), name));
    let (root, _) = origin(code);
    LINEAGE.with(|l| l.borrow_mut().insert(addr(&made), (root, true)));
    CACHE.with(|c| c.borrow_mut().insert(key, (code.clone(), made.clone())));
    Ok(made)
}

fn generate(
    code: &PyRef<PyCode>,
    point: &ResumePoint,
    vm: &VirtualMachine,
) -> Result<PyRef<PyCode>, String> {
    let bc = Bytecode::decode(code);
    let target_pos = bc
        .position(point.target)
        .ok_or_else(|| format!("no instruction at offset {}", point.target))?;
    let line = bc.instrs[target_pos].line.unwrap_or(1);
    let old = Slots::of(code);
    let orig = &code.code;

    // New layout: stack params, live variables, then every other original local.
    let n_stack_params = point
        .stack
        .iter()
        .filter(|e| **e == StackEntry::Value)
        .count();
    let mut varnames: Vec<String> = (0..n_stack_params)
        .map(|i| format!("___stack{i}"))
        .collect();
    let is_closure_var = |name: &str| {
        orig.freevars.iter().any(|f| f.as_str() == name)
            || orig.cellvars.iter().any(|c| c.as_str() == name)
    };
    for name in &point.live {
        if old.names.iter().any(|n| n == name) && !is_closure_var(name) {
            varnames.push(name.clone());
        } else {
            return Err(format!("cannot pass '{name}' to a resume function"));
        }
    }
    let arg_count = varnames.len() as u32;
    for name in orig.varnames.iter() {
        if !varnames.iter().any(|v| v == name.as_str()) && !is_closure_var(name.as_str()) {
            varnames.push(name.to_string());
        }
    }
    // The original's cells are free variables here: the caller passes the frame's cells as the
    // closure, so both sides (and every nested function) share them.
    let freevars: Vec<String> = orig
        .cellvars
        .iter()
        .chain(orig.freevars.iter())
        .map(|c| c.to_string())
        .collect();
    let new_slots = {
        let mut names = varnames.clone();
        names.extend(freevars.iter().cloned());
        names
    };
    let remap_slot = |old_idx: u32| -> Result<u32, String> {
        let name = old
            .names
            .get(old_idx as usize)
            .ok_or_else(|| format!("slot {old_idx} out of range"))?;
        new_slots
            .iter()
            .position(|n| n == name)
            .map(|p| p as u32)
            .ok_or_else(|| format!("slot '{name}' lost in the resume layout"))
    };
    let mut errors = Vec::new();
    let mut asm = Assembler::new(line);
    let labels = body_labels(&mut asm, &bc);
    // Prologue: the closure (the original's cells and free variables), RESUME.
    if !freevars.is_empty() {
        asm.emit(Opcode::CopyFreeVars.as_instruction(), freevars.len() as u32);
    }
    asm.emit(Opcode::Resume.as_instruction(), 0);
    let mut next_param = 0u32;
    for entry in &point.stack {
        match entry {
            StackEntry::Value => {
                asm.emit(Opcode::LoadFast.as_instruction(), next_param);
                next_param += 1;
            }
            StackEntry::Null => asm.emit(Instruction::PushNull, 0),
        }
    }
    asm.emit_jump(Opcode::JumpForward.as_instruction(), labels[target_pos]);

    // The body, with every instruction that names a slot renumbered for the new layout.
    copy_instructions(&mut asm, code, &bc, &labels, |ins: &Instr| {
        renumber(ins, &remap_slot, &mut errors)
    });
    if let Some(e) = errors.into_iter().next() {
        return Err(e);
    }

    let mut flags = CodeFlags::OPTIMIZED | CodeFlags::NEWLOCALS;
    if orig.flags.contains(CodeFlags::NESTED) {
        flags |= CodeFlags::NESTED;
    }
    let spec = CodeSpec {
        name: orig.obj_name.to_string(),
        qualname: orig.qualname.to_string(),
        // Dynamo's resume code starts at the break's line (`co_firstlineno`), which recompile
        // logs and `fail_on_recompile` report; the line table stays absolute, so tracebacks
        // through the resume function still show the user's lines.
        first_line: line,
        arg_count,
        posonlyarg_count: 0,
        kwonlyarg_count: 0,
        flags,
        varnames,
        cellvars: Vec::new(),
        freevars,
        ..CodeSpec::of(code)
    };
    Ok(spec.build(asm.assemble(), vm))
}

/// Renumbers one instruction's slot arguments for the resume layout. Fused pairs
/// (`LOAD_FAST_LOAD_FAST` and kin) pack two 4-bit slot numbers that may no longer fit, so they are
/// always split into their two plain halves.
fn renumber(
    ins: &Instr,
    remap: &impl Fn(u32) -> Result<u32, String>,
    errors: &mut Vec<String>,
) -> Vec<(Instruction, u32)> {
    use Instruction as I;
    let mut one = |a: u32| {
        remap(a).unwrap_or_else(|e| {
            errors.push(e);
            a
        })
    };
    let a = ins.arg;
    let load = Opcode::LoadFast.as_instruction();
    let load_borrow = Opcode::LoadFastBorrow.as_instruction();
    let store = Opcode::StoreFast.as_instruction();
    match ins.op {
        I::LoadFast { .. }
        | I::LoadFastBorrow { .. }
        | I::LoadFastCheck { .. }
        | I::LoadFastAndClear { .. }
        | I::StoreFast { .. }
        | I::DeleteFast { .. }
        | I::LoadDeref { .. }
        | I::StoreDeref { .. }
        | I::DeleteDeref { .. }
        | I::MakeCell { .. }
        | I::LoadFromDictOrDeref { .. } => vec![(ins.op, one(a))],
        I::LoadFastLoadFast { .. } => vec![(load, one(a >> 4)), (load, one(a & 15))],
        I::LoadFastBorrowLoadFastBorrow { .. } => {
            vec![(load_borrow, one(a >> 4)), (load_borrow, one(a & 15))]
        }
        // Stores TOS into the first slot, then loads the second.
        I::StoreFastLoadFast { .. } => vec![(store, one(a >> 4)), (load, one(a & 15))],
        // Stores TOS into the first slot, then the new TOS into the second.
        I::StoreFastStoreFast { .. } => vec![(store, one(a >> 4)), (store, one(a & 15))],
        _ => vec![(ins.op, a)],
    }
}

/// The user's function name behind a (possibly nested) resume function's name.
pub fn original_name(name: &str) -> &str {
    let mut n = name;
    while let Some(rest) = n.strip_prefix("torch_dynamo_resume_in_") {
        match rest.rfind("_at_") {
            Some(i) => n = &rest[..i],
            None => break,
        }
    }
    n
}
