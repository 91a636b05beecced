//! Dynamic shapes (Dynamo's `ShapeEnv`, reduced to what a shape-generic graph needs): which
//! input dimensions a trace leaves dynamic, the symbols (`s0`, `s1`, ...) that stand for them,
//! and when the trace must specialise them again.
//!
//! ```text
//!   torch.compile(dynamic=), mark_dynamic/.., config, sizes seen by earlier compiles (frame state)
//!     --[ShapeEnv::input_dims]--> a symbol per dynamic dimension of a graph input
//!     --[trace reads a size that depends on a symbol]--> the symbol is specialised (guarded as
//!        a constant again; a `mark_dynamic` one raises ConstraintViolationError)
//!     --[OutputGraph::final_guards]--> TENSOR_MATCH without the dynamic sizes, plus range guards
//!        `2 <= L['x'].size()[0]`
//! ```
//!
//! The trace runs on the example sizes (the hints). A graph is left shape-generic only where
//! nothing the trace decided depended on a dynamic size: every read of such a size (`x.shape`,
//! `len(x)`, `numel()`, a host call's fixed output shapes, an op whose number of outputs depends
//! on sizes) specialises the symbols it depends on. Soundness over generality: a value the trace
//! used stays a constant under a guard, never a guess. Native backends then get one concrete
//! graph per distinct set of input shapes (`compile::PerShape`); Python backends get the FX
//! graph, whose ops take their sizes from the tensors at run time.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use rustpython_vm::{PyObject, VirtualMachine};
use rynamo_graph::{Graph, ValueId};
use rynamo_tensor::TensorMeta;

use super::logs::{self, Artifact};
use super::source::Source;
use super::sym::VALUE;

/// How a compile chooses dynamic dimensions (`torch.compile(dynamic=...)` and the config).
#[derive(Clone, Debug)]
pub struct Policy {
    /// `dynamic=`: `Some(true)` dynamic from the start, `Some(false)` never (marks still count),
    /// `None` automatic.
    pub mode: Option<bool>,
    /// `config.automatic_dynamic_shapes`.
    pub automatic: bool,
    /// `config.assume_static_by_default`.
    pub assume_static: bool,
    /// `config.force_parameter_static_shapes`.
    pub force_param_static: bool,
    /// Sizes each tensor source had in this code's earlier compiles, `None` where they changed
    /// (Dynamo's per-code frame state, keyed by the source's text).
    pub seen: HashMap<String, Vec<Option<usize>>>,
}

/// The `mark_*` annotations of one tensor object.
#[derive(Clone, Debug, Default)]
pub struct Marks {
    /// `mark_dynamic` / `mark_unbacked` dimensions: specialising them is an error.
    pub strict: Vec<usize>,
    /// `maybe_mark_dynamic` dimensions.
    pub weak: Vec<usize>,
    /// `mark_static` dimensions.
    pub statics: Vec<usize>,
    /// `mark_dynamic(min=, max=)` ranges by dimension.
    pub ranges: Vec<(usize, Option<usize>, Option<usize>)>,
    /// Whether the tensor is an `nn.Parameter`.
    pub is_param: bool,
}

impl Marks {
    /// Reads the annotations `torch._dynamo.mark_*` left on `obj`.
    pub fn of(obj: &PyObject, rank: usize, vm: &VirtualMachine) -> Marks {
        let dims = |name: &str| -> Vec<usize> {
            let Ok(v) = obj.get_attr(&vm.ctx.new_str(name), vm) else {
                return Vec::new();
            };
            let items = vm.extract_elements_with(&v, Ok).unwrap_or_default();
            items
                .iter()
                .filter_map(|i| i.try_to_value::<isize>(vm).ok())
                .filter_map(|d| wrap(d, rank))
                .collect()
        };
        let mut strict = dims("_dynamo_dynamic_indices");
        strict.extend(dims("_dynamo_unbacked_indices"));
        let mut ranges = Vec::new();
        if let Ok(r) = obj.get_attr(&vm.ctx.new_str("_dynamo_dynamic_range"), vm)
            && let Ok(items) = vm.extract_elements_with(&r, Ok)
        {
            // Entries are `(dim, min, max)` tuples (`decorators.mark_dynamic`).
            for it in items {
                let parts = vm.extract_elements_with(&it, Ok).unwrap_or_default();
                if let [d, lo, hi] = parts.as_slice()
                    && let Some(d) = d.try_to_value::<isize>(vm).ok().and_then(|d| wrap(d, rank))
                {
                    let bound = |o: &rustpython_vm::PyObjectRef| o.try_to_value::<usize>(vm).ok();
                    ranges.push((d, bound(lo), bound(hi)));
                }
            }
        }
        let is_param = bridge_is_param(obj, vm);
        Marks {
            strict,
            weak: dims("_dynamo_weak_dynamic_indices"),
            statics: dims("_dynamo_static_indices"),
            ranges,
            is_param,
        }
    }
}

fn bridge_is_param(obj: &PyObject, vm: &VirtualMachine) -> bool {
    let Ok(nn) = super::bridge::import_module("torch.nn", vm) else {
        return false;
    };
    nn.get_attr("Parameter", vm)
        .ok()
        .is_some_and(|p| obj.class().fast_issubclass(&p))
}

fn wrap(d: isize, rank: usize) -> Option<usize> {
    let d = if d < 0 { d + rank as isize } else { d };
    (0..rank as isize).contains(&d).then_some(d as usize)
}

/// A user stack entry: `(file, line, function)`.
pub type UserLine = (String, u32, String);

/// One dynamic dimension of a graph input, or a dynamic int input (`dim` is [`VALUE`]).
#[derive(Clone, Debug)]
pub struct Symbol {
    /// The tensor's (or the int's) source.
    pub source: Rc<Source>,
    /// The dimension; [`VALUE`] for an int input.
    pub dim: usize,
    /// Its size (value) in the example the trace ran on.
    pub hint: i64,
    /// Smallest size the entry accepts (2: 0 and 1 are specialised, as in PyTorch; ints are
    /// unbounded).
    pub min: i64,
    /// Largest, if bounded (`mark_dynamic(max=)`).
    pub max: Option<i64>,
    /// `mark_dynamic`: specialising it raises ConstraintViolationError.
    pub strict: bool,
    /// Whether the trace read it, so it is guarded as the constant `hint` after all.
    pub specialised: bool,
    /// Made by duck sizing (`dynamic=True`): later dimensions of the same size share it.
    pub duck: bool,
}

impl Symbol {
    /// `L['x'].size()[0]`, or `L['n']` for an int input.
    pub fn expr(&self) -> String {
        match self.dim {
            VALUE => self.source.to_string(),
            d => format!("{}.size()[{d}]", self.source),
        }
    }
}

/// The symbols of one trace.
#[derive(Clone, Debug, Default)]
pub struct ShapeEnv {
    policy: Option<Rc<Policy>>,
    /// Every symbol made, `s{index}`.
    pub symbols: Vec<Symbol>,
    /// Per graph input: the symbol of each dimension (`None`: static).
    input_dims: HashMap<ValueId, Vec<Option<usize>>>,
    /// Per dynamic int graph input: its symbol (live or specialised).
    int_inputs: HashMap<ValueId, usize>,
    /// The sizes of every tensor source this trace read (the frame-state update).
    pub seen_now: Vec<(String, Vec<Option<usize>>)>,
    /// Strict symbols the trace specialised, with the user line that did it.
    pub violations: Vec<(usize, Option<UserLine>)>,
}

impl ShapeEnv {
    /// An environment deciding dimensions by `policy` (without one, everything is static).
    pub fn new(policy: Rc<Policy>) -> ShapeEnv {
        ShapeEnv {
            policy: Some(policy),
            ..ShapeEnv::default()
        }
    }

    /// Decides the dynamic dimensions of a new graph input and makes their symbols.
    pub fn add_input(
        &mut self,
        value: ValueId,
        source: &Rc<Source>,
        meta: &TensorMeta,
        marks: &Marks,
        compile_id: Option<(u32, u32)>,
    ) {
        let Some(p) = self.policy.clone() else {
            return;
        };
        let rank = meta.shape.len();
        let key = source.to_string();
        let prior = p.seen.get(&key).filter(|s| s.len() == rank);
        let mut seen = Vec::with_capacity(rank);
        let mut dims = vec![None; rank];
        for (d, &size) in meta.shape.iter().enumerate() {
            let changed = prior.is_some_and(|s| s[d] != Some(size));
            seen.push(if changed { None } else { Some(size) });
            let strict = marks.strict.contains(&d);
            // `dynamic=True` sizes are "duck" sized as in PyTorch: dimensions with equal
            // example sizes share one symbol, so the entry requires them equal.
            let mut duck = false;
            let dynamic = if marks.statics.contains(&d) || (marks.is_param && p.force_param_static)
            {
                false
            } else if strict || marks.weak.contains(&d) {
                true
            } else if p.mode == Some(false) {
                false
            } else if p.mode == Some(true) || !p.assume_static {
                duck = true;
                true
            } else {
                p.automatic && changed
            };
            // Guards keep dynamic dimensions in a 64-bit mask.
            if !dynamic || d >= 64 {
                continue;
            }
            let (lo, hi) = marks
                .ranges
                .iter()
                .find(|r| r.0 == d)
                .map_or((None, None), |r| (r.1, r.2));
            let sym = Symbol {
                source: source.clone(),
                dim: d,
                hint: size as i64,
                min: lo.unwrap_or(2).max(2) as i64,
                max: hi.map(|h| h as i64),
                strict,
                // 0 and 1 are always specialised (broadcasting and contiguity depend on them).
                specialised: size < 2,
                duck: false,
            };
            if duck
                && !sym.specialised
                && let Some(shared) = self
                    .symbols
                    .iter()
                    .position(|s| s.duck && !s.specialised && s.hint == size as i64)
            {
                dims[d] = Some(shared);
                continue;
            }
            let sym = Symbol { duck, ..sym };
            let idx = self.symbols.len();
            if sym.specialised {
                if strict {
                    self.violations.push((idx, None));
                }
            } else {
                dims[d] = Some(idx);
                logs::log(
                    Artifact::Dynamic,
                    compile_id,
                    &format!(
                        "create_symbol s{idx} = {size} for {} [{}, {}]",
                        sym.expr(),
                        sym.min,
                        sym.max
                            .map_or_else(|| "int_oo".to_owned(), |m| m.to_string())
                    ),
                );
            }
            self.symbols.push(sym);
        }
        self.seen_now.push((key, seen));
        if dims.iter().any(Option::is_some) {
            self.input_dims.insert(value, dims);
        }
    }

    /// Makes the symbol of the dynamic int graph input `input` (value `value`, read from
    /// `source`), after [`ShapeEnv::int_is_dynamic`] said it is one.
    pub fn add_int_input(
        &mut self,
        input: ValueId,
        source: &Rc<Source>,
        value: i64,
        compile_id: Option<(u32, u32)>,
    ) {
        let idx = self.symbols.len();
        self.symbols.push(Symbol {
            source: source.clone(),
            dim: VALUE,
            hint: value,
            min: i64::MIN,
            max: None,
            strict: false,
            specialised: false,
            duck: false,
        });
        self.int_inputs.insert(input, idx);
        logs::log(
            Artifact::Dynamic,
            compile_id,
            &format!("create_symbol s{idx} = {value} for {source} [-int_oo, int_oo]"),
        );
    }

    /// Whether the Python int `value` read from `source` is a dynamic input (PyTorch's
    /// automatic dynamic for ints: once an int changed value between compiles of the code, or
    /// from the start under `dynamic=True`). Records the value in the frame state either way,
    /// as a one-item entry holding its bits.
    pub fn int_is_dynamic(&mut self, source: &Rc<Source>, value: i64) -> bool {
        let Some(p) = self.policy.clone() else {
            return false;
        };
        let key = source.to_string();
        let bits = Some(value as u64 as usize);
        let prior = p.seen.get(&key).filter(|s| s.len() == 1);
        let changed = prior.is_some_and(|s| s[0] != bits);
        if !self.seen_now.iter().any(|(k, _)| *k == key) {
            self.seen_now
                .push((key, vec![if changed { None } else { bits }]));
        }
        match p.mode {
            Some(m) => m,
            None => !p.assume_static || (p.automatic && changed),
        }
    }

    /// The symbol of a dynamic int graph input, live or not.
    pub fn int_symbol(&self, input: ValueId) -> Option<usize> {
        self.int_inputs.get(&input).copied()
    }

    /// The live symbol standing for dimension `d` of graph input `input` (`d` may be
    /// [`VALUE`]).
    pub fn symbol_at(&self, input: ValueId, d: usize) -> Option<usize> {
        match d {
            VALUE => self
                .int_symbol(input)
                .filter(|s| !self.symbols[*s].specialised),
            _ => self
                .input_dims
                .get(&input)
                .and_then(|dims| dims.get(d).copied().flatten()),
        }
    }

    /// Whether some dimension is still dynamic.
    pub fn has_live_symbols(&self) -> bool {
        self.symbols.iter().any(|s| !s.specialised)
    }

    /// The live symbol of each dimension of a graph input.
    pub fn dims_of(&self, value: ValueId) -> Option<&[Option<usize>]> {
        self.input_dims.get(&value).map(Vec::as_slice)
    }

    /// The trace depends on the sizes of `value` (dimension `dim`, or all of them): specialises
    /// every live symbol they may depend on. `graph` gives the dependencies of values computed
    /// in the trace.
    pub fn specialise(
        &mut self,
        value: ValueId,
        dim: Option<usize>,
        graph: &Graph,
        at: Option<UserLine>,
    ) {
        if !self.has_live_symbols() {
            return;
        }
        if let Some(&s) = self.int_inputs.get(&value) {
            if dim.is_none() || dim == Some(VALUE) {
                self.specialise_symbol(s, at);
            }
            return;
        }
        let syms: Vec<usize> = match (self.input_dims.get(&value), dim) {
            (Some(dims), Some(d)) => dims.get(d).copied().flatten().into_iter().collect(),
            (Some(dims), None) => dims.iter().flatten().copied().collect(),
            (None, _) => self.deps(value, graph).into_iter().collect(),
        };
        for s in syms {
            self.specialise_symbol(s, at.clone());
        }
    }

    /// Specialises every symbol (a backend that cannot take varying shapes).
    pub fn specialise_all(&mut self) {
        for s in 0..self.symbols.len() {
            self.specialise_symbol(s, None);
        }
    }

    /// The live symbols, by index.
    pub fn live_symbols(&self) -> Vec<usize> {
        (0..self.symbols.len())
            .filter(|s| !self.symbols[*s].specialised)
            .collect()
    }

    /// Specialises symbol `s` (guarded as its hint).
    pub fn specialise_symbol(&mut self, s: usize, at: Option<UserLine>) {
        let sym = &mut self.symbols[s];
        if sym.specialised {
            return;
        }
        sym.specialised = true;
        if sym.strict {
            self.violations.push((s, at));
        }
        for dims in self.input_dims.values_mut() {
            for d in dims.iter_mut() {
                if *d == Some(s) {
                    *d = None;
                }
            }
        }
    }

    /// Whether a value's shape may depend on a live symbol.
    pub fn depends_on_symbols(&self, value: ValueId, graph: &Graph) -> bool {
        match self.input_dims.get(&value) {
            Some(dims) => dims.iter().any(Option::is_some),
            None => !self.deps(value, graph).is_empty(),
        }
    }

    /// The live symbols a computed value's shape may depend on: those of every graph input it
    /// is computed from.
    fn deps(&self, value: ValueId, graph: &Graph) -> HashSet<usize> {
        let mut deps: HashMap<ValueId, HashSet<usize>> = self
            .input_dims
            .iter()
            .map(|(v, dims)| (*v, dims.iter().flatten().copied().collect()))
            .collect();
        for node in graph.nodes() {
            let mut acc = HashSet::new();
            for i in node.inputs() {
                if let Some(d) = deps.get(&i) {
                    acc.extend(d.iter().copied());
                }
            }
            if acc.is_empty() {
                continue;
            }
            for o in &node.outputs {
                deps.insert(*o, acc.clone());
            }
            if node.outputs.contains(&value) {
                break;
            }
        }
        deps.remove(&value).unwrap_or_default()
    }

    /// PyTorch's ConstraintViolationError text for the strict symbols the trace specialised.
    pub fn violation_message(&self) -> Option<String> {
        if self.violations.is_empty() {
            return None;
        }
        let mut names: Vec<String> = Vec::new();
        let mut details = String::new();
        for (s, at) in &self.violations {
            let sym = &self.symbols[*s];
            let e = sym.expr();
            if !names.contains(&e) {
                names.push(e.clone());
            }
            details.push_str(&format!(
                "\n  - You marked {e} as dynamic but your code specialized it to be a constant ({}). If you're using mark_dynamic, either remove it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, replace it with either Dim.STATIC or Dim.AUTO.",
                sym.hint
            ));
            if let Some((file, line, func)) = at {
                details.push_str(&format!(
                    "\n\nUser stack:\n  File \"{file}\", line {line}, in {func}"
                ));
            }
        }
        Some(format!(
            "Constraints violated ({})! For more information, run with TORCH_LOGS=\"+dynamic\".{details}",
            names.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(shape: &[usize]) -> TensorMeta {
        TensorMeta::contiguous(rynamo_tensor::DType::Float32, shape)
    }

    fn env(mode: Option<bool>, seen: &[(&str, Vec<Option<usize>>)]) -> ShapeEnv {
        ShapeEnv::new(Rc::new(Policy {
            mode,
            automatic: true,
            assume_static: true,
            force_param_static: true,
            seen: seen
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        }))
    }

    fn x() -> Rc<Source> {
        Rc::new(Source::Local {
            name: "x".into(),
            index: 0,
        })
    }

    #[test]
    fn automatic_dynamic_marks_only_changed_dims() {
        let mut e = env(None, &[("L['x']", vec![Some(3), Some(4)])]);
        e.add_input(ValueId(0), &x(), &meta(&[5, 4]), &Marks::default(), None);
        assert_eq!(e.dims_of(ValueId(0)), Some(&[Some(0), None][..]));
        assert_eq!(e.seen_now[0].1, vec![None, Some(4)]);
    }

    #[test]
    fn an_int_is_dynamic_once_it_changed_or_under_dynamic_true() {
        let n = Rc::new(Source::Local {
            name: "n".into(),
            index: 1,
        });
        let mut e = env(None, &[]);
        assert!(!e.int_is_dynamic(&n, 3), "first compile: static");
        assert_eq!(e.seen_now[0].1, vec![Some(3)]);
        let mut e = env(None, &[("L['n']", vec![Some(3)])]);
        assert!(!e.int_is_dynamic(&n, 3), "same value: static");
        let mut e = env(None, &[("L['n']", vec![Some(3)])]);
        assert!(e.int_is_dynamic(&n, -4), "changed: dynamic");
        assert_eq!(e.seen_now[0].1, vec![None]);
        e.add_int_input(ValueId(1), &n, -4, None);
        assert_eq!(e.symbol_at(ValueId(1), VALUE), Some(0));
        assert_eq!(e.symbols[0].expr(), "L['n']");
        e.specialise(ValueId(1), None, &Graph::new(), None);
        assert_eq!(e.symbol_at(ValueId(1), VALUE), None);
        assert!(env(Some(true), &[]).int_is_dynamic(&n, 3));
        assert!(!env(Some(false), &[("L['n']", vec![None])]).int_is_dynamic(&n, 3));
    }

    #[test]
    fn first_compile_is_static_and_dynamic_true_skips_0_and_1() {
        let mut e = env(None, &[]);
        e.add_input(ValueId(0), &x(), &meta(&[5, 4]), &Marks::default(), None);
        assert!(!e.has_live_symbols());
        let mut e = env(Some(true), &[]);
        e.add_input(ValueId(0), &x(), &meta(&[1, 4]), &Marks::default(), None);
        assert_eq!(e.dims_of(ValueId(0)), Some(&[None, Some(1)][..]));
    }

    #[test]
    fn specialising_a_marked_dim_is_a_violation() {
        let mut e = env(Some(false), &[]);
        let marks = Marks {
            strict: vec![0],
            ..Marks::default()
        };
        e.add_input(ValueId(0), &x(), &meta(&[3, 4]), &marks, None);
        assert!(e.has_live_symbols());
        e.specialise(ValueId(0), Some(1), &Graph::new(), None);
        assert!(e.violation_message().is_none(), "dim 1 is static");
        e.specialise(ValueId(0), Some(0), &Graph::new(), None);
        let msg = e.violation_message().unwrap();
        assert!(
            msg.starts_with("Constraints violated (L['x'].size()[0])!"),
            "{msg}"
        );
        assert!(!e.has_live_symbols());
    }
}
