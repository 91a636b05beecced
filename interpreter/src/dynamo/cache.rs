//! The per-code-object cache (Dynamo's `extra_state` / `cache_entry`): for each code object, its
//! compiled entries in most-recently-used order, whether the frame is skipped, and its compile
//! ids. Keyed by the code object's address; the code object is kept alive by its entry.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use rustpython_vm::builtins::PyCode;
use rustpython_vm::{AsObject, PyObject, PyRef};

use super::compile::CompiledEntry;

/// What the hook does with a code object regardless of its entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Look up entries; compile on a miss.
    Default,
    /// Never compile or run entries: a frame Dynamo gave up on, or a `disable`d function.
    Skip,
    /// Run entries whose guards pass; never compile again (the recompile limit was hit).
    RunOnly,
}

/// Everything cached for one code object.
pub struct CodeCache {
    /// The code object (kept alive so its address is not reused).
    pub code: PyRef<PyCode>,
    /// Compiled entries, most recently used first.
    pub entries: Vec<Rc<CompiledEntry>>,
    /// The action.
    pub action: Action,
    /// Dynamo's frame id (assigned at the first compile).
    pub frame_id: Option<u32>,
    /// How many times the frame was compiled.
    pub compiles: u32,
    /// The sizes each tensor source had in the compiles so far, `None` for a dimension that
    /// changed (Dynamo's frame state for automatic dynamic shapes).
    pub frame_state: HashMap<String, Vec<Option<usize>>>,
}

thread_local! {
    static CACHE: RefCell<HashMap<usize, CodeCache>> = RefCell::new(HashMap::new());
    /// Code objects `torch.compile` was given (kept alive, so addresses are not reused).
    static ALWAYS_OPTIMIZE: RefCell<HashMap<usize, PyRef<PyCode>>> = RefCell::new(HashMap::new());
    static NEXT_FRAME_ID: RefCell<u32> = const { RefCell::new(0) };
}

fn key(code: &PyObject) -> usize {
    code as *const PyObject as usize
}

/// Runs `f` on the cache of `code`, creating it.
pub fn with<R>(code: &PyRef<PyCode>, f: impl FnOnce(&mut CodeCache) -> R) -> R {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        let e = c.entry(key(code.as_object())).or_insert_with(|| CodeCache {
            code: code.clone(),
            entries: Vec::new(),
            action: Action::Default,
            frame_id: None,
            compiles: 0,
            frame_state: HashMap::new(),
        });
        f(e)
    })
}

/// The action for `code` without creating a cache (the hot path for skipped frames).
pub fn action(code: &PyObject) -> Action {
    CACHE.with(|c| {
        c.borrow()
            .get(&key(code))
            .map_or(Action::Default, |e| e.action)
    })
}

/// The entries of `code`, most recently used first (cheap: `Rc` clones).
pub fn entries(code: &PyObject) -> Vec<Rc<CompiledEntry>> {
    CACHE.with(|c| {
        c.borrow()
            .get(&key(code))
            .map(|e| e.entries.clone())
            .unwrap_or_default()
    })
}

/// Moves the entry at `index` to the front (MRU order).
pub fn touch(code: &PyObject, index: usize) {
    if index == 0 {
        return;
    }
    CACHE.with(|c| {
        if let Some(e) = c.borrow_mut().get_mut(&key(code))
            && index < e.entries.len()
        {
            let hit = e.entries.remove(index);
            e.entries.insert(0, hit);
        }
    });
}

/// The next frame id.
pub fn next_frame_id() -> u32 {
    NEXT_FRAME_ID.with(|n| {
        let mut n = n.borrow_mut();
        let id = *n;
        *n += 1;
        id
    })
}

/// Sets the action of `code` (e.g. `disable` marks a code object to skip).
pub fn set_action(code: &PyRef<PyCode>, action: Action) {
    with(code, |c| c.action = action);
}

/// Drops every entry and action (`torch._dynamo.reset()`).
pub fn reset() {
    CACHE.with(|c| c.borrow_mut().clear());
    crate::function_parts::clear_replacements();
    NEXT_FRAME_ID.with(|n| *n.borrow_mut() = 0);
}

/// Number of code objects with compiled entries, and of entries (statistics).
pub fn stats() -> (usize, usize) {
    CACHE.with(|c| {
        let c = c.borrow();
        (
            c.values().filter(|e| !e.entries.is_empty()).count(),
            c.values().map(|e| e.entries.len()).sum(),
        )
    })
}

/// Marks `code` as the target of a `torch.compile` call: compiled even in a skipped file.
pub fn set_always_optimized(code: PyRef<PyCode>) {
    ALWAYS_OPTIMIZE.with(|a| {
        a.borrow_mut().insert(key(code.as_object()), code);
    });
}

/// Whether `code` is the target of a `torch.compile` call.
pub fn always_optimized(code: &PyObject) -> bool {
    ALWAYS_OPTIMIZE.with(|a| a.borrow().contains_key(&key(code)))
}
