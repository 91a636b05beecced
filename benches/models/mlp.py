"""A plain MLP classifier: config in a dataclass, layers built in a loop into nn.Sequential."""
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class MLPConfig:
    d_in: int = 256
    hidden: tuple = (512, 512, 256)
    n_classes: int = 10


class MLP(nn.Module):
    def __init__(self, cfg: MLPConfig):
        super().__init__()
        layers = []
        d = cfg.d_in
        for h in cfg.hidden:
            layers += [nn.Linear(d, h), nn.ReLU()]
            d = h
        layers.append(nn.Linear(d, cfg.n_classes))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x).log_softmax(dim=-1)


def build(small=False):
    cfg = MLPConfig(d_in=16, hidden=(32, 32), n_classes=4) if small else MLPConfig()
    model = MLP(cfg).eval()
    x = torch.randn(4 if small else 64, cfg.d_in)
    return model, (x,)


def main():
    from _suite import check_model

    check_model(build, "mlp")


if __name__ == "__main__":
    main()
