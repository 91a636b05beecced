"""A data-dependent branch on a tensor's value (`if h.sum() > 0`), between two blocks of layers:
a fundamental break (the condition is read back into Python)."""
import torch
import torch.nn as nn


class Gated(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.pre = nn.Sequential(nn.Linear(d, d), nn.Tanh())
        self.pos_path = nn.Linear(d, d)
        self.neg_path = nn.Linear(d, d)
        self.post = nn.LayerNorm(d)

    def forward(self, x):
        h = self.pre(x)
        if h.sum() > 0:
            h = self.pos_path(h).relu()
        else:
            h = self.neg_path(h).sigmoid()
        return self.post(h + x)


def build(small=False):
    d, batch = (8, 3) if small else (256, 64)
    return Gated(d).eval(), (torch.randn(batch, d),)


def main():
    from _suite import check_model

    check_model(build, "data_dependent_branch")


if __name__ == "__main__":
    main()
