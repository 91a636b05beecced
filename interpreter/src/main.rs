use rustpython::{InterpreterBuilder, InterpreterBuilderExt};
fn main() -> std::process::ExitCode {
    rustpython::run(InterpreterBuilder::new().init_stdlib())
}
