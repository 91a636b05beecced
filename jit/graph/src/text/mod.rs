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

use std::fmt;

use rynamo_tensor::{TensorMeta, layout};

use crate::graph::named;
use crate::{Graph, ValueId};

mod lexer;
mod parse;

pub use parse::parse;

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
