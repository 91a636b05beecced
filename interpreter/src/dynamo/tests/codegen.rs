//! The assembler round-trips real code: decoding a function and re-assembling it (labels,
//! exception table, lines and stack depth recomputed) gives a function that behaves the same.

use rustpython_vm::builtins::{PyCode, PyFunction};
use rustpython_vm::{PyObjectRef, PyRef};

use crate::dynamo::bytecode::Bytecode;
use crate::dynamo::codegen::{Assembler, CodeSpec, body_labels, copy_instructions};
use crate::function_parts::function_with_code;

const PROGRAMS: &str = r#"
def loops(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        total += i
    while total > 50:
        total -= 7
    return total

def excepts(d, k):
    try:
        v = d[k]
    except KeyError as e:
        v = -1
    finally:
        d['seen'] = True
    return v

def withs(path_like):
    import contextlib
    out = []
    with contextlib.suppress(ZeroDivisionError):
        out.append(1)
        out.append(1 / path_like)
        out.append(3)
    return out

def comps(xs):
    sq = [x * x for x in xs if x > 1]
    dct = {x: str(x) for x in xs}
    return sq, dct, sum(x for x in xs)

def closure(k):
    def inner(v):
        return v * k
    return [inner(i) for i in range(3)]

"#;

/// A function whose jumps need EXTENDED_ARG (over 255 code units).
fn big_jump_source() -> String {
    let body: String = (0..120).map(|i| format!("        x += {i}\n")).collect();
    format!("def big_jump(flag):\n    x = 0\n    if flag:\n{body}        return x\n    return -x\n")
}

fn reassembled(code: &PyRef<PyCode>, vm: &rustpython_vm::VirtualMachine) -> PyRef<PyCode> {
    let bc = Bytecode::decode(code);
    let mut asm = Assembler::new(bc.instrs[0].line.unwrap_or(1));
    let labels = body_labels(&mut asm, &bc);
    copy_instructions(&mut asm, code, &bc, &labels, |i| vec![(i.op, i.arg)]);
    CodeSpec::of(code).build(asm.assemble(), vm)
}

#[test]
fn reassembled_functions_behave_the_same() {
    let interp = crate::Interpreter::builder().build();
    interp.run_source(PROGRAMS, "programs.py").expect("defines");
    interp
        .run_source(&big_jump_source(), "big.py")
        .expect("defines");
    let calls = [
        ("loops", "(10,)"),
        ("loops", "(40,)"),
        ("excepts", "({'a': 1}, 'a')"),
        ("excepts", "({}, 'b')"),
        ("withs", "(0,)"),
        ("withs", "(2,)"),
        ("comps", "([1, 2, 3],)"),
        ("closure", "(5,)"),
        ("big_jump", "(True,)"),
        ("big_jump", "(False,)"),
    ];
    interp
        .with_vm(|vm, scope| {
            for (name, args) in calls {
                let func = scope.globals.get_item(name, vm)?;
                let f: &rustpython_vm::Py<PyFunction> = func.downcast_ref().expect("a function");
                let code: PyRef<PyCode> = func.get_attr("__code__", vm)?.downcast().expect("code");
                let new_func = function_with_code(f, reassembled(&code, vm), vm)?;
                let args_obj = vm.run_block_expr(scope.clone(), args)?;
                let expected = func.call(args_as_vec(&args_obj, vm), vm)?;
                let got = new_func.call(
                    args_as_vec(&vm.run_block_expr(scope.clone(), args)?, vm),
                    vm,
                )?;
                let (e, g) = (expected.repr(vm)?.to_string(), got.repr(vm)?.to_string());
                assert_eq!(e, g, "{name}{args}");
            }
            Ok(())
        })
        .expect("runs");
}

fn args_as_vec(tuple: &PyObjectRef, vm: &rustpython_vm::VirtualMachine) -> Vec<PyObjectRef> {
    let _ = vm;
    tuple
        .downcast_ref::<rustpython_vm::builtins::PyTuple>()
        .expect("a tuple")
        .as_slice()
        .to_vec()
}

#[test]
fn exception_tracebacks_point_at_the_original_lines() {
    let interp = crate::Interpreter::builder().build();
    interp
        .run_source(
            "def f(d):\n    x = 1\n    return d['missing'] + x\n",
            "tb.py",
        )
        .expect("defines");
    let err = interp
        .with_vm(|vm, scope| {
            let func = scope.globals.get_item("f", vm)?;
            let f: &rustpython_vm::Py<PyFunction> = func.downcast_ref().expect("a function");
            let code: PyRef<PyCode> = func.get_attr("__code__", vm)?.downcast().expect("code");
            let new_func = function_with_code(f, reassembled(&code, vm), vm)?;
            let d: PyObjectRef = vm.ctx.new_dict().into();
            new_func.call((d,), vm).map(|_| ())
        })
        .expect_err("raises KeyError");
    let text = err.to_string();
    assert!(text.contains("tb.py\", line 3, in f"), "{text}");
}
