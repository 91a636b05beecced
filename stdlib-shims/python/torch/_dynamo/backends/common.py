"""``aot_autograd``: build a training-capable backend from forward and backward compilers, as in
``torch/_dynamo/backends/common.py``.

The region's graph arrives with its joint graph already differentiated and partitioned by the
native side (``gm._rynamo_aot``); ``fw_compiler(fw_gm, example_inputs)`` compiles the forward
graph at once and ``bw_compiler(bw_gm, placeholders)`` compiles the backward graph on the first
backward. The compiled pair runs as one custom autograd Function per call, so eager autograd
drives the backward. Without inputs requiring grad (or under ``no_grad``) the graph goes to
``inference_compiler``.
"""
import torch

try:
    import _rynamo_aot
except ImportError:  # an embedder without the Dynamo native modules
    _rynamo_aot = None


def _call(compiled, args):
    if getattr(compiled, "_boxed_call", False):
        return compiled(list(args))
    return compiled(*args)


def aot_autograd(**kwargs):
    """A backend ``compiler_fn(gm, example_inputs)`` from ``fw_compiler``, ``bw_compiler``
    (default: ``fw_compiler``), ``inference_compiler`` (default: ``fw_compiler``) and the
    accepted-but-fixed ``partition_fn`` / ``decompositions`` (the native min-cut partitioner and
    the ops' own backward formulas are used)."""

    def compiler_fn(gm, example_inputs):
        fw_compiler = kwargs["fw_compiler"]
        bw_compiler = kwargs.get("bw_compiler") or fw_compiler
        inference_compiler = kwargs.get("inference_compiler") or fw_compiler
        handle = getattr(gm, "_rynamo_aot", None)
        if handle is None or _rynamo_aot is None or not torch.is_grad_enabled():
            return inference_compiler(gm, example_inputs)
        fw_gm, bw_gm, n_out, tangent_of_output, grad_primals = _rynamo_aot.split(handle)
        fw = fw_compiler(fw_gm, list(example_inputs))
        bw_cell = []

        class CompiledFunction(torch.autograd.Function):
            @staticmethod
            def forward(ctx, *args):
                outs = _call(fw, args)
                outs = outs if isinstance(outs, (tuple, list)) else (outs,)
                user, saved = tuple(outs[:n_out]), tuple(outs[n_out:])
                ctx.save_for_backward(*saved)
                ctx.n_args = len(args)
                ctx.mark_non_differentiable(
                    *[o for o, t in zip(user, tangent_of_output) if t is None]
                )
                return user

            @staticmethod
            def backward(ctx, *grads):
                if not bw_cell:
                    bw_cell.append(bw_compiler(bw_gm, list(ctx.saved_tensors) + [
                        g for g, t in zip(grads, tangent_of_output) if t is not None]))
                tangents = [
                    g.contiguous() for g, t in zip(grads, tangent_of_output) if t is not None
                ]
                res = _call(bw_cell[0], list(ctx.saved_tensors) + tangents)
                res = res if isinstance(res, (tuple, list)) else (res,)
                out = [None] * ctx.n_args
                for k, g in zip(grad_primals, res):
                    out[k] = g
                return tuple(out)

        def run(*args):
            return CompiledFunction.apply(*args)

        return run

    # Its forward and backward graphs carry the traced sizes as constants: Dynamo specialises
    # dynamic dimensions of training graphs compiled by it.
    compiler_fn._rynamo_aot_backend = True
    return compiler_fn
