//! Affine index maps: how a kernel's domain index reaches an element of some tensor.
//!
//! A map sends a domain multi-index `i` to a tensor multi-index `j = A i + c`. Broadcasting,
//! permutes, slices, selects, expands, unsqueezes, diagonals and splitting reshapes are all affine,
//! so a chain of them folds into one map and, with the tensor's strides, into one stride per
//! domain dim: no intermediate buffer. Merging reshapes are not affine; the fuser materialises
//! their input instead.

use rynamo_graph::{Arg, Args, Op};
use rynamo_tensor::{Layout, TensorMeta, layout::contiguous_strides, views};

/// `j = A i + c`, with `a[row][col]`: rows are target dims, columns domain dims.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Map {
    /// Coefficients.
    pub a: Vec<Vec<i64>>,
    /// Constant term.
    pub c: Vec<i64>,
    /// Domain dims (the columns of `a`), kept apart from `a`: a map to a 0-dim tensor has no
    /// rows but still a domain (composing through one lost it, and `x * x.squeeze(0)` on a
    /// one-element `x` indexed an empty row: fuzz finding).
    pub cols: usize,
}

impl Map {
    /// The identity over `n` dims.
    pub fn identity(n: usize) -> Map {
        Map {
            a: (0..n)
                .map(|r| (0..n).map(|c| i64::from(r == c)).collect())
                .collect(),
            c: vec![0; n],
            cols: n,
        }
    }

    /// `self ∘ inner`: first `inner` (domain -> mid), then `self` (mid -> target).
    pub fn compose(&self, inner: &Map) -> Map {
        let cols = inner.cols;
        let a = self
            .a
            .iter()
            .map(|row| {
                (0..cols)
                    .map(|col| row.iter().zip(&inner.a).map(|(x, ir)| x * ir[col]).sum())
                    .collect()
            })
            .collect();
        let c = self
            .a
            .iter()
            .zip(&self.c)
            .map(|(row, c0)| c0 + row.iter().zip(&inner.c).map(|(x, y)| x * y).sum::<i64>())
            .collect();
        Map { a, c, cols }
    }

    /// Element strides over the domain and the element offset, for a tensor with `strides`.
    pub fn strides(&self, strides: &[isize], domain_ndim: usize) -> (Vec<isize>, isize) {
        let st = (0..domain_ndim)
            .map(|d| {
                self.a
                    .iter()
                    .zip(strides)
                    .map(|(row, s)| row[d] as isize * s)
                    .sum()
            })
            .collect();
        let off = self
            .c
            .iter()
            .zip(strides)
            .map(|(c, s)| *c as isize * s)
            .sum();
        (st, off)
    }

    /// Equality ignoring target dims of size 1 (whose coordinate is always 0).
    pub fn same_on(&self, other: &Map, shape: &[usize]) -> bool {
        shape.iter().enumerate().all(|(r, &n)| {
            n == 1 || (self.a.get(r) == other.a.get(r) && self.c.get(r) == other.c.get(r))
        })
    }
}

/// The map from an output index of shape `out` to an operand of shape `inp` broadcast to it.
pub fn broadcast(inp: &[usize], out: &[usize]) -> Map {
    let (m, n) = (inp.len(), out.len());
    let a = (0..m)
        .map(|e| {
            let d = e + n - m;
            (0..n)
                .map(|col| i64::from(col == d && inp[e] == out[d]))
                .collect()
        })
        .collect();
    Map {
        a,
        c: vec![0; m],
        cols: n,
    }
}

/// The map from a reduction's (keepdim or not) output index to its input index is a projection;
/// this is the map from the input domain to the output: kept dims pass, reduced dims vanish or
/// become 0.
pub fn reduction_output(in_ndim: usize, reduced: &[bool], keepdim: bool) -> Map {
    let mut a = Vec::new();
    for (d, &red) in reduced.iter().enumerate().take(in_ndim) {
        if !red {
            a.push((0..in_ndim).map(|c| i64::from(c == d)).collect());
        } else if keepdim {
            a.push(vec![0; in_ndim]);
        }
    }
    let n = a.len();
    Map {
        a,
        c: vec![0; n],
        cols: in_ndim,
    }
}

/// The layout a view op gives a tensor of layout `x` (shape checks already passed in the meta
/// rule); `None` for ops that are not pure views or reshapes that would copy.
pub fn view_layout(op: Op, args: &[Arg], x: &TensorMeta) -> Option<Layout> {
    let a = Args(args);
    let r = match op {
        Op::View => views::view(x, a.ints(1).ok()?),
        Op::Reshape => return views::reshape(x, a.ints(1).ok()?).ok()?,
        Op::Flatten => {
            let shape = views::flatten_shape(x, a.int(1).ok()?, a.int(2).ok()?).ok()?;
            return views::reshape(x, &shape).ok()?;
        }
        Op::Permute => views::permute(x, a.ints(1).ok()?),
        Op::Transpose => views::transpose(x, a.int(1).ok()?, a.int(2).ok()?),
        Op::T => views::t(x),
        Op::Expand => views::expand(x, a.ints(1).ok()?),
        Op::Slice => views::slice(
            x,
            a.int(1).ok()?,
            a.opt_int(2).ok()?,
            a.opt_int(3).ok()?,
            a.int(4).ok()?,
        ),
        Op::Select => views::select(x, a.int(1).ok()?, a.int(2).ok()?),
        Op::Narrow => views::narrow(x, a.int(1).ok()?, a.int(2).ok()?, a.int(3).ok()?),
        Op::Unsqueeze => views::unsqueeze(x, a.int(1).ok()?),
        Op::Squeeze => views::squeeze(x, a.opt_ints(1).ok()?),
        Op::Unflatten => views::unflatten(x, a.int(1).ok()?, a.ints(2).ok()?),
        Op::Diagonal => views::diagonal(x, a.int(1).ok()?, a.int(2).ok()?, a.int(3).ok()?),
        Op::AsStrided => views::as_strided(
            x,
            a.ints(1).ok()?,
            a.ints(2).ok()?,
            a.opt_int(3).ok()?,
            None,
        ),
        _ => return None,
    };
    r.ok()
}

/// The affine map from a view's output index to its input index, if the view is affine.
///
/// The view rule runs on a contiguous probe of the input shape. For an affine view, the input
/// index of output index `j` is `unravel(offset + j · strides)`; reading it off at the origin and
/// at each unit vector gives `A` and `c`, and checking that `A j + c` stays in bounds over the
/// whole output proves the map exact (in bounds, equal linear offsets mean equal indices).
pub fn view_map(op: Op, args: &[Arg], input: &TensorMeta, output_shape: &[usize]) -> Option<Map> {
    let probe = TensorMeta::contiguous(input.dtype, &input.shape);
    let l = view_layout(op, args, &probe)?;
    if l.shape.as_slice() != output_shape {
        return None;
    }
    let in_shape = &input.shape;
    let cs = contiguous_strides(in_shape);
    let unravel = |lin: isize| -> Option<Vec<i64>> {
        let mut rem = lin;
        let mut idx = vec![0i64; in_shape.len()];
        for (k, (&n, &s)) in in_shape.iter().zip(cs.iter()).enumerate() {
            if n == 0 {
                return None;
            }
            let s = s.max(1);
            idx[k] = (rem / s) as i64;
            rem -= idx[k] as isize * s;
            if idx[k] < 0 || idx[k] >= n as i64 {
                return None;
            }
        }
        (rem == 0).then_some(idx)
    };
    if output_shape.contains(&0) || in_shape.contains(&0) {
        return None;
    }
    let base = l.offset as isize;
    let c = unravel(base)?;
    let nd = output_shape.len();
    let mut a = vec![vec![0i64; nd]; in_shape.len()];
    for d in 0..nd {
        if output_shape[d] < 2 {
            continue;
        }
        let k = unravel(base + l.strides[d])?;
        for e in 0..in_shape.len() {
            a[e][d] = k[e] - c[e];
        }
    }
    // Every coordinate must stay in bounds over the whole output box.
    for e in 0..in_shape.len() {
        let (mut lo, mut hi) = (c[e], c[e]);
        for d in 0..nd {
            let span = a[e][d] * (output_shape[d] as i64 - 1);
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        if lo < 0 || hi >= in_shape[e] as i64 {
            return None;
        }
    }
    // The linear offsets must agree per unit step (they do by construction unless a stride of a
    // size-1 output dim was odd, which cannot move the index).
    Some(Map { a, c, cols: nd })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rynamo_graph::Value;
    use rynamo_tensor::DType;

    fn meta(s: &[usize]) -> TensorMeta {
        TensorMeta::contiguous(DType::Float32, s)
    }

    #[test]
    fn transpose_is_a_permutation() {
        let m = view_map(
            Op::Transpose,
            &[
                Value::Tensor(rynamo_graph::ValueId(0)),
                Value::Int(0),
                Value::Int(1),
            ],
            &meta(&[2, 3]),
            &[3, 2],
        )
        .unwrap();
        assert_eq!(m.a, vec![vec![0, 1], vec![1, 0]]);
        assert_eq!(m.c, vec![0, 0]);
    }

    #[test]
    fn merging_reshape_is_not_affine_but_splitting_is() {
        let x = Value::Tensor(rynamo_graph::ValueId(0));
        let merge = view_map(
            Op::View,
            &[x.clone(), Value::IntList(vec![6])],
            &meta(&[2, 3]),
            &[6],
        );
        assert!(merge.is_none());
        let split = view_map(
            Op::View,
            &[x, Value::IntList(vec![2, 3])],
            &meta(&[6]),
            &[2, 3],
        )
        .unwrap();
        assert_eq!(split.a, vec![vec![3, 1]]);
    }

    #[test]
    fn slice_with_step_and_offset() {
        let x = Value::Tensor(rynamo_graph::ValueId(0));
        let args = [x, Value::Int(1), Value::Int(1), Value::None, Value::Int(2)];
        let m = view_map(Op::Slice, &args, &meta(&[4, 7]), &[4, 3]).unwrap();
        assert_eq!(m.a, vec![vec![1, 0], vec![0, 2]]);
        assert_eq!(m.c, vec![0, 1]);
        let (st, off) = m.strides(&[7, 1], 2);
        assert_eq!((st, off), (vec![7, 2], 1));
    }

    #[test]
    fn compose_then_strides() {
        let b = broadcast(&[3], &[2, 3]);
        let (st, _) = b.strides(&[1], 2);
        assert_eq!(st, vec![0, 1]);
        let t = Map {
            a: vec![vec![0, 1], vec![1, 0]],
            c: vec![0, 0],
            cols: 2,
        };
        let id = Map::identity(2);
        assert_eq!(t.compose(&id), t);
    }

    #[test]
    fn compose_through_a_0_dim_tensor_keeps_the_domain() {
        // `x * x.squeeze(0)` with x of shape [1]: the domain [1] broadcasts to the 0-dim
        // squeeze output (no rows), whose view map reaches x's one dim.
        let to_scalar = broadcast(&[], &[1]);
        let x = Value::Tensor(rynamo_graph::ValueId(0));
        let squeeze =
            view_map(Op::Squeeze, &[x, Value::IntList(vec![0])], &meta(&[1]), &[]).unwrap();
        let m = squeeze.compose(&to_scalar);
        assert_eq!((m.a.clone(), m.cols), (vec![vec![0]], 1));
        assert_eq!(m.strides(&[1], 1), (vec![0], 0));
    }
}
