//! Rebuilding Python values after a graph ran: the frame's return value, the values its side
//! effects store, and (at graph breaks) the stack and live locals. Each tracker becomes a
//! [`Recon`] recipe over the graph's outputs, constants and frame sources.

use std::rc::Rc;

use rustpython_vm::{AsObject, PyObjectRef, VirtualMachine};
use rynamo_graph::ValueId;

use super::exc::{GraphBreak, GraphBreakKind};
use super::output_graph::OutputGraph;
use super::source::Source;
use super::variables::{Kind, Vt};

// Building the values happens in `reconstruct_build.rs`; its callers name it from here, with the
// recipes.
pub use super::reconstruct_build::Builder;

/// How to rebuild one value.
#[derive(Clone, Debug)]
pub enum Recon {
    /// The `i`th graph output, as a new tensor object.
    Output(usize),
    /// A constant.
    Const(PyObjectRef),
    /// A SymInt, computed from the frame's sizes and ints.
    SymInt(Rc<super::sym_guard::FrameSym>),
    /// The object at a frame source (identity preserved: inputs returned as they came).
    Source(Rc<Source>),
    /// A new tuple.
    Tuple(Vec<Recon>),
    /// A new named tuple of this class.
    NamedTuple(PyObjectRef, Vec<Recon>),
    /// A new list.
    List(Vec<Recon>),
    /// A new dict.
    Dict(Vec<(PyObjectRef, Recon)>),
    /// A new `collections.deque` with this `maxlen`.
    Deque(Option<usize>, Vec<Recon>),
    /// A new dict of a `collections` class (`OrderedDict`, `Counter`, `defaultdict` with its
    /// default factory).
    TypedDict(PyObjectRef, Option<Box<Recon>>, Vec<(PyObjectRef, Recon)>),
    /// A live view of a rebuilt dict: `d.keys()`, `d.values()`, `d.items()`.
    DictView(Box<Recon>, super::variables::ViewKind),
    /// A new set of these constants.
    Set(Vec<PyObjectRef>),
    /// A new slice.
    Slice(Box<[Recon; 3]>),
    /// A new exception, or an `nn.Module` built in the trace: `cls(*args, **kwargs)`.
    Exception(PyObjectRef, Vec<Recon>, Vec<(String, Recon)>),
    /// A container made during the trace that more than one place may refer to: built once as
    /// shared object `id` (its items afterwards, so a container can hold itself).
    Def(usize, Box<Recon>),
    /// Shared object `id` again (the same Python object, so aliasing survives the graph).
    Ref(usize),
    /// `getattr(value, name)`: a method read off a rebuilt receiver (`x.sum().item`).
    Attr(Box<Recon>, PyObjectRef),
    /// A bound method: `(function, self)`.
    BoundMethod(Box<[Recon; 2]>),
    /// `functools.partial(func, *args, **keywords)`.
    Partial(Box<Recon>, Vec<Recon>, Vec<(String, Recon)>),
    /// A function made during the trace: `FunctionType(code, globals, name, defaults, closure)`
    /// with `__qualname__`, `__kwdefaults__` and its annotations set as `MAKE_FUNCTION` would
    /// have; closure entries are [`Recon::Cell`]s (inside `Def`s, so two functions sharing a cell
    /// share the rebuilt one).
    Function {
        /// Its code object.
        code: PyObjectRef,
        /// The globals it closes over.
        globals: PyObjectRef,
        /// Positional defaults.
        defaults: Vec<Recon>,
        /// Keyword-only defaults.
        kwdefaults: Vec<(String, Recon)>,
        /// Closure cells.
        closure: Vec<Recon>,
        /// `__annotate__` (itself a rebuilt function).
        annotate: Option<Box<Recon>>,
        /// `__annotations__`.
        annotations: Option<Box<Recon>>,
    },
    /// A new closure cell holding the value (empty for `None`).
    Cell(Option<Box<Recon>>),
    /// A new instance of a user class (`cls.__new__(cls)`, then its attributes set in order):
    /// an object made in the trace (always inside a [`Recon::Def`]).
    NewObject(PyObjectRef, Vec<(PyObjectRef, Recon)>),
}

/// Collects the graph outputs a set of recipes needs.
#[derive(Default)]
pub struct OutputSet {
    /// Graph values to output, in order.
    pub values: Vec<ValueId>,
    /// Addresses of the trace-local containers given a [`Recon::Def`], by id.
    shared: Vec<usize>,
}

impl OutputSet {
    fn index(&mut self, v: ValueId) -> usize {
        match self.values.iter().position(|x| *x == v) {
            Some(i) => i,
            None => {
                self.values.push(v);
                self.values.len() - 1
            }
        }
    }
}

/// The recipe for a tracker.
pub fn recon_of(
    vt: &Vt,
    out: &OutputGraph,
    outputs: &mut OutputSet,
    vm: &VirtualMachine,
) -> Result<Recon, GraphBreak> {
    match &vt.kind {
        Kind::Tensor(t) => {
            let cur = out.current_value(t);
            // An input returned (or mutated in place) keeps its identity: a tracker whose
            // (first) value is a graph input's is that input object, whichever source it was
            // read through (`y = x` reads `L['y']`, an alias of the input at `L['x']`).
            if let Some(input) = out.inputs.iter().find(|i| i.value == t.value) {
                return Ok(Recon::Source(
                    vt.source.clone().unwrap_or_else(|| input.source.clone()),
                ));
            }
            Ok(Recon::Output(outputs.index(cur)))
        }
        Kind::Const(c) => Ok(Recon::Const(c.clone())),
        // A dynamic int input returned as it is: read again from where it came from.
        Kind::SymInt(s)
            if vt.source.is_some()
                && matches!(s.expr, super::sym::SymExpr::Dim(_, super::sym::VALUE)) =>
        {
            Ok(Recon::Source(vt.source.clone().unwrap_or_else(|| {
                unreachable!("invariant: checked by the guard above")
            })))
        }
        // A SymFloat too: rebuilt from the frame as a Python float.
        Kind::SymInt(s) | Kind::SymFloat(s) => {
            let source_of = |pos: usize| out.inputs.get(pos).map(|i| i.source.clone());
            Ok(match super::sym_guard::FrameSym::new(&s.expr, &source_of) {
                Some(f) => Recon::SymInt(Rc::new(f)),
                // A computed tensor's size is not readable from the frame: its traced value.
                None => Recon::Const(s.concrete().clone()),
            })
        }
        Kind::NamedTuple(cls, items) => {
            if let Some(src) = &vt.source {
                return Ok(Recon::Source(src.clone()));
            }
            Ok(Recon::NamedTuple(
                cls.clone(),
                items
                    .iter()
                    .map(|i| recon_of(i, out, outputs, vm))
                    .collect::<Result<_, _>>()?,
            ))
        }
        Kind::Tuple(items) => {
            if let Some(src) = &vt.source {
                // The frame's own tuple (its items cannot have changed), so `is` after a break
                // and returned arguments keep their identity.
                return Ok(Recon::Source(src.clone()));
            }
            Ok(Recon::Tuple(
                items
                    .iter()
                    .map(|i| recon_of(i, out, outputs, vm))
                    .collect::<Result<_, _>>()?,
            ))
        }
        Kind::List(l) => {
            if let Some(src) = &vt.source {
                // The frame's own list object (its contents are replayed as a side effect).
                return Ok(Recon::Source(src.clone()));
            }
            shared(Rc::as_ptr(l) as usize, outputs, |outputs| {
                let items = l
                    .borrow()
                    .items
                    .iter()
                    .map(|i| recon_of(i, out, outputs, vm))
                    .collect::<Result<_, _>>()?;
                Ok(match l.borrow().deque {
                    Some(maxlen) => Recon::Deque(maxlen, items),
                    None => Recon::List(items),
                })
            })
        }
        Kind::Dict(d) => {
            if let Some(src) = &vt.source {
                return Ok(Recon::Source(src.clone()));
            }
            shared(Rc::as_ptr(d) as usize, outputs, |outputs| {
                let items = d
                    .borrow()
                    .items
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), recon_of(v, out, outputs, vm)?)))
                    .collect::<Result<_, GraphBreak>>()?;
                let (cls, factory) = {
                    let d = d.borrow();
                    (d.cls.clone(), d.default_factory.clone())
                };
                Ok(match cls {
                    None => Recon::Dict(items),
                    Some(c) => {
                        let f = recon_opt(factory.as_ref(), out, outputs, vm)?;
                        Recon::TypedDict(c, f, items)
                    }
                })
            })
        }
        Kind::Set(s) => {
            if let Some(src) = &vt.source {
                return Ok(Recon::Source(src.clone()));
            }
            let items = vm.extract_elements_with(s, Ok).map_err(|_| {
                GraphBreak::new(GraphBreakKind::UnsupportedConstruct, "cannot rebuild a set")
            })?;
            shared(
                &**s as *const rustpython_vm::PyObject as usize,
                outputs,
                |_| Ok(Recon::Set(items)),
            )
        }
        Kind::DictView(d, view) => {
            let dict = recon_of(&Vt::new(Kind::Dict(d.clone())), out, outputs, vm)?;
            Ok(Recon::DictView(Box::new(dict), *view))
        }
        Kind::Exception(e) => Ok(Recon::Exception(
            e.cls.clone(),
            e.args
                .iter()
                .map(|a| recon_of(a, out, outputs, vm))
                .collect::<Result<_, _>>()?,
            Vec::new(),
        )),
        Kind::Slice(parts) => Ok(Recon::Slice(Box::new([
            recon_of(&parts[0], out, outputs, vm)?,
            recon_of(&parts[1], out, outputs, vm)?,
            recon_of(&parts[2], out, outputs, vm)?,
        ]))),
        Kind::NestedFunction(nf) if vt.source.is_none() => {
            if nf
                .cell_sources
                .iter()
                .flatten()
                .any(|s| s.is_unreachable_cell())
            {
                return Err(GraphBreak::new(
                    GraphBreakKind::UnsupportedConstruct,
                    "cannot rebuild a nested function that closes over an unreachable closure cell",
                ));
            }
            // Its cells are rebuilt once each and shared with every other rebuilt closure and
            // with a resume function (which gets the frame's cells as its closure), so its
            // `nonlocal` writes reach the same cells as the frame's own.
            shared(Rc::as_ptr(nf) as *const () as usize, outputs, |outputs| {
                let closure = nf
                    .closure
                    .iter()
                    .zip(nf.cell_sources.iter().chain(std::iter::repeat(&None)))
                    .map(|(c, src)| match src {
                        // A real cell: the same cell object, read again after the graph.
                        Some(src) => Ok(Recon::Source(src.clone())),
                        None => cell_recon(c, out, outputs, vm),
                    })
                    .collect::<Result<_, GraphBreak>>()?;
                Ok(Recon::Function {
                    code: nf.code.clone().into(),
                    globals: nf.globals.clone(),
                    defaults: nf
                        .defaults
                        .iter()
                        .map(|d| recon_of(d, out, outputs, vm))
                        .collect::<Result<_, _>>()?,
                    kwdefaults: nf
                        .kwdefaults
                        .iter()
                        .map(|(k, d)| Ok((k.clone(), recon_of(d, out, outputs, vm)?)))
                        .collect::<Result<_, GraphBreak>>()?,
                    closure,
                    annotate: recon_opt(nf.annotate.as_ref(), out, outputs, vm)?,
                    annotations: recon_opt(nf.annotations.as_ref(), out, outputs, vm)?,
                })
            })
        }
        Kind::Object(o)
            if vt.source.is_none()
                && out
                    .new_objects
                    .contains_key(&(o.as_object() as *const _ as usize)) =>
        {
            let addr = o.as_object() as *const _ as usize;
            let cls = out.new_objects[&addr].cls.clone();
            shared(addr, outputs, |outputs| {
                let attrs = out
                    .side_effects
                    .attrs_of(addr)
                    .iter()
                    .map(|(n, v)| Ok((vm.ctx.new_str(&**n).into(), recon_of(v, out, outputs, vm)?)))
                    .collect::<Result<_, GraphBreak>>()?;
                Ok(Recon::NewObject(cls, attrs))
            })
        }
        Kind::NNModule(o)
            if vt.source.is_none()
                && out
                    .built_modules
                    .contains_key(&(o.as_object() as *const _ as usize)) =>
        {
            // Eager builds a new module on every call: so does the rebuilt frame, by calling
            // the class again (its arguments were constants or modules built the same way).
            let addr = o.as_object() as *const _ as usize;
            let built = out.built_modules[&addr].clone();
            // One whose containers the trace changed (`seq.append(m)`) is no longer what its
            // class builds from the arguments.
            let (args, kwargs) = built
                .args
                .filter(|_| !out.built_module_dicts.values().any(|d| d.borrow().mutated))
                .ok_or_else(|| {
                    GraphBreak::new(
                        GraphBreakKind::UnsupportedConstruct,
                        "an nn.Module built in the compiled region by another module, or changed after it was built, outlives it",
                    )
                })?;
            shared(addr, outputs, |outputs| {
                let mut rebuilt = |a: &Vt| recon_of(a, out, outputs, vm);
                let args = args.iter().map(&mut rebuilt).collect::<Result<_, _>>()?;
                let kwargs = kwargs
                    .iter()
                    .map(|(k, a)| Ok((k.clone(), rebuilt(a)?)))
                    .collect::<Result<_, GraphBreak>>()?;
                Ok(Recon::Exception(built.cls.clone(), args, kwargs))
            })
        }
        Kind::Function(o)
        | Kind::Module(o)
        | Kind::NNModule(o)
        | Kind::Class(o)
        | Kind::Object(o)
        | Kind::Builtin(o, _)
        | Kind::TorchOp { obj: o, .. } => {
            match &vt.source {
                Some(src) => Ok(Recon::Source(src.clone())),
                // A value Dynamo reached without a source is a trace-time constant object.
                None => Ok(Recon::Const(o.clone())),
            }
        }
        Kind::GradMode(g) => match &vt.source {
            Some(src) => Ok(Recon::Source(src.clone())),
            None => super::variables::ctx_manager::rebuild(g, out.grad_enabled, vm)
                .map(Recon::Const)
                .map_err(|_| {
                    GraphBreak::new(
                        GraphBreakKind::UnsupportedConstruct,
                        "cannot rebuild a grad-mode manager",
                    )
                }),
        },
        Kind::ErrorOnGraphBreak(e) => match &vt.source {
            Some(src) => Ok(Recon::Source(src.clone())),
            None => super::variables::error_on_graph_break::rebuild(e, vm)
                .map(Recon::Const)
                .map_err(|_| {
                    GraphBreak::new(
                        GraphBreakKind::UnsupportedConstruct,
                        "cannot rebuild an error_on_graph_break manager",
                    )
                }),
        },
        Kind::Method(recv, name) => Ok(Recon::Attr(
            Box::new(recon_of(recv, out, outputs, vm)?),
            vm.ctx.new_str(&**name).into(),
        )),
        Kind::Partial(p) => {
            if let Some(src) = &vt.source {
                return Ok(Recon::Source(src.clone()));
            }
            Ok(Recon::Partial(
                Box::new(recon_of(&p.func, out, outputs, vm)?),
                p.args
                    .iter()
                    .map(|a| recon_of(a, out, outputs, vm))
                    .collect::<Result<_, _>>()?,
                p.keywords
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), recon_of(v, out, outputs, vm)?)))
                    .collect::<Result<_, GraphBreak>>()?,
            ))
        }
        Kind::BoundMethod(f, zelf) => {
            if let Some(src) = &vt.source {
                return Ok(Recon::Source(src.clone()));
            }
            Ok(Recon::BoundMethod(Box::new([
                recon_of(f, out, outputs, vm)?,
                recon_of(zelf, out, outputs, vm)?,
            ])))
        }
        _ => Err(GraphBreak::new(
            GraphBreakKind::UnsupportedConstruct,
            format!("cannot rebuild {} after the graph", vt.describe()),
        )),
    }
}

/// The recipe of a trace-local container at `addr`: a [`Recon::Def`] the first time, a
/// [`Recon::Ref`] to it after that (also from inside its own items).
fn shared(
    addr: usize,
    outputs: &mut OutputSet,
    items: impl FnOnce(&mut OutputSet) -> Result<Recon, GraphBreak>,
) -> Result<Recon, GraphBreak> {
    if let Some(id) = outputs.shared.iter().position(|a| *a == addr) {
        return Ok(Recon::Ref(id));
    }
    outputs.shared.push(addr);
    let id = outputs.shared.len() - 1;
    Ok(Recon::Def(id, Box::new(items(outputs)?)))
}

/// Whether a recipe reads the frame (then it cannot be built without the frame's values).
pub fn reads_frame(r: &Recon) -> bool {
    match r {
        Recon::Source(_) => true,
        Recon::Tuple(v) | Recon::List(v) | Recon::NamedTuple(_, v) => v.iter().any(reads_frame),
        Recon::Exception(_, v, k) => {
            v.iter().any(reads_frame) || k.iter().any(|(_, x)| reads_frame(x))
        }
        Recon::Dict(v) => v.iter().any(|(_, x)| reads_frame(x)),
        Recon::Deque(_, v) => v.iter().any(reads_frame),
        Recon::TypedDict(_, f, v) => {
            f.as_deref().is_some_and(reads_frame) || v.iter().any(|(_, x)| reads_frame(x))
        }
        Recon::DictView(d, _) => reads_frame(d),
        Recon::Slice(p) => p.iter().any(reads_frame),
        Recon::Def(_, inner) | Recon::Attr(inner, _) => reads_frame(inner),
        Recon::BoundMethod(p) => p.iter().any(reads_frame),
        Recon::NewObject(_, attrs) => attrs.iter().any(|(_, v)| reads_frame(v)),
        Recon::Partial(f, a, k) => {
            reads_frame(f) || a.iter().any(reads_frame) || k.iter().any(|(_, v)| reads_frame(v))
        }
        _ => false,
    }
}

/// The recipe of a cell made during the trace: built once per trace cell (a [`Recon::Def`]),
/// so every closure and resume function that holds it gets the same Python cell.
pub fn cell_recon(
    cell: &Rc<std::cell::RefCell<Option<Vt>>>,
    out: &OutputGraph,
    outputs: &mut OutputSet,
    vm: &VirtualMachine,
) -> Result<Recon, GraphBreak> {
    shared(Rc::as_ptr(cell) as *const () as usize, outputs, |outputs| {
        let content = cell.borrow().clone();
        Ok(Recon::Cell(match content {
            Some(v) => Some(Box::new(recon_of(&v, out, outputs, vm)?)),
            None => None,
        }))
    })
}

/// The recipe of an optional value.
fn recon_opt(
    vt: Option<&Vt>,
    out: &OutputGraph,
    outputs: &mut OutputSet,
    vm: &VirtualMachine,
) -> Result<Option<Box<Recon>>, GraphBreak> {
    vt.map(|v| recon_of(v, out, outputs, vm).map(Box::new))
        .transpose()
}
