//! Reads graph text into a [`Graph`]: declarations, nodes (literals typed by the op's schema) and
//! the return line.

use std::collections::HashMap;

use rynamo_tensor::{IndexItem, Scalar};

use super::lexer::{Cursor, Lit};
use crate::schema::{Default, ParamType};
use crate::{Arg, Error, Graph, Op, Result, Value, ValueId};

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
