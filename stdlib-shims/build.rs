//! The Python sources under `python/` are compiled into the crate by `py_freeze!`, which cargo
//! does not track: rebuild whenever they change.

fn main() {
    println!("cargo:rerun-if-changed=python");
}
