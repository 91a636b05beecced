//! SymInt trackers while tracing (`sym.rs` holds the expressions): reading a dynamic size makes
//! one, Python arithmetic on them stays symbolic, graph ops record them as symbolic arguments,
//! and the end of the trace specialises every dimension a SymInt was used concretely for.

use std::rc::Rc;

use rustpython_vm::AsObject;
use rynamo_graph::Arg;

use super::output_graph::OutputGraph;
use super::sym::{self, Num, SymArg, SymExpr, SymOp, SymVar};
use super::variables::{Kind, TensorVar, Vt};

impl OutputGraph {
    /// A SymInt tracker computing `expr` (hint `hint`); a constant expression is a plain int.
    pub fn sym_int(&self, expr: SymExpr, hint: i64, vm: &rustpython_vm::VirtualMachine) -> Vt {
        let hint_obj: rustpython_vm::PyObjectRef = vm.ctx.new_int(hint).into();
        if matches!(expr, SymExpr::Int(_)) {
            return Vt::constant(hint_obj);
        }
        let mut syms = self.syms.borrow_mut();
        let var = Rc::new(SymVar {
            id: syms.len(),
            expr,
            hint,
            float_hint: None,
            hint_obj,
            concrete: std::cell::Cell::new(false),
        });
        syms.push(var.clone());
        Vt::new(Kind::SymInt(var))
    }

    /// A SymFloat tracker computing the float expression `expr` (hint `hint`): PyTorch's
    /// SymFloat from arithmetic on SymInts; a constant expression is a plain float.
    pub fn sym_float(&self, expr: SymExpr, hint: f64, vm: &rustpython_vm::VirtualMachine) -> Vt {
        let hint_obj: rustpython_vm::PyObjectRef = vm.ctx.new_float(hint).into();
        if expr.dims().is_empty() && expr.vals().is_empty() {
            return Vt::constant(hint_obj);
        }
        let mut syms = self.syms.borrow_mut();
        let var = Rc::new(SymVar {
            id: syms.len(),
            expr,
            hint: 0,
            float_hint: Some(hint),
            hint_obj,
            concrete: std::cell::Cell::new(false),
        });
        syms.push(var.clone());
        Vt::new(Kind::SymFloat(var))
    }

    /// Dimension `d` of a tensor: a SymInt when it is a live dynamic dimension of a graph input,
    /// else the constant size (specialising whatever symbols a computed tensor's size depends
    /// on: computed shapes are not symbolic).
    pub fn size_of(&mut self, t: &TensorVar, d: usize, vm: &rustpython_vm::VirtualMachine) -> Vt {
        let current = self.relaid(t);
        let t = current.as_ref().unwrap_or(t);
        let hint = t.meta().shape[d] as i64;
        let live = self
            .shape_env
            .dims_of(t.value)
            .is_some_and(|dims| dims.get(d).copied().flatten().is_some());
        let pos = self
            .graph
            .graph()
            .inputs()
            .iter()
            .position(|v| *v == t.value);
        if live && let Some(pos) = pos {
            return self.sym_int(SymExpr::Dim(pos, d), hint, vm);
        }
        if pos.is_none()
            && self.shape_env.has_live_symbols()
            && self
                .shape_env
                .depends_on_symbols(t.value, self.graph.graph())
            && let Some(v) = self.computed_size(t, d, vm)
        {
            return v;
        }
        self.specialise(t.value, Some(d));
        Vt::constant(vm.ctx.new_int(hint).into())
    }

    /// `x.size()` / `x.shape`: a `torch.Size` of SymInts and ints when some dimension is dynamic, else
    /// the `torch.Size` constant.
    pub fn sizes_of(&mut self, t: &TensorVar, vm: &rustpython_vm::VirtualMachine) -> Vt {
        let current = self.relaid(t);
        let t = current.as_ref().unwrap_or(t);
        let any_live = self.shape_env.has_live_symbols()
            && self
                .shape_env
                .depends_on_symbols(t.value, self.graph.graph());
        if !any_live {
            self.specialise(t.value, None);
            return Vt::constant(super::bridge::make_size(&t.meta().shape, vm));
        }
        let items = (0..t.meta().shape.len())
            .map(|d| self.size_of(t, d, vm))
            .collect();
        // A `torch.Size` of trackers: rebuilt as a `torch.Size` wherever it is used as a value.
        let size_cls: rustpython_vm::PyObjectRef =
            super::bridge::make_size(&[], vm).class().to_owned().into();
        Vt::new(Kind::NamedTuple(size_cls, items))
    }

    /// A tensor an in-place view method re-laid out (`x.unsqueeze_(0)`) has the sizes of its
    /// current value (the view node), not of its first one (an input's dimensions no longer
    /// line up): a tracker reading that value, for size questions only.
    fn relaid(&self, t: &TensorVar) -> Option<TensorVar> {
        self.relayouted
            .contains(&t.value)
            .then(|| TensorVar::sharing(self.current_value(t), t.layout().clone(), t.requires_grad))
    }

    /// `x.numel()`: the product of the sizes, symbolic when some are.
    pub fn numel_of(&mut self, t: &TensorVar, vm: &rustpython_vm::VirtualMachine) -> Vt {
        let mut expr = SymExpr::Int(1);
        for d in 0..t.meta().shape.len() {
            let e = match &self.size_of(t, d, vm).kind {
                Kind::SymInt(s) => s.expr.clone(),
                _ => SymExpr::Int(t.meta().shape[d] as i64),
            };
            expr = SymExpr::bin(SymOp::Mul, expr, e);
        }
        let hint = t.meta().shape.iter().product::<usize>() as i64;
        self.sym_int(expr, hint, vm)
    }

    /// The op-argument form of a SymInt: a sentinel `call_op` resolves.
    pub fn sym_arg(&self, s: &SymVar) -> Arg {
        rynamo_graph::Value::Int(sym::sentinel(s.id))
    }

    /// Resolves the sentinels of a node's bound arguments to hints, returning where the symbolic
    /// ones sit; a SymInt in a place no slot describes is used concretely.
    pub fn resolve_sym_args(&self, args: &mut [Arg]) -> Vec<(usize, sym::Slot, usize)> {
        let syms = self.syms.borrow();
        let hint = |id: usize| {
            syms.get(id).map_or(Num::Int(0), |s| match s.float_hint {
                Some(f) => Num::Float(f),
                None => Num::Int(s.hint),
            })
        };
        let (found, floats) = sym::take_sentinels(args, &hint);
        for id in floats {
            if let Some(s) = syms.get(id) {
                s.concrete();
            }
        }
        found
    }

    /// Records the symbolic arguments of the node whose first output is `node` (without one,
    /// they are used concretely).
    pub fn record_sym_args(&mut self, node: Option<String>, found: Vec<(usize, sym::Slot, usize)>) {
        let syms = self.syms.borrow();
        for (arg, slot, id) in found {
            let Some(s) = syms.get(id) else { continue };
            match node {
                Some(ref node) => self.sym_args.push(SymArg {
                    node: node.clone(),
                    arg,
                    slot,
                    expr: s.expr.clone(),
                }),
                None => {
                    s.concrete();
                }
            }
        }
    }

    /// The last node holds for these input sizes only (a host call's fixed output shapes):
    /// specialises whatever its inputs' sizes depend on, and its SymInt arguments.
    pub fn pin_last_node(&mut self, ids: &[usize]) {
        let node = self.graph.graph().nodes().last().cloned();
        for i in node.iter().flat_map(|n| n.inputs().collect::<Vec<_>>()) {
            self.specialise(i, None);
        }
        self.use_syms_concretely(ids);
    }

    /// The last node returns a list (`split`, `chunk`, `unbind`): its length must not change
    /// with the dynamic sizes. The symbols whose probing changes some count are specialised;
    /// when no single one does, the node is pinned as a whole.
    pub fn pin_list_counts(&mut self, ids: &[usize]) {
        if self.counts_hold_for_other_sizes(None) {
            return;
        }
        let culprits: Vec<usize> = self
            .shape_env
            .live_symbols()
            .into_iter()
            .filter(|s| !self.counts_hold_for_other_sizes(Some(*s)))
            .collect();
        if culprits.is_empty() || !self.counts_hold_after(&culprits) {
            self.pin_last_node(ids);
            return;
        }
        let at = self.user_stack.last().cloned();
        for s in culprits {
            self.shape_env.specialise_symbol(s, at.clone());
        }
    }

    fn counts_hold_after(&mut self, culprits: &[usize]) -> bool {
        let saved = self.shape_env.clone();
        for s in culprits {
            self.shape_env.specialise_symbol(*s, None);
        }
        let holds = self.counts_hold_for_other_sizes(None);
        self.shape_env = saved;
        holds
    }

    /// Marks SymInts as used concretely (their dimensions are specialised at the end).
    pub fn use_syms_concretely(&self, ids: &[usize]) {
        let syms = self.syms.borrow();
        for id in ids {
            if let Some(s) = syms.get(*id) {
                s.concrete();
            }
        }
    }

    /// The graph so far instantiated for probe sizes: every live dynamic size (or only symbol
    /// `only`) takes `hint + 1` (probe 1) or `2 * hint + 3` (probe 2), within its range. `None`
    /// when the graph does not hold for them (a count, an assumption, a meta rule).
    fn probe_graph(&self, only: Option<usize>, probe: usize) -> Option<rynamo_graph::Graph> {
        let g = self.graph.graph();
        let env = &self.shape_env;
        let sized = |s: usize| -> i64 {
            let sym = &env.symbols[s];
            if only.is_some_and(|o| o != s) {
                return sym.hint;
            }
            let v = if probe == 1 {
                sym.hint.saturating_add(1)
            } else {
                sym.hint.saturating_mul(2).saturating_add(3)
            };
            sym.max.map_or(v, |m| v.min(m)).max(sym.min)
        };
        let metas: Vec<rynamo_tensor::TensorMeta> = g
            .inputs()
            .iter()
            .map(|v| {
                let m = &g.value(*v).meta;
                env.dims_of(*v)
                    .map_or_else(|| m.clone(), |dims| sym::meta_at(m, dims, sized))
            })
            .collect();
        let ints: Vec<Option<i64>> = g
            .inputs()
            .iter()
            .map(|v| {
                let s = env.int_symbol(*v)?;
                Some(match env.symbol_at(*v, sym::VALUE) {
                    Some(_) => sized(s),
                    None => env.symbols[s].hint,
                })
            })
            .collect();
        sym::instantiate(g, &self.sym_args, &self.size_assumptions, &metas, &ints).ok()
    }

    /// Whether the graph so far still holds (every node defines as many values, every
    /// assumption stands) when the live dynamic sizes (or only symbol `only`) take two probe
    /// values. An op returning a list (`split` of a feature dimension) then need not pin the
    /// sizes. A probe is a sample, not a proof: an instance that breaks a count all the same is
    /// refused by `sym::instantiate` (an error, never a wrong result).
    pub fn counts_hold_for_other_sizes(&self, only: Option<usize>) -> bool {
        [1, 2].iter().all(|p| self.probe_graph(only, *p).is_some())
    }

    /// Dimension `d` of a computed tensor that may depend on dynamic sizes: a SymInt reading
    /// the value's size when probing changes it; the constant (with an [`sym::Assumption`]
    /// each instance checks) when probing leaves it; `None` when probing fails.
    fn computed_size(
        &mut self,
        t: &TensorVar,
        d: usize,
        vm: &rustpython_vm::VirtualMachine,
    ) -> Option<Vt> {
        let hint = t.meta().shape[d] as i64;
        let name = self.graph.graph().value(t.value).name.clone();
        let mut varies = false;
        for probe in [1, 2] {
            let g = self.probe_graph(None, probe)?;
            let v = (0..g.values().len()).find(|i| g.values()[*i].name == name)?;
            let size = *g.values()[v].meta.shape.get(d)? as i64;
            varies |= size != hint;
        }
        if varies {
            return Some(self.sym_int(SymExpr::Val(name, d), hint, vm));
        }
        self.size_assumptions.push(sym::Assumption {
            value: name,
            dim: d,
            size: hint,
        });
        Some(Vt::constant(vm.ctx.new_int(hint).into()))
    }

    /// Whether every computed value whose size the graph's symbolic arguments or assumptions
    /// read is in `graph` (dead-code elimination may drop a value only its size was read of).
    pub fn size_values_present(&self, graph: &rynamo_graph::Graph) -> bool {
        let names: std::collections::HashSet<&str> =
            graph.values().iter().map(|v| v.name.as_str()).collect();
        let vals = self.sym_args.iter().flat_map(|a| a.expr.vals());
        let assumed = self
            .size_assumptions
            .iter()
            .map(|a| (a.value.clone(), a.dim));
        vals.chain(assumed).all(|(n, _)| names.contains(n.as_str()))
    }

    /// End of the trace: the dimensions of every SymInt used concretely are specialised
    /// (guarded as constants), except that a compound expression over live symbols is guarded
    /// equal to the value the trace used (`L['n'] % 4 == 1`, as PyTorch's `Eq(Mod(s0, 4), 1)`):
    /// the trace only observed that value, so its symbols stay dynamic. With `all_args`, also
    /// the dimensions of every symbolic argument (a backend that gets the graph's argument
    /// values as constants).
    pub fn settle_syms(&mut self, all_args: bool) {
        let mut dims: Vec<(usize, usize)> = Vec::new();
        let mut vals: Vec<(String, usize)> = Vec::new();
        let mut equal: Vec<(SymExpr, i64)> = Vec::new();
        for s in self.syms.borrow().iter() {
            if !s.concrete.get() {
                continue;
            }
            if self.guardable_as_value(&s.expr) {
                equal.push((s.expr.clone(), s.hint));
            } else {
                dims.extend(s.expr.dims());
                vals.extend(s.expr.vals());
            }
        }
        for (e, hint) in equal {
            let rel = (e, 2, SymExpr::Int(hint), true);
            if !self.sym_rels.contains(&rel) {
                self.sym_rels.push(rel);
            }
        }
        for (name, d) in vals {
            let g = self.graph.graph();
            if let Some(v) = (0..g.values().len()).find(|i| g.values()[*i].name == name) {
                self.specialise(rynamo_graph::ValueId(v as u32), Some(d));
            }
        }
        if all_args {
            for a in &self.sym_args {
                dims.extend(a.expr.dims());
            }
        }
        for (pos, d) in dims {
            if let Some(v) = self.graph.graph().inputs().get(pos).copied() {
                self.specialise(v, Some(d));
            }
        }
    }
}

impl OutputGraph {
    /// Whether a SymInt used as a constant can be guarded equal to its value instead of
    /// specialising its symbols: a compound expression (a bare symbol is specialised: the same
    /// guard, and a static graph) over live, unmarked symbols of graph inputs only.
    fn guardable_as_value(&self, e: &SymExpr) -> bool {
        // A SymFloat's value is not guarded as a float: its symbols are specialised (PyTorch
        // guards such uses as relations of floats, which the guards here do not evaluate).
        if matches!(e, SymExpr::Dim(..)) || !e.vals().is_empty() || e.is_float() {
            return false;
        }
        let inputs = self.graph.graph().inputs();
        e.dims().iter().all(|&(pos, d)| {
            inputs
                .get(pos)
                .and_then(|v| self.shape_env.symbol_at(*v, d))
                .is_some_and(|s| !self.shape_env.symbols[s].strict)
        })
    }
}

impl super::symbolic_convert::Tracer<'_> {
    /// `lhs op rhs` when one side is a SymInt or a SymFloat and the other an int, a float or
    /// one of those: `+ - * // %` of ints stay a SymInt, `/` and `+ - *` with a float make a
    /// SymFloat (as PyTorch's `IntTrueDiv`, `ToFloat`); `None` for anything else (then the
    /// operands are used as constants).
    pub(crate) fn sym_binary(&mut self, pyname: &str, lhs: &Vt, rhs: &Vt) -> Option<Vt> {
        let symbolic = |v: &Vt| matches!(v.kind, Kind::SymInt(_) | Kind::SymFloat(_));
        if !symbolic(lhs) && !symbolic(rhs) {
            return None;
        }
        let (a, ha) = self.num_operand(lhs)?;
        let (b, hb) = self.num_operand(rhs)?;
        // A zero divisor raises as Python does, through the constant path.
        if pyname.trim_start_matches('i') == "truediv" {
            let hint = Num::true_div(ha, hb)?.as_f64();
            let expr = SymExpr::TrueDiv(Box::new(a), Box::new(b));
            return Some(self.out.sym_float(expr, hint, self.vm));
        }
        let op = SymOp::from_py(pyname)?;
        Some(match Num::apply(op, ha, hb)? {
            Num::Int(hint) => self.out.sym_int(SymExpr::bin(op, a, b), hint, self.vm),
            Num::Float(hint) => {
                let expr = SymExpr::Bin(op, Box::new(a), Box::new(b));
                self.out.sym_float(expr, hint, self.vm)
            }
        })
    }

    /// `max(a, b, ...)` / `min(...)` of ints with at least one SymInt: folded left into `Max`
    /// / `Min` expressions (Python returns the first extreme argument; among ints only its value
    /// is seen). `None` when an argument is anything else (a float's type would depend on the
    /// values), so the arguments are used as constants.
    pub(crate) fn sym_min_max(&mut self, max: bool, args: &[Vt]) -> Option<Vt> {
        if !args.iter().any(|a| matches!(a.kind, Kind::SymInt(_))) {
            return None;
        }
        let op = if max { SymOp::Max } else { SymOp::Min };
        let mut items = args.iter().map(|a| self.sym_operand(a));
        let (mut expr, mut hint) = items.next()??;
        for item in items {
            let (e, h) = item?;
            hint = op.apply(hint, h)?;
            expr = SymExpr::bin(op, expr, e);
        }
        Some(self.out.sym_int(expr, hint, self.vm))
    }

    /// `math.sqrt(x)` of a SymInt or SymFloat (a SymFloat), `int(x)` / `math.floor(x)` /
    /// `math.ceil(x)` of a SymFloat (a SymInt); `None` for anything else, or where Python raises
    /// (then the value is used, and raises as in eager).
    pub(crate) fn sym_float_fn(&mut self, f: sym::FloatFn, x: &Vt) -> Option<Vt> {
        let (expr, hint) = match &x.kind {
            Kind::SymFloat(s) => (s.expr.clone(), Num::Float(s.float_hint?)),
            Kind::SymInt(s) if f == sym::FloatFn::Sqrt => (s.expr.clone(), Num::Int(s.hint)),
            _ => return None,
        };
        let expr = SymExpr::Fn(f, Box::new(expr));
        Some(match f.apply(hint)? {
            Num::Float(h) => self.out.sym_float(expr, h, self.vm),
            Num::Int(h) => self.out.sym_int(expr, h, self.vm),
        })
    }

    /// `float(x)` of a SymInt (a SymFloat, PyTorch's `torch.sym_float`) or a SymFloat (itself).
    pub(crate) fn sym_to_float(&mut self, x: &Vt) -> Option<Vt> {
        match &x.kind {
            Kind::SymInt(s) => {
                let expr = SymExpr::ToFloat(Box::new(s.expr.clone()));
                Some(self.out.sym_float(expr, s.hint as f64, self.vm))
            }
            Kind::SymFloat(_) => Some(x.clone()),
            _ => None,
        }
    }

    /// `lhs OP rhs` (`which`: `<` is 0 ... `>=` is 5) when one side is a SymInt and the other an
    /// int or a SymInt: decided on the hints, with a shape guard that the relation keeps its
    /// truth value (PyTorch guards a SymBool when it is used as a bool; here at once).
    pub(crate) fn sym_compare(&mut self, which: usize, lhs: &Vt, rhs: &Vt) -> Option<Vt> {
        let symbolic = |v: &Vt| matches!(v.kind, Kind::SymInt(_) | Kind::SymFloat(_));
        if !symbolic(lhs) && !symbolic(rhs) {
            return None;
        }
        // A SymFloat compares with ints, floats and SymFloats too (`n / 2 > 1.2`).
        let (a, ha) = self.num_operand(lhs)?;
        let (b, hb) = self.num_operand(rhs)?;
        if !a.vals().is_empty() || !b.vals().is_empty() {
            // A computed tensor's size cannot be guarded from the frame: used as a constant.
            return None;
        }
        let holds = super::sym_guard::compare_num(which, ha, hb)?;
        let result = Vt::constant(self.vm.ctx.new_bool(holds).into());
        if matches!((which, holds), (2, true) | (3, false))
            && let (SymExpr::Dim(pos, d), SymExpr::Int(_)) | (SymExpr::Int(_), SymExpr::Dim(pos, d)) =
                (&a, &b)
        {
            // A size found equal to a constant is that constant (PyTorch substitutes it): the
            // dimension is specialised, a `mark_dynamic` one raising ConstraintViolationError.
            if let Some(v) = self.out.graph.graph().inputs().get(*pos).copied() {
                self.out.specialise(v, Some(*d));
            }
            return Some(result);
        }
        let name = |pos: usize, d: usize| {
            let v = self.out.graph.graph().inputs().get(pos).copied();
            let s = v.and_then(|v| self.out.shape_env.symbol_at(v, d));
            s.map_or_else(|| format!("input{pos}.size()[{d}]"), |s| format!("s{s}"))
        };
        super::logs::log(
            super::logs::Artifact::Dynamic,
            self.out.compile_id,
            &format!(
                "eval {} {} {} [guard added]",
                a.render(&name),
                ["<", "<=", "==", "!=", ">", ">="][which],
                b.render(&name)
            ),
        );
        self.out.sym_rels.push((a, which, b, holds));
        Some(result)
    }

    /// `size + (1,)`, `(1,) + size` for a `torch.Size` holding SymInts: the concatenation, a
    /// `torch.Size` when the left side is one (as `torch.Size.__add__`).
    pub(crate) fn sym_tuple_concat(&mut self, pyname: &str, lhs: &Vt, rhs: &Vt) -> Option<Vt> {
        let items = |v: &Vt| -> Option<Vec<Vt>> {
            match &v.kind {
                Kind::Tuple(i) | Kind::NamedTuple(_, i) => Some(i.clone()),
                Kind::Const(c) => c
                    .downcast_ref::<rustpython_vm::builtins::PyTuple>()
                    .map(|t| t.as_slice().iter().cloned().map(Vt::constant).collect()),
                _ => None,
            }
        };
        let (a, b) = (items(lhs)?, items(rhs)?);
        if pyname != "add"
            || !a
                .iter()
                .chain(&b)
                .any(|i| matches!(i.kind, Kind::SymInt(_)))
        {
            return None;
        }
        let joined: Vec<Vt> = a.into_iter().chain(b).collect();
        let size_cls = super::bridge::make_size(&[], self.vm).class().to_owned();
        let lhs_is_size = match &lhs.kind {
            Kind::NamedTuple(c, _) => c.is(&size_cls),
            Kind::Const(c) => c.class().is(&size_cls),
            _ => false,
        };
        Some(Vt::new(if lhs_is_size {
            Kind::NamedTuple(size_cls.into(), joined)
        } else {
            Kind::Tuple(joined)
        }))
    }

    /// `-x` (or `abs(x)`) for a SymInt or a SymFloat.
    pub(crate) fn sym_unary(&mut self, x: &Vt, abs: bool) -> Option<Vt> {
        if let Kind::SymFloat(s) = &x.kind {
            let inner = Box::new(s.expr.clone());
            let h = s.float_hint?;
            return Some(if abs {
                self.out.sym_float(SymExpr::Abs(inner), h.abs(), self.vm)
            } else {
                self.out.sym_float(SymExpr::Neg(inner), -h, self.vm)
            });
        }
        let Kind::SymInt(s) = &x.kind else {
            return None;
        };
        let inner = Box::new(s.expr.clone());
        let (expr, hint) = if abs {
            (SymExpr::Abs(inner), s.hint.checked_abs()?)
        } else {
            (SymExpr::Neg(inner), s.hint.checked_neg()?)
        };
        Some(self.out.sym_int(expr, hint, self.vm))
    }

    /// An arithmetic operand of int or float arithmetic: a SymInt's or a SymFloat's expression,
    /// or a plain int's or float's value (not a bool).
    fn num_operand(&self, v: &Vt) -> Option<(SymExpr, Num)> {
        match &v.kind {
            Kind::SymFloat(s) => Some((s.expr.clone(), Num::Float(s.float_hint?))),
            Kind::Const(c) if c.class().is(self.vm.ctx.types.float_type) => {
                let f = c
                    .downcast_ref::<rustpython_vm::builtins::PyFloat>()?
                    .to_f64();
                Some((SymExpr::Float(f), Num::Float(f)))
            }
            _ => self.sym_operand(v).map(|(e, h)| (e, Num::Int(h))),
        }
    }

    /// An arithmetic operand: a SymInt's expression, or a plain int's value (not a bool).
    fn sym_operand(&self, v: &Vt) -> Option<(SymExpr, i64)> {
        match &v.kind {
            Kind::SymInt(s) => Some((s.expr.clone(), s.hint)),
            Kind::Const(c) if c.class().is(self.vm.ctx.types.int_type) => {
                let i = c.try_to_value::<i64>(self.vm).ok()?;
                Some((SymExpr::Int(i), i))
            }
            _ => None,
        }
    }
}
