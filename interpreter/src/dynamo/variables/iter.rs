//! Iterators in a trace (Dynamo's `variables/iter.py`): `iter`, `enumerate`, `zip` and
//! `reversed` unroll to [`Kind::Iter`] trackers holding their remaining items, and
//! [`Tracer::unpack_iterable`] gives the items of anything Dynamo can iterate.

use std::cell::RefCell;
use std::rc::Rc;

use super::super::bridge;
use super::super::builtins::bad_args;
use super::super::exc::{GraphBreak, GraphBreakKind};
use super::super::symbolic_convert::Tracer;
use super::builder::wrap_unguarded;
use super::{IterVar, Kind, Vt};

impl Tracer<'_> {
    /// `enumerate`/`zip`/`reversed(*args, **kwargs)`; `None` for other builtins.
    pub(crate) fn call_iterator_builtin(
        &mut self,
        name: &str,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Option<Result<Vt, GraphBreak>> {
        if !matches!(name, "enumerate" | "zip" | "reversed") {
            return None;
        }
        Some(self.iterator_builtin(name, args, kwargs))
    }

    fn iterator_builtin(
        &mut self,
        name: &str,
        args: &[Vt],
        kwargs: &[(String, Vt)],
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        if name == "zip"
            && kwargs.is_empty()
            && let Some(r) = self.zip_with_polyfill_generators(args)
        {
            return r;
        }
        // enumerate/zip/reversed pull lazily in Python: over an iterator that others share (or a
        // generator, whose body has effects) unrolling all of it up front could consume too much.
        // An iterator held only by this call's arguments (`enumerate(zip(a, b))`) is unobservable
        // afterwards, so draining it now cannot differ from Python's lazy pulls.
        if args.iter().any(|a| match &a.kind {
            Kind::Iter(it) => name == "reversed" || !self.iterator_unshared(it),
            Kind::Generator(_) => true,
            _ => false,
        }) {
            return Err(GraphBreak::new(
                GraphBreakKind::BuiltinCall,
                format!("`{name}` over an iterator or generator object"),
            ));
        }
        match name {
            "enumerate" => {
                let x = args.first().ok_or_else(|| bad_args(name))?;
                let start = match args
                    .get(1)
                    .or_else(|| kwargs.iter().find(|(k, _)| k == "start").map(|(_, v)| v))
                {
                    Some(s) => s
                        .as_const()
                        .and_then(|c| c.try_to_value::<i64>(vm).ok())
                        .ok_or_else(|| bad_args(name))?,
                    None => 0,
                };
                let items = self.unpack_iterable(x)?;
                let pairs = items
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| {
                        Vt::new(Kind::Tuple(vec![
                            Vt::constant(vm.ctx.new_int(start + i as i64).into()),
                            v,
                        ]))
                    })
                    .collect();
                Ok(iter_of(pairs))
            }
            "zip" => {
                // A break rebuilds the iterators of the state before this call: one argument
                // failing to unpack must leave the earlier ones where they were.
                let positions: Vec<_> = args
                    .iter()
                    .filter_map(|a| match &a.kind {
                        Kind::Iter(it) => Some((it.clone(), it.borrow().pos)),
                        _ => None,
                    })
                    .collect();
                let lists = args
                    .iter()
                    .map(|a| self.unpack_iterable(a))
                    .collect::<Result<Vec<_>, _>>()
                    .inspect_err(|_| {
                        for (it, pos) in &positions {
                            it.borrow_mut().pos = *pos;
                        }
                    })?;
                let n = lists.iter().map(Vec::len).min().unwrap_or(0);
                let tuples = (0..n)
                    .map(|i| Vt::new(Kind::Tuple(lists.iter().map(|l| l[i].clone()).collect())))
                    .collect();
                Ok(iter_of(tuples))
            }
            "reversed" => {
                let [x] = args else {
                    return Err(bad_args(name));
                };
                let mut items = self.unpack_iterable(x)?;
                items.reverse();
                Ok(iter_of(items))
            }
            _ => Err(bad_args(name)),
        }
    }

    /// Whether only the current call's arguments hold the iterator `it` (besides the compiled
    /// frame's state before this instruction, which a break would rebuild from).
    fn iterator_unshared(&self, it: &Rc<RefCell<IterVar>>) -> bool {
        let in_state = self.before.as_ref().map_or(0, |s| {
            s.stack
                .iter()
                .chain(s.locals.iter().flatten())
                .filter(|v| matches!(&v.kind, Kind::Iter(o) if Rc::ptr_eq(o, it)))
                .count()
        });
        Rc::strong_count(it) == 1 + in_state
    }

    /// The items an iterable yields, when Dynamo can know them (unrolling).
    pub(crate) fn unpack_iterable(&mut self, x: &Vt) -> Result<Vec<Vt>, GraphBreak> {
        let vm = self.vm;
        match &x.kind {
            Kind::Tuple(items) | Kind::NamedTuple(_, items) => Ok(items.clone()),
            Kind::List(l) => Ok(l.borrow().items.clone()),
            Kind::Dict(d) => Ok(d
                .borrow()
                .items
                .iter()
                .map(|(k, _)| Vt::constant(k.clone()))
                .collect()),
            Kind::DictView(d, view) => Ok(d
                .borrow()
                .items
                .iter()
                .map(|(k, v)| match view {
                    super::ViewKind::Keys => Vt::constant(k.clone()),
                    super::ViewKind::Values => v.clone(),
                    super::ViewKind::Items => {
                        Vt::new(Kind::Tuple(vec![Vt::constant(k.clone()), v.clone()]))
                    }
                })
                .collect()),
            Kind::Generator(g) => self.gen_drain(&g.clone()),
            Kind::Set(s) => {
                let items = vm
                    .extract_elements_with(s, Ok)
                    .map_err(|_| bad_args("iter"))?;
                Ok(items.into_iter().map(|i| wrap_unguarded(i, vm)).collect())
            }
            Kind::Iter(it) => {
                let mut it = it.borrow_mut();
                let rest = it.items[it.pos..].to_vec();
                it.pos = it.items.len();
                Ok(rest)
            }
            Kind::Tensor(t) => {
                self.out.specialise(t.value, Some(0));
                let n = *t.meta().shape.first().ok_or_else(|| {
                    GraphBreak::new(GraphBreakKind::OpError, "iteration over a 0-d tensor")
                })?;
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    let idx = Vt::constant(vm.ctx.new_int(i).into());
                    out.push(self.tensor_getitem(x.clone(), idx)?);
                }
                Ok(out)
            }
            Kind::Const(c) => {
                let items = vm.extract_elements_with(c, Ok).map_err(|_| {
                    GraphBreak::new(
                        GraphBreakKind::UnsupportedOperation,
                        format!("iteration over {}", x.describe()),
                    )
                })?;
                Ok(items.into_iter().map(|i| wrap_unguarded(i, vm)).collect())
            }
            Kind::NNModule(_)
                if let Some(it) = self.built_module_dunder(x, "__iter__", Vec::new()) =>
            {
                self.unpack_iterable(&it?)
            }
            Kind::NNModule(m) => {
                // ModuleList / Sequential iterate their children: read them through the module
                // (which ones, and in what order, guarded).
                self.guard_module_children(x)?;
                let items = vm
                    .extract_elements_with(m, Ok)
                    .map_err(|_| bad_args("iter"))?;
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    let vt = match &x.source {
                        // A ModuleDict iterates its keys: constants, pinned by the guard above.
                        _ if !bridge::is_nn_module(&item, vm) => wrap_unguarded(item, vm),
                        Some(src) => {
                            let key = bridge::module_child_key(m, i, vm)
                                .ok_or_else(|| bad_args("iter"))?;
                            super::builder::wrap(
                                self.out,
                                item,
                                src.attr("_modules")
                                    .item(super::super::source::Key::Str(key.into())),
                                vm,
                            )
                        }
                        None => wrap_unguarded(item, vm),
                    };
                    out.push(vt);
                }
                Ok(out)
            }
            _ => Err(GraphBreak::new(
                GraphBreakKind::UnsupportedOperation,
                format!("iteration over {}", x.describe()),
            )),
        }
    }

    /// `iter(x)`: an unrolled iterator.
    pub(crate) fn make_iter(&mut self, x: Vt) -> Result<Vt, GraphBreak> {
        if let Kind::Iter(_) | Kind::Generator(_) = x.kind {
            return Ok(x);
        }
        let items = self.unpack_iterable(&x)?;
        Ok(iter_of(items))
    }

    /// `zip` over sequences and Dynamo's own polyfill generators (`itertools.count`: pure, so
    /// pulling their items up front, round by round as zip does, is unobservable); `None` for
    /// anything else. At least one argument must be a finite sequence.
    fn zip_with_polyfill_generators(&mut self, args: &[Vt]) -> Option<Result<Vt, GraphBreak>> {
        let is_polyfill = |g: &Rc<RefCell<super::GenState>>| {
            g.borrow().code.code.source_path.as_str() == "torch._dynamo.polyfills"
        };
        let mut finite = false;
        for a in args {
            match &a.kind {
                Kind::Generator(g) if is_polyfill(g) => {}
                Kind::Tuple(_) | Kind::List(_) => finite = true,
                _ => return None,
            }
        }
        if !finite {
            return None;
        }
        let mut rows = Vec::new();
        'rounds: for i in 0.. {
            let mut row = Vec::with_capacity(args.len());
            for a in args {
                let item = match &a.kind {
                    Kind::Tuple(items) => items.get(i).cloned(),
                    Kind::List(l) => l.borrow().items.get(i).cloned(),
                    Kind::Generator(g) => match self.gen_next(g) {
                        Ok(item) => item,
                        Err(e) => return Some(Err(e)),
                    },
                    _ => None,
                };
                match item {
                    Some(item) => row.push(item),
                    None => break 'rounds,
                }
            }
            rows.push(Vt::new(Kind::Tuple(row)));
        }
        Some(Ok(iter_of(rows)))
    }
}

/// An unrolled iterator over `items`.
pub fn iter_of(items: Vec<Vt>) -> Vt {
    Vt::new(Kind::Iter(Rc::new(RefCell::new(IterVar { items, pos: 0 }))))
}
