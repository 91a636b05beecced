//! Bytecode generation: an assembler for CPython 3.14-format code, and construction of new code
//! objects (the transformed code of a frame with graph breaks, and resume functions).
//!
//! ```text
//!   Assembler { instructions with symbolic labels, exception ranges, lines }
//!     --[size fixpoint]--> EXTENDED_ARG prefixes and relative jump deltas settle
//!     --[encode]---------> code units + CACHE units, exception table, line table, locations
//!     --[CodeSpec::build]-> PyCode (RustPython's CodeObject, validated by running it)
//! ```
//!
//! **Invariant:** jump targets are labels, never offsets; offsets exist only inside `assemble`.

use rustpython_compiler_core::{OneIndexed, SourceLocation};
use rustpython_vm::builtins::PyCode;
use rustpython_vm::bytecode::{
    self, CO_FAST_ARG_KW, CO_FAST_ARG_POS, CO_FAST_ARG_VAR, CO_FAST_CELL, CO_FAST_FREE,
    CO_FAST_LOCAL, CodeFlags, CodeUnit, CodeUnits, Constant, ConstantData, ExceptionTableEntry,
    Instruction, OpArgByte,
};
use rustpython_vm::{PyRef, VirtualMachine};

/// A jump target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label(u32);

#[derive(Clone, Copy, Debug)]
enum Arg {
    Imm(u32),
    Jump(Label),
}

#[derive(Clone, Copy, Debug)]
struct Emitted {
    op: Instruction,
    arg: Arg,
    line: u32,
}

/// An exception-table range: instructions in `[start, end)` jump to `handler` when they raise.
#[derive(Clone, Copy, Debug)]
pub struct Handler {
    /// First covered instruction.
    pub start: Label,
    /// One past the last covered instruction.
    pub end: Label,
    /// The handler.
    pub target: Label,
    /// Stack depth to unwind to.
    pub depth: u16,
    /// Whether the handler receives the raising instruction's offset.
    pub push_lasti: bool,
}

/// Builds one code object's instruction stream.
#[derive(Default)]
pub struct Assembler {
    items: Vec<Emitted>,
    /// Label → index of the instruction it precedes (`items.len()` for the end).
    labels: Vec<Option<usize>>,
    handlers: Vec<Handler>,
    line: u32,
}

/// The encoded result.
pub struct Assembled {
    /// Code units, CACHE units included.
    pub units: Vec<CodeUnit>,
    /// Per-unit source locations (what tracebacks read).
    pub locations: Vec<(SourceLocation, SourceLocation)>,
    /// CPython exception table.
    pub exceptiontable: Vec<u8>,
    /// The maximum stack depth any path reaches.
    pub max_stackdepth: u32,
}

impl Assembler {
    /// An empty stream whose instructions carry `line` until [`Assembler::set_line`].
    pub fn new(line: u32) -> Self {
        Self {
            line,
            ..Self::default()
        }
    }

    /// Sets the source line for the following instructions.
    pub fn set_line(&mut self, line: u32) {
        self.line = line;
    }

    /// A fresh, unbound label.
    pub fn label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() as u32 - 1)
    }

    /// Binds `label` to the next instruction emitted.
    pub fn bind(&mut self, label: Label) {
        self.labels[label.0 as usize] = Some(self.items.len());
    }

    /// Emits an instruction with an immediate argument (0 for argument-less instructions).
    pub fn emit(&mut self, op: Instruction, arg: u32) {
        self.items.push(Emitted {
            op,
            arg: Arg::Imm(arg),
            line: self.line,
        });
    }

    /// Emits a jump to `target`.
    pub fn emit_jump(&mut self, op: Instruction, target: Label) {
        self.items.push(Emitted {
            op,
            arg: Arg::Jump(target),
            line: self.line,
        });
    }

    /// Adds an exception-table range.
    pub fn handler(&mut self, h: Handler) {
        self.handlers.push(h);
    }

    fn label_pos(&self, l: Label) -> usize {
        self.labels[l.0 as usize].expect("invariant: every jump target is bound before assembly")
    }

    /// Encodes the stream.
    pub fn assemble(self) -> Assembled {
        let n = self.items.len();
        // Units each instruction occupies, EXTENDED_ARG prefixes and caches included. Jump sizes
        // depend on offsets which depend on sizes: iterate to the (monotone) fixpoint.
        let mut ext = vec![0u32; n];
        let mut starts = vec![0u32; n + 1];
        let mut args = vec![0u32; n];
        loop {
            let mut off = 0u32;
            for i in 0..n {
                starts[i] = off;
                off += ext[i] + 1 + self.items[i].op.cache_entries() as u32;
            }
            starts[n] = off;
            let mut changed = false;
            for (i, it) in self.items.iter().enumerate() {
                let arg = match it.arg {
                    Arg::Imm(a) => a,
                    Arg::Jump(l) => {
                        let target = starts[self.label_pos(l)];
                        let after = starts[i] + ext[i] + 1 + it.op.cache_entries() as u32;
                        if is_backward(it.op) {
                            after.saturating_sub(target)
                        } else {
                            target.saturating_sub(after)
                        }
                    }
                };
                args[i] = arg;
                let need = ext_count(arg);
                if need > ext[i] {
                    ext[i] = need;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut units = Vec::with_capacity(starts[n] as usize);
        let mut locations = Vec::with_capacity(starts[n] as usize);
        for (i, it) in self.items.iter().enumerate() {
            let arg = args[i];
            let loc = location(it.line);
            for k in (1..=ext[i]).rev() {
                units.push(CodeUnit::new(
                    Instruction::ExtendedArg,
                    OpArgByte::from((arg >> (8 * k)) as u8),
                ));
                locations.push(loc);
            }
            units.push(CodeUnit::new(it.op, OpArgByte::from(arg as u8)));
            locations.push(loc);
            for _ in 0..it.op.cache_entries() {
                units.push(CodeUnit::new(Instruction::Cache, OpArgByte::from(0)));
                locations.push(loc);
            }
        }
        let entries: Vec<ExceptionTableEntry> = self
            .handlers
            .iter()
            .map(|h| {
                ExceptionTableEntry::new(
                    starts[self.label_pos(h.start)],
                    starts[self.label_pos(h.end)],
                    starts[self.label_pos(h.target)],
                    h.depth,
                    h.push_lasti,
                )
            })
            .filter(|e| e.end > e.start)
            .collect();
        let max_stackdepth = self.max_stack_depth(&args);
        Assembled {
            units,
            locations,
            exceptiontable: bytecode::encode_exception_table(&entries).into_vec(),
            max_stackdepth,
        }
    }

    /// Maximum stack depth over all paths, from the instructions' stack effects.
    fn max_stack_depth(&self, args: &[u32]) -> u32 {
        let n = self.items.len();
        let mut depth_at: Vec<Option<i32>> = vec![None; n + 1];
        let mut work = vec![(0usize, 0i32)];
        for h in &self.handlers {
            let d = i32::from(h.depth) + 1 + i32::from(h.push_lasti);
            work.push((self.label_pos(h.target), d));
        }
        let mut max = 0i32;
        while let Some((mut i, mut d)) = work.pop() {
            while i < n {
                if depth_at[i].is_some_and(|seen| seen >= d) {
                    break;
                }
                depth_at[i] = Some(d);
                max = max.max(d);
                let it = &self.items[i];
                if let Arg::Jump(l) = it.arg {
                    let jd = d + it.op.stack_effect_jump(args[i]);
                    max = max.max(jd);
                    work.push((self.label_pos(l), jd));
                }
                d += it.op.stack_effect(args[i]);
                max = max.max(d);
                if it.op.is_no_fallthrough() || is_scope_exit(it.op) {
                    break;
                }
                i += 1;
            }
        }
        // NOTE: effects of a few instructions differ by path (FOR_ITER exhaustion); a little slack
        // keeps the frame's value stack from ever being undersized.
        (max.max(0) as u32) + 2
    }
}

fn is_backward(op: Instruction) -> bool {
    matches!(
        op,
        Instruction::JumpBackward { .. } | Instruction::JumpBackwardNoInterrupt { .. }
    )
}

fn is_scope_exit(op: Instruction) -> bool {
    matches!(
        op,
        Instruction::ReturnValue | Instruction::RaiseVarargs { .. } | Instruction::Reraise { .. }
    )
}

fn ext_count(arg: u32) -> u32 {
    match arg {
        0..=0xff => 0,
        0x100..=0xffff => 1,
        0x1_0000..=0xff_ffff => 2,
        _ => 3,
    }
}

fn location(line: u32) -> (SourceLocation, SourceLocation) {
    let loc = SourceLocation {
        line: OneIndexed::new(line.max(1) as usize).unwrap_or(OneIndexed::MIN),
        character_offset: OneIndexed::MIN,
    };
    (loc, loc)
}

/// CPython's line table for `locations`, line numbers only (code 13, "no columns").
fn encode_linetable(locations: &[(SourceLocation, SourceLocation)], first_line: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut prev = first_line as i64;
    let mut i = 0;
    while i < locations.len() {
        let line = locations[i].0.line.get() as i64;
        let mut len = 1;
        while len < 8 && i + len < locations.len() && locations[i + len].0.line.get() as i64 == line
        {
            len += 1;
        }
        out.push(0x80 | (13 << 3) | (len as u8 - 1));
        let delta = line - prev;
        let mut v: u64 = if delta < 0 {
            ((-delta as u64) << 1) | 1
        } else {
            (delta as u64) << 1
        };
        loop {
            let chunk = (v & 0x3f) as u8;
            v >>= 6;
            if v == 0 {
                out.push(chunk);
                break;
            }
            out.push(chunk | 0x40);
        }
        prev = line;
        i += len;
    }
    out
}

/// Everything about a new code object except its instructions.
pub struct CodeSpec {
    /// `co_name`.
    pub name: String,
    /// `co_qualname`.
    pub qualname: String,
    /// `co_filename`.
    pub source_path: String,
    /// `co_firstlineno`.
    pub first_line: u32,
    /// Positional parameter count (`co_argcount`).
    pub arg_count: u32,
    /// Positional-only parameter count.
    pub posonlyarg_count: u32,
    /// Keyword-only parameter count.
    pub kwonlyarg_count: u32,
    /// Flags (`VARARGS`, `VARKEYWORDS`, `OPTIMIZED | NEWLOCALS`, ...).
    pub flags: CodeFlags,
    /// `co_varnames`: parameters first.
    pub varnames: Vec<String>,
    /// `co_cellvars`.
    pub cellvars: Vec<String>,
    /// `co_freevars`.
    pub freevars: Vec<String>,
    /// `co_consts`: literal constants only (numbers, strings, bytes, None, Ellipsis, tuples of
    /// those, code objects). Runtime objects go through globals, as in Dynamo.
    pub consts: Vec<ConstantData>,
    /// `co_names`.
    pub names: Vec<String>,
}

impl CodeSpec {
    /// The index of `value` in `co_consts`, appended if absent.
    pub fn const_index(&mut self, value: ConstantData) -> u32 {
        let i = self
            .consts
            .iter()
            .position(|c| *c == value)
            .unwrap_or_else(|| {
                self.consts.push(value);
                self.consts.len() - 1
            });
        i as u32
    }

    /// Builds the code object.
    pub fn build(&self, asm: Assembled, vm: &VirtualMachine) -> PyRef<PyCode> {
        let localspluskinds = self.localspluskinds();
        let linetable = encode_linetable(&asm.locations, self.first_line);
        let code = bytecode::CodeObject::<ConstantData> {
            instructions: CodeUnits::from(asm.units),
            locations: asm.locations.into_boxed_slice(),
            flags: self.flags,
            posonlyarg_count: self.posonlyarg_count,
            arg_count: self.arg_count,
            kwonlyarg_count: self.kwonlyarg_count,
            source_path: self.source_path.clone(),
            first_line_number: OneIndexed::new(self.first_line.max(1) as usize),
            max_stackdepth: asm.max_stackdepth,
            obj_name: self.name.clone(),
            qualname: self.qualname.clone(),
            constants: self.consts.iter().cloned().collect(),
            names: self.names.clone().into_boxed_slice(),
            varnames: self.varnames.clone().into_boxed_slice(),
            cellvars: self.cellvars.clone().into_boxed_slice(),
            freevars: self.freevars.clone().into_boxed_slice(),
            localspluskinds,
            linetable: linetable.into_boxed_slice(),
            exceptiontable: asm.exceptiontable.into_boxed_slice(),
        };
        // Through the VM's constant bag: the context-only one panics on frozenset constants
        // (`x in {"a", "b"}` compiles to one), which resume functions copy from the original.
        PyCode::new_ref_from_bytecode(vm, code)
    }

    /// `co_localspluskinds`: locals, then cells that are not also locals, then free variables.
    fn localspluskinds(&self) -> Box<[u8]> {
        let merged = self
            .cellvars
            .iter()
            .filter(|c| self.varnames.contains(c))
            .count();
        let mut kinds =
            vec![0u8; self.varnames.len() + self.cellvars.len() - merged + self.freevars.len()];
        let pos_only = self.posonlyarg_count as usize;
        let pos_kw = self.arg_count.saturating_sub(self.posonlyarg_count) as usize;
        let groups = [
            (pos_only, CO_FAST_ARG_POS),
            (pos_kw, CO_FAST_ARG_POS | CO_FAST_ARG_KW),
            (self.kwonlyarg_count as usize, CO_FAST_ARG_KW),
            (
                usize::from(self.flags.contains(CodeFlags::VARARGS)),
                CO_FAST_ARG_VAR | CO_FAST_ARG_POS,
            ),
            (
                usize::from(self.flags.contains(CodeFlags::VARKEYWORDS)),
                CO_FAST_ARG_VAR | CO_FAST_ARG_KW,
            ),
        ];
        let mut slot = 0;
        for (count, kind) in groups {
            for _ in 0..count {
                if slot < self.varnames.len() {
                    kinds[slot] = CO_FAST_LOCAL | kind;
                    slot += 1;
                }
            }
        }
        for k in kinds.iter_mut().take(self.varnames.len()).skip(slot) {
            *k = CO_FAST_LOCAL;
        }
        let mut extra = self.varnames.len();
        for cell in &self.cellvars {
            if let Some(i) = self.varnames.iter().position(|v| v == cell) {
                kinds[i] |= CO_FAST_CELL;
            } else {
                kinds[extra] = CO_FAST_CELL;
                extra += 1;
            }
        }
        for k in kinds.iter_mut().skip(extra) {
            *k = CO_FAST_FREE;
        }
        kinds.into_boxed_slice()
    }
}

/// A code object's constants as owned literal data (for building a derived code object).
pub fn constants_of(code: &PyCode) -> Vec<ConstantData> {
    code.code
        .constants
        .iter()
        .map(|c| c.borrow_constant().to_owned())
        .collect()
}

/// A code object's names (`co_names`) as strings.
pub fn names_of(code: &PyCode) -> Vec<String> {
    code.code.names.iter().map(|n| n.to_string()).collect()
}

/// One label per decoded instruction (plus one for the end), for [`copy_instructions`]. Made
/// before the copy so a prologue can jump into the body.
pub fn body_labels(asm: &mut Assembler, bc: &super::bytecode::Bytecode) -> Vec<Label> {
    (0..=bc.instrs.len()).map(|_| asm.label()).collect()
}

/// Re-emits decoded instructions into an assembler, jump targets and exception ranges turned
/// into `labels` (from [`body_labels`]). `remap` may rewrite an instruction into several (it
/// must not for jumps).
pub fn copy_instructions(
    asm: &mut Assembler,
    code: &PyCode,
    bc: &super::bytecode::Bytecode,
    labels: &[Label],
    mut remap: impl FnMut(&super::bytecode::Instr) -> Vec<(Instruction, u32)>,
) {
    let end = labels[bc.instrs.len()];
    let label_at = |unit: u32| -> Label {
        match bc.position(unit) {
            Some(p) => labels[p],
            None => end,
        }
    };
    for (pos, ins) in bc.instrs.iter().enumerate() {
        asm.bind(labels[pos]);
        if let Some(line) = ins.line {
            asm.set_line(line);
        }
        match ins.jump_target() {
            // FOR_ITER's exhaustion path skips the END_FOR at its target; the target label is
            // still the END_FOR's, which keeps the layout (and that skip) intact.
            Some(target) => asm.emit_jump(ins.op, label_at(target)),
            None => {
                for (op, arg) in remap(ins) {
                    asm.emit(op, arg);
                }
            }
        }
    }
    asm.bind(end);
    for e in bytecode::decode_exception_table(&code.code.exceptiontable) {
        asm.handler(Handler {
            start: label_at(e.start),
            end: label_at(e.end),
            target: label_at(e.target),
            depth: e.depth,
            push_lasti: e.push_lasti,
        });
    }
}

impl CodeSpec {
    /// The spec of an existing code object (to derive a new one from it).
    pub fn of(code: &PyCode) -> Self {
        let c = &code.code;
        Self {
            name: c.obj_name.to_string(),
            qualname: c.qualname.to_string(),
            source_path: c.source_path.to_string(),
            first_line: c.first_line_number.map_or(1, |l| l.get() as u32),
            arg_count: c.arg_count,
            posonlyarg_count: c.posonlyarg_count,
            kwonlyarg_count: c.kwonlyarg_count,
            flags: c.flags,
            varnames: c.varnames.iter().map(|n| n.to_string()).collect(),
            cellvars: c.cellvars.iter().map(|n| n.to_string()).collect(),
            freevars: c.freevars.iter().map(|n| n.to_string()).collect(),
            consts: constants_of(code),
            names: names_of(code),
        }
    }
}
