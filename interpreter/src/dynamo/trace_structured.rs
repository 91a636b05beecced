//! `TORCH_TRACE=dir`: structured compile logs in the layout of PyTorch's `trace_structured`
//! (`torch/_logging/_internal.py`), which the `tlparse` report tool reads.
//!
//! One file per process, `dir/dedicated_log_torch_trace_<pid>.log`. Each record is one line: a
//! glog prefix (`V1122 01:50:00.123456 <pid> <pathname>:<line>] `) and a JSON envelope naming
//! the record kind (`dynamo_start`, `dynamo_output_graph`, `dynamo_guards`, `artifact`,
//! `compilation_metrics`, ...) with the compile id flattened in (`frame_id`, `frame_compile_id`,
//! `attempt`). A record with a payload sets `has_payload` to the payload's md5 and follows with
//! the payload's lines, each prefixed with a tab. File names in stacks are interned: a
//! `{"str": [name, id]}` record precedes the first use of `id`.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;

use md5::{Digest, Md5};
use rustpython_vm::builtins::PyCode;
use rustpython_vm::{AsObject, Py, PyObjectRef, VirtualMachine};
use rynamo_graph::Graph;
use serde_json::{Map, Value, json};

use super::guards::GuardTree;
use super::output_graph::OutputGraph;

/// A user stack, outermost frame first: `(file, line, function)`.
pub type Stack = [(String, u32, String)];

struct Writer {
    file: File,
    interned: HashMap<String, u32>,
}

/// `None` inside: tracing is off (no `TORCH_TRACE`) or the file could not be created.
static WRITER: Mutex<Option<Option<Writer>>> = Mutex::new(None);

fn open() -> Option<Writer> {
    let dir = PathBuf::from(std::env::var_os("TORCH_TRACE")?);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("TORCH_TRACE: cannot create {}: {e}", dir.display());
        return None;
    }
    let path = dir.join(format!(
        "dedicated_log_torch_trace_{}.log",
        std::process::id()
    ));
    match File::create(&path) {
        Ok(file) => Some(Writer {
            file,
            interned: HashMap::new(),
        }),
        Err(e) => {
            eprintln!("TORCH_TRACE: cannot create {}: {e}", path.display());
            None
        }
    }
}

fn with_writer(f: impl FnOnce(&mut Writer)) {
    let mut guard = WRITER.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(w) = guard.get_or_insert_with(open).as_mut() {
        f(w);
    }
}

/// Whether `TORCH_TRACE` is on (callers skip building payloads otherwise).
pub fn enabled() -> bool {
    let mut on = false;
    with_writer(|_| on = true);
    on
}

impl Writer {
    fn line(&mut self, envelope: &Value, payload: Option<&str>) {
        let mut text = format!(
            "V{} {} torch/_dynamo/convert_frame.py:0] {envelope}\n",
            super::logs::glog_time(),
            std::process::id()
        );
        if let Some(p) = payload {
            for l in p.split('\n') {
                text.push('\t');
                text.push_str(l);
                text.push('\n');
            }
        }
        // A failed write loses a diagnostic record, never the user's program.
        let _ = self.file.write_all(text.as_bytes());
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.interned.get(name) {
            return id;
        }
        let id = self.interned.len() as u32;
        self.interned.insert(name.to_owned(), id);
        self.line(&json!({ "str": [name, id] }), None);
        id
    }

    fn stack(&mut self, stack: &Stack) -> Value {
        Value::Array(
            stack
                .iter()
                .map(|(file, line, name)| {
                    json!({ "line": line, "name": name, "filename": self.intern(file) })
                })
                .collect(),
        )
    }
}

/// Writes one record of `kind` for compile `(frame, compile)` with `metadata` and an optional
/// payload.
fn record(kind: &str, compile_id: (u32, u32), metadata: Value, payload: Option<&str>) {
    with_writer(|w| {
        let mut env = Map::new();
        env.insert(kind.to_owned(), metadata);
        env.insert("frame_id".into(), compile_id.0.into());
        env.insert("frame_compile_id".into(), compile_id.1.into());
        env.insert("attempt".into(), 0.into());
        if let Some(p) = payload {
            env.insert("has_payload".into(), md5_hex(p).into());
        }
        w.line(&Value::Object(env), payload);
    });
}

fn md5_hex(s: &str) -> String {
    Md5::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Dynamo starts compiling a frame; `stack` is the Python stack that called it.
pub fn dynamo_start(compile_id: (u32, u32), stack: &Stack) {
    with_writer(|w| {
        let stack = w.stack(stack);
        let mut env = Map::new();
        env.insert("dynamo_start".into(), json!({ "stack": stack }));
        env.insert("frame_id".into(), compile_id.0.into());
        env.insert("frame_compile_id".into(), compile_id.1.into());
        env.insert("attempt".into(), 0.into());
        w.line(&Value::Object(env), None);
    });
}

/// The captured graph, as `print_readable` shows it, with each input's sizes.
pub fn output_graph(compile_id: (u32, u32), sizes: Value, readable: &str) {
    record(
        "dynamo_output_graph",
        compile_id,
        json!({ "sizes": sizes }),
        Some(readable),
    );
}

/// The guards: one JSON object per guard (`code`), and the guard tree as text.
pub fn guards(compile_id: (u32, u32), codes: &[String], tree: &str) {
    let list: Vec<Value> = codes.iter().map(|c| json!({ "code": c })).collect();
    let payload = Value::Array(list).to_string();
    record("dynamo_guards", compile_id, json!({}), Some(&payload));
    record("dynamo_cpp_guards_str", compile_id, json!({}), Some(tree));
}

/// A graph record of its own kind (`aot_forward_graph`, ...) with the graph's text as payload.
pub fn graph_record(kind: &str, compile_id: (u32, u32), text: &str) {
    record(kind, compile_id, json!({}), Some(text));
}

/// A named text artifact (`dynamo_graph_break_reason`, `dynamo_transformed_code`, ...).
pub fn artifact(compile_id: (u32, u32), name: &str, payload: &str) {
    record(
        "artifact",
        compile_id,
        json!({ "name": name, "encoding": "string" }),
        Some(payload),
    );
}

/// What one frame compile produced or why it failed, as `tlparse`'s compilation-metrics page
/// reads it.
#[derive(Default)]
pub struct Metrics {
    /// The code object's name, file and first line.
    pub co: (String, String, u32),
    /// Cache entries for this code after the compile.
    pub cache_size: usize,
    /// Guards installed.
    pub guard_count: usize,
    /// Graph nodes that call something, and all nodes.
    pub op_count: usize,
    /// Graph inputs.
    pub input_count: usize,
    /// Seconds since the epoch when the compile started.
    pub start_time: f64,
    /// Wall time of the whole frame compile.
    pub seconds: f64,
    /// `(type, reason, user file, user line)` when the compile failed or skipped the frame.
    pub failure: Option<(String, String, String, u32)>,
    /// Why tracing restarted (breaks in inlined calls retried at the root).
    pub restart_reasons: Vec<String>,
}

/// The closing record of a frame compile.
pub fn compilation_metrics(compile_id: (u32, u32), m: &Metrics) {
    let (fail_type, fail_reason, fail_file, fail_line) = match &m.failure {
        Some((t, r, f, l)) => (json!(t), json!(r), json!(f), json!(l)),
        None => (Value::Null, Value::Null, Value::Null, Value::Null),
    };
    let meta = json!({
        "co_name": m.co.0,
        "co_filename": m.co.1,
        "co_firstlineno": m.co.2,
        "cache_size": m.cache_size,
        "accumulated_cache_size": m.cache_size,
        "guard_count": m.guard_count,
        "shape_env_guard_count": 0,
        "graph_op_count": m.op_count,
        "graph_node_count": m.op_count + m.input_count + 1,
        "graph_input_count": m.input_count,
        "start_time": m.start_time,
        "entire_frame_compile_time_s": m.seconds,
        "fail_type": fail_type,
        "fail_reason": fail_reason,
        "fail_user_frame_filename": fail_file,
        "fail_user_frame_lineno": fail_line,
        "restart_reasons": m.restart_reasons,
        "dynamo_time_before_restart_s": 0.0,
    });
    record("compilation_metrics", compile_id, meta, None);
}

/// The Python stack calling the frame being compiled, outermost first, ending with the frame
/// itself (the hook runs before its frame exists).
pub fn caller_stack(code: &PyCode, vm: &VirtualMachine) -> Vec<(String, u32, String)> {
    let mut stack = Vec::new();
    let mut frame = vm
        .import("sys", 0)
        .and_then(|sys| vm.call_method(&sys, "_getframe", (0,)))
        .ok();
    while let Some(f) = frame.filter(|f| !vm.is_none(f)) {
        let attr = |o: &PyObjectRef, n: &'static str| o.get_attr(n, vm).ok();
        let fc = attr(&f, "f_code");
        let text = |n| {
            fc.as_ref()
                .and_then(|c| attr(c, n))
                .and_then(|v| v.str(vm).ok())
                .map(|s| s.to_string())
                .unwrap_or_default()
        };
        let line = attr(&f, "f_lineno")
            .and_then(|l| l.try_into_value::<u32>(vm).ok())
            .unwrap_or(0);
        stack.push((text("co_filename"), line, text("co_name")));
        frame = attr(&f, "f_back");
    }
    stack.reverse();
    let first = code.code.first_line_number.map_or(0, |l| l.get() as u32);
    stack.push((
        code.code.source_path.to_string(),
        first,
        super::resume::display_name(code),
    ));
    stack
}

/// A frame compiled to a graph: the graph, its guards and the closing metrics.
pub fn frame_compiled(
    code: &PyCode,
    compile_id: (u32, u32),
    graph: &Graph,
    out: &OutputGraph,
    guards: &GuardTree,
    mut metrics: Metrics,
    vm: &VirtualMachine,
) {
    if !enabled() {
        return;
    }
    if !graph.nodes().is_empty() {
        let sizes: Map<String, Value> = graph
            .inputs()
            .iter()
            .zip(&out.inputs)
            .map(|(v, i)| (i.source.identifier(), json!(graph.value(*v).meta.shape)))
            .collect();
        let name = super::resume::display_name(code);
        if let Ok(text) = super::fx::readable(graph, out, &name, vm) {
            output_graph(compile_id, Value::Object(sizes), &text);
        }
    }
    let described = guards.describe();
    let codes: Vec<String> = described.iter().map(|(_, _, c)| c.clone()).collect();
    self::guards(compile_id, &codes, &guards.dump());
    metrics.guard_count = codes.len();
    metrics.op_count = graph.nodes().len();
    metrics.input_count = graph.inputs().len();
    compilation_metrics(compile_id, &metrics);
}

impl Metrics {
    /// Metrics for a compile of `code` that started at `started`.
    pub fn of(code: &Py<PyCode>, started: std::time::Instant) -> Self {
        let seconds = started.elapsed().as_secs_f64();
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        Self {
            co: (
                super::resume::display_name(code),
                code.code.source_path.to_string(),
                code.code.first_line_number.map_or(0, |l| l.get() as u32),
            ),
            cache_size: super::cache::entries(code.as_object()).len(),
            start_time: wall - seconds,
            seconds,
            ..Self::default()
        }
    }

    /// The same metrics, marked as a failed compile.
    pub fn failed(mut self, kind: &str, reason: &str, at: Option<&(String, u32, String)>) -> Self {
        let (file, line) = at.map_or((String::new(), 0), |(f, l, _)| (f.clone(), *l));
        self.failure = Some((kind.to_owned(), reason.to_owned(), file, line));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::md5_hex;

    #[test]
    fn md5_is_lowercase_hex_of_the_payload() {
        // RFC 1321 test suite value.
        assert_eq!(md5_hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
    }
}
