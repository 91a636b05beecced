"""In-place activations under autograd against PyTorch 2.15's eager values: every activation layer
with ``inplace=True`` and every ``F.<act>(x, inplace=True)`` / ``F.<act>_`` applied to a non-leaf
that requires grad, then ``backward()``: values and input gradients, eagerly and compiled.

Regression: the layers wrote their result over the input their backward formula had saved, so
``nn.LeakyReLU(inplace=True)`` (DCGAN), ``nn.ReLU6``/``nn.Hardswish(inplace=True)`` (MobileNet),
``nn.SiLU(inplace=True)`` (EfficientNet), ``nn.ELU``/``nn.Mish`` raised "modified by an inplace
operation" at ``backward()``. Goldens: `inplace_activations_pt.json`, recorded by
`PYTHONPATH=tests/python /tmp/pt/bin/python inplace_activations_vs_pytorch.py --record`."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from _eager_goldens import Goldens, data

goldens = Goldens(__file__, "inplace_activations_pt.json")
torch.manual_seed(0)
x = data(2, 3, 4) / 4
layers = [
    ("ReLU", nn.ReLU(inplace=True)), ("ReLU6", nn.ReLU6(inplace=True)), ("LeakyReLU", nn.LeakyReLU(0.2, True)),
    ("ELU", nn.ELU(0.7, inplace=True)), ("CELU", nn.CELU(1.3, inplace=True)), ("SELU", nn.SELU(inplace=True)),
    ("SiLU", nn.SiLU(inplace=True)), ("Mish", nn.Mish(inplace=True)), ("Hardswish", nn.Hardswish(inplace=True)),
    ("Hardsigmoid", nn.Hardsigmoid(inplace=True)), ("Hardtanh", nn.Hardtanh(-0.5, 0.5, inplace=True)),
    ("Threshold", nn.Threshold(0.1, -1.0, inplace=True)),
]
for label, layer in layers:
    goldens.check(f"{label}(inplace=True)", lambda t: layer(t * 2) * 3, x)
functional = [
    ("F.relu", lambda t: F.relu(t, inplace=True)), ("F.relu6", lambda t: F.relu6(t, inplace=True)),
    ("F.leaky_relu", lambda t: F.leaky_relu(t, 0.1, inplace=True)), ("F.elu", lambda t: F.elu(t, 1.0, True)),
    ("F.silu", lambda t: F.silu(t, inplace=True)), ("F.mish", lambda t: F.mish(t, inplace=True)),
    ("F.hardswish", lambda t: F.hardswish(t, inplace=True)), ("F.gelu then relu_", lambda t: F.gelu(t).relu_()),
    ("F.leaky_relu_", lambda t: F.leaky_relu_(t, 0.3)), ("F.elu_", lambda t: F.elu_(t, 0.5)),
    ("F.selu_", lambda t: F.selu_(t)), ("F.celu_", lambda t: F.celu_(t, 2.0)),
    ("F.hardtanh_", lambda t: F.hardtanh_(t, -0.2, 0.3)), ("F.threshold_", lambda t: F.threshold_(t, 0.0, 0.5)),
]
for label, fn in functional:
    goldens.check(label, lambda t: fn(t + 1) * 2, x)
goldens.check("conv + LeakyReLU(inplace) + conv", lambda t, w1, w2: F.conv1d(
    nn.LeakyReLU(0.2, inplace=True)(F.conv1d(t, w1)), w2), data(2, 3, 8), data(4, 3, 3) / 4, data(2, 4, 3) / 4)
goldens.raises("leaf in-place", lambda: nn.ReLU6(inplace=True)(torch.ones(3, requires_grad=True)))
goldens.finish()
