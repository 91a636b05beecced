//! The IR verifier: SSA (each value defined once, before use), argument kinds against the schema,
//! metas against the meta rules, defined outputs.

use std::fmt;

use crate::{Graph, NodeId, Returns};

/// One verifier finding.
#[derive(Clone, Debug, PartialEq)]
pub struct VerifyError {
    /// The node at fault, if any.
    pub node: Option<NodeId>,
    /// What is wrong.
    pub msg: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.node {
            Some(n) => write!(f, "node {}: {}", n.0, self.msg),
            None => f.write_str(&self.msg),
        }
    }
}

/// Checks every invariant of the IR; returns all findings.
pub fn verify(g: &Graph) -> Result<(), Vec<VerifyError>> {
    let mut errs = Vec::new();
    let mut defined = vec![false; g.values().len()];
    let mut push = |node: Option<NodeId>, msg: String| errs.push(VerifyError { node, msg });
    for &v in g.inputs() {
        match defined.get_mut(v.0 as usize) {
            None => push(None, format!("input {v} is not a value of the graph")),
            Some(d) if *d => push(None, format!("input {v} is listed twice")),
            Some(d) => *d = true,
        }
    }
    for (i, n) in g.nodes().iter().enumerate() {
        let id = Some(NodeId(i as u32));
        let schema = n.op.schema();
        if n.args.len() != schema.params.len() {
            push(
                id,
                format!(
                    "`{}` takes {} arguments, got {}",
                    schema.name,
                    schema.params.len(),
                    n.args.len()
                ),
            );
        }
        for (k, a) in n.args.iter().enumerate() {
            if k < schema.params.len() && !schema.accepts(k, a) {
                push(
                    id,
                    format!(
                        "argument `{}` of `{}` cannot be {}",
                        schema.params[k].name,
                        schema.name,
                        a.type_name()
                    ),
                );
            }
            for v in a.tensors() {
                match defined.get(v.0 as usize) {
                    Some(true) => {}
                    Some(false) => push(id, format!("uses {v} before it is defined")),
                    None => push(id, format!("uses {v}, which is not a value of the graph")),
                }
            }
        }
        if let Returns::Tuple(names) = &schema.returns {
            if names.len() != n.outputs.len() {
                push(
                    id,
                    format!(
                        "`{}` returns {} values, node has {}",
                        schema.name,
                        names.len(),
                        n.outputs.len()
                    ),
                );
            }
        } else if schema.returns == Returns::Tensor && n.outputs.len() != 1 {
            push(
                id,
                format!(
                    "`{}` returns one value, node has {}",
                    schema.name,
                    n.outputs.len()
                ),
            );
        }
        let all_defined = n.inputs().all(|v| defined.get(v.0 as usize) == Some(&true));
        if all_defined && n.args.len() == schema.params.len() {
            match g
                .arg_metas(&n.args)
                .and_then(|m| crate::registry::meta(n.op, &m))
            {
                Ok(metas) => {
                    if metas.len() != n.outputs.len() {
                        push(
                            id,
                            format!(
                                "meta rule gives {} outputs, node has {}",
                                metas.len(),
                                n.outputs.len()
                            ),
                        );
                    }
                    for (m, &o) in metas.iter().zip(&n.outputs) {
                        if let Some(info) = g.values().get(o.0 as usize)
                            && &info.meta != m
                        {
                            push(
                                id,
                                format!(
                                    "output %{} has meta {:?}, the meta rule says {:?}",
                                    info.name, info.meta, m
                                ),
                            );
                        }
                    }
                }
                Err(crate::Error::Tensor(rynamo_tensor::Error::DataDependent(_))) => {}
                Err(e) => push(id, format!("meta rule fails: {e}")),
            }
        }
        for &o in &n.outputs {
            match defined.get_mut(o.0 as usize) {
                None => push(
                    id,
                    format!("defines {o}, which is not a value of the graph"),
                ),
                Some(d) if *d => push(id, format!("redefines {o}")),
                Some(d) => *d = true,
            }
        }
    }
    for &o in g.outputs() {
        if defined.get(o.0 as usize) != Some(&true) {
            push(None, format!("graph output {o} is not defined"));
        }
    }
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}
