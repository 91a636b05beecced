//! The `rynamo` binary: a python-compatible command line with TorchDynamo built in.

/// mimalloc serves the binary's allocations. An eager op makes about a dozen small allocations
/// (the output's storage and its `Arc`, autograd metadata, the Python object, argument vectors);
/// under glibc's malloc they cost ~2,300 instructions per op of W5 (`benchmarks.md`, callgrind),
/// a fifth of the op, including periodic fastbin consolidation. An application embedding the
/// interpreter keeps its own global allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    keep_freed_memory();
    rynamo::cli::main()
}

/// glibc gives freed memory back to the OS as soon as the heap's free top passes a threshold
/// that adapts to the largest block freed so far, and maps blocks over another adaptive threshold
/// fresh each time. A compiled model that frees and reallocates the same intermediates every call
/// then takes a page fault per fresh page: 35 per call of a 2-layer GPT forward (`perf stat`),
/// ~11% of its CPU time. Fixed thresholds keep up to 256 MiB of freed memory for reuse and map
/// only blocks of 32 MiB or more (the tensor buffer pool keeps big buffers itself). The binary
/// sets this; an application embedding the interpreter keeps its own allocator settings.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only changes allocator parameters; it is called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
    }
}
