//! The view methods of [`Tensor`]: thin wrappers that apply a rule from [`crate::views`] to the
//! tensor's own storage. None of them copies, except `reshape`/`flatten` when no view exists.

use crate::{Result, Tensor, views};

impl Tensor {
    /// `view(size)`; `-1` infers one size.
    pub fn view(&self, size: &[i64]) -> Result<Tensor> {
        Ok(self.with_layout(views::view(self, size)?))
    }

    /// `reshape(size)`: a view when the strides allow it, else a contiguous copy.
    pub fn reshape(&self, size: &[i64]) -> Result<Tensor> {
        match views::reshape(self, size)? {
            Some(l) => Ok(self.with_layout(l)),
            None => {
                let shape = views::reshape_shape(self, size)?;
                let c = self.deep_clone();
                Ok(c.with_layout(views::contiguous(&shape)))
            }
        }
    }

    /// `permute(dims)`.
    pub fn permute(&self, dims: &[i64]) -> Result<Tensor> {
        Ok(self.with_layout(views::permute(self, dims)?))
    }

    /// `transpose(dim0, dim1)`.
    pub fn transpose(&self, dim0: i64, dim1: i64) -> Result<Tensor> {
        Ok(self.with_layout(views::transpose(self, dim0, dim1)?))
    }

    /// `t()`.
    pub fn t(&self) -> Result<Tensor> {
        Ok(self.with_layout(views::t(self)?))
    }

    /// `expand(size)` (stride 0 on broadcast dims).
    pub fn expand(&self, size: &[i64]) -> Result<Tensor> {
        Ok(self.with_layout(views::expand(self, size)?))
    }

    /// `x[start:end:step]` along `dim`, with Python clamping.
    pub fn slice(
        &self,
        dim: i64,
        start: Option<i64>,
        end: Option<i64>,
        step: i64,
    ) -> Result<Tensor> {
        Ok(self.with_layout(views::slice(self, dim, start, end, step)?))
    }

    /// `select(dim, index)`.
    pub fn select(&self, dim: i64, index: i64) -> Result<Tensor> {
        Ok(self.with_layout(views::select(self, dim, index)?))
    }

    /// `narrow(dim, start, length)`.
    pub fn narrow(&self, dim: i64, start: i64, length: i64) -> Result<Tensor> {
        Ok(self.with_layout(views::narrow(self, dim, start, length)?))
    }

    /// `unsqueeze(dim)`.
    pub fn unsqueeze(&self, dim: i64) -> Result<Tensor> {
        Ok(self.with_layout(views::unsqueeze(self, dim)?))
    }

    /// `squeeze()` / `squeeze(dims)`.
    pub fn squeeze(&self, dims: Option<&[i64]>) -> Result<Tensor> {
        Ok(self.with_layout(views::squeeze(self, dims)?))
    }

    /// `unflatten(dim, sizes)`.
    pub fn unflatten(&self, dim: i64, sizes: &[i64]) -> Result<Tensor> {
        Ok(self.with_layout(views::unflatten(self, dim, sizes)?))
    }

    /// `flatten(start_dim, end_dim)`: a view when possible, else a copy.
    pub fn flatten(&self, start_dim: i64, end_dim: i64) -> Result<Tensor> {
        let shape = views::flatten_shape(self, start_dim, end_dim)?;
        if shape.len() == self.ndim() && self.ndim() > 0 {
            return Ok(self.clone());
        }
        self.reshape(&shape)
    }

    /// `diagonal(offset, dim1, dim2)`.
    pub fn diagonal(&self, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor> {
        Ok(self.with_layout(views::diagonal(self, offset, dim1, dim2)?))
    }
}
