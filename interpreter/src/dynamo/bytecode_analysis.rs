//! Static analyses over decoded bytecode: which variables are live at an instruction, and
//! whether an instruction sits where Dynamo cannot resume (a loop, a `try`, a `with`).

use rustpython_vm::builtins::PyCode;
use rustpython_vm::bytecode::{self, ExceptionTableEntry, Instruction};

use super::bytecode::{Bytecode, Instr};

/// Variables in the localsplus index space: `co_varnames`, then cells that are not also
/// locals, then free variables (what `LOAD_DEREF` and friends index).
#[derive(Clone, Debug)]
pub struct Slots {
    /// Names by localsplus index.
    pub names: Vec<String>,
    /// How many of them are `co_varnames`.
    pub nlocals: usize,
}

impl Slots {
    /// The localsplus layout of `code`.
    pub fn of(code: &PyCode) -> Self {
        let c = &code.code;
        let mut names: Vec<String> = c.varnames.iter().map(|n| n.to_string()).collect();
        let nlocals = names.len();
        for cell in c.cellvars.iter() {
            if !names[..nlocals].iter().any(|n| n == cell.as_str()) {
                names.push(cell.to_string());
            }
        }
        names.extend(c.freevars.iter().map(|n| n.to_string()));
        Self { names, nlocals }
    }
}

/// The localsplus slots an instruction reads and writes.
pub fn slot_effects(ins: &Instr) -> (Vec<u32>, Vec<u32>) {
    use Instruction as I;
    let a = ins.arg;
    match ins.op {
        I::LoadFast { .. }
        | I::LoadFastBorrow { .. }
        | I::LoadFastCheck { .. }
        | I::LoadDeref { .. }
        | I::LoadFromDictOrDeref { .. } => (vec![a], vec![]),
        // Reads the slot (it saves the value to restore it after an inlined comprehension).
        I::LoadFastAndClear { .. } => (vec![a], vec![a]),
        I::LoadFastLoadFast { .. } | I::LoadFastBorrowLoadFastBorrow { .. } => {
            (vec![a >> 4, a & 15], vec![])
        }
        I::StoreFast { .. }
        | I::DeleteFast { .. }
        | I::StoreDeref { .. }
        | I::DeleteDeref { .. } => (vec![], vec![a]),
        I::StoreFastLoadFast { .. } => (vec![a & 15], vec![a >> 4]),
        I::StoreFastStoreFast { .. } => (vec![], vec![a >> 4, a & 15]),
        _ => (vec![], vec![]),
    }
}

/// Successor instruction positions of the instruction at `pos`.
fn successors(bc: &Bytecode, pos: usize) -> Vec<usize> {
    let ins = &bc.instrs[pos];
    let mut out = Vec::with_capacity(2);
    if let Some(t) = ins.jump_target()
        && let Some(p) = bc.position(t)
    {
        out.push(p);
        // FOR_ITER exhaustion skips the END_FOR at its target.
        if matches!(ins.op, Instruction::ForIter { .. }) && p + 1 < bc.instrs.len() {
            out.push(p + 1);
        }
    }
    if falls_through(ins.op) && pos + 1 < bc.instrs.len() {
        out.push(pos + 1);
    }
    out
}

/// Whether execution can continue at the next instruction after `op`: not after a return, a
/// raise, a re-raise or an unconditional jump (the last instruction of a code object is always
/// one of these, so an instruction that falls through always has a next one).
pub fn falls_through(op: Instruction) -> bool {
    !op.is_no_fallthrough()
        && !matches!(
            op,
            Instruction::ReturnValue
                | Instruction::RaiseVarargs { .. }
                | Instruction::Reraise { .. }
                | Instruction::JumpForward { .. }
                | Instruction::JumpBackward { .. }
                | Instruction::JumpBackwardNoInterrupt { .. }
        )
}

/// Liveness: for each instruction, the slots that may be read before being written on some
/// path starting at it (exception edges included).
pub struct Liveness {
    live_in: Vec<Vec<bool>>,
}

impl Liveness {
    /// Computes liveness for `code`.
    pub fn compute(code: &PyCode, bc: &Bytecode, nslots: usize) -> Self {
        let n = bc.instrs.len();
        let handlers = bytecode::decode_exception_table(&code.code.exceptiontable);
        let effects: Vec<_> = bc.instrs.iter().map(slot_effects).collect();
        let succ: Vec<Vec<usize>> = (0..n)
            .map(|p| {
                let mut s = successors(bc, p);
                let unit = bc.instrs[p].index;
                for h in &handlers {
                    if unit >= h.start
                        && unit < h.end
                        && let Some(t) = bc.position(h.target)
                    {
                        s.push(t);
                    }
                }
                s
            })
            .collect();
        let mut live_in = vec![vec![false; nslots]; n];
        let mut changed = true;
        while changed {
            changed = false;
            for p in (0..n).rev() {
                let mut out = vec![false; nslots];
                for &s in &succ[p] {
                    for (o, l) in out.iter_mut().zip(&live_in[s]) {
                        *o |= *l;
                    }
                }
                let (reads, writes) = &effects[p];
                for &w in writes {
                    if let Some(o) = out.get_mut(w as usize) {
                        *o = false;
                    }
                }
                for &r in reads {
                    if let Some(o) = out.get_mut(r as usize) {
                        *o = true;
                    }
                }
                if out != live_in[p] {
                    live_in[p] = out;
                    changed = true;
                }
            }
        }
        Self { live_in }
    }

    /// Slots live on entry to the instruction at position `pos` (none past the last
    /// instruction: nothing runs there).
    pub fn live_at(&self, pos: usize) -> Vec<u32> {
        let Some(live) = self.live_in.get(pos) else {
            return Vec::new();
        };
        live.iter()
            .enumerate()
            .filter(|(_, l)| **l)
            .map(|(i, _)| i as u32)
            .collect()
    }
}

/// The exception handlers around the instruction at `pos`, innermost first. The table is flat, as
/// CPython's: an instruction names only its innermost handler, and an outer block's handler
/// covers the inner handler's code instead. So the chain follows each handler's target to the
/// entry covering it. The `COPY 3; POP_EXCEPT; RERAISE 1` cleanups between them (they restore the
/// exception state when a handler itself raises) are not blocks of the user's and are skipped,
/// except the first: an instruction directly under one is inside an `except` body (or a `with`
/// block's exit code), where the frame's exception state is not something a resume function has.
pub fn enclosing_handlers(code: &PyCode, bc: &Bytecode, pos: usize) -> Vec<ExceptionTableEntry> {
    let table = bytecode::decode_exception_table(&code.code.exceptiontable);
    let covering = |unit: u32| {
        table
            .iter()
            .find(|h| unit >= h.start && unit < h.end)
            .copied()
    };
    let mut out = Vec::new();
    let mut unit = bc.instrs[pos].index;
    // Each step moves to a handler placed after the code it covers; the bound only guards
    // against a malformed table that loops.
    for step in 0..table.len() {
        let Some(h) = covering(unit) else { break };
        if step == 0 || !is_exception_state_cleanup(bc, h.target) {
            out.push(h);
        }
        if h.target <= unit {
            break;
        }
        unit = h.target;
    }
    out
}

/// Why Dynamo cannot resume at an instruction, if it cannot. `with` blocks whose manager the
/// resume function can re-enter are fine: `reenterable(depth)` says so for the manager whose
/// `__exit__` sits at stack depth `depth - 2` (the handler's depth).
pub fn resume_blocker(
    code: &PyCode,
    bc: &Bytecode,
    pos: usize,
    reenterable: impl Fn(u32) -> bool,
) -> Option<&'static str> {
    let unit = bc.instrs[pos].index;
    for h in enclosing_handlers(code, bc, pos) {
        if !is_with_cleanup(bc, h.target) {
            return Some("inside a try block");
        }
        if !reenterable(u32::from(h.depth)) {
            return Some("inside a with block whose context manager Dynamo cannot re-enter");
        }
    }
    // A `JUMP_BACKWARD` after `pos` whose target is at or before it closes a loop around `pos`.
    // `JUMP_BACKWARD_NO_INTERRUPT` is not a loop: the compiler emits it where an exception
    // handler placed after the function's `return` (a `with` block's exit, an `except` body)
    // jumps back to the code after its statement.
    for ins in &bc.instrs[pos..] {
        if matches!(ins.op, Instruction::JumpBackward { .. })
            && ins.jump_target().is_some_and(|t| t <= unit)
        {
            return Some("inside a loop");
        }
    }
    None
}

/// The stack depths of the `with` blocks around the instruction at `pos`, innermost first: each
/// block's `__exit__` sits at `depth - 2`.
pub fn with_block_depths(code: &PyCode, bc: &Bytecode, pos: usize) -> Vec<u32> {
    enclosing_handlers(code, bc, pos)
        .into_iter()
        .filter(|h| is_with_cleanup(bc, h.target))
        .map(|h| u32::from(h.depth))
        .collect()
}

/// Whether a handler only restores the exception state and re-raises (`COPY 3; POP_EXCEPT;
/// RERAISE 1`), the entry that covers another handler's body.
fn is_exception_state_cleanup(bc: &Bytecode, target: u32) -> bool {
    bc.position(target).is_some_and(|p| {
        let op = |k: usize| bc.instrs.get(p + k).map(|i| i.op);
        matches!(op(0), Some(Instruction::Copy { .. }))
            && matches!(op(1), Some(Instruction::PopExcept))
            && matches!(op(2), Some(Instruction::Reraise { .. }))
    })
}

/// Whether an exception handler is a `with` block's cleanup (`PUSH_EXC_INFO; WITH_EXCEPT_START`).
fn is_with_cleanup(bc: &Bytecode, target: u32) -> bool {
    bc.position(target).is_some_and(|p| {
        matches!(bc.instrs[p].op, Instruction::PushExcInfo)
            && bc
                .instrs
                .get(p + 1)
                .is_some_and(|i| matches!(i.op, Instruction::WithExceptStart))
    })
}

/// The variables a resume function at instruction `pos` must receive: live locals and cells, in
/// localsplus order. Free variables are not included; they come from the function's closure.
pub fn live_for_resume(code: &PyCode, bc: &Bytecode, pos: usize) -> Vec<String> {
    let slots = Slots::of(code);
    let nfree = code.code.freevars.len();
    let first_free = slots.names.len() - nfree;
    Liveness::compute(code, bc, slots.names.len())
        .live_at(pos)
        .into_iter()
        .filter(|&s| (s as usize) < first_free)
        .map(|s| slots.names[s as usize].clone())
        .collect()
}
