//! The graph text format: [`Graph`]'s `Display` prints it, [`parse`] reads it back to an equal graph.
//!
//! ```text
//! graph(%x: f32[4, 8], %w: f32[8, 8]):
//!   %0: f32[4, 8] = matmul(%x, %w)
//!   %1: f32[4, 8] = add(%0, 1.0, alpha=1)
//!   %2: f32[8, 4]{1, 8} = t(%1)
//!   %3: f32[4], %4: i64[4] = max.dim(%1, 1, False)
//!   return (%2, %3)
//! ```
//!
//! - A meta is `dtype[sizes]` with the short dtype names (`f32`, `i64`, `b8`, ...), followed by
//!   `{strides}` when the strides are not the contiguous ones.
//! - A node is `outputs = op(args)` where `op` is the schema name (`max.dim` for an overload).
//!   Positional parameters print positionally, keyword-only ones as `name=value`; every parameter
//!   is printed. The parser also accepts omitted parameters that have defaults.
//! - Literals: `%name` (a value), `None`, `True`/`False`, ints, floats (always with `.` or an
//!   exponent; `inf`, `-inf`, `nan`), `'strings'`, dtypes as `torch.float32`, lists `[a, b]`, and
//!   inside index lists slices `start:stop:step` (parts optional) and `...`.
//! - Value names are `[A-Za-z0-9_.]+`.

use std::collections::HashMap;
use std::fmt;

use rynamo_tensor::{DType, IndexItem, Scalar, TensorMeta, layout};

use crate::graph::named;
use crate::schema::{Default, ParamType};
use crate::{Arg, Error, Graph, Op, Result, Value, ValueId};

struct MetaText<'a>(&'a TensorMeta);

impl fmt::Display for MetaText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.0;
        let dims: Vec<String> = m.shape.iter().map(|d| d.to_string()).collect();
        write!(f, "{}[{}]", m.dtype.short_name(), dims.join(", "))?;
        if m.strides.as_slice() != layout::contiguous_strides(&m.shape).as_slice() {
            let st: Vec<String> = m.strides.iter().map(|d| d.to_string()).collect();
            write!(f, "{{{}}}", st.join(", "))?;
        }
        Ok(())
    }
}

impl fmt::Display for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let decl = |v: ValueId| {
            let i = self.value(v);
            format!("%{}: {}", i.name, MetaText(&i.meta))
        };
        let ins: Vec<String> = self.inputs().iter().map(|&v| decl(v)).collect();
        writeln!(f, "graph({}):", ins.join(", "))?;
        for n in self.nodes() {
            let outs: Vec<String> = n.outputs.iter().map(|&v| decl(v)).collect();
            let schema = n.op.schema();
            let args: Vec<String> = n
                .args
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    let v = named(self, a);
                    match schema.params.get(i) {
                        Some(p) if p.kw_only => format!("{}={v}", p.name),
                        _ => v.to_string(),
                    }
                })
                .collect();
            writeln!(
                f,
                "  {} = {}({})",
                outs.join(", "),
                n.op.name(),
                args.join(", ")
            )?;
        }
        let outs: Vec<String> = self
            .outputs()
            .iter()
            .map(|&v| format!("%{}", self.value(v).name))
            .collect();
        writeln!(f, "  return ({})", outs.join(", "))
    }
}

/// A literal before it is typed by the parameter it binds to.
#[derive(Clone, Debug)]
enum Lit {
    Ref(String),
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    DType(DType),
    List(Vec<Lit>),
    Slice(Option<i64>, Option<i64>, Option<i64>),
    Ellipsis,
}

struct Cursor<'a> {
    s: &'a str,
    pos: usize,
    line: usize,
}

impl<'a> Cursor<'a> {
    fn err<T>(&self, msg: impl Into<String>) -> Result<T> {
        Err(Error::Parse {
            line: self.line,
            msg: format!(
                "{} (at `{}`)",
                msg.into(),
                &self.s[self.pos..].chars().take(20).collect::<String>()
            ),
        })
    }
    fn ws(&mut self) {
        while self.s[self.pos..].starts_with([' ', '\t']) {
            self.pos += 1;
        }
    }
    fn peek(&mut self) -> Option<char> {
        self.ws();
        self.s[self.pos..].chars().next()
    }
    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.pos..].starts_with(t) {
            self.pos += t.len();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, t: &str) -> Result<()> {
        if self.eat(t) {
            Ok(())
        } else {
            self.err(format!("expected `{t}`"))
        }
    }
    fn word(&mut self) -> &'a str {
        self.ws();
        let start = self.pos;
        while let Some(c) = self.s[self.pos..].chars().next() {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
        &self.s[start..self.pos]
    }
    fn at_end(&mut self) -> bool {
        self.ws();
        self.pos >= self.s.len()
    }

    fn name(&mut self) -> Result<String> {
        self.expect("%")?;
        let w = self.word();
        if w.is_empty() {
            self.err("expected a value name")
        } else {
            Ok(w.to_string())
        }
    }

    fn int(&mut self) -> Result<i64> {
        let neg = self.eat("-");
        let w = self.word();
        match w.parse::<i64>() {
            Ok(v) => Ok(if neg { -v } else { v }),
            Err(_) => self.err("expected an integer"),
        }
    }

    fn meta(&mut self) -> Result<TensorMeta> {
        let d = self.word();
        let Some(dtype) = DType::from_name(d) else {
            return self.err(format!("unknown dtype `{d}`"));
        };
        let shape: Vec<usize> = self
            .int_list("[", "]")?
            .into_iter()
            .map(|v| v as usize)
            .collect();
        let strides = if self.peek() == Some('{') {
            self.int_list("{", "}")?
                .into_iter()
                .map(|v| v as isize)
                .collect()
        } else {
            layout::contiguous_strides(&shape).to_vec()
        };
        Ok(TensorMeta {
            dtype,
            shape,
            strides,
        })
    }

    fn int_list(&mut self, open: &str, close: &str) -> Result<Vec<i64>> {
        self.expect(open)?;
        let mut v = Vec::new();
        while !self.eat(close) {
            v.push(self.int()?);
            if !self.eat(",") {
                self.expect(close)?;
                break;
            }
        }
        Ok(v)
    }

    fn opt_int_until(&mut self, stops: &[char]) -> Result<Option<i64>> {
        match self.peek() {
            Some(c) if stops.contains(&c) => Ok(None),
            _ => self.int().map(Some),
        }
    }

    fn lit(&mut self) -> Result<Lit> {
        match self.peek() {
            Some('%') => return Ok(Lit::Ref(self.name()?)),
            Some('[') => {
                self.expect("[")?;
                let mut v = Vec::new();
                while !self.eat("]") {
                    v.push(self.lit()?);
                    if !self.eat(",") {
                        self.expect("]")?;
                        break;
                    }
                }
                return Ok(Lit::List(v));
            }
            Some('\'') => return self.string(),
            Some(':') => return self.slice(None),
            _ => {}
        }
        if self.eat("...") {
            return Ok(Lit::Ellipsis);
        }
        let save = self.pos;
        let neg = self.eat("-");
        let w = self.word();
        let lit = match w {
            "None" if !neg => Lit::None,
            "True" if !neg => Lit::Bool(true),
            "False" if !neg => Lit::Bool(false),
            "inf" => Lit::Float(if neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }),
            "nan" => Lit::Float(f64::NAN),
            w if w.starts_with("torch.") => match DType::from_name(w) {
                Some(d) => Lit::DType(d),
                None => return self.err(format!("unknown dtype `{w}`")),
            },
            w => {
                // Exponents like `1e-05` continue after the sign.
                let mut text = w.to_string();
                if text.ends_with('e') && (self.eat("-") || { self.eat("+") }) {
                    let sign = &self.s[self.pos - 1..self.pos];
                    text.push_str(sign);
                    text.push_str(self.word());
                }
                let text = if neg { format!("-{text}") } else { text };
                if let Ok(i) = text.parse::<i64>() {
                    Lit::Int(i)
                } else if let Ok(x) = text.parse::<f64>() {
                    Lit::Float(x)
                } else {
                    self.pos = save;
                    return self.err("expected a literal");
                }
            }
        };
        if let Lit::Int(i) = lit
            && self.peek() == Some(':')
        {
            return self.slice(Some(i));
        }
        Ok(lit)
    }

    fn slice(&mut self, start: Option<i64>) -> Result<Lit> {
        self.expect(":")?;
        let stop = self.opt_int_until(&[':', ',', ']'])?;
        let step = if self.eat(":") {
            self.opt_int_until(&[',', ']'])?
        } else {
            None
        };
        Ok(Lit::Slice(start, stop, step))
    }

    fn string(&mut self) -> Result<Lit> {
        self.expect("'")?;
        let mut out = String::new();
        let mut chars = self.s[self.pos..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, e)) = chars.next() {
                        out.push(e);
                    }
                }
                '\'' => {
                    self.pos += i + 1;
                    return Ok(Lit::Str(out));
                }
                c => out.push(c),
            }
        }
        self.err("unterminated string")
    }
}

/// Parses graph text (see the module docs) into a graph. Metas are taken from the text; run
/// [`crate::verify`] to check them against the meta rules.
pub fn parse(text: &str) -> Result<Graph> {
    let mut g = Graph::new();
    let mut names: HashMap<String, ValueId> = HashMap::new();
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((l0, header)) = lines.next() else {
        return Err(Error::Parse {
            line: 1,
            msg: "empty graph text".into(),
        });
    };
    let mut c = Cursor {
        s: header,
        pos: 0,
        line: l0 + 1,
    };
    c.expect("graph")?;
    c.expect("(")?;
    while !c.eat(")") {
        let n = c.name()?;
        c.expect(":")?;
        let m = c.meta()?;
        if names.contains_key(&n) {
            return c.err(format!("value `%{n}` defined twice"));
        }
        names.insert(n.clone(), g.add_input(n, m));
        if !c.eat(",") {
            c.expect(")")?;
            break;
        }
    }
    c.expect(":")?;
    let mut returned = None;
    for (ln, line) in lines {
        let mut c = Cursor {
            s: line,
            pos: 0,
            line: ln + 1,
        };
        if returned.is_some() {
            return c.err("text after `return`");
        }
        if c.eat("return") {
            c.expect("(")?;
            let mut outs = Vec::new();
            while !c.eat(")") {
                let n = c.name()?;
                outs.push(lookup(&c, &names, &n)?);
                if !c.eat(",") {
                    c.expect(")")?;
                    break;
                }
            }
            returned = Some(outs);
            continue;
        }
        let mut outs = Vec::new();
        loop {
            let n = c.name()?;
            c.expect(":")?;
            let m = c.meta()?;
            outs.push((n, m));
            if !c.eat(",") {
                break;
            }
        }
        c.expect("=")?;
        let opname = c.word().to_string();
        let Some(op) = Op::from_name(&opname) else {
            return c.err(format!("unknown op `{opname}`"));
        };
        c.expect("(")?;
        let mut lits: Vec<(Option<String>, Lit)> = Vec::new();
        while !c.eat(")") {
            let save = c.pos;
            let w = c.word().to_string();
            let key = if !w.is_empty() && c.eat("=") {
                Some(w)
            } else {
                c.pos = save;
                None
            };
            lits.push((key, c.lit()?));
            if !c.eat(",") {
                c.expect(")")?;
                break;
            }
        }
        if !c.at_end() {
            return c.err("trailing text");
        }
        let args = bind_lits(&c, op, lits, &names)?;
        let mut ids = Vec::new();
        for (n, m) in outs {
            if names.contains_key(&n) {
                return c.err(format!("value `%{n}` defined twice"));
            }
            let id = g.add_value(n.clone(), m);
            names.insert(n, id);
            ids.push(id);
        }
        g.push_node(op, args, ids);
    }
    let Some(outs) = returned else {
        return Err(Error::Parse {
            line: text.lines().count(),
            msg: "missing `return`".into(),
        });
    };
    g.set_outputs(outs);
    Ok(g)
}

fn lookup(c: &Cursor<'_>, names: &HashMap<String, ValueId>, n: &str) -> Result<ValueId> {
    match names.get(n) {
        Some(v) => Ok(*v),
        None => c.err(format!("use of undefined value `%{n}`")),
    }
}

fn bind_lits(
    c: &Cursor<'_>,
    op: Op,
    lits: Vec<(Option<String>, Lit)>,
    names: &HashMap<String, ValueId>,
) -> Result<Vec<Arg>> {
    let schema = op.schema();
    let mut slots: Vec<Option<Arg>> = vec![None; schema.params.len()];
    let mut next = 0usize;
    for (key, lit) in lits {
        let i = match key {
            Some(k) => match schema.params.iter().position(|p| p.name == k) {
                Some(i) => i,
                None => return c.err(format!("`{}` has no parameter `{k}`", schema.name)),
            },
            None => {
                next += 1;
                next - 1
            }
        };
        let Some(p) = schema.params.get(i) else {
            return c.err(format!("too many arguments for `{}`", schema.name));
        };
        slots[i] = Some(lit_to_arg(c, &lit, p.ty, p.optional, names)?);
    }
    slots
        .into_iter()
        .zip(&schema.params)
        .map(|(s, p)| match (s, &p.default) {
            (Some(a), _) => Ok(a),
            (None, Some(Default::None)) => Ok(Value::None),
            (None, Some(Default::Value(v))) => Ok(v
                .try_map::<ValueId, ()>(|n| match *n {})
                .expect("invariant: no tensors")),
            (None, None) => c.err(format!(
                "missing argument `{}` of `{}`",
                p.name, schema.name
            )),
        })
        .collect()
}

fn lit_to_arg(
    c: &Cursor<'_>,
    lit: &Lit,
    ty: ParamType,
    optional: bool,
    names: &HashMap<String, ValueId>,
) -> Result<Arg> {
    fn mismatch<X>(c: &Cursor<'_>, lit: &Lit, ty: ParamType) -> Result<X> {
        c.err(format!(
            "literal {lit:?} does not fit a parameter of type {ty:?}"
        ))
    }
    let num = |l: &Lit| match l {
        Lit::Int(i) => Some(Scalar::Int(*i)),
        Lit::Float(x) => Some(Scalar::Float(*x)),
        Lit::Bool(b) => Some(Scalar::Bool(*b)),
        _ => None,
    };
    Ok(match (ty, lit) {
        (_, Lit::None) if optional => Value::None,
        (ParamType::Tensor | ParamType::TensorOrScalar, Lit::Ref(n)) => {
            Value::Tensor(lookup(c, names, n)?)
        }
        (ParamType::TensorOrScalar | ParamType::Scalar, l) if num(l).is_some() => {
            Value::Scalar(num(l).expect("invariant: checked"))
        }
        (ParamType::TensorList, Lit::List(items)) => Value::TensorList(
            items
                .iter()
                .map(|l| match l {
                    Lit::Ref(n) => lookup(c, names, n),
                    _ => mismatch(c, lit, ty),
                })
                .collect::<Result<_>>()?,
        ),
        (ParamType::Int, Lit::Int(i)) => Value::Int(*i),
        (ParamType::IntList, Lit::List(items)) => Value::IntList(
            items
                .iter()
                .map(|l| match l {
                    Lit::Int(i) => Ok(*i),
                    _ => mismatch(c, lit, ty),
                })
                .collect::<Result<_>>()?,
        ),
        (ParamType::Float, Lit::Float(x)) => Value::Float(*x),
        (ParamType::Float, Lit::Int(i)) => Value::Float(*i as f64),
        (ParamType::Bool, Lit::Bool(b)) => Value::Bool(*b),
        (ParamType::Str, Lit::Str(s)) => Value::Str(s.clone()),
        (ParamType::DType, Lit::DType(d)) => Value::DType(*d),
        (ParamType::Index, Lit::List(items)) => Value::Index(
            items
                .iter()
                .map(|l| {
                    Ok(match l {
                        Lit::Int(i) => IndexItem::Int(*i),
                        Lit::Slice(a, b, s) => IndexItem::Slice {
                            start: *a,
                            stop: *b,
                            step: *s,
                        },
                        Lit::None => IndexItem::None,
                        Lit::Ellipsis => IndexItem::Ellipsis,
                        Lit::Bool(b) => IndexItem::Bool(*b),
                        Lit::Ref(n) => IndexItem::Tensor(lookup(c, names, n)?),
                        _ => return mismatch(c, lit, ty),
                    })
                })
                .collect::<Result<_>>()?,
        ),
        _ => return mismatch(c, lit, ty),
    })
}
