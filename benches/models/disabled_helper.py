"""A call into a helper marked `torch._dynamo.disable` (say, a metrics hook the user keeps out of
the graph) between two halves of a model: the graph breaks around it."""
import torch
import torch.nn as nn

stats = {}


@torch._dynamo.disable
def record_activation_stats(name, h):
    stats[name] = (h.mean(), h.std())
    return h


class TwoStage(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.stage1 = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.stage2 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d), nn.SiLU())

    def forward(self, x):
        h = self.stage1(x)
        h = record_activation_stats("stage1", h)
        return self.stage2(h) + x


def build(small=False):
    d, batch = (8, 2) if small else (256, 64)
    return TwoStage(d).eval(), (torch.randn(batch, d),)


def main():
    from _suite import check_model

    check_model(build, "disabled_helper")


if __name__ == "__main__":
    main()
