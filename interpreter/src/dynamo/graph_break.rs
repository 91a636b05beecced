//! Graph breaks with resume functions: the frame is split at the instruction Dynamo cannot
//! trace. The graph so far runs compiled, the instruction runs in plain Python, and the rest of
//! the frame continues in a resume function that Dynamo compiles in turn.
//!
//! The frame's new code (its cache entry):
//! ```text
//!   RESUME 0
//!   __compiled_fn_N(params..., cells...)    graph + side effects; returns (stack..., live...)
//!   STORE_FAST ___tmp                       then rebuild the stack (PUSH_NULL where NULL was)
//!   ___tmp[k] -> STORE_FAST local           and the live locals
//!   <the unsupported instruction>           (a jump gets two continuations)
//!   torch_dynamo_resume_in_f_at_L(*stack, *live_locals)  via CALL_FUNCTION_EX
//!   RETURN_VALUE
//! ```

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use rustpython_vm::builtins::PyCode;
use rustpython_vm::bytecode::{CodeFlags, ConstantData, Instruction, Opcode};
use rustpython_vm::{AsObject, PyObjectRef, PyRef, PyResult, VirtualMachine};

use super::bytecode::{Bytecode, Instr};
use super::bytecode_analysis::{falls_through, live_for_resume, resume_blocker};
use super::codegen::{Assembler, CodeSpec, Handler, Label};
use super::compile::Executor;
use super::output_graph::OutputGraph;
use super::reconstruct::{Builder, OutputSet, Recon, recon_of};
use super::replay::{Replay, replays};
use super::resume::{ResumePoint, StackEntry, resume_code};
use super::source::{FrameValues, Source};
use super::variables::{Kind, Vt};

/// The compiled frame's state just before the instruction that broke.
#[derive(Clone, Debug)]
pub struct BreakState {
    /// Position of the instruction.
    pub pos: usize,
    /// The value stack.
    pub stack: Vec<Vt>,
    /// Locals, cells and free variables.
    pub locals: Vec<Option<Vt>>,
    /// Graph nodes before the instruction.
    pub nodes: usize,
    /// Recorded side effects before the instruction.
    pub effects: usize,
}

/// The compiled prefix of a frame: what `__compiled_fn_N` runs.
pub struct BreakPlan {
    /// Graph inputs, read from the frame.
    pub inputs: Vec<Rc<Source>>,
    /// The compiled graph, if the prefix has any ops.
    pub exe: Option<Executor>,
    /// Side effects to replay.
    pub replays: Vec<Replay>,
    /// The stack values (non-NULL entries) then the live locals to hand back.
    pub values: Vec<Recon>,
    /// How many leading code slots the native call receives (the parameters).
    pub nparams: usize,
    /// The frame's globals.
    pub globals: rustpython_vm::builtins::PyDictRef,
    /// The builtins.
    pub builtins: PyObjectRef,
    /// The graph (statistics).
    pub graph: Rc<rynamo_graph::Graph>,
}

thread_local! {
    static PLANS: RefCell<HashMap<usize, Rc<BreakPlan>>> = RefCell::new(HashMap::new());
    static NEXT_PLAN: RefCell<usize> = const { RefCell::new(0) };
}

/// Registers a plan; returns its id (the native callable refers to it by id, as plans are not
/// `Send`).
pub fn register_plan(plan: BreakPlan) -> usize {
    let id = NEXT_PLAN.with(|n| {
        let mut n = n.borrow_mut();
        *n += 1;
        *n
    });
    PLANS.with(|p| p.borrow_mut().insert(id, Rc::new(plan)));
    id
}

/// Forgets every plan (`torch._dynamo.reset()`).
pub fn reset() {
    PLANS.with(|p| p.borrow_mut().clear());
}

/// Runs plan `id` with the frame's parameters then its closure cells. The graph, the backend's
/// callable and the side effects run with the hook disarmed, as in Dynamo (a Python backend's
/// `gm.forward` is never itself compiled).
pub fn run_plan(id: usize, args: Vec<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
    use crate::eval_frame::{CallbackState, with_callback_state};
    with_callback_state(CallbackState::Disabled, vm, || {
        run_plan_disarmed(id, args, vm)
    })
}

fn run_plan_disarmed(id: usize, args: Vec<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
    let plan = PLANS
        .with(|p| p.borrow().get(&id).cloned())
        .ok_or_else(|| vm.new_runtime_error("compiled graph was reset; call the function again"))?;
    let mut locals: Vec<Option<PyObjectRef>> =
        args.iter().take(plan.nparams).cloned().map(Some).collect();
    let closure: Vec<PyObjectRef> = args.iter().skip(plan.nparams).cloned().collect();
    let cells = closure
        .iter()
        .map(|c| c.get_attr("cell_contents", vm).ok())
        .collect();
    locals.resize(locals.len().max(plan.nparams), None);
    let frame = FrameValues {
        locals,
        cells,
        closure,
        globals: plan.globals.clone(),
        builtins: plan.builtins.clone(),
    };
    let outputs = match &plan.exe {
        Some(exe) => {
            super::stats::record_graph_call(&plan.graph);
            let inputs = super::compile::gather_inputs(&plan.inputs, &frame, vm)?;
            super::compile::run_executor(exe, &plan.inputs, inputs, &frame, vm)?
        }
        None => Vec::new(),
    };
    let mut b = Builder {
        outputs: &outputs,
        wrapped: Vec::new(),
        frame: &frame,
        shared: Vec::new(),
    };
    // Every value first, then the mutations (as `Direct` plans do, see there).
    let stored = b.prepare(&plan.replays, vm)?;
    let values = plan
        .values
        .iter()
        .map(|r| b.build(r, vm))
        .collect::<PyResult<Vec<_>>>()?;
    b.apply(&plan.replays, stored, vm)?;
    Ok(vm.ctx.new_tuple(values).into())
}

/// Why a break cannot be turned into a resume (the frame is then skipped).
pub type NotResumable = String;

/// What a break compiles: the graph, its inputs' sources, the side-effect replays and the
/// recipes of the values handed to the resume function.
pub type BreakRecipes = (
    rynamo_graph::Graph,
    Vec<Rc<Source>>,
    Vec<Replay>,
    Vec<Recon>,
);

/// The recipes and graph for a break.
pub fn break_recipes(
    out: &OutputGraph,
    state: &BreakState,
    live: &[usize],
    cells: &[usize],
    vm: &VirtualMachine,
) -> Result<BreakRecipes, NotResumable> {
    let mut outputs = OutputSet::default();
    let replays = replays(out, &mut outputs, vm).map_err(|b| b.context)?;
    let mut values = Vec::new();
    for v in state.stack.iter().filter(|v| !v.is_null()) {
        values.push(recon_of(v, out, &mut outputs, vm).map_err(|b| b.context)?);
    }
    for &slot in live {
        let v = state
            .locals
            .get(slot)
            .cloned()
            .flatten()
            .ok_or_else(|| "a live variable is unbound at the break".to_owned())?;
        values.push(recon_of(&v, out, &mut outputs, vm).map_err(|b| b.context)?);
    }
    // The frame's cells themselves (not their values): the resume function takes them as its
    // closure, so it shares them with every nested function rebuilt from the trace.
    for &slot in cells {
        match state.locals.get(slot).cloned().flatten().map(|v| v.kind) {
            Some(Kind::Cell(c)) => values.push(
                super::reconstruct::cell_recon(&c, out, &mut outputs, vm).map_err(|b| b.context)?,
            ),
            _ => return Err("a cell variable has no cell at the break".into()),
        }
    }
    let mut graph = out.graph.graph().clone();
    graph.set_outputs(outputs.values.clone());
    let inputs = out.inputs.iter().map(|i| i.source.clone()).collect();
    Ok((graph, inputs, replays, values))
}

/// Static checks: can Dynamo resume after the instruction at `pos`?
pub fn check_resumable(
    code: &PyCode,
    bc: &Bytecode,
    state: &BreakState,
) -> Result<(), NotResumable> {
    let reenterable = |depth: u32| {
        let d = depth as usize;
        d >= 2
            && (matches!(
                state.stack.get(d - 2).map(|v| &v.kind),
                Some(Kind::Method(recv, name)) if &**name == "__exit__"
                    && matches!(&recv.kind, Kind::GradMode(_) | Kind::ErrorOnGraphBreak(_))
            ) || state
                .stack
                .get(d - 2)
                .is_some_and(super::autocast::is_autocast_exit))
            && state.stack.get(d - 1).is_some_and(|v| v.is_null())
    };
    if let Some(why) = resume_blocker(code, bc, state.pos, reenterable) {
        return Err(format!("graph break {why}"));
    }
    let ins = &bc.instrs[state.pos];
    if matches!(ins.op, Instruction::ReturnValue) {
        return Err("graph break at a return".into());
    }
    // A `raise` (an exception no traced handler catches) or a re-raise: nothing after it runs
    // in this frame, so there is no resume function to hand the rest to; the frame runs
    // eagerly and raises for real, as Dynamo's "Observed exception" does.
    if !falls_through(ins.op) {
        return Err(format!(
            "graph break at {}, which does not continue",
            ins.name()
        ));
    }
    Ok(())
}

/// The slots of the frame's cell variables, in `co_cellvars` order (the resume function's
/// closure starts with them).
pub fn cell_slots(code: &PyCode) -> Vec<usize> {
    let slots = super::bytecode_analysis::Slots::of(code);
    code.code
        .cellvars
        .iter()
        .filter_map(|c| slots.names.iter().position(|n| n == c.as_str()))
        .collect()
}

/// The live slots to hand to the continuation(s) of the instruction at `pos` as arguments
/// (excluding cell and free variables, which reach it as its closure).
pub fn live_slots(code: &PyCode, bc: &Bytecode, pos: usize) -> Vec<usize> {
    let slots = super::bytecode_analysis::Slots::of(code);
    let cells = cell_slots(code);
    let mut names: Vec<String> = Vec::new();
    for next in continuations(bc, pos) {
        for n in live_for_resume(code, bc, next) {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    let mut out: Vec<usize> = names
        .iter()
        .filter_map(|n| slots.names.iter().position(|s| s == n))
        .filter(|s| !cells.contains(s))
        .collect();
    out.sort_unstable();
    out
}

/// Positions where execution continues after the instruction at `pos`: none after a `raise`,
/// a `return` or an unconditional jump (there is no next instruction to resume at, and after
/// the last one of the code, no instruction at all).
fn continuations(bc: &Bytecode, pos: usize) -> Vec<usize> {
    let ins = &bc.instrs[pos];
    let mut out = Vec::with_capacity(2);
    if falls_through(ins.op) && pos + 1 < bc.instrs.len() {
        out.push(pos + 1);
    }
    if is_cond_jump(ins.op)
        && let Some(t) = ins.jump_target().and_then(|t| bc.position(t))
    {
        out.push(t);
    }
    out
}

fn is_cond_jump(op: Instruction) -> bool {
    matches!(
        op,
        Instruction::PopJumpIfFalse { .. }
            | Instruction::PopJumpIfTrue { .. }
            | Instruction::PopJumpIfNone { .. }
            | Instruction::PopJumpIfNotNone { .. }
    )
}

/// Stack effect of the unsupported instruction: `(popped, pushed)`.
fn pops_pushes(ins: &Instr) -> Option<(usize, usize)> {
    use Instruction as I;
    let a = ins.arg as usize;
    Some(match ins.op {
        I::Call { .. } => (a + 2, 1),
        I::CallKw { .. } => (a + 3, 1),
        I::CallFunctionEx => (4, 1),
        I::PopJumpIfFalse { .. }
        | I::PopJumpIfTrue { .. }
        | I::PopJumpIfNone { .. }
        | I::PopJumpIfNotNone { .. } => (1, 0),
        I::StoreAttr { .. } => (2, 0),
        I::DeleteAttr { .. } => (1, 0),
        I::StoreSubscr => (3, 0),
        I::DeleteSubscr => (2, 0),
        I::BinaryOp { .. } | I::CompareOp { .. } | I::ContainsOp { .. } | I::IsOp { .. } => (2, 1),
        I::UnaryNegative
        | I::UnaryNot
        | I::UnaryInvert
        | I::ToBool
        | I::GetIter
        | I::FormatSimple => (1, 1),
        I::FormatWithSpec => (2, 1),
        I::ConvertValue { .. } => (1, 1),
        I::LoadAttr { .. } => (1, if ins.arg & 1 == 1 { 2 } else { 1 }),
        I::LoadGlobal { .. } => (0, if ins.arg & 1 == 1 { 2 } else { 1 }),
        I::BuildString { .. } | I::BuildTuple { .. } | I::BuildList { .. } => (a, 1),
        I::UnpackSequence { .. } => (1, a),
        I::PopTop => (1, 0),
        I::StoreGlobal { .. } => (1, 0),
        _ => return None,
    })
}

/// Builds the frame's new code for a break at `state.pos`. `compiled_name` is the global the
/// compiled prefix is stored under.
#[allow(
    clippy::too_many_arguments,
    reason = "a break hands this many parts to the new code"
)]
pub fn transformed_code(
    code: &PyRef<PyCode>,
    bc: &Bytecode,
    state: &BreakState,
    live: &[usize],
    cells: &[usize],
    compiled_name: &str,
    globals: &rustpython_vm::builtins::PyDictRef,
    vm: &VirtualMachine,
) -> Result<PyRef<PyCode>, NotResumable> {
    let orig = &code.code;
    let ins = bc.instrs[state.pos];
    let (pops, pushes) =
        pops_pushes(&ins).ok_or_else(|| format!("cannot resume after {}", ins.name()))?;
    if state.stack.len() < pops {
        return Err("stack too short at the break".into());
    }
    let n_kept = state.stack.len() - pops;
    // The method forms of LOAD_GLOBAL / LOAD_ATTR push a NULL (or `self`) after the value; the
    // plain form pushes the value (a bound method for LOAD_ATTR), and the resume function pushes
    // the NULL itself, which calls the same way.
    let (emit_arg, pushed_null) = match ins.op {
        Instruction::LoadGlobal { .. } | Instruction::LoadAttr { .. } if ins.arg & 1 == 1 => {
            (ins.arg & !1, true)
        }
        _ => (ins.arg, false),
    };
    let pushes = pushes - usize::from(pushed_null);
    let slots = super::bytecode_analysis::Slots::of(code);
    let mut spec = CodeSpec::of(code);
    let tmp_slot = spec.varnames.len() as u32;
    spec.varnames.push("___tmp".into());
    // Slots past the original locals (cells that are not parameters, free variables) moved up
    // by `___tmp`.
    let nlocals = orig.varnames.len();
    let shifted = |slot: usize| (if slot >= nlocals { slot + 1 } else { slot }) as u32;
    let nfree = orig.freevars.len();
    // Instructions that name cell slots would shift with the added local.
    if (nfree > 0 || !orig.cellvars.is_empty()) && is_deref_op(ins.op) {
        return Err("graph break on a closure-variable instruction".into());
    }
    let compiled_idx = spec.names.len() as u32;
    spec.names.push(compiled_name.to_owned());
    let line = ins.line.unwrap_or(spec.first_line);
    let mut asm = Assembler::new(line);
    if nfree > 0 {
        asm.emit(Opcode::CopyFreeVars.as_instruction(), nfree as u32);
    }
    asm.emit(Opcode::Resume.as_instruction(), 0);
    // __compiled_fn_N(params..., free cells...)
    asm.emit(Opcode::LoadGlobal.as_instruction(), (compiled_idx << 1) | 1);
    let nparams = param_count(code);
    for p in 0..nparams {
        asm.emit(Opcode::LoadFast.as_instruction(), p as u32);
    }
    let first_free = slots.names.len() - nfree;
    for k in 0..nfree {
        asm.emit(Opcode::LoadFast.as_instruction(), shifted(first_free + k));
    }
    asm.emit(Opcode::Call.as_instruction(), (nparams + nfree) as u32);
    asm.emit(Opcode::StoreFast.as_instruction(), tmp_slot);
    let item = |asm: &mut Assembler, k: u32| {
        asm.emit(Opcode::LoadFast.as_instruction(), tmp_slot);
        asm.emit(Opcode::LoadSmallInt.as_instruction(), k);
        asm.emit(Opcode::BinaryOp.as_instruction(), 26);
    };
    // Where each value sits in the compiled prefix's result: the non-NULL stack values in order
    // (those below the instruction's operands are "kept": they go straight to the resume
    // function), then the live variables, then the cells.
    let mut k = 0u32;
    let mut kept_items = Vec::new();
    // The operands, bottom first: `None` for a NULL.
    let mut operands: Vec<Option<u32>> = Vec::new();
    for (i, v) in state.stack.iter().enumerate() {
        if v.is_null() {
            if i >= n_kept {
                operands.push(None);
            }
            continue;
        }
        if i < n_kept {
            kept_items.push(k);
        } else {
            operands.push(Some(k));
        }
        k += 1;
    }
    let mut resume_stack: Vec<StackEntry> = state.stack[..n_kept]
        .iter()
        .map(|v| {
            if v.is_null() {
                StackEntry::Null
            } else {
                StackEntry::Value
            }
        })
        .collect();
    resume_stack.extend(std::iter::repeat_n(StackEntry::Value, pushes));
    if pushed_null {
        resume_stack.push(StackEntry::Null);
    }
    // Live values, then the rebuilt cells, each into its own slot (a cell slot holds the cell
    // itself, as after MAKE_CELL).
    for &slot in live.iter().chain(cells) {
        item(&mut asm, k);
        k += 1;
        asm.emit(Opcode::StoreFast.as_instruction(), shifted(slot));
    }
    let live_names: Vec<String> = live.iter().map(|&s| slots.names[s].clone()).collect();
    let nclosure = cells.len() + nfree;
    // The resume function for the continuation at `next_pos`, generated once and kept in the
    // frame's globals (so every path to the same resume point calls the same code object, and
    // so the same compiled entries). Without a closure it is one function object made here;
    // with one it is made per call over this call's cells.
    let resume_global =
        |spec: &mut CodeSpec, next_pos: usize| -> Result<(u32, u32), NotResumable> {
            let target = bc
                .instrs
                .get(next_pos)
                .ok_or_else(|| "no instruction to resume at".to_owned())?;
            let point = ResumePoint {
                target: target.start,
                stack: resume_stack.clone(),
                live: live_names.clone(),
            };
            let rcode = resume_code(code, &point, vm)?;
            let gname = format!(
                "{}_{:x}",
                super::resume::display_name(&rcode),
                rcode.as_object() as *const _ as usize
            );
            let value: PyObjectRef = if nclosure == 0 {
                vm.ctx
                    .types
                    .function_type
                    .as_object()
                    .call((rcode.clone(), globals.clone()), vm)
                    .map_err(|_| "cannot make the resume function".to_owned())?
            } else {
                rcode.clone().into()
            };
            globals
                .set_item(gname.as_str(), value, vm)
                .map_err(|_| "cannot store the resume function".to_owned())?;
            let name_idx = spec.names.len() as u32;
            spec.names.push(gname);
            Ok((name_idx, target.line.unwrap_or(line)))
        };
    // `resume_fn, NULL, kept values...` (then the caller adds the pushed values and the live
    // variables and calls it with one CALL).
    let call_prefix = |asm: &mut Assembler, name_idx: u32| {
        if nclosure == 0 {
            asm.emit(Opcode::LoadGlobal.as_instruction(), (name_idx << 1) | 1);
        } else {
            // Its closure: the frame's cells, then its free variables' cells.
            for &slot in cells {
                asm.emit(Opcode::LoadFast.as_instruction(), shifted(slot));
            }
            for j in 0..nfree {
                asm.emit(Opcode::LoadFast.as_instruction(), shifted(first_free + j));
            }
            asm.emit(Opcode::BuildTuple.as_instruction(), nclosure as u32);
            asm.emit(Opcode::LoadGlobal.as_instruction(), name_idx << 1);
            asm.emit(Opcode::MakeFunction.as_instruction(), 0);
            asm.emit(Opcode::SetFunctionAttribute.as_instruction(), 8);
            asm.emit(Opcode::PushNull.as_instruction(), 0);
        }
        for &kk in &kept_items {
            item(asm, kk);
        }
    };
    let call_suffix = |asm: &mut Assembler, npushed: usize| {
        for &slot in live {
            asm.emit(Opcode::LoadFast.as_instruction(), shifted(slot));
        }
        let nargs = kept_items.len() + npushed + live.len();
        asm.emit(Opcode::Call.as_instruction(), nargs as u32);
        asm.emit(Opcode::ReturnValue.as_instruction(), 0);
    };
    let push_operands = |asm: &mut Assembler| {
        for o in &operands {
            match o {
                Some(kk) => item(asm, *kk),
                None => asm.emit(Opcode::PushNull.as_instruction(), 0),
            }
        }
    };
    if is_cond_jump(ins.op) {
        // The jump pops its operand and pushes nothing: each side calls its own resume function.
        push_operands(&mut asm);
        let other = asm.label();
        asm.emit_jump(ins.op, other);
        let (fall, fall_line) = resume_global(&mut spec, state.pos + 1)?;
        asm.set_line(fall_line);
        call_prefix(&mut asm, fall);
        call_suffix(&mut asm, 0);
        asm.bind(other);
        let t = ins
            .jump_target()
            .and_then(|t| bc.position(t))
            .ok_or_else(|| "bad jump target".to_owned())?;
        let (taken, taken_line) = resume_global(&mut spec, t)?;
        asm.set_line(taken_line);
        call_prefix(&mut asm, taken);
        call_suffix(&mut asm, 0);
    } else {
        // resume_fn, NULL, kept..., operands -> the instruction -> resume_fn, NULL, kept...,
        // pushed..., live... -> CALL.
        let (next, next_line) = resume_global(&mut spec, state.pos + 1)?;
        call_prefix(&mut asm, next);
        push_operands(&mut asm);
        let (start, end) = (asm.label(), asm.label());
        asm.bind(start);
        asm.emit(ins.op, emit_arg);
        asm.bind(end);
        asm.set_line(next_line);
        call_suffix(&mut asm, pushes);
        let exits = with_exits(code, bc, state, n_kept)?;
        if !exits.is_empty() {
            asm.set_line(line);
            exit_blocks_on_raise(&mut asm, &mut spec, start, end, kept_items.len(), &exits);
        }
    }
    Ok(spec.build(asm.assemble(), vm))
}

/// The kept-value positions of the `__exit__` methods of the `with` blocks around the break,
/// innermost first (`check_resumable` made sure each is a manager Dynamo re-enters).
fn with_exits(
    code: &PyCode,
    bc: &Bytecode,
    state: &BreakState,
    n_kept: usize,
) -> Result<Vec<usize>, NotResumable> {
    super::bytecode_analysis::with_block_depths(code, bc, state.pos)
        .into_iter()
        .map(|depth| {
            let at = (depth as usize)
                .checked_sub(2)
                .filter(|&at| at < n_kept && !state.stack[at].is_null())
                .ok_or_else(|| "a with block's __exit__ is not on the stack".to_owned())?;
            Ok(state.stack[..at].iter().filter(|v| !v.is_null()).count())
        })
        .collect()
}

/// When the unsupported instruction in `[start, end)` raises inside `with` blocks, the
/// transformed code exits them before the exception leaves the frame, as eager's `with` would
/// (Dynamo wraps that instruction the same way): the resume function that owns the rest of each
/// block never runs, so nothing else would restore the grad mode or the config the blocks set.
/// Like Dynamo, `__exit__` gets `(None, None, None)`; the managers it re-enters never suppress.
///
/// The stack at the instruction is `resume_fn, NULL, kept..., operands`; the handler unwinds to
/// the kept values, whose `exits` (positions among them, innermost first) are the `__exit__`s.
fn exit_blocks_on_raise(
    asm: &mut Assembler,
    spec: &mut CodeSpec,
    start: Label,
    end: Label,
    n_kept: usize,
    exits: &[usize],
) {
    let none = spec.const_index(ConstantData::None);
    let handler = asm.label();
    let depth = 2 + n_kept;
    asm.handler(Handler {
        start,
        end,
        target: handler,
        depth: depth as u16,
        push_lasti: false,
    });
    asm.bind(handler);
    // resume_fn, NULL, kept..., exc -> ..., prev_exc, exc
    asm.emit(Opcode::PushExcInfo.as_instruction(), 0);
    for &k in exits {
        // COPY counts from the top: exc is 1, prev_exc 2, the last kept value (k = n_kept - 1) 3.
        asm.emit(Opcode::Copy.as_instruction(), (n_kept + 2 - k) as u32);
        asm.emit(Opcode::PushNull.as_instruction(), 0);
        for _ in 0..3 {
            asm.emit(Opcode::LoadConst.as_instruction(), none);
        }
        asm.emit(Opcode::Call.as_instruction(), 3);
        asm.emit(Opcode::PopTop.as_instruction(), 0);
    }
    // Restore the exception state from before the handler, then re-raise (no new traceback
    // entry: the traceback still ends at the user's line).
    asm.emit(Opcode::Swap.as_instruction(), 2);
    asm.emit(Opcode::PopExcept.as_instruction(), 0);
    asm.emit(Opcode::Reraise.as_instruction(), 0);
}

fn is_deref_op(op: Instruction) -> bool {
    matches!(
        op,
        Instruction::LoadDeref { .. }
            | Instruction::StoreDeref { .. }
            | Instruction::DeleteDeref { .. }
            | Instruction::LoadFromDictOrDeref { .. }
    )
}

/// Number of parameter slots: positional, keyword-only, `*args`, `**kwargs`.
pub fn param_count(code: &PyCode) -> usize {
    let c = &code.code;
    c.arg_count as usize
        + c.kwonlyarg_count as usize
        + usize::from(c.flags.contains(CodeFlags::VARARGS))
        + usize::from(c.flags.contains(CodeFlags::VARKEYWORDS))
}
