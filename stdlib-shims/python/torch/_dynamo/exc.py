"""Dynamo's exceptions (`torch._dynamo.exc`), with PyTorch's class names."""


class TorchDynamoException(RuntimeError):
    pass


class InternalTorchDynamoError(TorchDynamoException):
    pass


class Unsupported(TorchDynamoException):
    """Raised under `fullgraph=True` when a graph break is needed. The message follows Dynamo's
    layout: the graph-break type, an explanation, hints, and the user code that caused it."""

    def __init__(self, msg, *, case_name=None):
        super().__init__(msg)
        self.msg = msg
        self.case_name = case_name
        self.real_stack = []


class InvalidBackend(TorchDynamoException):
    def __init__(self, name):
        super().__init__(
            f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends."
        )


class BackendCompilerFailed(TorchDynamoException):
    def __init__(self, backend_fn, inner_exception):
        self.backend_name = getattr(backend_fn, "__name__", "?")
        self.inner_exception = inner_exception
        super().__init__(
            f"backend={self.backend_name!r} raised:\n{type(inner_exception).__name__}: {inner_exception}"
        )


class RecompileError(TorchDynamoException):
    pass


class FailOnRecompileLimitHit(TorchDynamoException):
    pass


class IncorrectUsage(Exception):
    pass
