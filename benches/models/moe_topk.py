"""A mixture-of-experts layer with top-k routing: a router, torch.topk, softmax over the chosen
logits, experts in an nn.ModuleList evaluated densely and combined with the routing weights."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Expert(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.up = nn.Linear(d, hidden)
        self.down = nn.Linear(hidden, d)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class MoE(nn.Module):
    def __init__(self, d, hidden, n_experts, k):
        super().__init__()
        self.router = nn.Linear(d, n_experts, bias=False)
        self.experts = nn.ModuleList([Expert(d, hidden) for _ in range(n_experts)])
        self.k = k

    def forward(self, x):
        logits = self.router(x)
        top, idx = torch.topk(logits, self.k, dim=-1)
        weights = F.softmax(top, dim=-1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            gate = (weights * (idx == e).to(x.dtype)).sum(dim=-1, keepdim=True)
            out = out + gate * expert(x)
        return out


def build(small=False):
    d, hidden, n, k, tokens = (8, 16, 3, 2, 5) if small else (128, 256, 4, 2, 256)
    return MoE(d, hidden, n, k).eval(), (torch.randn(tokens, d),)


def main():
    from _suite import check_model

    check_model(build, "moe_topk")


if __name__ == "__main__":
    main()
