"""Module full backward hooks (PyTorch's ``torch.utils.hooks.BackwardHook``): the module's tensor
inputs and outputs pass through identity autograd Functions, and hooks on those two nodes see
the gradients flowing out of the module (``grad_output``, before the module's own backward) and
into its inputs (``grad_input``, after it)."""

import torch
from torch.autograd.function import Function


class _Identity(Function):
    @staticmethod
    def forward(ctx, *tensors):
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return grads


def _tensors(value):
    if isinstance(value, torch.Tensor):
        return [value], lambda new: new[0]
    if isinstance(value, tuple) and any(isinstance(v, torch.Tensor) for v in value):
        idx = [i for i, v in enumerate(value) if isinstance(v, torch.Tensor)]

        def rebuild(new):
            items = list(value)
            for i, t in zip(idx, new):
                items[i] = t
            return type(value)(items) if type(value) is not tuple else tuple(items)

        return [value[i] for i in idx], rebuild
    return [], lambda new: value


class BackwardHook:
    """One call's hook state: the gradients of the outputs, then of the inputs."""

    def __init__(self, module, hooks, pre_hooks):
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_hooked = False

    def _run_hooks(self, grad_inputs):
        result = grad_inputs
        for hook in self.hooks:
            out = hook(self.module, result, self.grad_outputs)
            if out is not None:
                out = out if isinstance(out, tuple) else (out,)
                if len(out) != len(result):
                    raise RuntimeError(
                        f"Backward hook returned an invalid number of grad_input, got "
                        f"{len(out)}, but expected {len(result)}"
                    )
                result = out
        return result

    def setup_input_hook(self, args):
        tensors, rebuild = _tensors(args)
        if not tensors or not torch.is_grad_enabled() or not any(t.requires_grad for t in tensors):
            return args
        self.n_inputs = len(tensors)
        wrapped = _Identity.apply(*tensors)
        node = next((t.grad_fn for t in wrapped if t.grad_fn is not None), None)
        if node is not None:
            self.input_hooked = True

            def on_inputs(grad_inputs):
                new = self._run_hooks(tuple(grad_inputs))
                return None if new is grad_inputs else new

            node.register_prehook(on_inputs)
        return rebuild(list(wrapped))

    def setup_output_hook(self, result):
        tensors, rebuild = _tensors(result)
        if not tensors or not torch.is_grad_enabled() or not any(t.requires_grad for t in tensors):
            return result
        wrapped = _Identity.apply(*tensors)
        node = next((t.grad_fn for t in wrapped if t.grad_fn is not None), None)
        if node is None:
            return result

        def on_outputs(grad_outputs):
            grads = tuple(grad_outputs)
            for hook in self.pre_hooks:
                out = hook(self.module, grads)
                if out is not None:
                    grads = out if isinstance(out, tuple) else (out,)
            self.grad_outputs = grads
            if not self.input_hooked:
                # No input needs grad: the hooks run now, with grad_input all None.
                self._run_hooks((None,) * max(self.n_inputs, 1))
            return grads

        node.register_prehook(on_outputs)
        return rebuild(list(wrapped))
