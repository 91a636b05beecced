//! The plugin and its executable.

use std::sync::Arc;

use rynamo_backend::{Backend, EagerBackend};
use rynamo_plugin_sdk::graph::{Graph, Op};
use rynamo_plugin_sdk::tensor::{DType, Tensor};
use rynamo_plugin_sdk::{Error, Executable, Plugin, Result, export_plugin};

/// The plugin.
#[derive(Debug, Default)]
pub struct Faulty;

/// What an executable does wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RunFault {
    None,
    Panic,
    Error,
    WrongShape,
    WrongDType,
    ExtraOutput,
}

/// A compiled graph that may misbehave.
pub struct FaultyExecutable {
    exe: Arc<dyn rynamo_backend::Executable>,
    fault: RunFault,
}

fn has(g: &Graph, op: Op) -> bool {
    g.nodes().iter().any(|n| n.op == op)
}

impl Plugin for Faulty {
    type Executable = FaultyExecutable;

    fn name(&self) -> &str {
        "faulty"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn supports(&self, graph: &Graph) -> Vec<bool> {
        assert!(
            !has(graph, Op::Abs),
            "faulty plugin: supports() panics on abs"
        );
        vec![true; graph.nodes().len()]
    }

    fn compile(&self, graph: Graph) -> Result<FaultyExecutable> {
        assert!(
            !has(&graph, Op::Sin),
            "faulty plugin: compile() panics on sin"
        );
        if has(&graph, Op::Cos) {
            return Err(Error::Unimplemented(
                "faulty plugin: compile() refuses cos".into(),
            ));
        }
        let fault = [
            (Op::Tan, RunFault::Panic),
            (Op::Tanh, RunFault::Error),
            (Op::Exp, RunFault::WrongShape),
            (Op::Log, RunFault::WrongDType),
            (Op::Neg, RunFault::ExtraOutput),
        ]
        .into_iter()
        .find(|(op, _)| has(&graph, *op))
        .map_or(RunFault::None, |(_, f)| f);
        let exe = EagerBackend
            .compile(&graph)
            .map_err(|e| Error::InvalidArgument(e.to_string()))?;
        Ok(FaultyExecutable { exe, fault })
    }
}

impl Executable for FaultyExecutable {
    fn execute(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let mut outs = self
            .exe
            .run(inputs)
            .map_err(|e| Error::Internal(e.to_string()))?;
        match self.fault {
            RunFault::None => {}
            RunFault::Panic => panic!("faulty plugin: execute() panics on tan"),
            RunFault::Error => {
                return Err(Error::ResourceExhausted(
                    "faulty plugin: execute() fails on tanh".into(),
                ));
            }
            RunFault::WrongShape => {
                let n = outs[0].numel();
                outs[0] = Tensor::zeros(&[n + 1], outs[0].dtype());
            }
            RunFault::WrongDType => outs[0] = outs[0].to_dtype(DType::Float64),
            RunFault::ExtraOutput => outs.push(outs[0].clone()),
        }
        Ok(outs)
    }
}

export_plugin!(Faulty, {
    // Its panics are expected and reported to the host as errors: keep this plugin's own panic
    // hook (its private copy of std) from printing each one.
    std::panic::set_hook(Box::new(|_| {}));
    Faulty
});
