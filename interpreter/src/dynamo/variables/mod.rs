//! Variable trackers: what the symbolic executor knows about each value on its stack and in its
//! locals (Dynamo's `VariableTracker` family).
//!
//! A tracker is a [`Kind`] plus, when the value came from the frame, the [`Source`] to re-read it.
//! Python values that do not depend on tensor data (numbers, strings, shapes, dtypes) are
//! carried as the real Python objects ([`Kind::Const`]) and operated on at trace time; tensors
//! are graph values; mutable containers are shared, so mutations through one alias are seen by
//! every other, and the side-effect log can replay them.

pub mod builder;
pub mod ctx_manager;
pub mod error_on_graph_break;
pub mod exceptions;
pub mod iter;
pub mod named_tuple;
pub mod python_value;
pub mod torch;
pub mod user_defined;

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::builtins::PyCode;
use rustpython_vm::{PyObjectRef, PyRef};
use rynamo_graph::{Op, ValueId};
use rynamo_tensor::TensorMeta;

use super::bridge::Surface;
use super::source::Source;

/// A traced value.
#[derive(Clone, Debug)]
pub struct Vt {
    /// What it is.
    pub kind: Kind,
    /// Where it came from in the frame, if it did.
    pub source: Option<Rc<Source>>,
}

/// A tensor in the graph being built.
#[derive(Clone, Debug)]
pub struct TensorVar {
    /// The graph value.
    pub value: ValueId,
    /// Its dtype, shape and strides (from the registry's meta rules), shared by every tracker of
    /// the same tensor object: an in-place view method (`x.unsqueeze_(0)`, `x.t_()`) changes the
    /// layout of the object, so every alias must see it (`y = x; x.t_()` transposes `y` too).
    layout: SharedLayout,
    /// `requires_grad` (a flag until autograd lands).
    pub requires_grad: bool,
}

/// The layout cell shared between the trackers of one tensor object (the trace-time half of
/// PyTorch's fake tensor: one record per object, whatever name reads it).
pub type SharedLayout = Rc<RefCell<Rc<TensorMeta>>>;

impl TensorVar {
    /// A tracker of a new tensor object (its own layout cell).
    pub fn new(value: ValueId, meta: Rc<TensorMeta>, requires_grad: bool) -> Self {
        TensorVar {
            value,
            layout: Rc::new(RefCell::new(meta)),
            requires_grad,
        }
    }

    /// Another tracker of an object already tracked through `layout` (an input read again
    /// under another source).
    pub fn sharing(value: ValueId, layout: SharedLayout, requires_grad: bool) -> Self {
        TensorVar {
            value,
            layout,
            requires_grad,
        }
    }

    /// The tensor's current dtype, shape and strides.
    pub fn meta(&self) -> Rc<TensorMeta> {
        self.layout.borrow().clone()
    }

    /// The cell every alias of this tensor reads its layout from.
    pub fn layout(&self) -> &SharedLayout {
        &self.layout
    }

    /// Gives the object (every alias) a new layout: an in-place view method was traced.
    pub fn relayout(&self, meta: Rc<TensorMeta>) {
        *self.layout.borrow_mut() = meta;
    }
}

/// A list (or a `collections.deque` made in the trace), shared between aliases.
#[derive(Clone, Debug, Default)]
pub struct ListVar {
    /// The items.
    pub items: Vec<Vt>,
    /// Whether the trace changed it (then it is written back when it came from the frame).
    pub mutated: bool,
    /// For a deque: `Some(maxlen)` (`None` inside: unbounded).
    pub deque: Option<Option<usize>>,
}

/// A dict, shared between aliases. Keys are constants (strings, ints, ...).
#[derive(Clone, Debug, Default)]
pub struct DictVar {
    /// Key/value pairs in insertion order.
    pub items: Vec<(PyObjectRef, Vt)>,
    /// Whether the trace changed it.
    pub mutated: bool,
    /// Its class when it is not a plain dict: `collections.OrderedDict`, `defaultdict` or
    /// `Counter` (made in the trace; the frame's instances of these are opaque objects).
    pub cls: Option<PyObjectRef>,
    /// A `defaultdict`'s `default_factory` (a tracker: a builtin type, a function, a lambda).
    pub default_factory: Option<Vt>,
}

/// Which live view of a dict (`keys()`, `values()`, `items()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// `d.keys()`.
    Keys,
    /// `d.values()`.
    Values,
    /// `d.items()`.
    Items,
}

impl ViewKind {
    /// The dict method that makes this view.
    pub fn method(self) -> &'static str {
        match self {
            ViewKind::Keys => "keys",
            ViewKind::Values => "values",
            ViewKind::Items => "items",
        }
    }
}

/// An iterator being unrolled.
#[derive(Clone, Debug)]
pub struct IterVar {
    /// The items still to come (already materialised: ranges, lists, tuples, dict views, zips).
    pub items: Vec<Vt>,
    /// The next item's position.
    pub pos: usize,
}

/// A generator traced lazily: its suspended frame between resumptions, so the generator's body
/// runs interleaved with its consumer exactly as in Python.
#[derive(Clone, Debug)]
pub struct GenState {
    /// The generator function's code.
    pub code: PyRef<PyCode>,
    /// Its globals.
    pub globals: rustpython_vm::builtins::PyDictRef,
    /// Where sources for its globals come from.
    pub globals_source: super::symbolic_convert::GlobalsSource,
    /// Locals, cells and free variables at the suspension point.
    pub locals: Vec<Option<Vt>>,
    /// The value stack at the suspension point.
    pub stack: Vec<Vt>,
    /// The instruction to resume at.
    pub pos: usize,
    /// Whether it returned.
    pub done: bool,
    /// What it returned (the value of a `yield from` over it).
    pub returned: Option<Vt>,
}

/// `functools.partial(func, *args, **keywords)`.
#[derive(Clone, Debug)]
pub struct PartialVar {
    /// The wrapped callable.
    pub func: Vt,
    /// Stored positional arguments.
    pub args: Vec<Vt>,
    /// Stored keyword arguments.
    pub keywords: Vec<(String, Vt)>,
}

/// A function created while tracing (`MAKE_FUNCTION`: a closure or a lambda).
#[derive(Clone, Debug)]
pub struct NestedFn {
    /// Its code.
    pub code: PyRef<PyCode>,
    /// Positional defaults.
    pub defaults: Vec<Vt>,
    /// Keyword-only defaults.
    pub kwdefaults: Vec<(String, Vt)>,
    /// Its closure cells.
    pub closure: Vec<Rc<RefCell<Option<Vt>>>>,
    /// Where each closure cell that is a real cell (the frame's free variables, an inlined
    /// function's closure) can be read again; `None` for cells the trace made. A rebuilt function
    /// closes over the real cell itself.
    pub cell_sources: Vec<Option<Rc<Source>>>,
    /// The globals it closes over (the defining frame's).
    pub globals: PyObjectRef,
    /// Its `__annotate__` function (PEP 649: `MAKE_FUNCTION`'s `annotate` attribute), kept so a
    /// function rebuilt after the graph still has its annotations.
    pub annotate: Option<Vt>,
    /// Its `__annotations__` dict, for code that sets the older `annotations` attribute.
    pub annotations: Option<Vt>,
}

/// A closure cell as the trace sees it (shared by every tracker of the same cell).
pub type SymbolicCell = Rc<RefCell<Option<Vt>>>;

/// What kind of value a tracker stands for.
#[derive(Clone, Debug)]
pub enum Kind {
    /// A tensor in the graph.
    Tensor(TensorVar),
    /// An immutable Python value known at trace time: None, bools, numbers, strings, bytes,
    /// `Ellipsis`, `torch.Size`, dtypes, devices, ranges, slices and tuples of those.
    Const(PyObjectRef),
    /// A size read from a dynamic dimension, or arithmetic on such sizes (`sym.rs`).
    SymInt(Rc<super::sym::SymVar>),
    /// Float arithmetic on SymInts (`n / 2`, `float(n)`, `n * 0.5`): a float expression over
    /// the same leaves (`sym.rs`). Uses Dynamo does not model read its value, as for a SymInt.
    SymFloat(Rc<super::sym::SymVar>),
    /// A tuple.
    Tuple(Vec<Vt>),
    /// A named tuple: its class (a `collections.namedtuple` or a `torch.return_types` class)
    /// and its items.
    NamedTuple(PyObjectRef, Vec<Vt>),
    /// A list.
    List(Rc<RefCell<ListVar>>),
    /// A dict.
    Dict(Rc<RefCell<DictVar>>),
    /// A live view of a dict: it reads the dict's current items whenever it is used.
    DictView(Rc<RefCell<DictVar>>, ViewKind),
    /// A set of constants: without a source, a real `set` made during the trace that only the
    /// trace sees (operated on at trace time); with one, the trace's copy of the frame's set
    /// (its mutations are replayed on the real set).
    Set(PyObjectRef),
    /// `slice(start, stop, step)` with traced parts.
    Slice(Box<[Vt; 3]>),
    /// An iterator being unrolled.
    Iter(Rc<RefCell<IterVar>>),
    /// A generator object of a traced generator function.
    Generator(Rc<RefCell<GenState>>),
    /// A Python function to inline.
    Function(PyObjectRef),
    /// A function made during the trace.
    NestedFunction(Rc<NestedFn>),
    /// A `functools.partial`.
    Partial(Rc<PartialVar>),
    /// A grad-mode context manager (`torch.no_grad()`, ...).
    GradMode(Rc<ctx_manager::GradModeVar>),
    /// A `torch._dynamo.error_on_graph_break(value)` manager.
    ErrorOnGraphBreak(Rc<error_on_graph_break::ErrorOnGraphBreakVar>),
    /// A method bound to its receiver: `(function, self)`.
    BoundMethod(Box<Vt>, Box<Vt>),
    /// A registry op reached through `torch.<name>`, `F.<name>`, ...
    TorchOp {
        /// The overloads sharing the Python name.
        overloads: &'static [Op],
        /// Which Python surface it came from.
        surface: Surface,
        /// The Python object (the FX node's target).
        obj: PyObjectRef,
    },
    /// A method of a tracked receiver (tensor, list, dict, tuple, iterator, constant), by name:
    /// `x.add`, `lst.append`, `"a b".split`. Calls dispatch on the receiver's kind.
    Method(Box<Vt>, Rc<str>),
    /// A builtin function or type (`len`, `isinstance`, `range`, `print`, `list`, ...), with its
    /// name.
    Builtin(PyObjectRef, Rc<str>),
    /// A Python module (`torch`, `math`, `torch.nn.functional`).
    Module(PyObjectRef),
    /// An `nn.Module` instance.
    NNModule(PyObjectRef),
    /// A class.
    Class(PyObjectRef),
    /// Any other object: attribute reads go to the real object, under guards.
    Object(PyObjectRef),
    /// A closure cell made during the trace.
    Cell(Rc<RefCell<Option<Vt>>>),
    /// An exception instance made during the trace (`ValueError("bad")`).
    Exception(Rc<exceptions::ExcVar>),
    /// The NULL `LOAD_GLOBAL`/`LOAD_ATTR` push before a callable.
    Null,
}

impl Vt {
    /// A tracker without a source.
    pub fn new(kind: Kind) -> Self {
        Vt { kind, source: None }
    }

    /// A tracker with a source.
    pub fn with_source(kind: Kind, source: Rc<Source>) -> Self {
        Vt {
            kind,
            source: Some(source),
        }
    }

    /// A constant.
    pub fn constant(obj: PyObjectRef) -> Self {
        Vt::new(Kind::Const(obj))
    }

    /// The tensor, if this is one.
    pub fn as_tensor(&self) -> Option<&TensorVar> {
        match &self.kind {
            Kind::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// The constant, if this is one.
    pub fn as_const(&self) -> Option<&PyObjectRef> {
        match &self.kind {
            Kind::Const(c) => Some(c),
            // A use that needs the value: the SymInt's dimensions are specialised.
            Kind::SymInt(s) | Kind::SymFloat(s) => Some(s.concrete()),
            _ => None,
        }
    }

    /// Whether this is the NULL marker.
    pub fn is_null(&self) -> bool {
        matches!(self.kind, Kind::Null)
    }

    /// A short description for error messages (`TensorVariable()`, `ConstantVariable(int: 3)`).
    pub fn describe(&self) -> String {
        match &self.kind {
            Kind::Tensor(_) => "TensorVariable()".into(),
            Kind::Const(c) => format!("ConstantVariable({})", c.class().name()),
            Kind::SymInt(_) | Kind::SymFloat(_) => "SymNodeVariable()".into(),
            Kind::Tuple(_) => "TupleVariable()".into(),
            Kind::NamedTuple(..) => "NamedTupleVariable()".into(),
            Kind::List(_) => "ListVariable()".into(),
            Kind::Dict(_) => "ConstDictVariable()".into(),
            Kind::DictView(_, ViewKind::Keys) => "DictKeysVariable()".into(),
            Kind::DictView(_, ViewKind::Values) => "DictValuesVariable()".into(),
            Kind::DictView(_, ViewKind::Items) => "DictItemsVariable()".into(),
            Kind::Set(_) => "SetVariable()".into(),
            Kind::Slice(_) => "SliceVariable()".into(),
            Kind::Iter(_) => "ListIteratorVariable()".into(),
            Kind::Generator(_) => "LocalGeneratorObjectVariable()".into(),
            Kind::Function(_) => "UserFunctionVariable()".into(),
            Kind::NestedFunction(_) => "NestedUserFunctionVariable()".into(),
            Kind::BoundMethod(..) => "UserMethodVariable()".into(),
            Kind::Partial(_) => "FunctoolsPartialVariable()".into(),
            Kind::TorchOp { .. } => "TorchInGraphFunctionVariable()".into(),
            Kind::Method(recv, name) => format!("GetAttrVariable({}, {name})", recv.describe()),
            Kind::Builtin(_, name) => format!("BuiltinVariable({name})"),
            Kind::Module(_) => "PythonModuleVariable()".into(),
            Kind::NNModule(_) => "UnspecializedNNModuleVariable()".into(),
            Kind::Class(_) => "UserDefinedClassVariable()".into(),
            Kind::Object(o) => format!("UserDefinedObjectVariable({})", o.class().name()),
            Kind::Cell(_) => "CellVariable()".into(),
            Kind::Exception(e) => format!("ExceptionVariable({})", e.class_name()),
            Kind::GradMode(g) => format!("GradModeVariable(mode={})", g.mode),
            Kind::ErrorOnGraphBreak(e) => format!("ErrorOnGraphBreakVariable({})", e.value),
            Kind::Null => "NullVariable".into(),
        }
    }
}
