//! The `rynamo` binary: a python-compatible command line with TorchDynamo built in.

fn main() -> std::process::ExitCode {
    rynamo::cli::main()
}
