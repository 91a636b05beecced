"""Layers built from helper functions and closures: an activation factory capturing its slope, a
residual wrapper closing over a module, a scaled init helper."""
import torch
import torch.nn as nn


def make_leaky(slope):
    def act(x):
        return torch.where(x > 0, x, x * slope)

    return act


def residual(fn):
    def wrapped(x):
        return x + fn(x)

    return wrapped


def scaled_linear(d_in, d_out, scale):
    layer = nn.Linear(d_in, d_out)
    with torch.no_grad():
        layer.weight.mul_(scale)
    return layer


class ClosureNet(nn.Module):
    def __init__(self, d, depth, slope=0.1):
        super().__init__()
        self.layers = nn.ModuleList([scaled_linear(d, d, 0.5) for _ in range(depth)])
        self.act = make_leaky(slope)
        self.head = nn.Linear(d, 1)

    def forward(self, x):
        for layer in self.layers:
            x = residual(lambda h: self.act(layer(h)))(x)
        return self.head(x)


def build(small=False):
    d, depth, batch = (8, 2, 3) if small else (256, 4, 64)
    return ClosureNet(d, depth).eval(), (torch.randn(batch, d),)


def main():
    from _suite import check_model

    check_model(build, "closures_mlp")


if __name__ == "__main__":
    main()
