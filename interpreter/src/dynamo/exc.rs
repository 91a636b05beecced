//! Graph breaks: why tracing stopped, as stable codes with an explanation and hints (Dynamo's
//! `graph_break_registry.json` and `unimplemented(gb_type=..., explanation=..., hints=[...])`).
//!
//! Graph breaks are outcomes, not errors: the symbolic executor returns one, and the frame
//! converter decides whether to split the frame, skip it, or (under `fullgraph=True`) raise
//! `torch._dynamo.exc.Unsupported` with [`GraphBreak::render`].

use std::fmt::Write as _;

/// Why tracing stopped. Each kind has a stable code that is never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GraphBreakKind {
    /// `torch._dynamo.graph_break()`.
    UserGraphBreak,
    /// A builtin Dynamo does not model (`print`, `input`, ...).
    BuiltinCall,
    /// A function wrapped with `torch._dynamo.disable` / `torch.compiler.disable`.
    DisabledFunction,
    /// An op marked with `torch._dynamo.disallow_in_graph`.
    DisallowedOp,
    /// `Tensor.item()` with `capture_scalar_outputs=False`.
    TensorItem,
    /// `Tensor.tolist()` and other conversions of tensor data to Python values.
    TensorToPython,
    /// A branch or `bool()` on a tensor's value.
    DataDependentBranch,
    /// A bytecode instruction without a handler.
    UnsupportedOpcode,
    /// A call to a callable Dynamo cannot trace (implemented in Rust, or opaque).
    UnsupportedCall,
    /// An attribute or item store into an object whose mutation cannot be replayed.
    UntrackableStore,
    /// A tensor op that fails on the traced shapes or dtypes (it is left to eager to raise).
    OpError,
    /// An operation on values Dynamo does not model.
    UnsupportedOperation,
    /// A logging call (`logging.Logger` methods, `warnings.warn`).
    LoggingCall,
    /// A construct Dynamo does not support yet (generators, `try` in an inlined function, ...).
    UnsupportedConstruct,
    /// A `with` block whose context manager Dynamo does not model.
    UnsupportedContextManager,
    /// A call of a `torch._dynamo.forbid_in_graph` function: an error, never a graph break.
    ForbiddenCallable,
    /// An exception raised in traced code that no traced frame handles.
    ObservedException,
    /// An attribute Dynamo does not model on this kind of value: its answer would be a guess.
    UnmodelledAttribute,
    /// A method of a Python value (a container, a constant) that Dynamo does not model.
    UnmodelledMethod,
    /// `Tensor.backward()`, `torch.autograd.backward` or `torch.autograd.grad` in the region.
    AutogradCall,
}

/// A hint that applies to breaks users cannot remove.
const FUNDAMENTAL: &str = "This graph break is fundamental - it is unlikely that Dynamo will ever be able to trace through your code. Consider finding a workaround.";
/// A hint for breaks on things Dynamo could support.
const SUPPORTABLE: &str = "It may be possible to write Dynamo tracing rules for this code. Please report an issue to Rynamo if you encounter this graph break often and it is causing performance issues.";

impl GraphBreakKind {
    /// Every kind, in code order (for the generated docs and the uniqueness test).
    pub const ALL: &'static [GraphBreakKind] = &[
        Self::UserGraphBreak,
        Self::BuiltinCall,
        Self::DisabledFunction,
        Self::DisallowedOp,
        Self::TensorItem,
        Self::TensorToPython,
        Self::DataDependentBranch,
        Self::UnsupportedOpcode,
        Self::UnsupportedCall,
        Self::UntrackableStore,
        Self::OpError,
        Self::UnsupportedOperation,
        Self::LoggingCall,
        Self::UnsupportedConstruct,
        Self::UnsupportedContextManager,
        Self::ForbiddenCallable,
        Self::ObservedException,
        Self::UnmodelledAttribute,
        Self::UnmodelledMethod,
        Self::AutogradCall,
    ];

    /// The stable code (`GB0001`, ...). Never reused or renumbered.
    pub const fn code(self) -> &'static str {
        match self {
            Self::UserGraphBreak => "GB0001",
            Self::BuiltinCall => "GB0002",
            Self::DisabledFunction => "GB0003",
            Self::DisallowedOp => "GB0004",
            Self::TensorItem => "GB0005",
            Self::TensorToPython => "GB0006",
            Self::DataDependentBranch => "GB0007",
            Self::UnsupportedOpcode => "GB0008",
            Self::UnsupportedCall => "GB0009",
            Self::UntrackableStore => "GB0010",
            Self::OpError => "GB0011",
            Self::UnsupportedOperation => "GB0012",
            Self::LoggingCall => "GB0013",
            Self::UnsupportedConstruct => "GB0014",
            Self::UnsupportedContextManager => "GB0015",
            Self::ForbiddenCallable => "GB0016",
            Self::ObservedException => "GB0017",
            Self::UnmodelledAttribute => "GB0018",
            Self::UnmodelledMethod => "GB0019",
            Self::AutogradCall => "GB0020",
        }
    }

    /// The short title (Dynamo's `gb_type`).
    pub const fn gb_type(self) -> &'static str {
        match self {
            Self::UserGraphBreak => "Call to `torch._dynamo.graph_break()`",
            Self::BuiltinCall => "Failed to trace builtin operator",
            Self::DisabledFunction => "Skip calling `torch.compiler.disable()`d function",
            Self::DisallowedOp => "Attempted to call function marked as disallowed in graph",
            Self::TensorItem => "Unsupported Tensor.item() call with capture_scalar_outputs=False",
            Self::TensorToPython => "Unsupported conversion of a tensor to Python values",
            Self::DataDependentBranch => "Data-dependent branching",
            Self::UnsupportedOpcode => "Missing bytecode handler",
            Self::UnsupportedCall => "Attempted to call a function Dynamo cannot trace",
            Self::UntrackableStore => "Unsupported store into an untrackable object",
            Self::OpError => "Tensor operation fails on the traced inputs",
            Self::UnsupportedOperation => "Unsupported operation",
            Self::LoggingCall => "Logging call",
            Self::UnsupportedConstruct => "Unsupported Python construct",
            Self::UnsupportedContextManager => "Unsupported context manager",
            Self::ForbiddenCallable => "Attempt to trace a forbidden callable",
            Self::ObservedException => "Observed exception",
            Self::UnmodelledAttribute => "Unsupported attribute access",
            Self::UnmodelledMethod => "Unsupported method call",
            Self::AutogradCall => "Unsupported Tensor.backward() call",
        }
    }

    /// What happened, for users.
    pub const fn explanation(self) -> &'static str {
        match self {
            Self::UserGraphBreak => "User-inserted graph break.",
            Self::BuiltinCall => "Dynamo does not know how to trace this builtin operator.",
            Self::DisabledFunction => {
                "Dynamo skips calling a function that was wrapped with `torch.compiler.disable` / `torch._dynamo.disable`; it runs eagerly between two graphs."
            }
            Self::DisallowedOp => {
                "The op was marked with `torch._dynamo.disallow_in_graph`, so it runs eagerly between two graphs."
            }
            Self::TensorItem => {
                "Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False."
            }
            Self::TensorToPython => {
                "Converting tensor data to Python values (`.tolist()`, `int(t)`, `float(t)`) needs the data, which does not exist while tracing."
            }
            Self::DataDependentBranch => {
                "Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). Dynamo does not support tracing dynamic control flow."
            }
            Self::UnsupportedOpcode => {
                "Dynamo does not know how to handle this bytecode instruction."
            }
            Self::UnsupportedCall => {
                "Dynamo cannot trace into this callable (it is implemented natively, or Dynamo does not model it)."
            }
            Self::UntrackableStore => {
                "Dynamo cannot record this mutation as a side effect to replay after the graph runs."
            }
            Self::OpError => {
                "The tensor operation raises on the shapes or dtypes seen while tracing; it runs eagerly so that the error is raised with the user's traceback."
            }
            Self::UnsupportedOperation => "Dynamo does not support this operation on these values.",
            Self::LoggingCall => {
                "Dynamo does not trace logging calls; they run eagerly between two graphs."
            }
            Self::UnsupportedConstruct => "Dynamo does not support this Python construct here.",
            Self::UnsupportedContextManager => {
                "Dynamo does not know how to enter this context manager; only grad-mode managers (`torch.no_grad()`, `torch.enable_grad()`, `torch.set_grad_enabled()`) are traced."
            }
            Self::ForbiddenCallable => {
                "The function is marked `torch._dynamo.forbid_in_graph` (as `mark_dynamic` is): tracing a call to it raises AssertionError instead of breaking the graph."
            }
            Self::ObservedException => {
                "Dynamo found no exception handler at the top-level compiled function when encountering an exception. Exception will propagate outside the compiled region."
            }
            Self::UnmodelledAttribute => {
                "Dynamo does not model this attribute of this kind of value (reading it, or whether it exists), so it runs eagerly instead of guessing."
            }
            Self::UnmodelledMethod => {
                "Dynamo does not know how to trace this method of this kind of value, so it runs eagerly instead of guessing."
            }
            Self::AutogradCall => {
                "Dynamo currently does not support tracing `Tensor.backward()` when trace_autograd_ops is off."
            }
        }
    }

    /// What users can do about it.
    pub fn hints(self) -> Vec<&'static str> {
        match self {
            Self::UserGraphBreak => vec!["Remove the `torch._dynamo.graph_break()` call."],
            Self::BuiltinCall => vec![
                "Avoid calling this builtin in the compiled region, or move it into a function decorated with `torch.compiler.disable`.",
                "If you are calling a logging function (e.g. `print`), you can try adding it to `torch._dynamo.config.reorderable_logging_functions`.",
                SUPPORTABLE,
            ],
            Self::DisabledFunction => vec![
                "Remove the `torch.compiler.disable` call, or use `torch._dynamo.nonstrict_trace` if the function is safe to trace non-strictly.",
            ],
            Self::DisallowedOp => vec![
                "Remove the `torch._dynamo.disallow_in_graph` call, or call `torch._dynamo.allow_in_graph` on the op again.",
            ],
            Self::TensorItem => vec![
                "Set `torch._dynamo.config.capture_scalar_outputs = True` or `export TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` to include these operations in the captured graph.",
            ],
            Self::TensorToPython => vec![
                FUNDAMENTAL,
                "Keep the computation in tensors, or move the conversion out of the compiled region.",
            ],
            Self::DataDependentBranch => vec![
                FUNDAMENTAL,
                "Use `torch.where` to select between values without branching.",
            ],
            Self::UnsupportedOpcode => vec![SUPPORTABLE],
            Self::UnsupportedCall => vec![
                "If the function is safe to trace as an opaque call, mark it with `torch._dynamo.allow_in_graph`.",
                "If the function only does tensor work Dynamo breaks on, try `torch._dynamo.nonstrict_trace`.",
                "Otherwise, wrap it in `torch.compiler.disable` to run it eagerly.",
            ],
            Self::UntrackableStore => vec![
                "Mutate plain Python objects, lists, dicts or module attributes instead, or move the mutation out of the compiled region.",
            ],
            Self::OpError => vec![
                "Check the shapes and dtypes of the op's inputs; running the function without torch.compile raises the same error.",
            ],
            Self::UnsupportedOperation => vec![SUPPORTABLE],
            Self::LoggingCall => vec![
                "Move the logging call out of the compiled region, or log after the compiled function returns.",
            ],
            Self::UnsupportedConstruct => vec![SUPPORTABLE],
            Self::UnsupportedContextManager => vec![
                "Avoid using the unsupported context manager in the compiled region, or move the `with` block into a function decorated with `torch.compiler.disable`.",
                SUPPORTABLE,
            ],
            Self::ForbiddenCallable => vec![
                "Call the function outside the compiled region, or guard the call with `if not torch.compiler.is_compiling():`.",
            ],
            Self::ObservedException => vec![
                "Dynamo has detected that tracing the code will result in an error when running in eager. Please double check that your code doesn't contain a similar error when actually running eager/uncompiled.",
                "Catch the exception inside the compiled function if it is expected.",
            ],
            Self::UnmodelledAttribute => vec![
                "Read the attribute outside the compiled region, or pass its value in as an argument.",
                SUPPORTABLE,
            ],
            Self::UnmodelledMethod => vec![
                "Avoid calling this method in the compiled region, or call it outside and pass the result in.",
                SUPPORTABLE,
            ],
            Self::AutogradCall => vec![
                "The forward graph before the call is compiled for training and its backward runs compiled; the backward call itself runs eagerly.",
                FUNDAMENTAL,
            ],
        }
    }
}

/// One graph break: its kind, the specifics, and where in user code it happened.
#[derive(Clone, Debug)]
pub struct GraphBreak {
    /// The kind.
    pub kind: GraphBreakKind,
    /// Developer context: the op, the callee, the argument types.
    pub context: String,
    /// The user stack at the break, outermost first: `(file, line, function)`.
    pub user_stack: Vec<(String, u32, String)>,
    /// The compiled frame's state just before the instruction that broke (set by the root
    /// tracer; boxed so a break stays small while it propagates).
    pub state: Option<Box<super::graph_break::BreakState>>,
    /// For [`GraphBreakKind::ObservedException`]: the exception being raised, which a handler
    /// further up the traced stack may still catch (then it is no break at all).
    pub raised: Option<super::variables::Vt>,
    /// Whether `error_on_graph_break` was on where the break happened (set by the tracer with
    /// the user stack; a traced `error_on_graph_break(...)` block may have switched it). `None`
    /// for breaks found outside the trace: `config.error_on_graph_break` decides.
    pub error_on_graph_break: Option<bool>,
}

impl GraphBreak {
    /// A graph break without a location yet (the tracer adds it).
    pub fn new(kind: GraphBreakKind, context: impl Into<String>) -> Self {
        Self {
            kind,
            context: context.into(),
            user_stack: Vec::new(),
            state: None,
            raised: None,
            error_on_graph_break: None,
        }
    }

    /// An exception raised in traced code, on its way to a handler.
    pub fn raised(exc: super::variables::Vt) -> Self {
        let mut b = Self::new(
            GraphBreakKind::ObservedException,
            format!("raised {}", exc.describe()),
        );
        b.raised = Some(exc);
        b
    }

    /// Whether this is the trace raising an exception of class `cls` (or a subclass): what
    /// `hasattr` and `getattr(obj, name, default)` catch (`AttributeError`), where any other
    /// break means the answer is not known.
    pub fn is_raised(
        &self,
        cls: &rustpython_vm::Py<rustpython_vm::builtins::PyType>,
        vm: &rustpython_vm::VirtualMachine,
    ) -> bool {
        match self.raised.as_ref().map(|r| &r.kind) {
            Some(super::variables::Kind::Exception(e)) => e
                .cls
                .downcast_ref::<rustpython_vm::builtins::PyType>()
                .is_some_and(|t| t.fast_issubclass(cls)),
            _ => {
                let _ = vm;
                false
            }
        }
    }

    /// The one-line reason `explain()` and the `graph_breaks` log show.
    pub fn reason(&self) -> String {
        format!(
            "{}\n  Explanation: {}\n  Hint: {}\n\n  Developer debug context: {}\n",
            self.kind.gb_type(),
            self.kind.explanation(),
            self.kind.hints().join("\n  Hint: "),
            self.context
        )
    }

    /// The message without the user stack: type, explanation, hints, context and the code's
    /// reference (the `graph_breaks` log follows it with the user traceback).
    pub fn header(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}", self.kind.gb_type());
        let _ = writeln!(out, "  Explanation: {}", self.kind.explanation());
        for h in self.kind.hints() {
            let _ = writeln!(out, "  Hint: {h}");
        }
        let _ = writeln!(out, "\n  Developer debug context: {}\n", self.context);
        let _ = writeln!(
            out,
            " For more details about this graph break ({}), see docs/graph_breaks.md#{}\n",
            self.kind.code(),
            self.kind.code().to_lowercase()
        );
        out
    }

    /// The full message in Dynamo's layout, with the user's source lines.
    pub fn render(&self, source_line: impl Fn(&str, u32) -> Option<String>) -> String {
        let mut out = self.header();
        if !self.user_stack.is_empty() {
            out.push_str("from user code:\n");
            for (file, line, func) in &self.user_stack {
                let _ = writeln!(out, "   File \"{file}\", line {line}, in {func}");
                if let Some(text) = source_line(file, *line) {
                    let _ = writeln!(out, "    {}", text.trim());
                }
            }
        }
        out
    }
}

/// The generated reference of every graph-break code (`docs/graph_breaks.md`).
pub fn registry_markdown() -> String {
    let mut out = String::from(
        "<!-- @generated by `cargo test -p rynamo graph_break_docs` (interpreter/src/dynamo/exc.rs) — do not edit -->\n# Graph-break reference\n\nEvery graph break Rynamo reports carries one of these stable codes.\n",
    );
    for k in GraphBreakKind::ALL {
        let _ = write!(
            out,
            "\n## {}\n\n**{}**\n\n{}\n\nHints:\n",
            k.code().to_lowercase(),
            k.gb_type(),
            k.explanation()
        );
        for h in k.hints() {
            let _ = writeln!(out, "- {h}");
        }
    }
    out
}
