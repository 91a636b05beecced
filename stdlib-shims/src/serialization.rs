//! `_rynamo_serialization`: the byte-moving half of `torch.save` / `torch.load`, `mmap=True` and
//! `torch.frombuffer`. The pickle protocol and the zip container stay in Python
//! (`torch/serialization.py`); storages cross the boundary here as whole byte copies (one
//! `memcpy`) or, for `mmap=True` and `frombuffer`, as tensors over memory owned elsewhere.

pub(crate) use native::module_def;

use std::ptr::NonNull;
use std::sync::Arc;

use rynamo_tensor::{DType, Layout, Storage, Tensor};

/// A 1-D tensor of `dtype` over all of `storage` (its element count is `nbytes / itemsize`).
pub(crate) fn flat_tensor(storage: Arc<Storage>, dtype: DType) -> Result<Tensor, String> {
    let size = dtype.itemsize();
    if !storage.nbytes().is_multiple_of(size) {
        return Err(format!(
            "buffer length ({} bytes) is not a multiple of the element size ({size}) of {}",
            storage.nbytes(),
            dtype.name()
        ));
    }
    let n = storage.nbytes() / size;
    Tensor::from_storage(storage, dtype, Layout::contiguous(&[n])).map_err(|e| e.to_string())
}

/// A storage viewing `len` bytes at `ptr` that keeps `owner` alive until the last tensor on it is
/// dropped.
///
/// # Safety
/// `ptr..ptr+len` must stay valid for reads and writes while `owner` lives, and be aligned for the
/// dtype the caller views it as.
pub(crate) unsafe fn external_storage<T: Send + Sync + 'static>(
    ptr: *mut u8,
    len: usize,
    owner: T,
) -> Arc<Storage> {
    // An empty region may have a dangling pointer: give it a non-null, well-aligned one.
    let ptr = NonNull::new(ptr).unwrap_or(NonNull::<u64>::dangling().cast());
    // SAFETY: forwarded from the caller; `owner` moves into the release callback.
    Arc::new(unsafe { Storage::from_external(ptr, len, Box::new(move || drop(owner))) })
}

/// Maps `path` privately (copy-on-write: writes through tensors never reach the file), as
/// PyTorch's `mmap=True` with `shared=False`.
pub(crate) fn map_file(path: &str) -> std::io::Result<memmap2::MmapMut> {
    let file = std::fs::File::open(path)?;
    // SAFETY: a private mapping; another process truncating the file while it is mapped is the
    // documented hazard of every mmap-based loader (PyTorch's and safetensors' included).
    unsafe { memmap2::MmapOptions::new().map_copy(&file) }
}

#[rustpython_vm::pymodule(name = "_rynamo_serialization")]
mod native {
    use std::io::{Read, Seek, SeekFrom};
    use std::sync::Arc;

    use rustpython_vm::builtins::PyBytesRef;
    use rustpython_vm::function::ArgBytesLike;
    use rustpython_vm::protocol::{BufferFlags, PyBuffer};
    use rustpython_vm::{PyObjectRef, PyRef, PyResult, VirtualMachine};
    use rynamo_tensor::{DType, Storage};

    use super::{external_storage, flat_tensor, map_file};
    use crate::dtype::{PyDType, dtype_object};
    use crate::tensor::{PyTensor, wrap_tensor};

    fn dtype_of(d: &PyRef<PyDType>) -> DType {
        d.dtype
    }

    /// `(key, nbytes)` of the storage under `t`: tensors with one key share their bytes.
    #[pyfunction]
    fn storage_key(t: PyRef<PyTensor>) -> (usize, usize) {
        let t = t.tensor();
        (Arc::as_ptr(t.storage()) as usize, t.storage().nbytes())
    }

    /// A 1-D tensor of `t`'s dtype over the whole storage under `t`, sharing it.
    #[pyfunction]
    fn storage_flat(t: PyRef<PyTensor>, vm: &VirtualMachine) -> PyResult {
        let t = t.tensor();
        let flat =
            flat_tensor(t.storage().clone(), t.dtype()).map_err(|e| vm.new_value_error(e))?;
        Ok(wrap_tensor(flat, vm))
    }

    /// Every byte of the storage under `t` (what `data/<key>` holds in a checkpoint).
    #[pyfunction]
    fn storage_bytes(t: PyRef<PyTensor>, vm: &VirtualMachine) -> PyBytesRef {
        let t = t.tensor();
        let s = t.storage();
        // SAFETY: the storage is live (held by `t`) and `nbytes` long; the copy is a plain read.
        let bytes = unsafe { std::slice::from_raw_parts(s.as_ptr(), s.nbytes()) };
        vm.ctx.new_bytes(bytes.to_vec())
    }

    /// Writes every byte of the storage under `t` to the open file descriptor `fd` (no copy:
    /// straight from the tensor's memory) and returns `(crc32, nbytes)` for the zip record.
    #[pyfunction]
    fn write_storage(fd: i32, t: PyRef<PyTensor>, vm: &VirtualMachine) -> PyResult<(u32, usize)> {
        use std::io::Write;
        use std::os::fd::FromRawFd;
        let t = t.tensor();
        let s = t.storage();
        // SAFETY: the storage is live (held by `t`) and `nbytes` long; it is only read.
        let bytes = unsafe { std::slice::from_raw_parts(s.as_ptr(), s.nbytes()) };
        // SAFETY: `fd` is the caller's open descriptor; `ManuallyDrop` leaves it open.
        let mut file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
        // The CRC runs on another thread while this one writes: both only read the bytes.
        let (crc, written) = std::thread::scope(|scope| {
            let crc = scope.spawn(|| crc32fast::hash(bytes));
            let written = file.write_all(bytes);
            (
                crc.join().unwrap_or_else(|_| crc32fast::hash(bytes)),
                written,
            )
        });
        written.map_err(|e| {
            vm.new_os_error(format!("writing a storage of {} bytes: {e}", bytes.len()))
        })?;
        Ok((crc, bytes.len()))
    }

    /// The bytes of a contiguous tensor's elements.
    #[pyfunction]
    fn tensor_bytes(t: PyRef<PyTensor>, vm: &VirtualMachine) -> PyResult<PyBytesRef> {
        let t = t.tensor();
        if !t.is_contiguous() {
            return Err(vm.new_value_error("tensor_bytes needs a contiguous tensor"));
        }
        let size = t.dtype().itemsize();
        let start = t.offset() * size;
        let len = t.numel() * size;
        // SAFETY: a contiguous view's elements are the `len` bytes from its offset, inside the
        // storage `t` holds.
        let bytes = unsafe { std::slice::from_raw_parts(t.storage().as_ptr().add(start), len) };
        Ok(vm.ctx.new_bytes(bytes.to_vec()))
    }

    /// A 1-D tensor of `dtype` holding a copy of `data`.
    #[pyfunction]
    fn storage_from_buffer(
        data: ArgBytesLike,
        dtype: PyRef<PyDType>,
        vm: &VirtualMachine,
    ) -> PyResult {
        let storage = data.with_ref(|b| Arc::new(Storage::from_bytes(b)));
        let t = flat_tensor(storage, dtype_of(&dtype)).map_err(|e| vm.new_value_error(e))?;
        Ok(wrap_tensor(t, vm))
    }

    /// A 1-D tensor of `dtype` over `nbytes` bytes of `path` from `offset`: read into a new
    /// storage, or (`mmap=True`) a private mapping of the file that the tensor keeps alive.
    #[pyfunction]
    fn storage_from_file(
        path: String,
        offset: u64,
        nbytes: usize,
        dtype: PyRef<PyDType>,
        mmap: bool,
        vm: &VirtualMachine,
    ) -> PyResult {
        let dtype = dtype_of(&dtype);
        let io_err = |e: std::io::Error| vm.new_os_error(format!("{path}: {e}"));
        // A map is page-aligned, so the record's data is aligned for its dtype only when its
        // offset is: PyTorch's writer pads records to 64 bytes, other zip writers do not, and
        // kernels read typed slices, which must be aligned (issue 30: a checkpoint zipped by
        // Python's `zipfile` aborted on `tolist()`). An unaligned record is read into a fresh
        // buffer instead, which holds the same values as the private (copy-on-write) map.
        let aligned = offset.is_multiple_of(dtype.itemsize() as u64);
        let storage = if mmap && aligned {
            let mut map = map_file(&path).map_err(io_err)?;
            let end = (offset as usize).saturating_add(nbytes);
            if end > map.len() {
                return Err(vm.new_runtime_error(format!(
                    "{path}: storage at byte {offset} of {nbytes} bytes runs past the end of the file ({} bytes)",
                    map.len()
                )));
            }
            // SAFETY: the range lies inside the mapping, which the storage owns from here on.
            let ptr = unsafe { map.as_mut_ptr().add(offset as usize) };
            // SAFETY: as above: the range is inside the map, which the storage now owns.
            unsafe { external_storage(ptr, nbytes, map) }
        } else {
            let mut file = std::fs::File::open(&path).map_err(io_err)?;
            file.seek(SeekFrom::Start(offset)).map_err(io_err)?;
            let s = Storage::zeroed(nbytes);
            // SAFETY: `s` is a fresh buffer of `nbytes` bytes that nothing else references.
            let buf = unsafe { std::slice::from_raw_parts_mut(s.as_ptr(), nbytes) };
            file.read_exact(buf).map_err(io_err)?;
            Arc::new(s)
        };
        let t = flat_tensor(storage, dtype).map_err(|e| vm.new_value_error(e))?;
        Ok(wrap_tensor(t, vm))
    }

    /// `torch.frombuffer`: a 1-D tensor sharing the memory of a writable buffer (or a copy of a
    /// read-only one, e.g. `bytes`, which PyTorch shares but warns about writing to).
    #[pyfunction]
    fn frombuffer(
        obj: PyObjectRef,
        dtype: PyRef<PyDType>,
        count: isize,
        offset: isize,
        vm: &VirtualMachine,
    ) -> PyResult {
        let d = dtype_of(&dtype);
        let size = d.itemsize() as isize;
        let buffer = PyBuffer::from_object(vm, &obj, BufferFlags::SIMPLE)?;
        let len = buffer.desc.len as isize;
        if offset < 0 || offset > len {
            return Err(vm.new_value_error(format!(
                "offset must be non-negative and no greater than buffer length ({len}) , but got {offset}"
            )));
        }
        let available = len - offset;
        let count = if count < 0 {
            if available % size != 0 {
                return Err(vm.new_value_error(format!(
                    "buffer length ({available} bytes) after offset ({offset} bytes) must be a multiple of element size ({size})"
                )));
            }
            available / size
        } else {
            if count == 0 {
                return Err(vm.new_value_error(format!(
                    "both buffer length ({len}) and count ({count}) must not be 0"
                )));
            }
            if count * size > available {
                return Err(vm.new_value_error(format!(
                    "requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must not be greater than actual buffer length ({len} bytes)"
                )));
            }
            count
        };
        if len == 0 {
            return Err(vm.new_value_error(format!(
                "both buffer length (0) and count ({count}) must not be 0"
            )));
        }
        let nbytes = (count * size) as usize;
        let start = offset as usize;
        let storage = if buffer.desc.readonly || !buffer.desc.is_contiguous() {
            let data = buffer
                .as_contiguous()
                .ok_or_else(|| vm.new_value_error("frombuffer needs a contiguous buffer"))?;
            Arc::new(Storage::from_bytes(&data[start..start + nbytes]))
        } else if !start.is_multiple_of(d.itemsize()) {
            // Kernels read typed slices, which must be aligned; sharing this memory would be
            // undefined behaviour (PyTorch shares it: x86 tolerates unaligned loads).
            return Err(vm.new_value_error(format!(
                "frombuffer: offset ({offset} bytes) is not a multiple of the element size ({size}); Rynamo cannot share unaligned memory"
            )));
        } else {
            let ptr = buffer
                .as_contiguous_mut()
                .map(|mut m| m.as_mut_ptr())
                .ok_or_else(|| vm.new_value_error("frombuffer needs a contiguous buffer"))?;
            // SAFETY: the exported buffer stays valid (and the exporter cannot resize) while the
            // `PyBuffer` lives; the storage owns it until the last tensor on it is dropped.
            unsafe { external_storage(ptr.add(start), nbytes, SendBuffer(buffer)) }
        };
        let t = flat_tensor(storage, d).map_err(|e| vm.new_value_error(e))?;
        let _ = dtype_object(d);
        Ok(wrap_tensor(t, vm))
    }

    /// A `PyBuffer` parked inside a storage's release callback.
    struct SendBuffer(#[allow(dead_code)] PyBuffer);
    // SAFETY: the interpreter is built with `threading`, under which Python objects are shared
    // between threads behind their own locks; the buffer is only dropped, never used, here.
    unsafe impl Send for SendBuffer {}
    // SAFETY: as above; no access happens through a shared reference.
    unsafe impl Sync for SendBuffer {}
}
