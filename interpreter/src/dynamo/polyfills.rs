//! Standard-library callables Dynamo models instead of calling (its `polyfills`): `operator`
//! functions take the same paths as the operators they name, `math` folds on constants,
//! `functools.partial` and `reduce` are traced through, and the finite `itertools` run for real
//! over placeholder tokens whose results are mapped back to the trackers (so tensors can flow
//! through `product`, `chain`, `islice`, ...). Infinite iterators (`count`, `cycle`) break.

use std::collections::HashMap;
use std::rc::Rc;

use rustpython_vm::builtins::PyStr;
use rustpython_vm::{AsObject, PyObject, PyObjectRef, VirtualMachine};

use super::exc::{GraphBreak, GraphBreakKind};
use super::symbolic_convert::Tracer;
use super::variables::builder::{wrap_fresh, wrap_unguarded};
use super::variables::{Kind, PartialVar, Vt};

/// Most items a traced `itertools` call may produce (a longer one is a break, not a hang).
const MAX_ITEMS: usize = 10_000;

/// `itertools` functions that are finite for finite inputs, with which positional arguments
/// are iterables (`None`: all of them).
const ITERTOOLS: &[(&str, Option<&[usize]>)] = &[
    ("chain", None),
    ("product", None),
    ("zip_longest", None),
    ("islice", Some(&[0])),
    ("combinations", Some(&[0])),
    ("combinations_with_replacement", Some(&[0])),
    ("permutations", Some(&[0])),
    ("pairwise", Some(&[0])),
    ("batched", Some(&[0])),
    ("compress", Some(&[0])),
];

/// The `__module__` of a callable, as a string.
pub fn module_of(obj: &PyObject, vm: &VirtualMachine) -> Option<String> {
    let m = obj.get_attr("__module__", vm).ok()?;
    m.downcast_ref::<PyStr>()?.to_str().map(str::to_owned)
}

fn unsupported(what: impl Into<String>) -> GraphBreak {
    GraphBreak::new(GraphBreakKind::UnsupportedCall, what)
}

impl Tracer<'_> {
    /// A builtin function of a modelled module (`operator.add`, `math.sqrt`,
    /// `functools.reduce`); `None` when `obj` is not one.
    pub(crate) fn call_stdlib_function(
        &mut self,
        obj: &PyObjectRef,
        name: &str,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Option<Result<Vt, GraphBreak>> {
        let module = module_of(obj, self.vm)?;
        match module.as_str() {
            "math" if kwargs.is_empty() && args.len() == 1 => {
                // `math.sqrt(n / 2)`, `math.floor(n / 2)` of SymFloats stay symbolic.
                let f = match name {
                    "sqrt" => Some(super::sym::FloatFn::Sqrt),
                    "floor" => Some(super::sym::FloatFn::Floor),
                    "ceil" => Some(super::sym::FloatFn::Ceil),
                    _ => None,
                };
                match f.and_then(|f| self.sym_float_fn(f, &args[0])) {
                    Some(v) => Some(Ok(v)),
                    None => Some(self.fold_pure(obj, name, args, kwargs)),
                }
            }
            "math" | "cmath" => Some(self.fold_pure(obj, name, args, kwargs)),
            "_operator" | "operator" if kwargs.is_empty() => {
                Some(self.call_operator(name, args.to_vec()))
            }
            "_functools" | "functools" if name == "reduce" && kwargs.is_empty() => {
                Some(self.functools_reduce(args.to_vec()))
            }
            "itertools" if name == "tee" => Some(self.call_polyfill("tee", args, kwargs)),
            _ if name == "from_iterable"
                && obj
                    .get_attr("__self__", self.vm)
                    .is_ok_and(|c| module_of(&c, self.vm).as_deref() == Some("itertools")) =>
            {
                Some(self.call_polyfill("chain_from_iterable", args, kwargs))
            }
            _ => None,
        }
    }

    /// A call of a pure function on constants, made for real.
    fn fold_pure(
        &mut self,
        obj: &PyObjectRef,
        name: &str,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Result<Vt, GraphBreak> {
        // Constants, and fresh copies of containers of them (`math.prod([1, 2])`): these
        // functions neither keep nor change their arguments.
        let consts = super::variables::python_value::python_values(args, self.vm);
        let kw: Option<Vec<(String, PyObjectRef)>> = kwargs
            .iter()
            .map(|(k, v)| self.python_value(v).map(|c| (k.clone(), c)))
            .collect();
        match (consts, kw) {
            (Some(c), Some(kw)) => self.fold(obj, c, kw),
            _ => Err(unsupported(format!(
                "math.{name} of values only known when the graph runs"
            ))),
        }
    }

    /// A builtin method bound to a class that Dynamo models through a polyfill
    /// (`itertools.chain.from_iterable`); `None` for anything else.
    pub(crate) fn call_bound_builtin(
        &mut self,
        o: &PyObjectRef,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Option<Result<Vt, GraphBreak>> {
        let vm = self.vm;
        let owner = o.get_attr("__self__", vm).ok()?;
        let name = o.get_attr("__name__", vm).ok()?.str(vm).ok()?.to_string();
        // A method bound to an immutable constant (`keyword.iskeyword`, which is
        // `frozenset(kwlist).__contains__`): pure on constant arguments.
        if matches!(wrap_unguarded(owner.clone(), vm).kind, Kind::Const(_))
            && let Some(a) = super::variables::python_value::python_values(args, vm)
            && kwargs.is_empty()
        {
            return Some(self.fold(o, a, Vec::new()));
        }
        // `cls.__subclasses__()` / `cls.mro()`: what the class hierarchy is now (Dynamo answers
        // these from the live classes too).
        if matches!(name.as_str(), "__subclasses__" | "mro")
            && owner
                .downcast_ref::<rustpython_vm::builtins::PyType>()
                .is_some()
            && args.is_empty()
            && kwargs.is_empty()
        {
            return Some(self.fold(o, Vec::new(), Vec::new()));
        }
        let chain = super::bridge::import_module("itertools", vm)
            .and_then(|m| m.get_attr("chain", vm))
            .ok()?;
        (owner.is(&chain) && name == "from_iterable")
            .then(|| self.call_polyfill("chain_from_iterable", args, kwargs))
    }

    /// A generator function of `torch/_dynamo/polyfills.py`, called with these arguments (its
    /// body is traced lazily, like any generator's).
    pub(crate) fn call_polyfill(
        &mut self,
        name: &str,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Result<Vt, GraphBreak> {
        let f = super::bridge::import_module("torch._dynamo.polyfills", self.vm)
            .and_then(|m| m.get_attr(&self.vm.ctx.new_str(name), self.vm))
            .map_err(|_| unsupported(format!("polyfill {name}")))?;
        self.call_vt(wrap_unguarded(f, self.vm), args.to_vec(), kwargs.to_vec())
    }

    /// `operator.<name>(*args)`: the operator itself.
    fn call_operator(&mut self, name: &str, args: Vec<Vt>) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let bad = || unsupported(format!("operator.{name} with these arguments"));
        if let Some(consts) = self.all_consts(&args)
            && !matches!(name, "setitem" | "delitem")
            && let Some(f) = self.operator_fn(name)
        {
            // On constants every `operator` function is the pure operation it names.
            return self.fold(&f, consts, vec![]);
        }
        // Functions that only read their arguments and return a new constant: on fresh copies
        // (converted together, so aliasing between the arguments survives). Not `getitem` and
        // kin (they return parts of the argument, which a copy would not be) nor in-place ones.
        if matches!(
            name,
            "countOf" | "indexOf" | "contains" | "length_hint" | "truth" | "not_"
        ) && let Some(values) = super::variables::python_value::python_values(&args, vm)
            && let Some(f) = self.operator_fn(name)
        {
            return self.fold(&f, values, vec![]);
        }
        if let ("length_hint", [x, ..]) | ("index", [x]) = (name, args.as_slice())
            && !matches!(x.kind, Kind::Const(_))
        {
            let len = self.vm.builtins.get_attr("len", vm).map_err(|_| bad())?;
            return match name {
                "length_hint" => self.call_builtin(&len, "len", vec![x.clone()], vec![]),
                _ => Err(bad()),
            };
        }
        if let Some(o) = rynamo_graph::PyOperator::from_name(name).filter(|o| o.is_binary()) {
            let [a, b] = <[Vt; 2]>::try_from(args).map_err(|_| bad())?;
            return self.binary(o as usize, a, b);
        }
        let cmp = ["lt", "le", "eq", "ne", "gt", "ge"];
        if let Some(i) = cmp.iter().position(|c| *c == name) {
            let [a, b] = <[Vt; 2]>::try_from(args).map_err(|_| bad())?;
            return self.compare(i, a, b);
        }
        match (name, args.as_slice()) {
            ("concat", [a, b]) => self.binary(0, a.clone(), b.clone()),
            ("getitem", [a, b]) => self.getitem(a.clone(), b.clone()),
            ("setitem", [a, b, c]) => {
                self.setitem(a.clone(), b.clone(), c.clone())?;
                Ok(Vt::constant(vm.ctx.none()))
            }
            ("contains", [a, b]) => {
                let found = self.contains(a, b)?;
                Ok(Vt::constant(vm.ctx.new_bool(found).into()))
            }
            ("not_", [a]) | ("truth", [a]) => {
                let t = self.truth(a)?;
                Ok(Vt::constant(vm.ctx.new_bool(t == (name == "truth")).into()))
            }
            ("neg" | "pos" | "invert" | "inv" | "abs", [a]) => match &a.kind {
                Kind::Tensor(_) => {
                    let m = match name {
                        "neg" => "neg",
                        "abs" => "abs",
                        "pos" => return Ok(a.clone()),
                        _ => "bitwise_not",
                    };
                    self.call_tensor_method(a.clone(), m, vec![], vec![])
                }
                Kind::Const(c) => {
                    let f = self.operator_fn(name).ok_or_else(bad)?;
                    self.fold(&f, vec![c.clone()], vec![])
                }
                _ => Err(bad()),
            },
            ("is_" | "is_not", [a, b]) => {
                let (Some(x), Some(y)) = (a.as_const(), b.as_const()) else {
                    return Err(bad());
                };
                Ok(Vt::constant(
                    vm.ctx.new_bool(x.is(y) == (name == "is_")).into(),
                ))
            }
            _ => Err(bad()),
        }
    }

    /// `functools.reduce(f, iterable[, initial])`.
    fn functools_reduce(&mut self, args: Vec<Vt>) -> Result<Vt, GraphBreak> {
        let (f, seq, initial) = match args.as_slice() {
            [f, s] => (f.clone(), s.clone(), None),
            [f, s, i] => (f.clone(), s.clone(), Some(i.clone())),
            _ => return Err(unsupported("functools.reduce arguments")),
        };
        let mut items = self.unpack_iterable(&seq)?.into_iter();
        let mut acc = match initial {
            Some(i) => i,
            None => items.next().ok_or_else(|| {
                GraphBreak::new(
                    GraphBreakKind::OpError,
                    "reduce() of empty iterable with no initial value",
                )
            })?,
        };
        for it in items {
            acc = self.call_vt(f.clone(), vec![acc, it], Vec::new())?;
        }
        Ok(acc)
    }

    /// A class of a modelled module called (`functools.partial`, `itertools.product`,
    /// `operator.itemgetter`); `None` when `cls` is not one.
    pub(crate) fn call_stdlib_class(
        &mut self,
        cls: &PyObjectRef,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Option<Result<Vt, GraphBreak>> {
        let vm = self.vm;
        // `torch.finfo(dtype)` / `torch.iinfo(dtype)` of a constant dtype, `torch.device("cpu")`:
        // immutable values, made for real while tracing (their attributes are constants).
        if ["finfo", "iinfo", "device"]
            .iter()
            .any(|n| super::bridge::torch_attr(n, vm).is_some_and(|c| c.is(cls)))
            && kwargs.is_empty()
        {
            let consts = args
                .iter()
                .map(|a| a.as_const().cloned())
                .collect::<Option<Vec<_>>>()?;
            return cls
                .call(consts, vm)
                .ok()
                .map(|info| Ok(super::variables::builder::wrap_unguarded(info, vm)));
        }
        // `torch.Size(sizes)` of ints (a tuple, list or Size, constant or built in the frame):
        // the constant Size, as PyTorch's SizeVariable of constants. A SymInt among the sizes is
        // specialised (`as_const`).
        if super::bridge::torch_attr("Size", vm).is_some_and(|c| c.is(cls))
            && kwargs.is_empty()
            && args.len() <= 1
        {
            let items = match args.first() {
                None => Vec::new(),
                Some(a) => match self.unpack_iterable(a) {
                    Ok(items) => items,
                    Err(e) => return Some(Err(e)),
                },
            };
            let consts = items
                .iter()
                .map(|a| a.as_const().cloned())
                .collect::<Option<Vec<_>>>()?;
            return cls
                .call((vm.ctx.new_tuple(consts),), vm)
                .ok()
                .map(|size| Ok(super::variables::builder::wrap_unguarded(size, vm)));
        }
        let module = module_of(cls, vm)?;
        let name = cls
            .get_attr("__name__", vm)
            .ok()?
            .downcast_ref::<PyStr>()?
            .to_str()?
            .to_owned();
        match (module.as_str(), name.as_str()) {
            ("collections", n) => self.construct_collection(cls, n, args, kwargs),
            ("functools", "partial") => Some(self.make_partial(args, kwargs)),
            // Lazy ones (and `islice` over an iterator someone holds): polyfill generators.
            ("itertools", "starmap" | "takewhile" | "dropwhile" | "cycle" | "groupby") => {
                Some(self.call_polyfill(&name, args, kwargs))
            }
            ("itertools", "islice")
                if args
                    .first()
                    .is_some_and(|a| matches!(a.kind, Kind::Iter(_) | Kind::Generator(_))) =>
            {
                Some(self.call_polyfill("islice", args, kwargs))
            }
            ("itertools", "accumulate") => Some(self.itertools_accumulate(cls, args, kwargs)),
            ("itertools", "repeat") => Some(self.itertools_repeat(args, kwargs)),
            // Infinite: its Python polyfill, a generator Dynamo runs lazily.
            ("itertools", "count") => {
                let f = super::bridge::import_module("torch._dynamo.polyfills", vm)
                    .and_then(|m| m.get_attr("count", vm))
                    .ok()?;
                Some(self.call_vt(
                    super::variables::builder::wrap_unguarded(f, vm),
                    args.to_vec(),
                    kwargs.to_vec(),
                ))
            }
            ("itertools", other) => {
                let spec = ITERTOOLS.iter().find(|(n, _)| *n == other)?;
                Some(self.itertools_tokens(cls, other, spec.1, args, kwargs))
            }
            ("operator", "itemgetter" | "attrgetter" | "methodcaller") => {
                // Immutable helpers: made for real from constants, applied when called.
                let consts = self.all_consts(args)?;
                if !kwargs.is_empty() {
                    return None;
                }
                Some(self.fold(cls, consts, vec![]))
            }
            _ => None,
        }
    }

    fn make_partial(&mut self, args: &[Vt], kwargs: &[(String, Vt)]) -> Result<Vt, GraphBreak> {
        let (func, rest) = args
            .split_first()
            .ok_or_else(|| unsupported("functools.partial() without a function"))?;
        // partial(partial(f, a), b) flattens, as CPython does.
        let (func, mut pargs, mut pkw) = match &func.kind {
            Kind::Partial(p) => (p.func.clone(), p.args.clone(), p.keywords.clone()),
            _ => (func.clone(), Vec::new(), Vec::new()),
        };
        pargs.extend(rest.iter().cloned());
        for (k, v) in kwargs {
            match pkw.iter_mut().find(|(n, _)| n == k) {
                Some(slot) => slot.1 = v.clone(),
                None => pkw.push((k.clone(), v.clone())),
            }
        }
        Ok(Vt::new(Kind::Partial(Rc::new(PartialVar {
            func,
            args: pargs,
            keywords: pkw,
        }))))
    }

    /// Calls a partial: its stored arguments first, call keywords overriding stored ones.
    pub(crate) fn call_partial(
        &mut self,
        p: &PartialVar,
        args: Vec<Vt>,
        kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let mut all = p.args.clone();
        all.extend(args);
        let mut kw = p.keywords.clone();
        for (k, v) in kwargs {
            match kw.iter_mut().find(|(n, _)| *n == k) {
                Some(slot) => slot.1 = v,
                None => kw.push((k, v)),
            }
        }
        self.call_vt(p.func.clone(), all, kw)
    }

    /// Calls an `operator.itemgetter` / `attrgetter` object.
    pub(crate) fn call_getter(
        &mut self,
        getter: &PyObjectRef,
        args: Vec<Vt>,
    ) -> Option<Result<Vt, GraphBreak>> {
        let vm = self.vm;
        let cls_name = getter.class().name().to_string();
        if !matches!(cls_name.as_str(), "itemgetter" | "attrgetter")
            || module_of(getter.class().as_object(), vm).as_deref() != Some("operator")
        {
            return None;
        }
        let [target] = <[Vt; 1]>::try_from(args).ok()?;
        let reduced = vm.call_method(getter, "__reduce__", ()).ok()?;
        let parts = vm.extract_elements_with(&reduced, Ok).ok()?;
        let keys = vm.extract_elements_with(parts.get(1)?, Ok).ok()?;
        let mut out = Vec::with_capacity(keys.len());
        for k in keys {
            let v = if cls_name == "itemgetter" {
                self.getitem(target.clone(), wrap_unguarded(k, vm))
            } else {
                let path = k.downcast_ref::<PyStr>()?.to_str()?.to_owned();
                let mut v = Ok(target.clone());
                for part in path.split('.') {
                    v = v.and_then(|o| self.get_attr(o, part));
                }
                v
            };
            match v {
                Ok(v) => out.push(v),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(if out.len() == 1 {
            out.remove(0)
        } else {
            Vt::new(Kind::Tuple(out))
        }))
    }

    /// `itertools.accumulate(iterable[, func][, initial=])`.
    fn itertools_accumulate(
        &mut self,
        cls: &PyObjectRef,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Result<Vt, GraphBreak> {
        let (seq, func) = match args {
            [s] => (s, None),
            [s, f] => (s, Some(f.clone())),
            _ => return Err(unsupported("itertools.accumulate arguments")),
        };
        let initial = match kwargs {
            [] => None,
            [(k, v)] if k == "initial" => Some(v.clone()),
            _ => return Err(unsupported("itertools.accumulate keywords")),
        };
        self.no_lazy_sources("accumulate", std::slice::from_ref(seq))?;
        let items = self.unpack_iterable(seq)?;
        if func.is_none()
            && let (Some(consts), None) = (self.all_consts(&items), &initial)
        {
            let list = self.vm.ctx.new_list(consts).into();
            let r = self.fold(cls, vec![list], vec![])?;
            return self.materialize(r);
        }
        let mut out = Vec::with_capacity(items.len() + 1);
        let mut acc = initial;
        if let Some(a) = &acc {
            out.push(a.clone());
        }
        for it in items {
            let next = match (acc, &func) {
                (None, _) => it,
                (Some(a), None) => self.binary(0, a, it)?,
                (Some(a), Some(f)) => self.call_vt(f.clone(), vec![a, it], Vec::new())?,
            };
            out.push(next.clone());
            acc = Some(next);
        }
        Ok(super::variables::iter::iter_of(out))
    }

    /// `itertools.repeat(obj, times)` (without `times` it never ends: a break).
    fn itertools_repeat(&mut self, args: &[Vt], kwargs: &[(String, Vt)]) -> Result<Vt, GraphBreak> {
        let times = match (args, kwargs) {
            ([_, t], []) => t,
            ([_], [(k, t)]) if k == "times" => t,
            _ => return Err(unsupported("itertools.repeat without a count never ends")),
        };
        let n = times
            .as_const()
            .and_then(|c| c.try_to_value::<i64>(self.vm).ok())
            .ok_or_else(|| unsupported("itertools.repeat count"))?;
        let n = usize::try_from(n.max(0)).unwrap_or(0).min(MAX_ITEMS + 1);
        if n > MAX_ITEMS {
            return Err(unsupported("itertools.repeat count too large to unroll"));
        }
        Ok(super::variables::iter::iter_of(vec![args[0].clone(); n]))
    }

    /// Iterator arguments that others may share (or generators) make up-front unrolling
    /// unfaithful; those calls break.
    fn no_lazy_sources(&self, name: &str, args: &[Vt]) -> Result<(), GraphBreak> {
        if args
            .iter()
            .any(|a| matches!(a.kind, Kind::Iter(_) | Kind::Generator(_)))
        {
            return Err(unsupported(format!(
                "itertools.{name} over an iterator or generator object"
            )));
        }
        Ok(())
    }

    /// A finite `itertools` call: each item of each iterable argument becomes a fresh token
    /// object, the real function runs on the token lists, and tokens in its output are mapped
    /// back to the items (so ordering, grouping and edge cases are exactly Python's).
    fn itertools_tokens(
        &mut self,
        cls: &PyObjectRef,
        name: &str,
        iterable_positions: Option<&[usize]>,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let mut tokens: HashMap<usize, Vt> = HashMap::new();
        let mut call_args = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            let is_iterable = iterable_positions.is_none_or(|p| p.contains(&i));
            if !is_iterable {
                call_args.push(
                    self.python_value(a)
                        .ok_or_else(|| unsupported(format!("itertools.{name} argument")))?,
                );
                continue;
            }
            self.no_lazy_sources(name, std::slice::from_ref(a))?;
            let items = self.unpack_iterable(a)?;
            let mut objs = Vec::with_capacity(items.len());
            for it in items {
                let tok = vm
                    .ctx
                    .types
                    .object_type
                    .as_object()
                    .call((), vm)
                    .map_err(|_| unsupported("token"))?;
                tokens.insert(&*tok as *const PyObject as usize, it);
                objs.push(tok);
            }
            call_args.push(vm.ctx.new_list(objs).into());
        }
        let kw = kwargs
            .iter()
            .map(|(k, v)| {
                self.python_value(v)
                    .map(|c| (k.clone(), c))
                    .ok_or_else(|| unsupported(format!("itertools.{name} keyword")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let it = self.fold(cls, call_args, kw)?;
        let it = match it.kind {
            Kind::Object(o) | Kind::Const(o) => o,
            _ => return Err(unsupported(format!("itertools.{name} result"))),
        };
        let items = self.take_finite(&it, name)?;
        let mapped = items
            .iter()
            .map(|o| map_tokens(o, &tokens, vm))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(super::variables::iter::iter_of(mapped))
    }

    /// Every item of a real iterator, up to the limit.
    fn take_finite(&self, it: &PyObjectRef, name: &str) -> Result<Vec<PyObjectRef>, GraphBreak> {
        let vm = self.vm;
        let mut out = Vec::new();
        let iter = it
            .get_iter(vm)
            .map_err(|_| unsupported(format!("itertools.{name} result")))?;
        loop {
            match iter.next(vm) {
                Ok(rustpython_vm::protocol::PyIterReturn::Return(v)) => out.push(v),
                Ok(rustpython_vm::protocol::PyIterReturn::StopIteration(_)) => break,
                Err(_) => return Err(unsupported(format!("itertools.{name} raised"))),
            }
            if out.len() > MAX_ITEMS {
                return Err(unsupported(format!(
                    "itertools.{name} produced more than {MAX_ITEMS} items"
                )));
            }
        }
        Ok(out)
    }

    /// A real iterator (from folding on constants) as an unrolled iterator of constants.
    fn materialize(&mut self, v: Vt) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let obj = match v.kind {
            Kind::Object(o) | Kind::Const(o) => o,
            _ => return Ok(v),
        };
        let items = self.take_finite(&obj, "result")?;
        Ok(super::variables::iter::iter_of(
            items.into_iter().map(|i| wrap_fresh(i, vm)).collect(),
        ))
    }
}

/// Replaces token objects (and tuples of them) with the trackers they stand for.
fn map_tokens(
    o: &PyObjectRef,
    tokens: &HashMap<usize, Vt>,
    vm: &VirtualMachine,
) -> Result<Vt, GraphBreak> {
    if let Some(v) = tokens.get(&(&**o as *const PyObject as usize)) {
        return Ok(v.clone());
    }
    if o.class().is(vm.ctx.types.tuple_type) {
        let items = vm
            .extract_elements_with(o, Ok)
            .map_err(|_| unsupported("itertools tuple"))?;
        let mapped = items
            .iter()
            .map(|i| map_tokens(i, tokens, vm))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Vt::new(Kind::Tuple(mapped)));
    }
    if o.class().is(vm.ctx.types.list_type) {
        let items = vm
            .extract_elements_with(o, Ok)
            .map_err(|_| unsupported("itertools list"))?;
        let mapped = items
            .iter()
            .map(|i| map_tokens(i, tokens, vm))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Vt::new(Kind::List(Rc::new(std::cell::RefCell::new(
            super::variables::ListVar {
                items: mapped,
                mutated: false,
                ..Default::default()
            },
        )))));
    }
    Ok(wrap_unguarded(o.clone(), vm))
}
