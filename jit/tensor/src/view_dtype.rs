//! `x.view(dtype)`: the same bytes read as another dtype (ATen's `view_dtype`). Elements of
//! another size rescale the last dim, which must be contiguous; the other strides and the
//! storage offset are rescaled too, so they must divide evenly when the elements grow.

use crate::error::bail;
use crate::layout::{Layout, Shaped};
use crate::{DType, Result, Tensor};

/// The layout of `x.view(dtype)`, in elements of `dtype`.
pub fn view_dtype_layout(x: &impl Shaped, dtype: DType) -> Result<Layout> {
    let (from, to) = (x.dtype().itemsize(), dtype.itemsize());
    let mut l = x.layout();
    if from == to {
        return Ok(l);
    }
    let names = || format!("{} as {}", x.dtype().aten_name(), dtype.aten_name());
    let Some(last) = x.ndim().checked_sub(1) else {
        bail!(
            Runtime,
            "self.dim() cannot be 0 to view {} (different element sizes)",
            names()
        );
    };
    if from > to {
        let ratio = from / to;
        check_last_stride(x, &names)?;
        l.shape[last] *= ratio;
        for s in &mut l.strides[..last] {
            *s *= ratio as isize;
        }
        l.offset *= ratio;
        return Ok(l);
    }
    let ratio = to / from;
    if !x.shape()[last].is_multiple_of(ratio) {
        bail!(
            Runtime,
            "self.size(-1) must be divisible by {ratio} to view {} (different element sizes), but got {}",
            names(),
            x.shape()[last]
        );
    }
    if !x.offset().is_multiple_of(ratio) {
        bail!(
            Runtime,
            "self.storage_offset() must be divisible by {ratio} to view {} (different element sizes), but got {}",
            names(),
            x.offset()
        );
    }
    check_last_stride(x, &names)?;
    for (i, s) in l.strides[..last].iter_mut().enumerate() {
        if *s % ratio as isize != 0 {
            bail!(
                Runtime,
                "self.stride({i}) must be divisible by {ratio} to view {} (different element sizes), but got {s}",
                names()
            );
        }
        *s /= ratio as isize;
    }
    l.shape[last] /= ratio;
    l.offset /= ratio;
    Ok(l)
}

fn check_last_stride(x: &impl Shaped, names: &dyn Fn() -> String) -> Result<()> {
    let s = x.strides()[x.ndim() - 1];
    if s != 1 {
        bail!(
            Runtime,
            "self.stride(-1) must be 1 to view {} (different element sizes), but got {s}",
            names()
        );
    }
    Ok(())
}

impl Tensor {
    /// `view(dtype)`: the same storage read as `dtype`.
    ///
    /// Viewing bytes as `bool` is refused when one of them is not 0 or 1: such a byte is no
    /// Rust `bool` (PyTorch lets it through and its kernels then read an invalid value).
    pub fn view_dtype(&self, dtype: DType) -> Result<Tensor> {
        let l = view_dtype_layout(self, dtype)?;
        if dtype == DType::Bool && self.dtype() != DType::Bool {
            let bytes = self.with_dtype_layout(DType::UInt8, l.clone());
            if bytes.to_vec::<u8>().iter().any(|&b| b > 1) {
                bail!(
                    Runtime,
                    "view(torch.bool): the tensor holds bytes other than 0 and 1, which are not booleans"
                );
            }
        }
        Ok(self.with_dtype_layout(dtype, l))
    }
}
