//! Decoded bytecode: what the symbolic executor walks.
//!
//! RustPython 0.6 uses CPython 3.14's instruction set and encoding: 2-byte code units, `EXTENDED_ARG`
//! prefixes, inline `CACHE` units after some instructions, and relative jumps counted in code units
//! from the end of the jumping instruction's caches. The VM specialises instructions in place at run
//! time, so decoding starts from `CodeUnits::original_bytes()`, which maps every unit back to its
//! base opcode (CPython's `co_code`).

use rustpython_vm::builtins::PyCode;
use rustpython_vm::bytecode::Instruction;

/// One decoded instruction.
#[derive(Clone, Copy, Debug)]
pub struct Instr {
    /// Code-unit index of the instruction itself (after any `EXTENDED_ARG` prefixes).
    pub index: u32,
    /// Code-unit index of the first `EXTENDED_ARG` prefix, or `index` (jump targets land here).
    pub start: u32,
    /// The base (unspecialised) instruction.
    pub op: Instruction,
    /// The full argument, `EXTENDED_ARG` prefixes folded in.
    pub arg: u32,
    /// Code-unit index of the next instruction (past the caches).
    pub next: u32,
    /// Source line, when the compiler recorded one.
    pub line: Option<u32>,
}

impl Instr {
    /// Where a jumping instruction goes, as a code-unit index.
    pub fn jump_target(&self) -> Option<u32> {
        use Instruction as I;
        match self.op {
            I::JumpForward { .. }
            | I::PopJumpIfFalse { .. }
            | I::PopJumpIfTrue { .. }
            | I::PopJumpIfNone { .. }
            | I::PopJumpIfNotNone { .. }
            | I::ForIter { .. }
            | I::Send { .. } => Some(self.next + self.arg),
            I::JumpBackward { .. } | I::JumpBackwardNoInterrupt { .. } => {
                Some(self.next.saturating_sub(self.arg))
            }
            _ => None,
        }
    }

    /// The opcode name as `dis` prints it (`LOAD_FAST_BORROW`).
    pub fn name(&self) -> String {
        opname(self.op)
    }
}

/// CPython's upper-snake-case name of an instruction (`LoadFastBorrow` → `LOAD_FAST_BORROW`).
pub fn opname(op: Instruction) -> String {
    let debug = format!("{op:?}");
    let camel = debug.split([' ', '{', '(']).next().unwrap_or(&debug);
    let mut out = String::with_capacity(camel.len() + 4);
    for (i, ch) in camel.chars().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(ch.to_ascii_uppercase());
    }
    out
}

/// A code object's instructions, decoded once per conversion.
#[derive(Clone, Debug)]
pub struct Bytecode {
    /// Instructions in order.
    pub instrs: Vec<Instr>,
    /// `by_index[unit]` is the position in `instrs` of the instruction whose `start` or `index` is
    /// `unit` (`u32::MAX` for caches and prefixes that are not jump targets).
    by_index: Vec<u32>,
}

impl Bytecode {
    /// Decodes `code`.
    pub fn decode(code: &PyCode) -> Self {
        let bytes = code.code.instructions.original_bytes();
        let units = bytes.len() / 2;
        let mut instrs = Vec::new();
        let mut by_index = vec![u32::MAX; units + 1];
        let mut i = 0usize;
        let mut ext: u32 = 0;
        let mut start = 0usize;
        while i < units {
            let (op_byte, arg_byte) = (bytes[2 * i], bytes[2 * i + 1]);
            let Ok(op) = Instruction::try_from(op_byte) else {
                i += 1;
                continue;
            };
            if matches!(op, Instruction::ExtendedArg) {
                if ext == 0 {
                    start = i;
                }
                ext = (ext << 8) | u32::from(arg_byte);
                i += 1;
                continue;
            }
            let arg = (ext << 8) | u32::from(arg_byte);
            if ext == 0 {
                start = i;
            }
            ext = 0;
            let next = i + 1 + op.cache_entries();
            let line = code
                .code
                .locations
                .get(i)
                .map(|(loc, _)| loc.line.get() as u32)
                .filter(|&l| l > 0);
            let pos = instrs.len() as u32;
            by_index[start] = pos;
            by_index[i] = pos;
            instrs.push(Instr {
                index: i as u32,
                start: start as u32,
                op,
                arg,
                next: next as u32,
                line,
            });
            i = next;
        }
        Self { instrs, by_index }
    }

    /// The position in `instrs` of the instruction at code-unit `index` (a jump target).
    pub fn position(&self, index: u32) -> Option<usize> {
        self.by_index
            .get(index as usize)
            .copied()
            .filter(|&p| p != u32::MAX)
            .map(|p| p as usize)
    }

    /// The instruction at code-unit `index`.
    pub fn at(&self, index: u32) -> Option<&Instr> {
        self.position(index).map(|p| &self.instrs[p])
    }

    /// The code-unit index one past the last instruction.
    pub fn end(&self) -> u32 {
        self.instrs.last().map_or(0, |i| i.next)
    }
}
