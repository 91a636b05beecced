//! `einsum`: diagonals for repeated subscripts, sums for subscripts used once, then pairwise
//! contractions left to right, each one batched GEMM over `[batch, left, contracted]` x
//! `[batch, contracted, right]`.

use std::collections::HashMap;

use crate::error::bail;
use crate::layout::{Shaped, broadcast_all};
use crate::ops::matmul::matmul;
use crate::ops::product_dtypes;
use crate::ops::reduce::reduce;
use crate::{DType, ReduceOp, Result, Tensor, TensorMeta};

/// A subscript: a letter's ASCII code, or `ELLIPSIS + i` for ellipsis dim `i` (counted from the
/// left of the widest ellipsis, so all operands' ellipsis dims align from the right).
type Label = u16;
const ELLIPSIS: Label = 256;

/// A parsed equation checked against operand shapes.
struct Plan {
    /// Labels of each operand's dims.
    operands: Vec<Vec<Label>>,
    /// Labels of the output's dims.
    output: Vec<Label>,
    /// Broadcast size of each label.
    sizes: HashMap<Label, usize>,
}

fn label_name(l: Label) -> String {
    if l >= ELLIPSIS {
        "...".into()
    } else {
        char::from(l as u8).to_string()
    }
}

/// Parses one side's subscripts: letters and at most one `...`. Returns (labels before the
/// ellipsis, labels after it, whether it had one).
fn parse_term(term: &str, what: &str) -> Result<(Vec<Label>, Vec<Label>, bool)> {
    let (mut before, mut after, mut ell) = (Vec::new(), Vec::new(), false);
    let b = term.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'.' => {
                if ell || !term[i..].starts_with("...") {
                    bail!(
                        Runtime,
                        "einsum(): found '.' for {what} that is not part of any ellipsis"
                    );
                }
                ell = true;
                i += 3;
                continue;
            }
            c if c.is_ascii_alphabetic() => {
                if ell {
                    after.push(Label::from(c));
                } else {
                    before.push(Label::from(c));
                }
            }
            c => bail!(
                Runtime,
                "einsum(): invalid subscript given at index {i} in the equation string, subscripts must be in [a-zA-Z], got '{}'",
                char::from(c)
            ),
        }
        i += 1;
    }
    Ok((before, after, ell))
}

fn plan<S: Shaped>(equation: &str, ops: &[&S]) -> Result<Plan> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() > ops.len() {
        bail!(
            Runtime,
            "einsum(): fewer operands were provided than specified in the equation"
        );
    }
    if terms.len() < ops.len() {
        bail!(
            Runtime,
            "einsum(): more operands were provided than specified in the equation"
        );
    }
    // Parse operands; find the widest ellipsis.
    let mut parsed = Vec::new();
    let mut max_ell = 0usize;
    for (k, (term, t)) in terms.iter().zip(ops).enumerate() {
        let (before, after, ell) = parse_term(term, &format!("operand {k}"))?;
        let n = before.len() + after.len();
        if !ell && n != t.ndim() {
            bail!(
                Runtime,
                "einsum(): the number of subscripts in the equation ({n}) does not match the number of dimensions ({}) for operand {k} and no ellipsis was given",
                t.ndim()
            );
        }
        if ell && n > t.ndim() {
            bail!(
                Runtime,
                "einsum(): the number of subscripts in the equation ({n}) is more than the number of dimensions ({}) for operand {k}",
                t.ndim()
            );
        }
        let e = if ell { t.ndim() - n } else { 0 };
        max_ell = max_ell.max(e);
        parsed.push((before, after, e));
    }
    let mut operands = Vec::new();
    for (before, after, e) in parsed {
        let mut l = before;
        l.extend((0..e).map(|j| ELLIPSIS + (max_ell - e + j) as Label));
        l.extend(after);
        operands.push(l);
    }
    // Sizes, with size-1 broadcasting across operands.
    let mut sizes: HashMap<Label, usize> = HashMap::new();
    for (k, (labels, t)) in operands.iter().zip(ops).enumerate() {
        let mut own: HashMap<Label, usize> = HashMap::new();
        for (&l, &s) in labels.iter().zip(t.shape()) {
            if let Some(&prev) = own.get(&l)
                && prev != s
            {
                bail!(
                    Runtime,
                    "einsum(): subscript {} is repeated for operand {k} but the sizes don't match, {prev} != {s}",
                    label_name(l)
                );
            }
            own.insert(l, s);
            match sizes.get(&l).copied() {
                Some(prev) if prev != s && prev != 1 && s != 1 => {
                    if l >= ELLIPSIS {
                        let shapes: Vec<&[usize]> = ops.iter().map(|t| t.shape()).collect();
                        broadcast_all(&shapes)?;
                    }
                    bail!(
                        Runtime,
                        "einsum(): subscript {} has size {s} for operand {k} which does not broadcast with previously seen size {prev}",
                        label_name(l)
                    );
                }
                Some(prev) if prev != 1 => {}
                _ => {
                    sizes.insert(l, s);
                }
            }
        }
    }
    let output = match rhs {
        Some(r) => {
            let (before, after, ell) = parse_term(r, "the output")?;
            let mut out = before;
            if ell {
                out.extend((0..max_ell).map(|j| ELLIPSIS + j as Label));
            }
            out.extend(after);
            for (i, &l) in out.iter().enumerate() {
                if l < ELLIPSIS && !operands.iter().any(|o| o.contains(&l)) {
                    bail!(
                        Runtime,
                        "einsum(): output subscript {} does not appear in the equation for any input operand",
                        label_name(l)
                    );
                }
                if l < ELLIPSIS && out[..i].contains(&l) {
                    bail!(
                        Runtime,
                        "einsum(): output subscript {} appears more than once in the output",
                        label_name(l)
                    );
                }
            }
            out
        }
        None => {
            // Implicit output: the ellipsis, then letters used exactly once, in alphabetical order.
            let mut out: Vec<Label> = (0..max_ell).map(|j| ELLIPSIS + j as Label).collect();
            let mut once: Vec<Label> = Vec::new();
            for l in operands.iter().flatten() {
                if *l < ELLIPSIS && operands.iter().flatten().filter(|m| *m == l).count() == 1 {
                    once.push(*l);
                }
            }
            once.sort_unstable();
            out.extend(once);
            out
        }
    };
    Ok(Plan {
        operands,
        output,
        sizes,
    })
}

/// Shape/dtype rule of `einsum(equation, tensors)`.
pub fn einsum_meta<S: Shaped>(equation: &str, ops: &[&S]) -> Result<TensorMeta> {
    if ops.is_empty() {
        bail!(Runtime, "einsum(): must provide at least one operand");
    }
    for t in ops {
        product_dtypes::bmm(ops[0].dtype(), t.dtype())?;
    }
    let p = plan(equation, ops)?;
    let shape: Vec<usize> = p.output.iter().map(|l| p.sizes[l]).collect();
    Ok(TensorMeta::contiguous(ops[0].dtype(), &shape))
}

/// Takes diagonals until no label repeats within the operand.
fn diagonals(mut t: Tensor, mut labels: Vec<Label>) -> Result<(Tensor, Vec<Label>)> {
    loop {
        let dup = (0..labels.len()).find_map(|i| {
            (i + 1..labels.len())
                .find(|&j| labels[j] == labels[i])
                .map(|j| (i, j))
        });
        let Some((i, j)) = dup else {
            return Ok((t, labels));
        };
        let l = labels[i];
        t = t.diagonal(0, i as i64, j as i64)?;
        labels.remove(j);
        labels.remove(i);
        labels.push(l);
    }
}

/// Sums `t` over the dims whose labels satisfy `drop`, keeping its dtype.
fn sum_out(
    t: Tensor,
    labels: Vec<Label>,
    drop: impl Fn(Label) -> bool,
) -> Result<(Tensor, Vec<Label>)> {
    let dims: Vec<i64> = (0..labels.len())
        .filter(|&i| drop(labels[i]))
        .map(|i| i as i64)
        .collect();
    if dims.is_empty() {
        return Ok((t, labels));
    }
    let kept: Vec<Label> = labels.iter().copied().filter(|&l| !drop(l)).collect();
    let dt = t.dtype();
    let r = if dt == DType::Bool {
        reduce(ReduceOp::Any, &t, Some(&dims), false, None)?
    } else {
        reduce(ReduceOp::Sum, &t, Some(&dims), false, Some(dt))?
    };
    Ok((r, kept))
}

/// Permutes `t` to `order` (labels it has) and reshapes it to `groups` merged dims, expanding
/// size-1 dims to the planned sizes.
fn arrange(
    t: &Tensor,
    labels: &[Label],
    order: &[Label],
    groups: &[usize],
    sizes: &HashMap<Label, usize>,
) -> Result<Tensor> {
    let perm: Vec<i64> = order
        .iter()
        .map(|l| {
            labels
                .iter()
                .position(|m| m == l)
                .expect("invariant: label present") as i64
        })
        .collect();
    let p = t.permute(&perm)?;
    let full: Vec<i64> = order.iter().map(|l| sizes[l] as i64).collect();
    let e = p.expand(&full)?;
    let mut merged = Vec::new();
    let mut k = 0;
    for &g in groups {
        merged.push(full[k..k + g].iter().product::<i64>());
        k += g;
    }
    e.reshape(&merged)
}

/// `einsum(equation, tensors)`.
pub fn einsum(equation: &str, ops: &[&Tensor]) -> Result<Tensor> {
    let meta = einsum_meta(equation, ops)?;
    let p = plan(equation, ops)?;
    let mut terms = Vec::new();
    for (t, l) in ops.iter().zip(&p.operands) {
        terms.push(diagonals((*t).clone(), l.clone())?);
    }
    // A label used by one operand only and absent from the output is summed right away.
    let uses = |l: Label, terms: &[(Tensor, Vec<Label>)]| {
        terms.iter().filter(|(_, ls)| ls.contains(&l)).count()
    };
    let mut reduced = Vec::new();
    for k in 0..terms.len() {
        let (t, l) = terms[k].clone();
        let only_here = |x: Label| !p.output.contains(&x) && uses(x, &terms) == 1;
        reduced.push(sum_out(t, l, only_here)?);
    }
    let mut it = reduced.into_iter();
    let (mut acc, mut acc_l) = it.next().expect("invariant: at least one operand");
    let rest: Vec<(Tensor, Vec<Label>)> = it.collect();
    for (i, (b, bl)) in rest.iter().enumerate() {
        let later = &rest[i + 1..];
        let kept = |l: Label| p.output.contains(&l) || later.iter().any(|(_, ls)| ls.contains(&l));
        let batch: Vec<Label> = acc_l
            .iter()
            .copied()
            .filter(|l| bl.contains(l) && kept(*l))
            .collect();
        let contracted: Vec<Label> = acc_l
            .iter()
            .copied()
            .filter(|l| bl.contains(l) && !kept(*l))
            .collect();
        let left: Vec<Label> = acc_l.iter().copied().filter(|l| !bl.contains(l)).collect();
        let right: Vec<Label> = bl.iter().copied().filter(|l| !acc_l.contains(l)).collect();
        let a_order: Vec<Label> = [&batch[..], &left, &contracted].concat();
        let b_order: Vec<Label> = [&batch[..], &contracted, &right].concat();
        let a3 = arrange(
            &acc,
            &acc_l,
            &a_order,
            &[batch.len(), left.len(), contracted.len()],
            &p.sizes,
        )?;
        let b3 = arrange(
            b,
            bl,
            &b_order,
            &[batch.len(), contracted.len(), right.len()],
            &p.sizes,
        )?;
        let r = matmul(&a3, &b3)?;
        let out_l: Vec<Label> = [&batch[..], &left, &right].concat();
        let shape: Vec<i64> = out_l.iter().map(|l| p.sizes[l] as i64).collect();
        acc = r.reshape(&shape)?;
        acc_l = out_l;
    }
    // Anything left that the output does not name is summed (e.g. an ellipsis it omits).
    let (acc, acc_l) = sum_out(acc, acc_l, |l| !p.output.contains(&l))?;
    let perm: Vec<i64> = p
        .output
        .iter()
        .map(|l| {
            acc_l
                .iter()
                .position(|m| m == l)
                .expect("invariant: output label") as i64
        })
        .collect();
    let full: Vec<i64> = meta.shape.iter().map(|&s| s as i64).collect();
    let out = acc.permute(&perm)?.expand(&full)?;
    let res = Tensor::empty(&meta.shape, meta.dtype);
    res.copy_(&out)?;
    Ok(res)
}
