//! Items of dicts the frame holds, keyed by objects: an optimizer's `state[p]`, keyed by its
//! parameters (Dynamo's ConstDictVariable with identity-hashed keys).
//!
//! The trace keeps such a dict opaque (its keys are not constants) and reads single items through
//! the real dict: the key's identity is pinned by an ID_MATCH guard on the key's own source, and
//! the item gets the source `dict[key]`, so its guards re-read the dict on every call (a removed
//! item fails them). A key the dict lacks is a graph break guarded by DICT_CONTAINS, so once the
//! item exists (a `defaultdict` filled eagerly) the frame recompiles and traces it.

use rustpython_vm::builtins::PyDict;
use rustpython_vm::{AsObject, PyObjectRef};

use super::exc::{GraphBreak, GraphBreakKind};
use super::guards::Check;
use super::source::{ConstObj, Key};
use super::symbolic_convert::Tracer;
use super::variables::Vt;
use super::variables::builder::wrap;

impl Tracer<'_> {
    /// `d[key]` for a frame dict `d` (opaque, with a source) and an object key; `None` when this
    /// does not apply (no source, not a dict, a constant key).
    pub(crate) fn frame_dict_item(
        &mut self,
        d: &PyObjectRef,
        obj: &Vt,
        index: &Vt,
    ) -> Option<Result<Vt, GraphBreak>> {
        let vm = self.vm;
        let dict = d.downcast_ref::<PyDict>()?;
        let dict_src = obj.source.clone()?;
        let key_src = index.source.clone()?;
        if index.as_const().is_some() {
            return None;
        }
        let key = match self.dict_key(index) {
            Ok(k) => k,
            Err(e) => return Some(Err(e)),
        };
        let key_text = key_src.to_string();
        let found = match dict.get_item_opt(&*key, vm) {
            Ok(f) => f,
            Err(_) => return None,
        };
        let Some(value) = found else {
            self.out.guards.add(
                &dict_src,
                Check::DictContains {
                    key,
                    key_text: key_text.clone(),
                    present: false,
                },
            );
            return Some(Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!(
                    "{dict_src}[{key_text}]: the key is missing from the {}, which would \
                     run its default factory or raise KeyError",
                    d.class().name()
                ),
            )));
        };
        let src = dict_src.item(Key::Obj(ConstObj(key), key_text.into()));
        Some(Ok(wrap(self.out, value, src, vm)))
    }
}
