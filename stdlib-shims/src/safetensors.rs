//! `_rynamo_safetensors`: the native half of `safetensors.torch`, on the `safetensors` crate
//! (the format's reference implementation, which the Python package wraps too). Files are read
//! through a private memory map: tensors returned by `safe_open(...).get_tensor` view the mapping
//! without a copy and keep it alive.

pub(crate) use safetensors_native::module_def;

use rynamo_tensor::DType;
use safetensors::Dtype;

/// The safetensors dtype of a runtime dtype; the format has no complex128 (`C64` is complex64).
pub(crate) fn st_dtype(d: DType) -> Option<Dtype> {
    Some(match d {
        DType::Bool => Dtype::BOOL,
        DType::UInt8 => Dtype::U8,
        DType::Int8 => Dtype::I8,
        DType::Int16 => Dtype::I16,
        DType::Int32 => Dtype::I32,
        DType::Int64 => Dtype::I64,
        DType::Float16 => Dtype::F16,
        DType::BFloat16 => Dtype::BF16,
        DType::Float32 => Dtype::F32,
        DType::Float64 => Dtype::F64,
        DType::Complex64 => Dtype::C64,
        DType::Complex128 => return None,
    })
}

/// The runtime dtype of a safetensors dtype, if the runtime has it.
pub(crate) fn runtime_dtype(d: Dtype) -> Option<DType> {
    Some(match d {
        Dtype::BOOL => DType::Bool,
        Dtype::U8 => DType::UInt8,
        Dtype::I8 => DType::Int8,
        Dtype::I16 => DType::Int16,
        Dtype::I32 => DType::Int32,
        Dtype::I64 => DType::Int64,
        Dtype::F16 => DType::Float16,
        Dtype::BF16 => DType::BFloat16,
        Dtype::F32 => DType::Float32,
        Dtype::F64 => DType::Float64,
        Dtype::C64 => DType::Complex64,
        _ => return None,
    })
}

#[rustpython_vm::pymodule(name = "_rynamo_safetensors")]
mod safetensors_native {
    use std::borrow::Cow;
    use std::collections::HashMap;
    use std::sync::Arc;

    use rustpython_vm::builtins::{PyBytesRef, PyDictRef, PyListRef, PyTupleRef};
    use rustpython_vm::function::OptionalArg;
    use rustpython_vm::{Py, PyPayload, PyResult, VirtualMachine, pyclass};
    use rynamo_tensor::{Layout, Tensor};
    use safetensors::tensor::{Metadata, SafeTensors, TensorInfo};
    use safetensors::{Dtype, View};

    use super::{runtime_dtype, st_dtype};
    use crate::serialization::{external_storage, map_file};
    use crate::tensor::{as_tensor, wrap_tensor};

    /// One contiguous tensor handed to the serializer.
    struct TensorData {
        dtype: Dtype,
        shape: Vec<usize>,
        tensor: Tensor,
    }

    impl View for &TensorData {
        fn dtype(&self) -> Dtype {
            self.dtype
        }
        fn shape(&self) -> &[usize] {
            &self.shape
        }
        fn data(&self) -> Cow<'_, [u8]> {
            let t = &self.tensor;
            let size = t.dtype().itemsize();
            // SAFETY: the tensor is contiguous (checked when collected) and alive.
            Cow::Borrowed(unsafe {
                std::slice::from_raw_parts(
                    t.storage().as_ptr().add(t.offset() * size),
                    t.numel() * size,
                )
            })
        }
        fn data_len(&self) -> usize {
            self.tensor.numel() * self.tensor.dtype().itemsize()
        }
    }

    fn collect(items: &PyListRef, vm: &VirtualMachine) -> PyResult<Vec<(String, TensorData)>> {
        let mut out = Vec::new();
        for item in items.borrow_vec().iter() {
            let pair: PyTupleRef = item.clone().try_into_value(vm)?;
            let [name, t] = pair.as_slice() else {
                return Err(vm.new_type_error("expected (name, tensor) pairs"));
            };
            let name: String = name.clone().try_into_value(vm)?;
            let tensor =
                as_tensor(t).ok_or_else(|| vm.new_type_error(format!("{name} is not a tensor")))?;
            if !tensor.is_contiguous() {
                return Err(vm.new_value_error(format!(
                    "You are trying to save a non contiguous tensor: `{name}` which is not allowed. It either means you are trying to save tensors which are reference of each other in which case it's recommended to save only the full tensors, and reslice at load time, or simply call `.contiguous()` on your tensor to pack it before saving."
                )));
            }
            let dtype = st_dtype(tensor.dtype()).ok_or_else(|| {
                vm.new_type_error(format!(
                    "safetensors cannot store `{name}`: it has no {} dtype",
                    tensor.dtype()
                ))
            })?;
            out.push((
                name,
                TensorData {
                    dtype,
                    shape: tensor.shape().to_vec(),
                    tensor,
                },
            ));
        }
        Ok(out)
    }

    fn metadata_map(
        metadata: OptionalArg<Option<PyDictRef>>,
        vm: &VirtualMachine,
    ) -> PyResult<Option<HashMap<String, String>>> {
        let Some(Some(dict)) = metadata.into_option() else {
            return Ok(None);
        };
        let mut map = HashMap::new();
        for (k, v) in dict {
            let k: String = k.try_into_value(vm)?;
            let v: String = v
                .try_into_value(vm)
                .map_err(|_| vm.new_type_error("metadata values must be strings"))?;
            map.insert(k, v);
        }
        Ok(Some(map))
    }

    fn st_err(
        e: safetensors::SafeTensorError,
        vm: &VirtualMachine,
    ) -> rustpython_vm::builtins::PyBaseExceptionRef {
        vm.new_runtime_error(format!("Error while serializing: {e}"))
    }

    /// `serialize(items: [(name, tensor)], metadata) -> bytes`.
    #[pyfunction]
    fn serialize(
        items: PyListRef,
        metadata: OptionalArg<Option<PyDictRef>>,
        vm: &VirtualMachine,
    ) -> PyResult<PyBytesRef> {
        let data = collect(&items, vm)?;
        let meta = metadata_map(metadata, vm)?;
        let bytes = safetensors::serialize(data.iter().map(|(n, t)| (n.as_str(), t)), meta)
            .map_err(|e| st_err(e, vm))?;
        Ok(vm.ctx.new_bytes(bytes))
    }

    /// `serialize_file(items, metadata, path)`.
    #[pyfunction]
    fn serialize_file(
        items: PyListRef,
        metadata: Option<PyDictRef>,
        path: String,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        let data = collect(&items, vm)?;
        let meta = metadata_map(OptionalArg::Present(metadata), vm)?;
        safetensors::serialize_to_file(
            data.iter().map(|(n, t)| (n.as_str(), t)),
            meta,
            std::path::Path::new(&path),
        )
        .map_err(|e| st_err(e, vm))
    }

    /// A parsed header over a mapped file or an in-memory buffer.
    struct Parsed {
        /// Where the byte buffer starts (after the 8-byte length and the header).
        data_start: usize,
        metadata: Metadata,
    }

    fn parse(bytes: &[u8]) -> Result<Parsed, safetensors::SafeTensorError> {
        // Full validation (offsets contiguous, covering the file, shapes matching sizes).
        SafeTensors::deserialize(bytes)?;
        let (n, metadata) = SafeTensors::read_metadata(bytes)?;
        Ok(Parsed {
            data_start: 8 + n,
            metadata,
        })
    }

    /// The bytes a tensor lives in: a private mapping of a file, or an owned copy of a buffer.
    enum Backing {
        Map(memmap2::MmapMut),
        Owned(Vec<u8>),
    }

    impl Backing {
        fn bytes(&self) -> &[u8] {
            match self {
                Backing::Map(m) => m,
                Backing::Owned(v) => v,
            }
        }
        fn ptr(&self) -> *mut u8 {
            match self {
                Backing::Map(m) => m.as_ptr() as *mut u8,
                Backing::Owned(v) => v.as_ptr() as *mut u8,
            }
        }
    }

    /// `safe_open`'s handle (`_rynamo_safetensors.SafeFile`).
    #[pyattr]
    #[pyclass(module = "_rynamo_safetensors", name = "SafeFile")]
    #[derive(PyPayload)]
    struct SafeFile {
        backing: Arc<Backing>,
        parsed: Parsed,
    }

    impl std::fmt::Debug for SafeFile {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("SafeFile")
        }
    }

    fn open_backing(backing: Backing, vm: &VirtualMachine) -> PyResult<SafeFile> {
        let parsed = parse(backing.bytes())
            .map_err(|e| vm.new_runtime_error(format!("Error while deserializing header: {e}")))?;
        Ok(SafeFile {
            backing: Arc::new(backing),
            parsed,
        })
    }

    /// Opens and validates a file.
    #[pyfunction]
    fn open_file(path: String, vm: &VirtualMachine) -> PyResult<SafeFile> {
        let map = map_file(&path).map_err(|e| vm.new_os_error(format!("{path}: {e}")))?;
        open_backing(Backing::Map(map), vm)
    }

    /// Parses and validates bytes (`safetensors.torch.load`).
    #[pyfunction]
    fn open_bytes(data: PyBytesRef, vm: &VirtualMachine) -> PyResult<SafeFile> {
        open_backing(Backing::Owned(data.as_bytes().to_vec()), vm)
    }

    #[pyclass]
    impl SafeFile {
        /// Tensor names in file order (by offset), as the Python package lists them.
        #[pymethod]
        fn keys(zelf: &Py<Self>, vm: &VirtualMachine) -> PyListRef {
            let names = zelf.parsed.metadata.offset_keys();
            vm.ctx.new_list(
                names
                    .into_iter()
                    .map(|n| vm.ctx.new_str(n).into())
                    .collect(),
            )
        }

        /// The `__metadata__` dict, or None.
        #[pymethod]
        fn metadata(zelf: &Py<Self>, vm: &VirtualMachine) -> PyResult<Option<PyDictRef>> {
            let Some(meta) = zelf.parsed.metadata.metadata() else {
                return Ok(None);
            };
            let dict = vm.ctx.new_dict();
            let mut keys: Vec<_> = meta.keys().collect();
            keys.sort();
            for k in keys {
                dict.set_item(k.as_str(), vm.ctx.new_str(meta[k].as_str()).into(), vm)?;
            }
            Ok(Some(dict))
        }

        /// `(dtype name, shape)` of a tensor, without reading it.
        #[pymethod]
        fn info(zelf: &Py<Self>, name: String, vm: &VirtualMachine) -> PyResult<PyTupleRef> {
            let info = zelf.info_of(&name, vm)?;
            let shape = info
                .shape
                .iter()
                .map(|&d| vm.ctx.new_int(d).into())
                .collect();
            Ok(vm.ctx.new_tuple(vec![
                vm.ctx.new_str(format!("{:?}", info.dtype)).into(),
                vm.ctx.new_tuple(shape).into(),
            ]))
        }

        /// The tensor `name`, viewing the file's bytes (no copy).
        #[pymethod]
        fn get_tensor(zelf: &Py<Self>, name: String, vm: &VirtualMachine) -> PyResult {
            let info = zelf.info_of(&name, vm)?;
            let dtype = runtime_dtype(info.dtype).ok_or_else(|| {
                vm.new_type_error(format!(
                    "safetensors dtype {:?} is not supported by Rynamo",
                    info.dtype
                ))
            })?;
            let (begin, end) = info.data_offsets;
            let start = zelf.parsed.data_start + begin;
            let len = end - begin;
            let owner = zelf.backing.clone();
            // SAFETY: `deserialize` checked that the range lies inside the bytes `owner` holds;
            // the storage keeps `owner` alive. Alignment: the header pads the buffer start to 8
            // bytes and the writer orders tensors by descending alignment; a misaligned range
            // (possible in files from other writers) is copied instead.
            let storage = if (owner.ptr() as usize + start).is_multiple_of(dtype.itemsize()) {
                // SAFETY: in bounds (checked by `deserialize`).
                let ptr = unsafe { owner.ptr().add(start) };
                // SAFETY: see above; `owner` keeps the bytes alive and they are aligned for `dtype`.
                unsafe { external_storage(ptr, len, owner) }
            } else {
                Arc::new(rynamo_tensor::Storage::from_bytes(
                    &owner.bytes()[start..start + len],
                ))
            };
            let t = Tensor::from_storage(storage, dtype, Layout::contiguous(&info.shape))
                .map_err(|e| vm.new_runtime_error(e.to_string()))?;
            Ok(wrap_tensor(t, vm))
        }
    }

    impl SafeFile {
        fn info_of(&self, name: &str, vm: &VirtualMachine) -> PyResult<&TensorInfo> {
            self.parsed.metadata.info(name).ok_or_else(|| {
                vm.new_key_error(
                    vm.ctx
                        .new_str(format!("File does not contain tensor {name}"))
                        .into(),
                )
            })
        }
    }
}
