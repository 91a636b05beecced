"""`torch.fx.experimental.symbolic_shapes`: the error Dynamo raises when a trace specialises a
dimension marked dynamic (the shape environment itself is native: `dynamo/shape_env.rs`)."""


class ConstraintViolationError(RuntimeError):
    """A dimension marked with `torch._dynamo.mark_dynamic` was specialised by the trace."""
