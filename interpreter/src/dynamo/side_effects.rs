//! Python side effects recorded while tracing and replayed after the graph runs: attribute and
//! global stores, list and dict mutations, and writes to closure cells. The traced function's
//! Python-visible behaviour stays the same even though its body no longer runs.

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::{AsObject, PyObject, PyObjectRef};

use super::source::Source;
use super::variables::{DictVar, ListVar, Vt};

/// One effect to replay.
#[derive(Clone, Debug)]
pub enum SideEffect {
    /// `obj.name = value`, where `obj` is read from `target`.
    StoreAttr {
        /// The object's source.
        target: Rc<Source>,
        /// The attribute.
        name: Rc<str>,
        /// The new value.
        value: Vt,
    },
    /// `del obj.name`.
    DeleteAttr {
        /// The object's source.
        target: Rc<Source>,
        /// The attribute.
        name: Rc<str>,
    },
    /// `del g` of a module global (`global g`).
    DeleteGlobal {
        /// The global's name.
        name: Rc<str>,
    },
    /// `global name; name = value`.
    StoreGlobal {
        /// The global's name.
        name: Rc<str>,
        /// The new value.
        value: Vt,
    },
    /// A list from the frame now holds these items (`lst[:] = items`).
    ListContents {
        /// The list's source.
        target: Rc<Source>,
        /// The list as the trace left it.
        list: Rc<RefCell<ListVar>>,
    },
    /// A dict from the frame now holds these items (`d.clear(); d.update(items)`).
    DictContents {
        /// The dict's source.
        target: Rc<Source>,
        /// The dict as the trace left it.
        dict: Rc<RefCell<DictVar>>,
    },
    /// A set from the frame now holds the items of `set` (the trace's copy of it).
    SetContents {
        /// The set's source.
        target: Rc<Source>,
        /// The trace's copy, as the trace left it.
        set: PyObjectRef,
    },
    /// `tensor.name(*args, **kwargs)` on a frame tensor: an in-place view method
    /// (`x.unsqueeze_(0)`) the trace modelled as a layout change of the object (`inplace.rs`).
    TensorMethod {
        /// The tensor's source.
        target: Rc<Source>,
        /// The method.
        name: Rc<str>,
        /// Its positional arguments.
        args: Vec<PyObjectRef>,
        /// Its keyword arguments.
        kwargs: Vec<(String, PyObjectRef)>,
    },
    /// `torch._C._set_grad_enabled(mode)`: a grad-mode manager entered or left.
    SetGradEnabled(bool),
    /// `torch._C._set_inference_mode(mode)`: an `inference_mode` block entered or left.
    SetInferenceMode(bool),
}

/// The effects of one trace, in program order, plus the attribute values the trace wrote, so
/// that later reads in the same trace see them.
#[derive(Clone, Debug, Default)]
pub struct SideEffects {
    effects: Vec<SideEffect>,
    /// (object address, attribute) → the value stored during the trace.
    attr_overlay: Vec<(AttrKey, Option<Vt>)>,
}

/// An attribute of an object: (object address, attribute name).
type AttrKey = (usize, Rc<str>);

impl SideEffects {
    /// Records an effect.
    pub fn push(&mut self, effect: SideEffect) {
        self.effects.push(effect);
    }

    /// The effects, in order.
    pub fn effects(&self) -> &[SideEffect] {
        &self.effects
    }

    /// Whether there is nothing to replay.
    pub fn is_empty(&self) -> bool {
        self.effects.is_empty()
    }

    /// Records that the trace set (or, with `None`, deleted) `obj.name`.
    pub fn set_attr(&mut self, obj: &PyObject, name: &str, value: Option<Vt>) {
        let key = (obj as *const PyObject as usize, Rc::<str>::from(name));
        match self.attr_overlay.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.attr_overlay.push((key, value)),
        }
    }

    /// The value the trace stored into `obj.name`, if it stored one: `Some(None)` means deleted.
    pub fn get_attr(&self, obj: &PyObject, name: &str) -> Option<Option<Vt>> {
        let addr = obj as *const PyObject as usize;
        self.attr_overlay
            .iter()
            .rev()
            .find(|((a, n), _)| *a == addr && &**n == name)
            .map(|(_, v)| v.clone())
    }

    /// The attributes stored on the object at `addr` during the trace, in first-store order,
    /// with their final values (deleted ones left out).
    pub fn attrs_of(&self, addr: usize) -> Vec<(Rc<str>, Vt)> {
        let mut names: Vec<Rc<str>> = Vec::new();
        for ((a, n), _) in &self.attr_overlay {
            if *a == addr && !names.iter().any(|m| m == n) {
                names.push(n.clone());
            }
        }
        names
            .into_iter()
            .filter_map(|n| {
                let last = self
                    .attr_overlay
                    .iter()
                    .rev()
                    .find(|((a, m), _)| *a == addr && *m == n)
                    .and_then(|(_, v)| v.clone())?;
                Some((n, last))
            })
            .collect()
    }

    /// Records that the frame's set behind `vt` (a sourced set tracker) was mutated.
    pub fn record_set(&mut self, vt: &Vt) {
        use super::variables::Kind;
        let (Some(src), Kind::Set(copy)) = (&vt.source, &vt.kind) else {
            return;
        };
        let dup = self
            .effects
            .iter()
            .any(|e| matches!(e, SideEffect::SetContents { set, .. } if set.is(copy)));
        if !dup {
            self.effects.push(SideEffect::SetContents {
                target: src.clone(),
                set: copy.clone(),
            });
        }
    }

    /// Records the final contents of every mutated list and dict that came from the frame.
    pub fn record_container(&mut self, vt: &Vt) {
        use super::variables::Kind;
        let Some(src) = &vt.source else { return };
        match &vt.kind {
            Kind::List(l) if l.borrow().mutated => {
                let dup = self.effects.iter().any(
                    |e| matches!(e, SideEffect::ListContents { list, .. } if Rc::ptr_eq(list, l)),
                );
                if !dup {
                    self.effects.push(SideEffect::ListContents {
                        target: src.clone(),
                        list: l.clone(),
                    });
                }
            }
            Kind::Dict(d) if d.borrow().mutated => {
                let dup = self.effects.iter().any(
                    |e| matches!(e, SideEffect::DictContents { dict, .. } if Rc::ptr_eq(dict, d)),
                );
                if !dup {
                    self.effects.push(SideEffect::DictContents {
                        target: src.clone(),
                        dict: d.clone(),
                    });
                }
            }
            _ => {}
        }
    }
}

/// Keeps an object alive for the overlay key's lifetime (addresses must not be reused).
pub fn keep_alive(obj: &PyObjectRef) -> PyObjectRef {
    obj.as_object().to_owned()
}
