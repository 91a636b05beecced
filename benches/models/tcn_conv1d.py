"""A temporal convolutional network: dilated causal Conv1d blocks (left padding with F.pad),
residual connections, a global max over time."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalConvBlock(nn.Module):
    def __init__(self, channels, kernel, dilation):
        super().__init__()
        self.left = (kernel - 1) * dilation
        self.conv = nn.Conv1d(channels, channels, kernel, dilation=dilation)
        self.norm = nn.GroupNorm(1, channels)

    def forward(self, x):
        y = self.conv(F.pad(x, (self.left, 0)))
        return x + F.relu(self.norm(y))


class TCN(nn.Module):
    def __init__(self, c_in, channels, levels, kernel=3):
        super().__init__()
        self.inp = nn.Conv1d(c_in, channels, 1)
        self.blocks = nn.ModuleList([CausalConvBlock(channels, kernel, 2**i) for i in range(levels)])
        self.out = nn.Linear(channels, 1)

    def forward(self, x):
        h = self.inp(x)
        for b in self.blocks:
            h = b(h)
        return self.out(h.amax(dim=-1))


def build(small=False):
    c_in, ch, levels, batch, steps = (2, 4, 2, 2, 10) if small else (8, 64, 4, 16, 128)
    return TCN(c_in, ch, levels).eval(), (torch.randn(batch, c_in, steps),)


def main():
    from _suite import check_model

    check_model(build, "tcn_conv1d")


if __name__ == "__main__":
    main()
