//! The frame-evaluation hook sees every Python function call while armed, and none while
//! disarmed; its actions (run unchanged, run other code, return a value) do what they say; and a
//! failing or panicking handler never changes a program's result.

use std::cell::RefCell;
use std::rc::Rc;

use rynamo::eval_frame::{
    self, CallbackState, Frame, FrameAction, FrameHandler, Mode, with_callback_state,
};
use rynamo::vm::builtins::PyCode;
use rynamo::vm::{PyRef, PyResult, VirtualMachine};

/// Records the qualified name of every frame it sees; optionally acts on one of them.
#[derive(Default)]
struct Recorder {
    seen: RefCell<Vec<String>>,
    modes: RefCell<Vec<Mode>>,
    act: Option<(&'static str, Action)>,
}

#[derive(Clone, Copy)]
enum Action {
    ReturnInt(i64),
    RunCodeOf(&'static str),
    Fail,
    Panic,
}

impl FrameHandler for Recorder {
    fn on_frame(
        &self,
        frame: &Frame<'_>,
        mode: Mode,
        vm: &VirtualMachine,
    ) -> PyResult<FrameAction> {
        let name = frame.code.qualname.to_string();
        // Only the test's own functions: running a string also calls stdlib helpers (linecache).
        let path = frame.code.source_path.to_string();
        if path != "setup.py" && path != "body.py" {
            return Ok(FrameAction::RunUnchanged);
        }
        self.seen.borrow_mut().push(name.clone());
        self.modes.borrow_mut().push(mode);
        match self.act {
            Some((target, action)) if target == name => match action {
                Action::ReturnInt(v) => Ok(FrameAction::Return(vm.ctx.new_int(v).into())),
                Action::RunCodeOf(global) => {
                    let main = vm.import("__main__", 0)?;
                    let other = main.get_attr(global, vm)?;
                    let code: PyRef<PyCode> = other
                        .get_attr("__code__", vm)?
                        .downcast()
                        .map_err(|_| vm.new_type_error("no code"))?;
                    Ok(FrameAction::RunCode(code))
                }
                Action::Fail => Err(vm.new_runtime_error("handler failure on purpose")),
                Action::Panic => panic!("handler panic on purpose"),
            },
            _ => Ok(FrameAction::RunUnchanged),
        }
    }
}

/// Runs `setup` disarmed, then `body` armed with `rec`; returns the value of `result`.
fn run_armed(rec: Rc<Recorder>, setup: &str, body: &str) -> String {
    let interp = rynamo::Interpreter::builder().build();
    interp.run_source(setup, "setup.py").expect("setup runs");
    interp
        .with_vm(|vm, scope| {
            let state = CallbackState::Compile(rec.clone());
            with_callback_state(state, vm, || vm.run_string(scope.clone(), body, "body.py"))?;
            assert!(
                !eval_frame::is_armed(),
                "state restored after the armed region"
            );
            let result = scope.globals.get_item("result", vm)?;
            Ok(result.repr(vm)?.to_string())
        })
        .expect("body runs")
}

fn seen(setup: &str, body: &str) -> (Vec<String>, String) {
    let rec = Rc::new(Recorder::default());
    let result = run_armed(rec.clone(), setup, body);
    let seen = rec.seen.borrow().clone();
    (seen, result)
}

const SETUP: &str = r#"
def add(a, b=10, *, c=100):
    return a + b + c

def varargs(*args, **kwargs):
    return len(args) + len(kwargs)

class Counter:
    def __init__(self, start):
        self.n = start
    def bump(self, by=1):
        self.n += by
        return self.n
    @staticmethod
    def stat(x):
        return x * 2
    @classmethod
    def make(cls):
        return cls(5)

def outer(k):
    def inner(x):
        return x * k
    return inner

def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)

def key(v):
    return -v

def gen(n):
    for i in range(n):
        yield i

async def co(n):
    return n * 2
"#;

#[test]
fn direct_calls_keywords_and_defaults() {
    let (seen, result) = seen(
        SETUP,
        "result = (add(1), add(1, 2), add(1, c=3), add(a=1, b=2))",
    );
    assert_eq!(result, "(111, 103, 14, 103)");
    assert_eq!(seen, ["add", "add", "add", "add"]);
}

#[test]
fn star_args_and_kwargs() {
    let (seen, result) = seen(
        SETUP,
        "t = (1, 2)\nd = {'x': 1}\nresult = varargs(*t, 3, **d)",
    );
    assert_eq!(result, "4");
    assert_eq!(seen, ["varargs"]);
}

#[test]
fn bound_static_and_class_methods() {
    let (seen, result) = seen(
        SETUP,
        "c = Counter.make()\nc.bump()\nm = c.bump\nresult = (m(by=2), Counter.stat(4))",
    );
    assert_eq!(result, "(8, 8)");
    assert_eq!(
        seen,
        [
            "Counter.make",
            "Counter.__init__",
            "Counter.bump",
            "Counter.bump",
            "Counter.stat"
        ]
    );
}

#[test]
fn closures_and_recursion() {
    let (seen, result) = seen(SETUP, "f = outer(3)\nresult = (f(2), fact(4))");
    assert_eq!(result, "(6, 24)");
    assert_eq!(
        seen,
        [
            "outer",
            "outer.<locals>.inner",
            "fact",
            "fact",
            "fact",
            "fact"
        ]
    );
}

#[test]
fn calls_from_builtins_and_generator_expressions() {
    let (seen, result) = seen(
        SETUP,
        "result = (list(map(key, [1, 2])), sorted([3, 1, 2], key=key), sum(key(v) for v in [1, 2]))",
    );
    assert_eq!(result, "([-1, -2], [3, 2, 1], -3)");
    // The generator expression itself is a generator frame and passes through untouched.
    assert_eq!(seen, ["key", "key", "key", "key", "key", "key", "key"]);
}

#[test]
fn generators_pass_through_untouched() {
    let (seen, result) = seen(SETUP, "result = list(gen(3))");
    assert_eq!(result, "[0, 1, 2]");
    assert!(seen.is_empty(), "{seen:?}");
}

#[test]
fn coroutines_pass_through_untouched() {
    let body =
        "c = co(21)\ntry:\n    c.send(None)\nexcept StopIteration as e:\n    result = e.value";
    let (seen, result) = seen(SETUP, body);
    assert_eq!(result, "42");
    assert!(seen.is_empty(), "{seen:?}");
}

#[test]
fn nothing_is_seen_while_disarmed() {
    let rec = Rc::new(Recorder::default());
    let interp = rynamo::Interpreter::builder().build();
    interp.run_source(SETUP, "setup.py").expect("runs");
    interp
        .with_vm(|vm, scope| {
            let prev = eval_frame::set_callback_state(CallbackState::Disabled, vm);
            assert!(matches!(prev, CallbackState::Disabled));
            vm.run_string(scope.clone(), "add(1); fact(3)", "body.py")?;
            Ok(())
        })
        .expect("runs");
    assert!(rec.seen.borrow().is_empty());
}

#[test]
fn run_only_mode_is_reported_to_the_handler() {
    let rec = Rc::new(Recorder::default());
    let interp = rynamo::Interpreter::builder().build();
    interp.run_source(SETUP, "setup.py").expect("runs");
    interp
        .with_vm(|vm, scope| {
            with_callback_state(CallbackState::RunOnly(rec.clone()), vm, || {
                vm.run_string(scope.clone(), "add(1)", "body.py")
            })?;
            Ok(())
        })
        .expect("runs");
    assert_eq!(*rec.modes.borrow(), [Mode::RunOnly]);
}

#[test]
fn return_action_skips_the_frame() {
    let rec = Rc::new(Recorder {
        act: Some(("add", Action::ReturnInt(-7))),
        ..Default::default()
    });
    let result = run_armed(rec, SETUP, "result = add(1) + 1");
    assert_eq!(result, "-6");
}

#[test]
fn run_code_action_keeps_globals_defaults_and_closure() {
    // `add`'s frame runs `other`'s code with `add`'s defaults (b=10, c=100) and globals.
    let setup =
        format!("{SETUP}\nbase = 1000\ndef other(a, b=0, *, c=0):\n    return a * b * c + base\n");
    let rec = Rc::new(Recorder {
        act: Some(("add", Action::RunCodeOf("other"))),
        ..Default::default()
    });
    let result = run_armed(rec.clone(), &setup, "result = add(2)");
    assert_eq!(result, "3000");
    // The replacement frame's own callees are still intercepted; the replacement itself is not.
    assert_eq!(*rec.seen.borrow(), ["add"]);
}

#[test]
fn failing_or_panicking_handlers_run_the_frame_unchanged() {
    for action in [Action::Fail, Action::Panic] {
        let rec = Rc::new(Recorder {
            act: Some(("fact", action)),
            ..Default::default()
        });
        let result = run_armed(rec, SETUP, "result = fact(5)");
        assert_eq!(result, "120");
    }
}

#[test]
fn handler_python_calls_are_not_intercepted() {
    // The handler imports and reads attributes; none of that may recurse into the hook.
    let rec = Rc::new(Recorder {
        act: Some(("add", Action::RunCodeOf("varargs"))),
        ..Default::default()
    });
    let result = run_armed(rec.clone(), SETUP, "result = add(1, 2)");
    assert_eq!(result, "2");
    assert_eq!(*rec.seen.borrow(), ["add"]);
}

#[test]
fn every_call_in_a_hot_loop_is_intercepted() {
    // Specialised call instructions bypass the slots unless `use_tracing` is set while armed.
    let rec = Rc::new(Recorder::default());
    let body = "def f(x):\n    return x\nfor i in range(20000):\n    f(i)\nresult = 0";
    run_armed(rec.clone(), "", body);
    assert_eq!(rec.seen.borrow().len(), 20000);
}
