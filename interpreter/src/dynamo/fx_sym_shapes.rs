//! Symbolic sizes of a dynamic graph's computed values, for the FX view's annotations
//! (`sum_1: "f32[s0]"`, `view: "f32[s0*s1]"`), as PyTorch's fake tensors carry them.
//!
//! The graph's meta rules run on concrete shapes (`sym::instantiate`), so each computed size is
//! read as a function of the live size symbols by instantiating the graph at probe sizes:
//!
//! ```text
//!   hints h          --> base sizes
//!   h with s -> s±1  --> which symbols each size depends on (D)
//!   grid {h, h±1, h±2}^D --> a polynomial of degree <= 2 in each symbol, integer coefficients
//!   2h+3, 3h+5       --> checked at two more points; sizes no polynomial fits stay unnamed
//! ```
//!
//! Such polynomials cover what size arithmetic gives in practice: products (`view(-1)`), sums
//! (`cat`), scaled and shifted sizes (`2*s0`, `s0 - 1`), squares (`T*T`). A size that fits no
//! such polynomial (`s0 // 2` from a strided slice, `min(s0, s1)` of a slice bound) is left to
//! the caller (it prints the traced size),
//! never a guessed expression. Printing follows sympy's `str` (PyTorch prints sympy
//! expressions): factors and terms ordered by symbol name, where a symbol's name is the one
//! PyTorch 2.15 gives it (the hash of its source, `ShapeEnv._generate_unique_id`), so products
//! and sums list their symbols in PyTorch's order whatever the printed names are.

use std::collections::{BTreeMap, HashMap};

use rynamo_graph::Graph;
use rynamo_tensor::TensorMeta;

use super::output_graph::OutputGraph;
use super::sym::{self, VALUE};

/// The most symbols one size may depend on (the grid has 3^n points).
const MAX_DEPS: usize = 3;

/// A polynomial: the coefficient of each product of symbols (indexes into `ShapeProbe::syms`,
/// ascending, repeated for a power; the empty product is the constant).
type Poly = BTreeMap<Vec<usize>, i64>;

/// What probing a graph's sizes needs from its trace (kept with the graph's FX view, so the
/// probing runs only when the view is built).
#[derive(Debug)]
pub struct ShapeProbe {
    /// Live symbols (shape-environment indexes).
    syms: Vec<usize>,
    /// Their traced values.
    hints: Vec<i64>,
    /// A neighbouring value each (hint ± 1 within the symbol's range).
    near: Vec<i64>,
    /// Their ranges.
    ranges: Vec<(i64, Option<i64>)>,
    /// PyTorch's name number of each (see [`ShapeProbe::of`]).
    torch_ids: Vec<u32>,
    /// Per graph input position: the symbol (index into `syms`) of each dimension.
    input_dims: Vec<Vec<Option<usize>>>,
    /// Per graph input position: a dynamic int input's symbol, or a specialised one's value.
    input_ints: Vec<Option<Result<usize, i64>>>,
    sym_args: Vec<sym::SymArg>,
    assumptions: Vec<sym::Assumption>,
}

/// Instances of one graph at symbol values, each made once.
struct Runs<'a> {
    probe: &'a ShapeProbe,
    graph: &'a Graph,
    made: HashMap<Vec<i64>, Option<Graph>>,
}

impl Runs<'_> {
    /// The graph with the symbols at `at`; `None` where it does not hold there.
    fn at(&mut self, at: &[i64]) -> Option<&Graph> {
        if !self.made.contains_key(at) {
            let g = self.probe.instantiate(self.graph, at);
            self.made.insert(at.to_vec(), g);
        }
        self.made.get(at).and_then(Option::as_ref)
    }
}

fn dim_of(g: Option<&Graph>, value: usize, d: usize) -> Option<i64> {
    Some(*g?.values().get(value)?.meta.shape.get(d)? as i64)
}

impl ShapeProbe {
    /// The probe of a finished trace; `None` when no symbol is live.
    pub fn of(out: &OutputGraph) -> Option<ShapeProbe> {
        let env = &out.shape_env;
        let mut syms: Vec<usize> = Vec::new();
        let mut index = |s: usize| match syms.iter().position(|x| *x == s) {
            Some(k) => k,
            None => {
                syms.push(s);
                syms.len() - 1
            }
        };
        let mut input_dims = Vec::new();
        let mut input_ints = Vec::new();
        for i in &out.inputs {
            let dims = env.dims_of(i.value).unwrap_or(&[]);
            input_dims.push(dims.iter().map(|s| s.map(&mut index)).collect());
            input_ints.push(match env.symbol_at(i.value, VALUE) {
                Some(s) => Some(Ok(index(s))),
                None => env.int_symbol(i.value).map(|s| Err(env.symbols[s].hint)),
            });
        }
        if syms.is_empty() {
            return None;
        }
        // PyTorch 2.15 names a symbol by the hash of its source, moved past numbers taken by
        // earlier symbols (`ShapeEnv._generate_unique_id`).
        let mut taken: Vec<u32> = Vec::new();
        for sym in &env.symbols {
            let mut id = source_hash(&sym.expr());
            while taken.contains(&id) {
                id += 1;
            }
            taken.push(id);
        }
        let hints: Vec<i64> = syms.iter().map(|s| env.symbols[*s].hint).collect();
        let ranges: Vec<(i64, Option<i64>)> = syms
            .iter()
            .map(|s| (env.symbols[*s].min, env.symbols[*s].max))
            .collect();
        let near = hints
            .iter()
            .zip(&ranges)
            .map(|(h, (_, max))| match max {
                Some(m) if h + 1 > *m => h - 1,
                _ => h + 1,
            })
            .collect();
        Some(ShapeProbe {
            torch_ids: syms.iter().map(|s| taken[*s]).collect(),
            syms,
            hints,
            near,
            ranges,
            input_dims,
            input_ints,
            sym_args: out.sym_args.clone(),
            assumptions: out.size_assumptions.clone(),
        })
    }

    /// Symbolic dimension texts of every computed value of `graph` (the trace's graph after its
    /// passes) whose sizes depend on a live symbol, by value name (`None`: a dimension no
    /// polynomial fits). Empty when the graph does not instantiate at the probe sizes.
    pub fn infer(&self, graph: &Graph) -> HashMap<String, Vec<Option<String>>> {
        let mut runs = Runs {
            probe: self,
            graph,
            made: HashMap::new(),
        };
        if self.input_dims.len() != graph.inputs().len() {
            return HashMap::new();
        }
        let Some(base) = runs.at(&self.hints).cloned() else {
            return HashMap::new();
        };
        let moved: Vec<Option<Graph>> = (0..self.syms.len())
            .map(|k| {
                let mut at = self.hints.clone();
                at[k] = self.near[k];
                runs.at(&at).cloned()
            })
            .collect();
        let inputs: Vec<&str> = graph
            .inputs()
            .iter()
            .map(|v| graph.value(*v).name.as_str())
            .collect();
        let mut result = HashMap::new();
        for (vi, info) in base.values().iter().enumerate() {
            if inputs.contains(&info.name.as_str()) {
                continue;
            }
            let mut dims = Vec::with_capacity(info.meta.shape.len());
            let mut symbolic = false;
            for (d, size) in info.meta.shape.iter().enumerate() {
                let size = *size as i64;
                // A symbol the graph does not hold for when it moves alone (a meta rule ties it
                // to a constant: a Linear's in-features) is held at its hint.
                let deps: Vec<usize> = (0..self.syms.len())
                    .filter(|k| {
                        moved[*k].is_some() && dim_of(moved[*k].as_ref(), vi, d) != Some(size)
                    })
                    .collect();
                if deps.is_empty() {
                    dims.push(Some(size.to_string()));
                    continue;
                }
                symbolic = true;
                dims.push(self.fit(&deps, vi, d, &mut runs).map(|p| self.render(&p)));
            }
            if symbolic {
                result.insert(info.name.clone(), dims);
            }
        }
        result
    }

    /// The value `v` clamped into symbol `k`'s range.
    fn clamp(&self, k: usize, v: i64) -> i64 {
        let (min, max) = self.ranges[k];
        max.map_or(v, |m| v.min(m)).max(min)
    }

    /// `graph` with the symbols at `at`; `None` where it does not hold there.
    fn instantiate(&self, graph: &Graph, at: &[i64]) -> Option<Graph> {
        let metas: Vec<TensorMeta> = graph
            .inputs()
            .iter()
            .zip(&self.input_dims)
            .map(|(v, dims)| sym::meta_at(&graph.value(*v).meta, dims, |k| at[k]))
            .collect();
        let ints: Vec<Option<i64>> = self
            .input_ints
            .iter()
            .map(|i| match i {
                Some(Ok(k)) => Some(at[*k]),
                Some(Err(fixed)) => Some(*fixed),
                None => None,
            })
            .collect();
        sym::instantiate(graph, &self.sym_args, &self.assumptions, &metas, &ints).ok()
    }

    /// The polynomial in `deps` giving dimension `d` of value `vi`, if one fits.
    fn fit(&self, deps: &[usize], vi: usize, d: usize, runs: &mut Runs<'_>) -> Option<Poly> {
        self.fit_fn(deps, &mut |at| dim_of(runs.at(at), vi, d))
    }

    /// A SymInt expression over input sizes (no computed values) as sympy prints it
    /// (`Sym(s0*s1)` annotations of size arithmetic in the FX code); `None` when no
    /// polynomial fits it.
    pub fn render_expr(&self, e: &sym::SymExpr, graph: &Graph) -> Option<String> {
        if !e.vals().is_empty() {
            return None;
        }
        let int = |i: &sym::SymExpr| self.render_expr(i, graph);
        if e.is_float() || matches!(e, sym::SymExpr::Fn(..)) {
            return super::sym_float::render(e, &int);
        }
        if let sym::SymExpr::Bin(op @ (sym::SymOp::Max | sym::SymOp::Min), ..) = e {
            return super::sym_float::render_min_max(*op, e, &int);
        }
        let leaf = |pos: usize, d: usize, at: &[i64]| -> Option<i64> {
            if d == VALUE {
                return match self.input_ints.get(pos)? {
                    Some(Ok(k)) => Some(at[*k]),
                    Some(Err(v)) => Some(*v),
                    None => None,
                };
            }
            match self.input_dims.get(pos)?.get(d).copied().flatten() {
                Some(k) => Some(at[k]),
                None => Some(*graph.value(*graph.inputs().get(pos)?).meta.shape.get(d)? as i64),
            }
        };
        let mut deps: Vec<usize> = Vec::new();
        for (pos, d) in e.dims() {
            let k = if d == VALUE {
                match self.input_ints.get(pos) {
                    Some(Some(Ok(k))) => Some(*k),
                    _ => None,
                }
            } else {
                self.input_dims
                    .get(pos)
                    .and_then(|ds| ds.get(d).copied().flatten())
            };
            if let Some(k) = k
                && !deps.contains(&k)
            {
                deps.push(k);
            }
        }
        deps.sort_unstable();
        let poly = self.fit_fn(&deps, &mut |at| e.eval(&|pos, d| leaf(pos, d, at)))?;
        Some(self.render(&poly))
    }

    /// The polynomial of degree at most 2 in each of `deps` (the other symbols at their hints)
    /// that `value` computes, if one with integer coefficients fits: interpolated on the grid
    /// {h, h+δ, h+2δ}^deps and checked at two points off it.
    fn fit_fn(&self, deps: &[usize], value: &mut dyn FnMut(&[i64]) -> Option<i64>) -> Option<Poly> {
        let n = deps.len();
        if n > MAX_DEPS {
            return None;
        }
        // Three points per symbol, within its range.
        let mut points: Vec<[i64; 3]> = Vec::with_capacity(n);
        for k in deps {
            let (h, delta) = (self.hints[*k], self.near[*k] - self.hints[*k]);
            let p = [h, h + delta, h + 2 * delta];
            if p.iter().any(|v| self.clamp(*k, *v) != *v) {
                return None;
            }
            points.push(p);
        }
        // Lagrange's basis on three points x0, x0+δ, x0+2δ (|δ| = 1), times 2 so that its
        // coefficients are integers: 2·L_i(x) = c0 + c1·x + c2·x².
        let basis = |p: &[i64; 3], i: usize| -> [i128; 3] {
            let others: Vec<i128> = (0..3).filter(|j| *j != i).map(|j| p[j] as i128).collect();
            let denom: i128 = others.iter().map(|o| p[i] as i128 - o).product();
            let scale = 2 / denom; // denom is ±1 or ±2
            let (a, b) = (others[0], others[1]);
            [a * b * scale, -(a + b) * scale, scale]
        };
        let mut scaled: BTreeMap<Vec<usize>, i128> = BTreeMap::new();
        for idx in 0..3usize.pow(n as u32) {
            let digits: Vec<usize> = (0..n).map(|j| idx / 3usize.pow(j as u32) % 3).collect();
            let mut at = self.hints.clone();
            for (j, k) in deps.iter().enumerate() {
                at[*k] = points[j][digits[j]];
            }
            let f = value(&at)? as i128;
            // Expand f · Π_j 2·L_{digit_j}(x_j) into monomials.
            let mut terms: Vec<(Vec<usize>, i128)> = vec![(Vec::new(), f)];
            for (j, k) in deps.iter().enumerate() {
                let c = basis(&points[j], digits[j]);
                let mut next = Vec::with_capacity(terms.len() * 3);
                for (mono, coef) in &terms {
                    for (e, ce) in c.iter().enumerate() {
                        if *ce != 0 {
                            let mut m = mono.clone();
                            m.extend(std::iter::repeat_n(*k, e));
                            next.push((m, coef.checked_mul(*ce)?));
                        }
                    }
                }
                terms = next;
            }
            for (mut mono, coef) in terms {
                mono.sort_unstable();
                let e = scaled.entry(mono).or_insert(0);
                *e = e.checked_add(coef)?;
            }
        }
        let divisor = 2i128.pow(n as u32);
        let mut poly = Poly::new();
        for (mono, c) in scaled {
            if c % divisor != 0 {
                return None;
            }
            if c != 0 {
                poly.insert(mono, i64::try_from(c / divisor).ok()?);
            }
        }
        // Two more points off the grid.
        for (mul, add) in [(2, 3), (3, 5)] {
            let mut at = self.hints.clone();
            for k in deps {
                at[*k] = self.clamp(*k, self.hints[*k] * mul + add);
            }
            let got = value(&at)?;
            if eval(&poly, &at) != Some(got) {
                return None;
            }
        }
        Some(poly)
    }

    /// The polynomial as sympy's `str` prints it, naming symbols `s{index}`.
    fn render(&self, poly: &Poly) -> String {
        let key = |k: usize| format!("s{}", self.torch_ids[k]);
        let name = |k: usize| format!("s{}", self.syms[k]);
        // Terms in sympy's lexicographic order: exponent vectors over the symbols sorted by
        // name, highest first; the constant last.
        let mut order: Vec<usize> = (0..self.syms.len()).collect();
        order.sort_by_key(|k| key(*k));
        let exps = |mono: &[usize]| -> Vec<usize> {
            order
                .iter()
                .map(|k| mono.iter().filter(|m| *m == k).count())
                .collect()
        };
        let mut terms: Vec<(&Vec<usize>, i64)> = poly.iter().map(|(m, c)| (m, *c)).collect();
        terms.sort_by_key(|t| std::cmp::Reverse(exps(t.0)));
        let texts: Vec<(bool, String)> = terms
            .iter()
            .map(|(mono, c)| {
                let mut factors: Vec<usize> = mono.to_vec();
                factors.sort_by_key(|k| key(*k));
                factors.dedup();
                let product = factors
                    .iter()
                    .map(|k| match mono.iter().filter(|m| *m == k).count() {
                        1 => name(*k),
                        e => format!("{}**{e}", name(*k)),
                    })
                    .collect::<Vec<_>>()
                    .join("*");
                let text = match (c.unsigned_abs(), product.is_empty()) {
                    (a, true) => a.to_string(),
                    (1, false) => product,
                    (a, false) => format!("{a}*{product}"),
                };
                (*c < 0, text)
            })
            .collect();
        // sympy writes `5 - 2*s0` for a positive constant and one negative term in one symbol.
        if let [(true, t), (false, c)] = texts.as_slice()
            && terms[0].0.len() == 1
            && terms[1].0.is_empty()
        {
            return format!("{c} - {t}");
        }
        let mut s = String::new();
        for (i, (neg, t)) in texts.iter().enumerate() {
            match (i, neg) {
                (0, true) => s.push_str(&format!("-{t}")),
                (0, false) => s.push_str(t),
                (_, true) => s.push_str(&format!(" - {t}")),
                (_, false) => s.push_str(&format!(" + {t}")),
            }
        }
        if s.is_empty() { "0".to_owned() } else { s }
    }
}

fn eval(poly: &Poly, at: &[i64]) -> Option<i64> {
    let mut total = 0i64;
    for (mono, c) in poly {
        let mut term = *c;
        for k in mono {
            term = term.checked_mul(at[*k])?;
        }
        total = total.checked_add(term)?;
    }
    Some(total)
}

/// `int(sha256(name).hexdigest(), 16) % 100`.
fn source_hash(name: &str) -> u32 {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(name.as_bytes());
    digest
        .iter()
        .fold(0u32, |acc, b| (acc * 256 + u32::from(*b)) % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two symbols `s0` (hint 4) and `s1` (hint 3), named by PyTorch s77 and s27 (their sources
    /// `L['x'].size()[0]`, `L['x'].size()[1]`).
    fn probe() -> ShapeProbe {
        ShapeProbe {
            syms: vec![0, 1],
            hints: vec![4, 3],
            near: vec![5, 4],
            ranges: vec![(2, None), (2, None)],
            torch_ids: vec![77, 27],
            input_dims: Vec::new(),
            input_ints: Vec::new(),
            sym_args: Vec::new(),
            assumptions: Vec::new(),
        }
    }

    fn fitted(deps: &[usize], f: fn(i64, i64) -> i64) -> Option<String> {
        let p = probe();
        let poly = p.fit_fn(deps, &mut |at| Some(f(at[0], at[1])))?;
        Some(p.render(&poly))
    }

    #[test]
    fn symbol_numbers_are_pytorch_source_hashes() {
        // Recorded from PyTorch 2.15 (`s77`, `s27`, `s17` in its FX views).
        assert_eq!(source_hash("L['x'].size()[0]"), 77);
        assert_eq!(source_hash("L['x'].size()[1]"), 27);
        assert_eq!(source_hash("L['y'].size()[0]"), 17);
    }

    #[test]
    fn sizes_fit_and_print_as_sympy() {
        // sympy orders by name: s27 (our s1) before s77 (our s0).
        assert_eq!(fitted(&[0, 1], |a, b| a * b).as_deref(), Some("s1*s0"));
        assert_eq!(fitted(&[0, 1], |a, b| a + b).as_deref(), Some("s1 + s0"));
        assert_eq!(fitted(&[0], |a, _| a + 2).as_deref(), Some("s0 + 2"));
        assert_eq!(fitted(&[0], |a, _| 5 - 2 * a).as_deref(), Some("5 - 2*s0"));
        assert_eq!(fitted(&[1], |_, b| b * b).as_deref(), Some("s1**2"));
        assert_eq!(
            fitted(&[0, 1], |a, b| 2 * a * b - a + 3).as_deref(),
            Some("2*s1*s0 - s0 + 3")
        );
        // Not polynomials: no expression is claimed.
        assert_eq!(fitted(&[0], |a, _| a / 2), None);
        assert_eq!(fitted(&[0, 1], |a, b| a.min(b + 2)), None);
    }
}
