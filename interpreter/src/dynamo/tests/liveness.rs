//! Liveness at the edges of a code object: an instruction with no fall-through (a `raise`, a
//! `return`) has no continuation, even when it is the code's last instruction.

use rustpython_vm::builtins::PyCode;
use rustpython_vm::bytecode::Instruction;
use rustpython_vm::{PyRef, VirtualMachine};

use crate::dynamo::bytecode::Bytecode;
use crate::dynamo::bytecode_analysis::{Liveness, Slots, falls_through};
use crate::dynamo::graph_break::live_slots;

const PROGRAMS: &str = r#"
def always_raises(x):
    y = x * 2
    raise ValueError("bad input")

def raises_or_returns(x):
    y = x * 2
    if x:
        raise ValueError(y)
    return y
"#;

fn code_of(name: &str, vm: &VirtualMachine, scope: &rustpython_vm::scope::Scope) -> PyRef<PyCode> {
    scope
        .globals
        .get_item(name, vm)
        .expect("defined")
        .get_attr("__code__", vm)
        .expect("code")
        .downcast()
        .expect("code object")
}

#[test]
fn a_raise_at_the_end_of_the_code_has_no_continuation() {
    let interp = crate::Interpreter::builder().build();
    interp.run_source(PROGRAMS, "programs.py").expect("defines");
    interp
        .with_vm(|vm, scope| {
            let code = code_of("always_raises", vm, scope);
            let bc = Bytecode::decode(&code);
            let last = bc.instrs.len() - 1;
            assert!(matches!(
                bc.instrs[last].op,
                Instruction::RaiseVarargs { .. }
            ));
            assert!(!falls_through(bc.instrs[last].op));
            // Nothing runs after the raise, so no variable is handed on (this indexed past the
            // end of the liveness table).
            assert!(live_slots(&code, &bc, last).is_empty());
            let slots = Slots::of(&code);
            let live = Liveness::compute(&code, &bc, slots.names.len());
            assert!(live.live_at(bc.instrs.len()).is_empty());
            Ok(())
        })
        .expect("runs");
}

#[test]
fn a_raise_before_more_code_hands_on_nothing_either() {
    let interp = crate::Interpreter::builder().build();
    interp.run_source(PROGRAMS, "programs.py").expect("defines");
    interp
        .with_vm(|vm, scope| {
            let code = code_of("raises_or_returns", vm, scope);
            let bc = Bytecode::decode(&code);
            let raise = bc
                .instrs
                .iter()
                .position(|i| matches!(i.op, Instruction::RaiseVarargs { .. }))
                .expect("raises");
            assert!(raise + 1 < bc.instrs.len(), "code follows the raise");
            // `y` is live at the `return` after the raise, but not after the raise itself.
            assert!(live_slots(&code, &bc, raise).is_empty());
            Ok(())
        })
        .expect("runs");
}
