"""`torch.compiler`: the public names of the compiler stack."""
import _rynamo_dynamo as _C

import torch


def compile(*args, **kwargs):
    """Same as `torch.compile`."""
    return torch.compile(*args, **kwargs)


def reset():
    """Clears all compile state (`torch._dynamo.reset()`)."""
    torch._dynamo.reset()


def allow_in_graph(fn):
    return torch._dynamo.allow_in_graph(fn)


def substitute_in_graph(original_fn, *, can_constant_fold_through=False, skip_signature_check=False):
    return torch._dynamo.substitute_in_graph(
        original_fn,
        can_constant_fold_through=can_constant_fold_through,
        skip_signature_check=skip_signature_check,
    )


def assume_constant_result(fn):
    return torch._dynamo.assume_constant_result(fn)


def list_backends(exclude_tags=("debug", "experimental")):
    return torch._dynamo.list_backends(exclude_tags)


def disable(fn=None, recursive=True, *, reason=None):
    return torch._dynamo.disable(fn, recursive, reason=reason)


def set_stance(stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
    return torch._dynamo.set_stance(stance, skip_guard_eval_unsafe=skip_guard_eval_unsafe, force_backend=force_backend)


# Forbidden in compiled regions, as `torch._dynamo.set_stance` (tracing a call raises).
set_stance._dynamo_forbidden = True


def is_compiling():
    """True while Dynamo traces the calling code."""
    return False


is_compiling._rynamo_is_compiling = True


def is_dynamo_compiling():
    return False


is_dynamo_compiling._rynamo_is_compiling = True


def is_exporting():
    return False


def get_stance():
    return _C.get_stance()
