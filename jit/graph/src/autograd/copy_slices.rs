//! In-place ops and history: after `x.mul_(2)` the tensor `x` has a new `grad_fn` whose edge
//! leads to its old history ("rebase history"). When `x` is a view of a base `b`, `b` itself
//! changed, so `b`'s history is rebased instead, through a [`CopySlices`] node (PyTorch's Note
//! [View + Inplace update for base tensor]): at backward time it runs the in-place op's formula
//! on the slice of `b`'s gradient that the view covers, and writes the result back into that
//! slice. The view's own `grad_fn` becomes a view of `b`'s new history.
//!
//! Both work on storage geometry (sizes, strides, offset), so any view of any layout is covered.
//! Double backward through a rebased view is refused with an error rather than computed
//! without history.

use std::sync::Arc;

use rynamo_tensor::{Tensor, TensorMeta};

use super::node::{Backward, Edge, Node};
use super::record::gradient_edge;
use crate::{Error, Result};

/// Where a tensor lies in its storage.
#[derive(Clone, Debug)]
struct Geometry {
    shape: Vec<i64>,
    strides: Vec<i64>,
    offset: i64,
    storage_numel: usize,
}

impl Geometry {
    fn of(t: &Tensor) -> Geometry {
        Geometry {
            shape: t.shape().iter().map(|&s| s as i64).collect(),
            strides: t.strides().iter().map(|&s| s as i64).collect(),
            offset: t.offset() as i64,
            storage_numel: t.storage().nbytes() / t.dtype().itemsize(),
        }
    }

    fn view_of(&self, store: &Tensor) -> Result<Tensor> {
        Ok(store.as_strided(&self.shape, &self.strides, Some(self.offset))?)
    }
}

/// A zero-filled copy of the storage both geometries live in.
fn zero_store(numel: usize, dtype: rynamo_tensor::DType) -> Tensor {
    Tensor::zeros(&[numel], dtype)
}

fn no_double_backward() -> Result<()> {
    if super::mode::is_grad_enabled() {
        return Err(Error::Tensor(rynamo_tensor::Error::NotImplemented(
            "double backward (create_graph=True) through an in-place operation on a view is not supported".into(),
        )));
    }
    Ok(())
}

/// Sets the history of `t`, just written in place by the op of `node` (its output 0).
pub(crate) fn rebase(t: &mut Tensor, node: &Arc<Node>) -> Result<()> {
    let base = t.autograd().and_then(|m| m.lock().view_base.clone());
    let Some(base) = base else {
        let handle: rynamo_tensor::autograd_meta::GradFn = node.clone();
        t.ensure_autograd()
            .update(|s| s.grad_fn = Some((handle, 0)));
        return Ok(());
    };
    let base_geom = Geometry::of(&base);
    let view_geom = Geometry::of(t);
    let mut next: Vec<Option<Edge>> = vec![gradient_edge(&base)];
    next.extend(node.next_edges().iter().skip(1).cloned());
    let mut input_metas: Vec<TensorMeta> = vec![base.meta()];
    input_metas.extend(node.input_metas().iter().skip(1).cloned());
    let cs = Node::new(
        "torch::autograd::CopySlices",
        next,
        input_metas,
        vec![base.meta()],
        Box::new(CopySlices {
            base: base_geom.clone(),
            view: view_geom.clone(),
            fn_node: node.clone(),
        }),
    );
    let handle: rynamo_tensor::autograd_meta::GradFn = cs.clone();
    let mut base_t = base.clone();
    base_t
        .ensure_autograd()
        .update(|s| s.grad_fn = Some((handle, 0)));
    let view_node = Node::new(
        "AsStridedBackward0",
        vec![Some(Edge {
            node: cs,
            input_nr: 0,
        })],
        vec![base.meta()],
        vec![t.meta()],
        Box::new(ViewOfBase {
            base: base_geom,
            view: view_geom,
        }),
    );
    let handle: rynamo_tensor::autograd_meta::GradFn = view_node;
    t.ensure_autograd()
        .update(|s| s.grad_fn = Some((handle, 0)));
    Ok(())
}

/// The base's history after an in-place write through one of its views.
struct CopySlices {
    base: Geometry,
    view: Geometry,
    fn_node: Arc<Node>,
}

impl Backward for CopySlices {
    fn apply(&self, node: &Arc<Node>, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
        let n = node.next_edges().len();
        let Some(Some(g)) = grads.into_iter().next() else {
            return Ok(vec![None; n]);
        };
        no_double_backward()?;
        let store = zero_store(self.base.storage_numel, g.dtype());
        let result = self.base.view_of(&store)?;
        result.copy_(&g)?;
        let slice = self.view.view_of(&store)?;
        let fn_grads = self
            .fn_node
            .backward()
            .apply(&self.fn_node, vec![Some(slice.deep_clone())])?;
        match fn_grads.first().cloned().flatten() {
            Some(old) => slice.copy_(&old)?,
            None => slice.fill_(rynamo_tensor::Scalar::Int(0)),
        }
        let mut out = Vec::with_capacity(n);
        out.push(Some(result));
        out.extend(fn_grads.into_iter().skip(1));
        out.resize(n, None);
        Ok(out)
    }

    fn release(&self) {
        self.fn_node.backward().release();
    }
}

/// A view's history after its base was rebased: the view's gradient placed in a zero gradient
/// of the base (PyTorch's `AsStridedBackward0`).
struct ViewOfBase {
    base: Geometry,
    view: Geometry,
}

impl Backward for ViewOfBase {
    fn apply(&self, _: &Arc<Node>, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
        let Some(Some(g)) = grads.into_iter().next() else {
            return Ok(vec![None]);
        };
        no_double_backward()?;
        let store = zero_store(self.base.storage_numel, g.dtype());
        self.view.view_of(&store)?.copy_(&g)?;
        Ok(vec![Some(self.base.view_of(&store)?)])
    }
}
