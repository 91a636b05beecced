"""``torch.autograd``: grad-mode switches. There is no autograd engine yet: tensors carry a
``requires_grad`` flag and grad mode is tracked, but no gradients are computed."""

from torch.autograd.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    no_grad,
    set_grad_enabled,
)
