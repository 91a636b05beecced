//! The symbolic executor (Dynamo's `InstructionTranslator`): walks a frame's bytecode with
//! trackers instead of values, recording tensor work into the output graph.
//!
//! One [`Tracer`] runs per frame; calls to Python functions are inlined with a child tracer that
//! shares the [`OutputGraph`]. Opcode handlers live in `opcodes/`, one file per family, each a
//! method named after its instruction.
//!
//! **Invariant:** a handler either completes its instruction or returns a [`GraphBreak`]
//! without having changed the stack or locals of the root frame (the converter snapshots them
//! before each root instruction, so the generated code can rebuild the state at the break).

use std::collections::HashMap;
use std::rc::Rc;

use rustpython_vm::builtins::{PyCode, PyDictRef};
use rustpython_vm::bytecode::Instruction;
use rustpython_vm::{PyObjectRef, PyRef, VirtualMachine};

use super::bytecode::{Bytecode, Instr};
use super::bytecode_analysis::Slots;
use super::exc::{GraphBreak, GraphBreakKind};
use super::graph_break::BreakState;
use super::output_graph::OutputGraph;
use super::source::Source;
use super::variables::Vt;

/// What an instruction did to control flow.
pub enum Flow {
    /// Go on with the next instruction.
    Next,
    /// Continue at this instruction position.
    Jump(usize),
    /// The frame returned this value.
    Return(Vt),
    /// A generator frame yielded this value (it suspends after the instruction).
    Yield(Vt),
}

/// The result of a handler.
pub type Step = Result<Flow, GraphBreak>;

/// How deep inlining may go before Dynamo gives up (recursion).
const MAX_INLINE_DEPTH: usize = 32;

/// Tracing options that come from `torch._dynamo.config` and the compile call.
#[derive(Clone, Debug, Default)]
pub struct TraceConfig {
    /// `capture_scalar_outputs`.
    pub capture_scalar_outputs: bool,
    /// Root positions where a previous attempt found a break inside an inlined call (or one
    /// that left partial changes): break at that instruction this time, with the original
    /// reason (Dynamo's restart-analysis and speculation log).
    pub break_at: HashMap<usize, GraphBreak>,
}

/// Where a tracer's globals come from, for sources.
#[derive(Clone, Debug)]
pub enum GlobalsSource {
    /// The compiled frame's own globals: `G['x']`.
    Frame,
    /// Another module's globals, read through this dict source (`G['mod'].__dict__`, ...).
    Dict(Rc<Source>),
    /// Not re-readable (a function made during the trace from another module): unguarded.
    None,
}

/// The symbolic state of one frame.
pub struct Tracer<'g> {
    /// The VM (trace-time constant folding calls real Python).
    pub vm: &'g VirtualMachine,
    /// The graph and everything that goes with it, shared with inlined callees.
    pub out: &'g mut OutputGraph,
    /// Options.
    pub config: &'g TraceConfig,
    /// The frame's code.
    pub code: PyRef<PyCode>,
    /// Its decoded instructions.
    pub bc: Rc<Bytecode>,
    /// Its localsplus layout.
    pub slots: Rc<Slots>,
    /// Locals, cells and free variables by localsplus index (`None`: unbound).
    pub locals: Vec<Option<Vt>>,
    /// The value stack.
    pub stack: Vec<Vt>,
    /// The next instruction's position.
    pub pos: usize,
    /// The frame's globals.
    pub globals: PyDictRef,
    /// Where sources for its globals come from.
    pub globals_source: GlobalsSource,
    /// The builtins dict.
    pub builtins: PyObjectRef,
    /// Inlining depth (0: the compiled frame).
    pub depth: usize,
    /// Positions of the instructions executed, in order (for the root: break reporting).
    pub last_instr: Option<Instr>,
    /// Whether this frame runs a generator's body (`YIELD_VALUE` suspends it).
    pub is_generator: bool,
    /// The value the generator frame yielded when `run` stopped at a `YIELD_VALUE`.
    pub yielded: Option<Vt>,
    /// The exceptions being handled (`except` blocks entered and not yet left), innermost last.
    pub exc_info: Vec<Vt>,
    /// The compiled frame's state before the instruction being traced (what a break there
    /// rebuilds); `None` in inlined frames.
    pub before: Option<BreakState>,
}

impl<'g> Tracer<'g> {
    /// A tracer for `code` with its locals already bound.
    #[allow(clippy::too_many_arguments, reason = "a frame has this many parts")]
    pub fn new(
        vm: &'g VirtualMachine,
        out: &'g mut OutputGraph,
        config: &'g TraceConfig,
        code: PyRef<PyCode>,
        locals: Vec<Option<Vt>>,
        globals: PyDictRef,
        globals_source: GlobalsSource,
        builtins: PyObjectRef,
        depth: usize,
    ) -> Self {
        let bc = Rc::new(Bytecode::decode(&code));
        let slots = Rc::new(Slots::of(&code));
        Self {
            vm,
            out,
            config,
            code,
            bc,
            slots,
            locals,
            stack: Vec::new(),
            pos: 0,
            globals,
            globals_source,
            builtins,
            depth,
            last_instr: None,
            is_generator: false,
            yielded: None,
            exc_info: Vec::new(),
            before: None,
        }
    }

    /// The function name, for messages and the user stack.
    pub fn fn_name(&self) -> String {
        super::resume::display_name(&self.code)
    }

    /// The `(file, line, function)` of the instruction being traced.
    pub fn frame_summary(&self) -> (String, u32, String) {
        let line = self
            .last_instr
            .and_then(|i| i.line)
            .or_else(|| self.code.code.first_line_number.map(|l| l.get() as u32))
            .unwrap_or(0);
        (self.code.code.source_path.to_string(), line, self.fn_name())
    }

    /// Runs until the frame returns (`Ok`) or breaks (`Err`, with the user stack filled in).
    pub fn run(&mut self) -> Result<Vt, GraphBreak> {
        loop {
            match self.step_once() {
                Ok(Some(v)) => return Ok(v),
                Ok(None) => {}
                Err(b) => return Err(b),
            }
        }
    }

    /// Executes the instruction at `self.pos`: `Ok(Some(v))` when the frame returned `v`.
    pub fn step_once(&mut self) -> Result<Option<Vt>, GraphBreak> {
        let Some(ins) = self.bc.instrs.get(self.pos).copied() else {
            return Err(self.graph_break(GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                "fell off the end of the bytecode",
            )));
        };
        self.last_instr = Some(ins);
        self.out.user_stack.truncate(self.depth);
        self.out.user_stack.push(self.frame_summary());
        if self.depth > 0 {
            let flow = self
                .dispatch_or_unwind(&ins)
                .map_err(|b| self.graph_break(b))?;
            return self.advance(flow);
        }
        // The compiled frame: keep the state before the instruction, so a break can rebuild it.
        let state = BreakState {
            pos: self.pos,
            stack: self.stack.clone(),
            locals: self.locals.clone(),
            nodes: self.out.op_count(),
            effects: self.out.side_effects.effects().len(),
        };
        if let Some(b) = self.config.break_at.get(&self.pos) {
            let mut b = b.clone();
            b.state = Some(Box::new(state));
            return Err(b);
        }
        self.before = Some(state);
        let flow = self.dispatch_or_unwind(&ins);
        let state = self.before.take().expect("set before the dispatch");
        let flow = flow.map_err(|b| {
            let mut b = self.graph_break(b);
            b.state = Some(Box::new(state));
            b
        })?;
        self.advance(flow)
    }

    fn advance(&mut self, flow: Flow) -> Result<Option<Vt>, GraphBreak> {
        match flow {
            Flow::Next => self.pos += 1,
            Flow::Jump(p) => self.pos = p,
            Flow::Return(v) => return Ok(Some(v)),
            Flow::Yield(v) => {
                // Suspend after the yield; resuming sends None (popped by the next POP_TOP).
                self.pos += 1;
                self.push(Vt::constant(self.vm.ctx.none()));
                self.yielded = Some(v.clone());
                return Ok(Some(v));
            }
        }
        Ok(None)
    }

    /// Attaches the user stack and the `error_on_graph_break` setting to a break (once: the
    /// innermost frame's wins, so a break inside an inlined `error_on_graph_break(True)` block
    /// still raises after restart analysis moves it to the root call site).
    fn graph_break(&self, mut b: GraphBreak) -> GraphBreak {
        if b.user_stack.is_empty() {
            b.user_stack = self.out.user_stack.clone();
        }
        if b.error_on_graph_break.is_none() {
            b.error_on_graph_break = Some(self.out.error_on_graph_break);
        }
        b
    }

    /// Executes `ins`; an exception it raises goes to this frame's handler when there is one.
    fn dispatch_or_unwind(&mut self, ins: &Instr) -> Step {
        match self.dispatch(ins) {
            Err(b) if b.raised.is_some() => {
                let exc = b.raised.clone().expect("invariant: checked just above");
                match self.unwind(ins, exc) {
                    Some(flow) => Ok(flow),
                    None => Err(b),
                }
            }
            other => other,
        }
    }

    fn dispatch(&mut self, ins: &Instr) -> Step {
        use Instruction as I;
        match ins.op {
            I::Resume { .. } | I::Nop | I::NotTaken | I::Cache | I::ExtendedArg => Ok(Flow::Next),
            I::MakeCell { .. } => self.make_cell(ins),
            I::CopyFreeVars { .. } => Ok(Flow::Next),
            I::LoadConst { .. } => self.load_const(ins),
            I::LoadSmallInt { .. } => self.load_small_int(ins),
            I::LoadCommonConstant { .. } => self.load_common_constant(ins),
            I::LoadFast { .. } | I::LoadFastBorrow { .. } | I::LoadFastCheck { .. } => {
                self.load_fast(ins)
            }
            I::LoadFastAndClear { .. } => self.load_fast_and_clear(ins),
            I::LoadFastLoadFast { .. } | I::LoadFastBorrowLoadFastBorrow { .. } => {
                self.load_fast_load_fast(ins)
            }
            I::StoreFast { .. } => self.store_fast(ins),
            I::StoreFastLoadFast { .. } => self.store_fast_load_fast(ins),
            I::StoreFastStoreFast { .. } => self.store_fast_store_fast(ins),
            I::DeleteFast { .. } => self.delete_fast(ins),
            I::LoadDeref { .. } => self.load_deref(ins),
            I::StoreDeref { .. } => self.store_deref(ins),
            I::LoadGlobal { .. } => self.load_global(ins),
            I::ImportName { .. } => self.import_name(ins),
            I::ImportFrom { .. } => self.import_from(ins),
            I::StoreGlobal { .. } => self.store_global(ins),
            I::LoadAttr { .. } => self.load_attr(ins),
            I::LoadSuperAttr { .. } => self.load_super_attr(ins),
            I::StoreAttr { .. } => self.store_attr(ins),
            I::DeleteAttr { .. } => self.delete_attr(ins),
            I::PushNull => {
                self.push(Vt::new(super::variables::Kind::Null));
                Ok(Flow::Next)
            }
            I::PopTop => {
                self.pop()?;
                Ok(Flow::Next)
            }
            I::Copy { .. } => self.copy(ins),
            I::Swap { .. } => self.swap(ins),
            I::ReturnValue => Ok(Flow::Return(self.pop()?)),
            I::ReturnGenerator if self.is_generator => {
                // The value a first `send(None)` delivers; the following POP_TOP drops it.
                self.push(Vt::constant(self.vm.ctx.none()));
                Ok(Flow::Next)
            }
            I::YieldValue { .. } if self.is_generator => Ok(Flow::Yield(self.pop()?)),
            I::BinaryOp { .. } => self.binary_op(ins),
            I::BinarySlice => self.binary_slice(ins),
            I::StoreSlice => self.store_slice(ins),
            I::StoreSubscr => self.store_subscr(ins),
            I::DeleteSubscr => self.delete_subscr(ins),
            I::UnaryNegative | I::UnaryNot | I::UnaryInvert => self.unary_op(ins),
            I::ToBool => self.to_bool(ins),
            I::CompareOp { .. } => self.compare_op(ins),
            I::IsOp { .. } => self.is_op(ins),
            I::ContainsOp { .. } => self.contains_op(ins),
            I::CallIntrinsic1 { .. } => self.call_intrinsic_1(ins),
            I::BuildTuple { .. } => self.build_tuple(ins),
            I::BuildList { .. } => self.build_list(ins),
            I::BuildMap { .. } => self.build_map(ins),
            I::BuildSet { .. } => self.build_set(ins),
            I::BuildSlice { .. } => self.build_slice(ins),
            I::BuildString { .. } => self.build_string(ins),
            I::ListAppend { .. } => self.list_append(ins),
            I::ListExtend { .. } => self.list_extend(ins),
            I::SetAdd { .. } => self.set_add(ins),
            I::SetUpdate { .. } => self.set_update(ins),
            I::MapAdd { .. } => self.map_add(ins),
            I::DictUpdate { .. } | I::DictMerge { .. } => self.dict_update(ins),
            I::UnpackSequence { .. } => self.unpack_sequence(ins),
            I::UnpackEx { .. } => self.unpack_ex(ins),
            I::FormatSimple => self.format_simple(ins),
            I::FormatWithSpec => self.format_with_spec(ins),
            I::ConvertValue { .. } => self.convert_value(ins),
            I::Call { .. } => self.call(ins),
            I::CallKw { .. } => self.call_kw(ins),
            I::CallFunctionEx => self.call_function_ex(ins),
            I::MakeFunction => self.make_function(ins),
            I::SetFunctionAttribute { .. } => self.set_function_attribute(ins),
            I::PopJumpIfFalse { .. } | I::PopJumpIfTrue { .. } => self.pop_jump_if(ins),
            I::PopJumpIfNone { .. } | I::PopJumpIfNotNone { .. } => self.pop_jump_if_none(ins),
            I::JumpForward { .. } | I::JumpBackward { .. } | I::JumpBackwardNoInterrupt { .. } => {
                self.jump(ins)
            }
            I::LoadSpecial { .. } => self.load_special(ins),
            I::GetLen => self.get_len(ins),
            I::GetYieldFromIter => self.get_yield_from_iter(ins),
            I::Send { .. } => self.send(ins),
            I::EndSend => self.end_send(ins),
            I::MatchSequence => self.match_sequence(ins),
            I::MatchMapping => self.match_mapping(ins),
            I::MatchKeys => self.match_keys(ins),
            I::MatchClass { .. } => self.match_class(ins),
            I::DeleteDeref { .. } => self.delete_deref(ins),
            I::DeleteGlobal { .. } => self.delete_global(ins),
            I::RaiseVarargs { .. } => self.raise_varargs(ins),
            I::Reraise { .. } => self.reraise(ins),
            I::PushExcInfo => self.push_exc_info(ins),
            I::PopExcept => self.pop_except(ins),
            I::CheckExcMatch => self.check_exc_match(ins),
            I::WithExceptStart => self.with_except_start(ins),
            I::GetIter => self.get_iter(ins),
            I::ForIter { .. } => self.for_iter(ins),
            I::EndFor | I::PopIter => {
                self.pop()?;
                Ok(Flow::Next)
            }
            _ => Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOpcode,
                format!("missing handler for {}", ins.name()),
            )),
        }
    }

    /// Pushes a value.
    pub fn push(&mut self, v: Vt) {
        self.stack.push(v);
    }

    /// Pops a value (an empty stack is a Dynamo bug, reported as a break, never a panic).
    pub fn pop(&mut self) -> Result<Vt, GraphBreak> {
        self.stack.pop().ok_or_else(|| {
            GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                "value stack underflow",
            )
        })
    }

    /// Pops `n` values, bottom first.
    pub fn pop_n(&mut self, n: usize) -> Result<Vec<Vt>, GraphBreak> {
        if self.stack.len() < n {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                "value stack underflow",
            ));
        }
        Ok(self.stack.split_off(self.stack.len() - n))
    }

    /// The position of the instruction at a jump target.
    pub fn target_pos(&self, ins: &Instr) -> Result<usize, GraphBreak> {
        ins.jump_target()
            .and_then(|t| self.bc.position(t))
            .ok_or_else(|| GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "bad jump target"))
    }

    /// A child tracer for inlining `code`.
    pub fn child<'c>(
        &'c mut self,
        code: PyRef<PyCode>,
        locals: Vec<Option<Vt>>,
        globals: PyDictRef,
        globals_source: GlobalsSource,
    ) -> Result<Tracer<'c>, GraphBreak> {
        if self.depth + 1 > MAX_INLINE_DEPTH {
            return Err(GraphBreak::new(
                GraphBreakKind::UnsupportedConstruct,
                "inlining depth limit reached (recursion)",
            ));
        }
        Ok(Tracer::new(
            self.vm,
            self.out,
            self.config,
            code,
            locals,
            globals,
            globals_source,
            self.builtins.clone(),
            self.depth + 1,
        ))
    }
}
