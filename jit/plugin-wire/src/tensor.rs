//! DLPack-style tensor descriptors: borrowing host tensors across the ABI, and handing tensors over
//! with their ownership ([`RynamoManagedTensor`]).
//!
//! ```text
//!   host                                   plugin (SDK)
//!   TensorDesc::new(&Tensor) --inputs-->   borrow(&RynamoTensor) -> Tensor (no-op release)
//!   adopt(*mut Managed, keep) <-outputs--  export(Tensor) -> *mut RynamoManagedTensor
//! ```
//! **Invariant:** an adopted tensor's storage calls the producer's deleter exactly once, and drops
//! `keep` (the host's handle on the plugin library) only after that call.

use std::any::Any;
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::Arc;

use rynamo_plugin_abi::*;
use rynamo_tensor::{DType, Layout, Storage, Tensor};

use crate::{Error, Result};

/// The DLPack type of a dtype.
pub fn dtype_to_abi(d: DType) -> RynamoDataType {
    let code = match d {
        DType::Bool => RYNAMO_DTYPE_CODE_BOOL,
        DType::UInt8 => RYNAMO_DTYPE_CODE_UINT,
        DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => RYNAMO_DTYPE_CODE_INT,
        DType::Float16 | DType::Float32 | DType::Float64 => RYNAMO_DTYPE_CODE_FLOAT,
        DType::BFloat16 => RYNAMO_DTYPE_CODE_BFLOAT,
        DType::Complex64 | DType::Complex128 => RYNAMO_DTYPE_CODE_COMPLEX,
    };
    RynamoDataType {
        code,
        bits: (d.itemsize() * 8) as u8,
        lanes: 1,
    }
}

/// The dtype of a DLPack type, if Rynamo has it.
pub fn dtype_from_abi(t: RynamoDataType) -> Option<DType> {
    if t.lanes != 1 {
        return None;
    }
    DType::ALL
        .into_iter()
        .find(|d| dtype_to_abi(*d).code == t.code && dtype_to_abi(*d).bits == t.bits)
}

/// A descriptor of a host tensor, valid while this value and the tensor live. It owns the
/// `shape`/`strides` arrays the raw descriptor points to (heap buffers, so moving it is fine).
pub struct TensorDesc {
    _shape: Vec<i64>,
    _strides: Vec<i64>,
    raw: RynamoTensor,
}

impl TensorDesc {
    /// Describes `t` (data pointer at the storage base, `byte_offset` to element 0).
    pub fn new(t: &Tensor) -> TensorDesc {
        let shape: Vec<i64> = t.shape().iter().map(|&s| s as i64).collect();
        let strides: Vec<i64> = t.strides().iter().map(|&s| s as i64).collect();
        let raw = RynamoTensor {
            data: t.storage().as_ptr().cast::<c_void>(),
            device: RynamoDevice {
                device_type: RYNAMO_DEVICE_CPU,
                device_id: 0,
            },
            ndim: shape.len() as i32,
            dtype: dtype_to_abi(t.dtype()),
            shape: shape.as_ptr(),
            strides: strides.as_ptr(),
            byte_offset: (t.offset() * t.dtype().itemsize()) as u64,
        };
        TensorDesc {
            _shape: shape,
            _strides: strides,
            raw,
        }
    }

    /// The raw descriptor.
    pub fn raw(&self) -> &RynamoTensor {
        &self.raw
    }
}

/// What a descriptor says, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Described {
    /// Element type.
    pub dtype: DType,
    /// Shape, strides and offset (in elements, from `data`).
    pub layout: Layout,
    /// Bytes from `data` to one past the last element touched (0 for an empty tensor).
    pub extent: usize,
}

/// Checks a descriptor: CPU device, a known dtype, sane `ndim`, non-negative strides, alignment,
/// and no arithmetic overflow.
///
/// # Safety
/// `shape` (and `strides` unless NULL) must point to `ndim` readable `i64`s.
pub unsafe fn describe(t: &RynamoTensor) -> Result<Described> {
    let bad = |m: String| Err(Error::Descriptor(m));
    if t.device.device_type != RYNAMO_DEVICE_CPU {
        return bad(format!(
            "device type {} is not the CPU",
            t.device.device_type
        ));
    }
    let Some(dtype) = dtype_from_abi(t.dtype) else {
        return bad(format!(
            "dtype (code {}, bits {}, lanes {}) is not supported",
            t.dtype.code, t.dtype.bits, t.dtype.lanes
        ));
    };
    if !(0..=64).contains(&t.ndim) {
        return bad(format!("ndim {} out of range", t.ndim));
    }
    let ndim = t.ndim as usize;
    if ndim > 0 && t.shape.is_null() {
        return bad("shape is NULL".into());
    }
    let read = |p: *const i64| -> Vec<i64> {
        if ndim == 0 {
            return Vec::new();
        }
        // SAFETY: the caller guarantees `ndim` readable i64s at `p` (non-NULL, checked).
        unsafe { std::slice::from_raw_parts(p, ndim) }.to_vec()
    };
    let shape = read(t.shape);
    let mut dims = Vec::with_capacity(ndim);
    for &s in &shape {
        match usize::try_from(s) {
            Ok(s) => dims.push(s),
            Err(_) => return bad(format!("negative size in shape {shape:?}")),
        }
    }
    let strides: Vec<isize> = if t.strides.is_null() {
        rynamo_tensor::layout::contiguous_strides(&dims).to_vec()
    } else {
        let st = read(t.strides);
        if st.iter().any(|&s| s < 0) {
            return bad(format!("negative stride in {st:?}"));
        }
        st.iter().map(|&s| s as isize).collect()
    };
    let isz = dtype.itemsize();
    let offset = t.byte_offset as usize;
    if !offset.is_multiple_of(isz) || !(t.data as usize).is_multiple_of(isz) {
        return bad(format!("data is not aligned for {}", dtype.name()));
    }
    let numel = dims
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| Error::Descriptor(format!("shape {shape:?} overflows")))?;
    let extent = if numel == 0 {
        0
    } else {
        let last = dims
            .iter()
            .zip(&strides)
            .try_fold(0usize, |a, (&d, &s)| {
                a.checked_add((d - 1).checked_mul(s as usize)?)
            })
            .and_then(|e| e.checked_add(1)?.checked_mul(isz)?.checked_add(offset))
            .ok_or_else(|| Error::Descriptor(format!("strides {strides:?} overflow")))?;
        if t.data.is_null() {
            return bad("data is NULL for a non-empty tensor".into());
        }
        last
    };
    Ok(Described {
        dtype,
        layout: Layout {
            shape: dims.into_iter().collect(),
            strides: strides.into_iter().collect(),
            offset: offset / isz,
        },
        extent,
    })
}

/// Wraps borrowed memory as a tensor (no copy, nothing freed on drop).
///
/// # Safety
/// Beyond [`describe`]'s contract: the memory must stay valid for as long as the returned tensor and
/// every alias of it live (for the SDK: the duration of one `execute` call).
pub unsafe fn borrow(t: &RynamoTensor) -> Result<Tensor> {
    // SAFETY: forwarded caller contract.
    let d = unsafe { describe(t) }?;
    let Some(ptr) = NonNull::new(t.data.cast::<u8>()).filter(|_| d.extent > 0) else {
        return Ok(Tensor::zeros(&d.layout.shape, d.dtype));
    };
    // SAFETY: the caller guarantees `extent` bytes at `ptr` stay valid while the tensor lives;
    // `describe` checked alignment. Nothing is released.
    let storage = unsafe { Storage::from_external(ptr, d.extent, Box::new(|| {})) };
    Tensor::from_storage(Arc::new(storage), d.dtype, d.layout)
        .map_err(|e| Error::Descriptor(e.to_string()))
}

struct Release {
    managed: *mut RynamoManagedTensor,
    keep: Option<Box<dyn Any + Send + Sync>>,
}

// SAFETY: the ABI lets a managed tensor's deleter run on any thread; `managed` is used only there.
unsafe impl Send for Release {}
// SAFETY: as above; `Release` is consumed by value, never shared.
unsafe impl Sync for Release {}

impl Release {
    fn run(mut self) {
        // SAFETY: `managed` came from the producer, has not been released yet, and is released
        // exactly once here (this consumes `self`).
        unsafe {
            if let Some(del) = (*self.managed).deleter {
                del(self.managed);
            }
        }
        // NOTE: drop `keep` (the plugin library) only after the deleter, which is library code.
        drop(self.keep.take());
    }
}

/// Takes ownership of a managed tensor produced across the ABI, without copying. On error the
/// tensor is released at once. `keep` is dropped right after the producer's deleter runs.
///
/// # Safety
/// `m` must be a valid managed tensor whose ownership passes to this call, and whose descriptor and
/// data stay valid until its deleter runs.
pub unsafe fn adopt(
    m: *mut RynamoManagedTensor,
    keep: Box<dyn Any + Send + Sync>,
) -> Result<Tensor> {
    if m.is_null() {
        return Err(Error::Descriptor("output is NULL".into()));
    }
    let release = Release {
        managed: m,
        keep: Some(keep),
    };
    // SAFETY: caller contract: `m` is valid.
    let (raw, has_deleter) = unsafe { ((*m).dl_tensor, (*m).deleter.is_some()) };
    if !has_deleter {
        // Nothing can free it; leaking beats calling a NULL deleter.
        return Err(Error::Descriptor(
            "managed tensor has a NULL deleter".into(),
        ));
    }
    // SAFETY: caller contract: the descriptor's arrays are valid.
    let d = match unsafe { describe(&raw) } {
        Ok(d) => d,
        Err(e) => {
            release.run();
            return Err(e);
        }
    };
    let Some(ptr) = NonNull::new(raw.data.cast::<u8>()).filter(|_| d.extent > 0) else {
        release.run();
        return Ok(Tensor::zeros(&d.layout.shape, d.dtype));
    };
    // SAFETY: the producer keeps `extent` bytes at `ptr` valid and writable until its deleter runs,
    // which happens in `release`, once the last tensor viewing the storage is dropped.
    let storage = unsafe { Storage::from_external(ptr, d.extent, Box::new(move || release.run())) };
    Tensor::from_storage(Arc::new(storage), d.dtype, d.layout)
        .map_err(|e| Error::Descriptor(e.to_string()))
}

/// A tensor handed over: the managed struct first, so the deleter can find the rest.
#[repr(C)]
struct Exported {
    managed: RynamoManagedTensor,
    _tensor: Tensor,
    _shape: Vec<i64>,
    _strides: Vec<i64>,
}

unsafe extern "C" fn exported_deleter(m: *mut RynamoManagedTensor) {
    // NOTE: dropping a tensor cannot reasonably panic, but no panic may cross `extern "C"`.
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: `m` is the first field of a boxed `Exported` made by `export`, released once.
        drop(unsafe { Box::from_raw(m.cast::<Exported>()) });
    });
}

/// Hands `t` over as a managed tensor (no copy); the receiver must call its deleter once.
pub fn export(t: Tensor) -> *mut RynamoManagedTensor {
    let desc = TensorDesc::new(&t);
    let raw = *desc.raw();
    let TensorDesc {
        _shape, _strides, ..
    } = desc;
    let b = Box::new(Exported {
        managed: RynamoManagedTensor {
            dl_tensor: raw,
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(exported_deleter),
        },
        _tensor: t,
        _shape,
        _strides,
    });
    Box::into_raw(b).cast::<RynamoManagedTensor>()
}
