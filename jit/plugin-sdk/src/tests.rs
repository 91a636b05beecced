//! The exported entry points called in-process, as a host would through the table.

use std::ffi::{CStr, c_char};

use rynamo_graph::{Graph, Op, Value, parse, registry};
use rynamo_plugin_abi::*;
use rynamo_plugin_wire as wire;
use rynamo_tensor::Tensor;

use crate::__private::{Cell, Exported, get_api};
use crate::*;

/// Runs `neg`; with `alias`, returns its input itself; with `keep`, stashes the input.
struct Test;
struct TestExe {
    alias: bool,
    keep: std::sync::Mutex<Vec<Tensor>>,
}

impl Plugin for Test {
    type Executable = TestExe;
    fn name(&self) -> &str {
        "sdk-test"
    }
    fn version(&self) -> &str {
        "0"
    }
    fn supports(&self, g: &Graph) -> Vec<bool> {
        g.nodes().iter().map(|n| n.op == Op::Neg).collect()
    }
    fn compile(&self, g: Graph) -> Result<TestExe> {
        Ok(TestExe {
            alias: g.nodes().is_empty(),
            keep: Default::default(),
        })
    }
}

impl Executable for TestExe {
    fn execute(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        if self.alias {
            return Ok(vec![inputs[0].clone()]);
        }
        if inputs[0].numel() == 1 {
            self.keep.lock().expect("lock").push(inputs[0].clone());
        }
        Ok(registry::call(
            Op::Neg,
            &[Value::Tensor(inputs[0].clone())],
        )?)
    }
}

static CELL: Cell<Test> = Cell::new();
impl Exported for Test {
    fn cell() -> &'static Cell<Self> {
        &CELL
    }
}

fn api() -> &'static RynamoPluginApi {
    // SAFETY: get_api returns a pointer into a static instance (or NULL, checked by expect).
    unsafe { get_api::<Test>(|| Test).as_ref() }.expect("table")
}

/// `Err((code, message))` for a non-NULL error, which it frees.
fn check(e: *mut RynamoError) -> std::result::Result<(), (u32, String)> {
    if e.is_null() {
        return Ok(());
    }
    let a = api();
    let (mut p, mut n): (*const c_char, usize) = (std::ptr::null(), 0);
    // SAFETY: a live error from this SDK; valid out-params; freed once.
    unsafe {
        let code = a.error_code.expect("fn")(e);
        a.error_message.expect("fn")(e, &mut p, &mut n);
        let msg =
            String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), n)).into_owned();
        assert_eq!(CStr::from_ptr(p).to_bytes().len(), n, "NUL-terminated too");
        a.error_destroy.expect("fn")(e);
        Err((code, msg))
    }
}

fn supports(bytes: &[u8], n: usize) -> std::result::Result<Vec<u8>, (u32, String)> {
    let mut mask = vec![7u8; n];
    let mut args = RynamoSupportsArgs {
        struct_size: size_of::<RynamoSupportsArgs>(),
        graph: bytes.as_ptr(),
        graph_len: bytes.len(),
        node_supported: mask.as_mut_ptr(),
        num_nodes: n,
    };
    // SAFETY: valid args for the call.
    check(unsafe { api().supports.expect("fn")(&mut args) })?;
    Ok(mask)
}

fn compile(text: &str) -> *mut RynamoExecutable {
    let bytes = wire::encode(&parse(text).expect("graph")).expect("encode");
    let mut args = RynamoCompileArgs {
        struct_size: size_of::<RynamoCompileArgs>(),
        graph: bytes.as_ptr(),
        graph_len: bytes.len(),
        executable: std::ptr::null_mut(),
    };
    // SAFETY: valid args for the call.
    check(unsafe { api().compile.expect("fn")(&mut args) }).expect("compiles");
    args.executable
}

fn execute(exe: *mut RynamoExecutable, x: &Tensor) -> std::result::Result<Tensor, (u32, String)> {
    let d = wire::TensorDesc::new(x);
    let mut out = [std::ptr::null_mut::<RynamoManagedTensor>()];
    let mut args = RynamoExecuteArgs {
        struct_size: size_of::<RynamoExecuteArgs>(),
        executable: exe,
        inputs: d.raw(),
        num_inputs: 1,
        outputs: out.as_mut_ptr(),
        num_outputs: 1,
    };
    // SAFETY: valid args; `d` and `x` outlive the call.
    check(unsafe { api().execute.expect("fn")(&mut args) })?;
    // SAFETY: the SDK handed the output over.
    Ok(unsafe { wire::adopt(out[0], Box::new(())) }.expect("valid output"))
}

const NEG: &str = "graph(%x: f32[3]):\n  %0: f32[3] = neg(%x)\n  return (%0)\n";

#[test]
fn table_describes_the_plugin() {
    let a = api();
    assert_eq!(
        (a.abi_major, a.abi_minor),
        (RYNAMO_ABI_MAJOR, RYNAMO_ABI_MINOR)
    );
    assert_eq!(a.struct_size, size_of::<RynamoPluginApi>());
    // SAFETY: static NUL-terminated strings.
    assert_eq!(unsafe { CStr::from_ptr(a.name) }.to_str(), Ok("sdk-test"));
    assert!(std::ptr::eq(a, api()), "built once");
}

#[test]
fn supports_writes_the_mask_and_declines_unknown_ops() {
    let g = parse(
        "graph(%x: f32[3]):\n  %0: f32[3] = neg(%x)\n  %1: f32[3] = exp(%0)\n  return (%1)\n",
    )
    .expect("graph");
    let mut bytes = wire::encode(&g).expect("encode");
    assert_eq!(supports(&bytes, 2), Ok(vec![1, 0]));
    assert_eq!(
        supports(&bytes, 3).map_err(|e| e.0),
        Err(RYNAMO_ERROR_INVALID_ARGUMENT),
        "num_nodes must match"
    );
    // An op id from a newer host: no error, nothing claimed.
    // Each node: op u16, num_args u16, a tensor arg (tag + u32), num_outputs u32: 13 bytes.
    let pos = bytes.len() - 4 - 2 * 13;
    assert_eq!(
        u16::from_le_bytes([bytes[pos], bytes[pos + 1]]),
        Op::Neg.id()
    );
    bytes[pos..pos + 2].copy_from_slice(&u16::MAX.to_le_bytes());
    assert_eq!(supports(&bytes, 2), Ok(vec![0, 0]));
    assert_eq!(
        supports(b"junk", 0).map_err(|e| e.0),
        Err(RYNAMO_ERROR_INVALID_ARGUMENT)
    );
}

#[test]
fn old_or_null_args_are_rejected() {
    let mut args = RynamoCompileArgs {
        struct_size: 8,
        graph: std::ptr::null(),
        graph_len: 0,
        executable: std::ptr::null_mut(),
    };
    // SAFETY: a (deliberately short) args struct the SDK must not read past struct_size of.
    let e = check(unsafe { api().compile.expect("fn")(&mut args) }).unwrap_err();
    assert!(e.1.contains("struct_size 8 < 32"), "{e:?}");
    // SAFETY: NULL args are checked first.
    let e = check(unsafe { api().execute.expect("fn")(std::ptr::null_mut()) }).unwrap_err();
    assert_eq!(
        e,
        (
            RYNAMO_ERROR_INVALID_ARGUMENT,
            "execute: args is NULL".into()
        )
    );
}

#[test]
fn outputs_are_owned_even_when_the_executable_returns_its_input() {
    let exe = compile("graph(%x: f32[3]):\n  return (%x)\n");
    let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).expect("tensor");
    let y = execute(exe, &x).expect("runs");
    assert_eq!(y.to_vec::<f32>(), vec![1.0, 2.0, 3.0]);
    assert!(!y.shares_storage(&x));
    assert_ne!(
        y.data_ptr::<f32>(),
        x.data_ptr::<f32>(),
        "copied out of host memory"
    );
    // SAFETY: destroyed once.
    unsafe { api().executable_destroy.expect("fn")(exe) };
}

#[test]
fn keeping_a_borrowed_input_is_reported() {
    let exe = compile("graph(%x: f32[1]):\n  %0: f32[1] = neg(%x)\n  return (%0)\n");
    let x = Tensor::from_vec(vec![4.0f32], &[1]).expect("tensor");
    let e = execute(exe, &x).unwrap_err();
    assert_eq!(
        e,
        (
            RYNAMO_ERROR_INTERNAL,
            "the executable kept a reference to borrowed input 0".into()
        )
    );
    let exe2 = compile(NEG);
    let x = Tensor::from_vec(vec![1.0f32, -2.0, 0.5], &[3]).expect("tensor");
    assert_eq!(
        execute(exe2, &x).expect("runs").to_vec::<f32>(),
        vec![-1.0, 2.0, -0.5]
    );
    // NOTE: `exe` still holds a tensor viewing freed memory; never touch it, just leak it.
    let _ = exe;
    // SAFETY: destroyed once.
    unsafe { api().executable_destroy.expect("fn")(exe2) };
}

/// A plugin whose construction panics, and one with an invalid name: both give a NULL table.
struct Broken(&'static str);
impl Plugin for Broken {
    type Executable = TestExe;
    fn name(&self) -> &str {
        self.0
    }
    fn version(&self) -> &str {
        "0"
    }
    fn supports(&self, _: &Graph) -> Vec<bool> {
        Vec::new()
    }
    fn compile(&self, _: Graph) -> Result<TestExe> {
        Err(Error::Unimplemented("never".into()))
    }
}
static BROKEN: Cell<Broken> = Cell::new();
impl Exported for Broken {
    fn cell() -> &'static Cell<Self> {
        &BROKEN
    }
}

#[test]
fn a_panicking_constructor_or_bad_name_gives_a_null_table() {
    assert!(get_api::<Broken>(|| panic!("no device")).is_null());
    assert!(get_api::<Broken>(|| Broken("has space")).is_null());
    assert!(!get_api::<Broken>(|| Broken("fine")).is_null());
}

#[test]
fn guard_turns_panics_into_internal_errors() {
    let e = check(crate::__private::guard(|| panic!("boom {}", 7))).unwrap_err();
    assert_eq!(e, (RYNAMO_ERROR_INTERNAL, "plugin panicked: boom 7".into()));
    let e = check(crate::__private::guard(|| {
        Err(Error::Unavailable("no device".into()))
    }))
    .unwrap_err();
    assert_eq!(e, (RYNAMO_ERROR_UNAVAILABLE, "no device".into()));
}
