//! The backward formula of `einsum`, as einsums: the gradient of operand `i` contracts the
//! output gradient with the other operands into `i`'s subscripts. Two cases need more:
//! - a subscript repeated in operand `i` (`ii->i`): the gradient lives on that diagonal, so each
//!   repeat gets a fresh subscript tied to the first by an identity matrix operand;
//! - a subscript only operand `i` has (`ij->i`): it was summed, so the gradient is broadcast
//!   along it (unsqueeze + expand).
//!
//! Ellipses become fresh letters first, aligned from the right as einsum aligns them. Size-1
//! subscripts that broadcast against other operands come back full size; the engine sums them.
//! PyTorch decomposes einsum into views and products, so its node names vary by equation;
//! this node is `EinsumBackward0`. Complex operands enter the gradient einsums conjugated.

use std::collections::HashSet;

use super::pointwise::grad_or_return;
use super::{Grads, Saves, VjpCtx, VjpRule, args, vjp_rule};
use crate::autograd::emit::Emit;
use crate::{Error, Op, Result, Value};

/// An equation with every subscript a letter: each operand's and the output's.
struct Explicit {
    operands: Vec<Vec<u8>>,
    output: Vec<u8>,
    /// Letters the equation does not use, for fresh subscripts.
    free: Vec<u8>,
}

fn unsupported(msg: &str) -> Error {
    Error::Tensor(rynamo_tensor::Error::NotImplemented(format!(
        "the derivative of einsum {msg}"
    )))
}

/// Splits a term into (letters before `...`, letters after, whether it has one).
fn split_term(term: &str) -> (Vec<u8>, Vec<u8>, bool) {
    match term.split_once("...") {
        Some((a, b)) => (a.bytes().collect(), b.bytes().collect(), true),
        None => (term.bytes().collect(), vec![], false),
    }
}

impl Explicit {
    /// Rewrites `equation` (already accepted by the forward) for operands of ranks `ndims`.
    fn parse(equation: &str, ndims: &[usize]) -> Result<Explicit> {
        let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
        let (lhs, rhs) = match eq.split_once("->") {
            Some((l, r)) => (l, Some(r)),
            None => (eq.as_str(), None),
        };
        let used: HashSet<u8> = eq.bytes().filter(u8::is_ascii_alphabetic).collect();
        let mut free: Vec<u8> = (b'a'..=b'z')
            .chain(b'A'..=b'Z')
            .filter(|l| !used.contains(l))
            .collect();
        free.reverse(); // popped from the end: fresh letters in alphabetical order
        let terms: Vec<(Vec<u8>, Vec<u8>, bool)> = lhs.split(',').map(split_term).collect();
        let ells: Vec<usize> = terms
            .iter()
            .zip(ndims)
            .map(|((a, b, ell), &n)| if *ell { n - a.len() - b.len() } else { 0 })
            .collect();
        let max_ell = ells.iter().copied().max().unwrap_or(0);
        let mut ell_letters = Vec::with_capacity(max_ell);
        for _ in 0..max_ell {
            ell_letters.push(
                free.pop()
                    .ok_or_else(|| unsupported("with this many dims"))?,
            );
        }
        let operands: Vec<Vec<u8>> = terms
            .iter()
            .zip(&ells)
            .map(|((a, b, _), &e)| {
                let mut l = a.clone();
                l.extend_from_slice(&ell_letters[max_ell - e..]);
                l.extend_from_slice(b);
                l
            })
            .collect();
        let output = match rhs {
            Some(r) => {
                let (a, b, ell) = split_term(r);
                let mut o = a;
                if ell {
                    o.extend_from_slice(&ell_letters);
                }
                o.extend(b);
                o
            }
            None => {
                let all: Vec<u8> = terms
                    .iter()
                    .flat_map(|(a, b, _)| a.iter().chain(b).copied())
                    .collect();
                let mut once: Vec<u8> = all
                    .iter()
                    .copied()
                    .filter(|l| all.iter().filter(|m| *m == l).count() == 1)
                    .collect();
                once.sort_unstable();
                let mut o = ell_letters.clone();
                o.extend(once);
                o
            }
        };
        Ok(Explicit {
            operands,
            output,
            free,
        })
    }
}

fn text(labels: &[u8]) -> String {
    String::from_utf8_lossy(labels).into_owned()
}

fn einsum<E: Emit>(e: &mut E, c: &VjpCtx<'_, E::T>) -> Grads<E> {
    let a = args!(c, Einsum => linalg::einsum);
    let g = grad_or_return!(c);
    let mut out = c.no_grads();
    let slots: Vec<usize> = a.tensors.into_iter().copied().collect();
    let shapes: Vec<Vec<usize>> = slots
        .iter()
        .map(|&s| c.input_metas[s].shape.clone())
        .collect();
    let ndims: Vec<usize> = shapes.iter().map(Vec::len).collect();
    let mut p = Explicit::parse(a.equation, &ndims)?;
    for (i, &slot) in slots.iter().enumerate() {
        if !c.needs[slot] {
            continue;
        }
        let labels = p.operands[i].clone();
        let shape = &shapes[i];
        // Subscripts the gradient einsum can produce: the output's and the other operands'.
        let avail: HashSet<u8> = p
            .output
            .iter()
            .chain(
                p.operands
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .flat_map(|(_, l)| l.iter()),
            )
            .copied()
            .collect();
        let mut terms = vec![text(&p.output)];
        let mut args = vec![g.clone()];
        for (j, &s) in slots.iter().enumerate() {
            if j != i {
                terms.push(text(&p.operands[j]));
                let x = c.inputs[s].clone().ok_or_else(|| {
                    Error::Graph("internal: einsum's backward needs its operands".into())
                })?;
                // einsum is linear in each operand: complex ones pass `grad * conj(other)`.
                let x = if e.dtype(&x).is_complex() {
                    e.unary(Op::Conj, &x)?
                } else {
                    x
                };
                args.push(x);
            }
        }
        let mut result = Vec::new();
        let mut missing = Vec::new();
        let mut seen = HashSet::new();
        for (pos, &l) in labels.iter().enumerate() {
            let repeated = labels.iter().filter(|&&m| m == l).count() > 1;
            if seen.insert(l) {
                if avail.contains(&l) || repeated {
                    result.push(l);
                } else {
                    missing.push(pos);
                }
            } else {
                // a repeat: a fresh subscript on the diagonal with the first
                let m = p
                    .free
                    .pop()
                    .ok_or_else(|| unsupported("with this many repeated subscripts"))?;
                let n = shape[pos] as i64;
                // `eye` has no complex kernel: a real identity cast to the gradient's dtype.
                let dt = e.dtype(&g);
                let eye = e.op_kw(
                    Op::Eye,
                    vec![Value::Int(n)],
                    vec![("dtype", Value::DType(dt.to_real()))],
                )?;
                let eye = if dt.is_complex() {
                    e.to_dtype(&eye, dt)?
                } else {
                    eye
                };
                terms.push(text(&[l, m]));
                args.push(eye);
                result.push(m);
            }
        }
        let equation = format!("{}->{}", terms.join(","), text(&result));
        let mut d = e.op(
            Op::Einsum,
            vec![Value::Str(equation), Value::TensorList(args)],
        )?;
        if !missing.is_empty() {
            let mut full = e.shape(&d);
            for &pos in &missing {
                d = e.unsqueeze(&d, pos as i64)?;
                full.insert(pos, shape[pos]);
            }
            d = e.expand(&d, &full)?;
        }
        out[slot] = Some(d);
    }
    Ok(out)
}

pub(crate) static EINSUM: VjpRule = vjp_rule!("EinsumBackward0", Saves::args(&["tensors"]), einsum);
