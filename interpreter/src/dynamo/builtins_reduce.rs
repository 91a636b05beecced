//! Builtins that reduce an iterable: `min`/`max` (`key=`, `default=`, over tensors), `sum`
//! (`start=`), `sorted`, `any`/`all` over trackers, and `abs`.

use std::cell::RefCell;
use std::rc::Rc;

use rustpython_vm::{AsObject, PyObjectRef};

use super::bridge;
use super::builtins::bad_args;
use super::exc::{GraphBreak, GraphBreakKind};
use super::symbolic_convert::Tracer;
use super::variables::builder::wrap_unguarded;
use super::variables::{Kind, ListVar, Vt};

impl Tracer<'_> {
    /// `min`/`max`/`sum`/`any`/`all`/`sorted`/`abs` on tracked values.
    pub(crate) fn reduce_builtin(
        &mut self,
        obj: &PyObjectRef,
        name: &str,
        mut args: Vec<Vt>,
        mut kwargs: Vec<(String, Vt)>,
    ) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        if name == "abs" {
            let [x] = args.as_slice() else {
                return Err(bad_args(name));
            };
            if x.as_tensor().is_some() {
                return self.call_tensor_method(x.clone(), "abs", vec![], vec![]);
            }
            return Err(bad_args(name));
        }
        if matches!(name, "any" | "all") {
            let [x] = args.as_slice() else {
                return Err(bad_args(name));
            };
            return self.any_all(name == "any", x);
        }
        let mut kwarg = |k: &str| {
            kwargs
                .iter()
                .position(|(n, _)| n == k)
                .map(|i| kwargs.remove(i).1)
        };
        let key = kwarg("key");
        let reverse = kwarg("reverse");
        let default = kwarg("default");
        let start = kwarg("start");
        if !kwargs.is_empty() {
            return Err(bad_args(name));
        }
        let start = match (name, start) {
            ("sum", Some(s)) if args.len() == 1 => Some(s),
            ("sum", None) if args.len() == 2 => args.pop(),
            (_, Some(_)) => return Err(bad_args(name)),
            _ => None,
        };
        // min/max take either one iterable or several values; the others one iterable.
        let items = match args.as_slice() {
            [x] => self.unpack_iterable(x)?,
            many if matches!(name, "min" | "max") && many.len() > 1 => many.to_vec(),
            _ => return Err(bad_args(name)),
        };
        if matches!(name, "min" | "max")
            && key.is_none()
            && let Some(r) = self.min_max_of_tensors(name == "max", &items)
        {
            return r;
        }
        let keys = match &key {
            Some(k) if !k.as_const().is_some_and(|c| vm.is_none(c)) => {
                let mut keys = Vec::with_capacity(items.len());
                for it in &items {
                    let kv = self.call_vt(k.clone(), vec![it.clone()], Vec::new())?;
                    keys.push(kv.as_const().cloned().ok_or_else(|| bad_args(name))?);
                }
                Some(keys)
            }
            _ => None,
        };
        match name {
            "sum" => {
                // Python's sum: start (0) + each item, left to right.
                let mut acc = start.unwrap_or_else(|| Vt::constant(vm.ctx.new_int(0).into()));
                if let (Some(c), Some(consts)) = (acc.as_const().cloned(), self.all_consts(&items))
                {
                    // Python's own sum (it compensates float rounding; `+` one by one does not).
                    let list = vm.ctx.new_list(consts).into();
                    return self.fold(obj, vec![list, c], vec![]);
                }
                for it in items {
                    acc = self.binary(0, acc, it)?;
                }
                Ok(acc)
            }
            "sorted" | "min" | "max" => {
                let reverse = match &reverse {
                    None => false,
                    Some(r) => r
                        .as_const()
                        .and_then(|c| c.clone().try_to_bool(vm).ok())
                        .ok_or_else(|| bad_args(name))?,
                };
                if name != "sorted" && reverse {
                    return Err(bad_args(name));
                }
                // Order positions by the (constant) keys with Python's own sort or min/max, so
                // ties and stability are exactly Python's; the items themselves may be anything.
                let keys = match keys {
                    Some(k) => k,
                    None => self.all_consts(&items).ok_or_else(|| {
                        GraphBreak::new(
                            GraphBreakKind::DataDependentBranch,
                            format!("{name}() of tensors compares their values"),
                        )
                    })?,
                };
                if items.is_empty() && name != "sorted" {
                    return default.ok_or_else(|| {
                        GraphBreak::new(
                            GraphBreakKind::OpError,
                            format!("{name}() of an empty sequence"),
                        )
                    });
                }
                let keys = vm.ctx.new_list(keys);
                let getter = keys
                    .as_object()
                    .get_attr("__getitem__", vm)
                    .map_err(|_| bad_args(name))?;
                let positions: PyObjectRef = vm
                    .ctx
                    .new_list((0..items.len()).map(|i| vm.ctx.new_int(i).into()).collect())
                    .into();
                let mut kw = vec![("key".to_owned(), getter)];
                if name == "sorted" {
                    kw.push(("reverse".to_owned(), vm.ctx.new_bool(reverse).into()));
                }
                let r = self.fold(obj, vec![positions], kw)?;
                let pick = |p: &PyObjectRef| -> Result<Vt, GraphBreak> {
                    let i = p.try_to_value::<usize>(vm).map_err(|_| bad_args(name))?;
                    items.get(i).cloned().ok_or_else(|| bad_args(name))
                };
                match &r.kind {
                    Kind::List(l) => {
                        let picked = l
                            .borrow()
                            .items
                            .iter()
                            .map(|p| p.as_const().ok_or_else(|| bad_args(name)).and_then(pick))
                            .collect::<Result<Vec<_>, _>>()?;
                        Ok(Vt::new(Kind::List(Rc::new(RefCell::new(ListVar {
                            items: picked,
                            mutated: false,
                            ..Default::default()
                        })))))
                    }
                    Kind::Const(p) => pick(p),
                    _ => Err(bad_args(name)),
                }
            }
            _ => Err(bad_args(name)),
        }
    }

    /// `any(x)` / `all(x)`: short-circuits like Python (a generator stops being resumed).
    fn any_all(&mut self, any: bool, x: &Vt) -> Result<Vt, GraphBreak> {
        let vm = self.vm;
        let decide = |this: &mut Self, v: &Vt| -> Result<bool, GraphBreak> {
            if v.as_tensor().is_some() {
                return Err(GraphBreak::new(
                    GraphBreakKind::DataDependentBranch,
                    format!(
                        "{}() over tensors needs their values",
                        if any { "any" } else { "all" }
                    ),
                ));
            }
            this.truth(v)
        };
        if let Kind::Generator(g) = &x.kind {
            let g = g.clone();
            while let Some(v) = self.gen_next(&g)? {
                if decide(self, &v)? == any {
                    return Ok(Vt::constant(vm.ctx.new_bool(any).into()));
                }
            }
            return Ok(Vt::constant(vm.ctx.new_bool(!any).into()));
        }
        for v in self.unpack_iterable(x)? {
            if decide(self, &v)? == any {
                return Ok(Vt::constant(vm.ctx.new_bool(any).into()));
            }
        }
        Ok(Vt::constant(vm.ctx.new_bool(!any).into()))
    }
}

impl Tracer<'_> {
    /// `max(a, b)` / `min(a, b)` of two one-element tensors of the same shape and dtype: Python
    /// keeps `a` unless `b > a` (`b < a` for min), which `torch.where(b > a, b, a)` computes
    /// exactly (NaNs included). Other mixes of tensors need their values (eager raises for
    /// several elements, and a tensor against a number returns one or the other's type).
    fn min_max_of_tensors(&mut self, max: bool, items: &[Vt]) -> Option<Result<Vt, GraphBreak>> {
        let [a, b] = items else {
            return None;
        };
        let (ta, tb) = (a.as_tensor()?, b.as_tensor()?);
        if ta.meta().shape != tb.meta().shape
            || ta.meta().dtype != tb.meta().dtype
            || ta.meta().shape.iter().product::<usize>() != 1
        {
            return None;
        }
        let cmp = if max { 4 } else { 0 }; // `>` / `<`
        Some((|| {
            let cond = self.compare(cmp, b.clone(), a.clone())?;
            let f = bridge::torch_attr("where", self.vm).ok_or_else(|| bad_args("max"))?;
            let f = wrap_unguarded(f, self.vm);
            self.call_vt(f, vec![cond, b.clone(), a.clone()], Vec::new())
        })())
    }
}
