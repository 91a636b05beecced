//! Resume functions continue a frame exactly where it stopped: the stack values and live
//! variables passed in, the rest of the original body run unchanged.

use rustpython_vm::builtins::{PyCode, PyFunction};
use rustpython_vm::bytecode::Instruction;
use rustpython_vm::{AsObject, Py, PyObjectRef, PyRef, VirtualMachine};

use crate::dynamo::bytecode::Bytecode;
use crate::dynamo::bytecode_analysis::live_for_resume;
use crate::dynamo::resume::{ResumePoint, StackEntry, resume_code};
use crate::function_parts::function_with_code;

const PROGRAMS: &str = r#"
def helper(v):
    return v * 10

def straight(x, y):
    a = x + 1
    b = helper(a)
    c = a * b + y
    return c, [a, b]

def pending(x, k=3):
    a = x - 1
    return a + helper(x) * k

def closure_user(scale):
    def inner(x):
        t = helper(x)
        return t * scale + x
    return inner

def cell_owner(x):
    z = x * 2
    w = helper(z)
    f = lambda: z + w
    return f()

def many_locals(x):
    v0, v1, v2, v3, v4, v5, v6, v7, v8 = range(9)
    v9, v10, v11, v12, v13, v14, v15, v16 = range(9, 17)
    r = helper(x)
    return r + v0 + v16 + v8 + v15
"#;

/// The resume point right after the call to `helper`, with the given stack, and its live
/// variables.
fn after_first_call(code: &PyCode, stack: Vec<StackEntry>) -> ResumePoint {
    let bc = Bytecode::decode(code);
    let helper = code
        .code
        .names
        .iter()
        .position(|n| n.as_str() == "helper")
        .expect("names helper") as u32;
    let load = bc
        .instrs
        .iter()
        .position(|i| matches!(i.op, Instruction::LoadGlobal { .. }) && i.arg >> 1 == helper)
        .expect("loads helper");
    let call = load
        + bc.instrs[load..]
            .iter()
            .position(|i| matches!(i.op, Instruction::Call { .. }))
            .expect("calls helper");
    let pos = call + 1;
    ResumePoint {
        target: bc.instrs[pos].start,
        stack,
        // Cell variables reach the resume function as its closure, not as arguments.
        live: live_for_resume(code, &bc, pos)
            .into_iter()
            .filter(|n| !code.code.cellvars.iter().any(|c| c.as_str() == n))
            .collect(),
    }
}

fn func(
    vm: &VirtualMachine,
    globals: &rustpython_vm::builtins::PyDictRef,
    name: &str,
) -> PyObjectRef {
    globals.get_item(name, vm).expect("defined")
}

fn code_of(f: &PyObjectRef, vm: &VirtualMachine) -> PyRef<PyCode> {
    f.get_attr("__code__", vm)
        .expect("code")
        .downcast()
        .expect("code object")
}

/// Calls the resume function of `f` for `point` with `stack` values then the live variables
/// read from `env`; returns its repr.
fn run_resume(
    f: &PyObjectRef,
    point: &ResumePoint,
    stack: Vec<PyObjectRef>,
    env: &[(&str, PyObjectRef)],
    vm: &VirtualMachine,
) -> String {
    let code = code_of(f, vm);
    let resume = resume_code(&code, point, vm).expect("generates");
    // Tracebacks show the user's function name; logs show Dynamo's resume name.
    assert_eq!(resume.code.obj_name.as_str(), code.code.obj_name.as_str());
    assert!(
        crate::dynamo::resume::display_name(&resume).starts_with(&format!(
            "torch_dynamo_resume_in_{}_at_",
            code.code.obj_name
        ))
    );
    let pyf: &Py<PyFunction> = f.downcast_ref().expect("function");
    let rf = if code.code.cellvars.is_empty() {
        function_with_code(pyf, resume, vm).expect("function")
    } else {
        // The closure: a cell per cell variable (its value from `env`), as the generated code
        // passes the frame's cells.
        let cell_type = vm
            .import("types", 0)
            .expect("types")
            .get_attr("CellType", vm)
            .expect("CellType");
        let cells: Vec<PyObjectRef> = code
            .code
            .cellvars
            .iter()
            .map(|c| {
                let v = env
                    .iter()
                    .find(|(n, _)| *n == c.as_str())
                    .map(|(_, v)| v.clone());
                match v {
                    Some(v) => cell_type.call((v,), vm),
                    None => cell_type.call((), vm),
                }
                .expect("cell")
            })
            .collect();
        let globals = f.get_attr("__globals__", vm).expect("globals");
        vm.ctx
            .types
            .function_type
            .as_object()
            .call(
                (
                    PyObjectRef::from(resume),
                    globals,
                    vm.ctx.new_str("resumed"),
                    vm.ctx.none(),
                    vm.ctx.new_tuple(cells),
                ),
                vm,
            )
            .expect("function")
    };
    let mut args = stack;
    for name in &point.live {
        let v = env
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("test gives live variable {name}"))
            .1
            .clone();
        args.push(v);
    }
    rf.call(args, vm)
        .expect("resume runs")
        .repr(vm)
        .expect("repr")
        .to_string()
}

#[test]
fn straight_line_resume_after_a_call() {
    let interp = crate::Interpreter::builder().build();
    interp.run_source(PROGRAMS, "programs.py").expect("defines");
    interp
        .with_vm(|vm, scope| {
            let g = &scope.globals;
            let f = func(vm, g, "straight");
            let point = after_first_call(&code_of(&f, vm), vec![StackEntry::Value]);
            assert_eq!(point.live, ["y", "a"], "b is stored before use");
            let i = |v: i64| -> PyObjectRef { vm.ctx.new_int(v).into() };
            // straight(4, 5): a = 5, helper(a) = 50.
            let got = run_resume(&f, &point, vec![i(50)], &[("y", i(5)), ("a", i(5))], vm);
            let want = f.call((i(4), i(5)), vm)?.repr(vm)?.to_string();
            assert_eq!(got, want);
            Ok(())
        })
        .expect("runs");
}

#[test]
fn pending_stack_values_are_rebuilt() {
    let interp = crate::Interpreter::builder().build();
    interp.run_source(PROGRAMS, "programs.py").expect("defines");
    interp
        .with_vm(|vm, scope| {
            let f = func(vm, &scope.globals, "pending");
            // Stack at the resume point: `a`, then the call's result.
            let point =
                after_first_call(&code_of(&f, vm), vec![StackEntry::Value, StackEntry::Value]);
            let i = |v: i64| -> PyObjectRef { vm.ctx.new_int(v).into() };
            let got = run_resume(
                &f,
                &point,
                vec![i(6), i(70)],
                &[("k", i(3)), ("x", i(7))],
                vm,
            );
            let want = f.call((i(7),), vm)?.repr(vm)?.to_string();
            assert_eq!(got, want);
            Ok(())
        })
        .expect("runs");
}

#[test]
fn free_variables_come_from_the_closure() {
    let interp = crate::Interpreter::builder().build();
    interp.run_source(PROGRAMS, "programs.py").expect("defines");
    interp
        .with_vm(|vm, scope| {
            let outer = func(vm, &scope.globals, "closure_user");
            let i = |v: i64| -> PyObjectRef { vm.ctx.new_int(v).into() };
            let inner = outer.call((i(3),), vm)?;
            let point = after_first_call(&code_of(&inner, vm), vec![StackEntry::Value]);
            let got = run_resume(&inner, &point, vec![i(20)], &[("x", i(2))], vm);
            let want = inner.call((i(2),), vm)?.repr(vm)?.to_string();
            assert_eq!(got, want);
            Ok(())
        })
        .expect("runs");
}

#[test]
fn cell_variables_reach_the_resume_function_as_its_closure() {
    let interp = crate::Interpreter::builder().build();
    interp.run_source(PROGRAMS, "programs.py").expect("defines");
    interp
        .with_vm(|vm, scope| {
            let f = func(vm, &scope.globals, "cell_owner");
            let point = after_first_call(&code_of(&f, vm), vec![StackEntry::Value]);
            assert!(point.live.is_empty(), "{:?}", point.live);
            let i = |v: i64| -> PyObjectRef { vm.ctx.new_int(v).into() };
            let got = run_resume(&f, &point, vec![i(80)], &[("z", i(8))], vm);
            let want = f.call((i(4),), vm)?.repr(vm)?.to_string();
            assert_eq!(got, want);
            Ok(())
        })
        .expect("runs");
}

#[test]
fn fused_loads_are_split_when_slots_move() {
    let interp = crate::Interpreter::builder().build();
    interp.run_source(PROGRAMS, "programs.py").expect("defines");
    interp
        .with_vm(|vm, scope| {
            let f = func(vm, &scope.globals, "many_locals");
            let point = after_first_call(&code_of(&f, vm), vec![StackEntry::Value]);
            let env: Vec<(&str, PyObjectRef)> = [
                "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12",
                "v13", "v14", "v15", "v16",
            ]
            .iter()
            .enumerate()
            .map(|(k, n)| (*n, vm.ctx.new_int(k).into()))
            .collect();
            let i = |v: i64| -> PyObjectRef { vm.ctx.new_int(v).into() };
            let got = run_resume(&f, &point, vec![i(10)], &env, vm);
            let want = f.call((i(1),), vm)?.repr(vm)?.to_string();
            assert_eq!(got, want);
            Ok(())
        })
        .expect("runs");
}

#[test]
fn the_same_point_gives_the_same_code_object() {
    let interp = crate::Interpreter::builder().build();
    interp.run_source(PROGRAMS, "programs.py").expect("defines");
    interp
        .with_vm(|vm, scope| {
            let f = func(vm, &scope.globals, "straight");
            let code = code_of(&f, vm);
            let point = after_first_call(&code, vec![StackEntry::Value]);
            let a = resume_code(&code, &point, vm).expect("generates");
            let b = resume_code(&code, &point, vm).expect("generates");
            assert!(a.is(&b));
            Ok(())
        })
        .expect("runs");
}
