"""What Dynamo sees: an `nn.Module` MLP and three helper functions compiled with a counting backend.

Run with `rynamo examples/dynamo_tour.py`. It prints each captured graph (`print_readable`), the
guards of the compiled entries, and the recompile log when an input's shape changes; every
compiled result is checked against eager on the same inputs.
"""
import dataclasses

import torch
import torch._dynamo
import torch._logging
import torch.nn as nn
import torch.nn.functional as F


@dataclasses.dataclass
class Config:
    d_in: int = 8
    hidden: int = 32
    d_out: int = 4
    scale: float = 0.5


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.fc1 = nn.Linear(cfg.d_in, cfg.hidden)
        self.fc2 = nn.Linear(cfg.hidden, cfg.d_out)
        self.norm = nn.LayerNorm(cfg.d_out)
        self.scale = cfg.scale

    def forward(self, x):
        h = F.gelu(self.fc1(x))
        return self.norm(self.fc2(h) * self.scale)


def normalize(x, eps=1e-5):
    """Helper 1: rescale rows to zero mean and unit variance."""
    mu = x.mean(dim=-1, keepdim=True)
    var = ((x - mu) ** 2).mean(dim=-1, keepdim=True)
    return (x - mu) * torch.rsqrt(var + eps)


def pairwise_scores(q, k, temperature=2.0):
    """Helper 2: softmax attention scores."""
    return torch.softmax(q @ k.transpose(-1, -2) / temperature, dim=-1)


def clipped_residual(x, delta, bound=1.0):
    """Helper 3: a residual update with the step clamped."""
    return x + delta.clamp(-bound, bound)


class Recorder:
    """A counting backend that keeps each graph (like torch._dynamo.testing.EagerAndRecordGraphs)."""

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward


def compile_and_check(name, fn, *args):
    backend = Recorder()
    compiled = torch.compile(fn, backend=backend)
    got, expected = compiled(*args), fn(*args)
    assert torch.allclose(got, expected, rtol=1e-5, atol=1e-6), f"{name}: compiled != eager"
    print(f"=== {name}: {len(backend.graphs)} graph(s), result equals eager")
    for gm in backend.graphs:
        gm.print_readable()
    return compiled


def main():
    torch.manual_seed(0)
    cfg = Config()
    model = MLP(cfg)
    x = torch.randn(5, cfg.d_in)
    compile_and_check("MLP", model, x)
    compile_and_check("normalize", normalize, torch.randn(3, 6))
    compile_and_check("pairwise_scores", pairwise_scores, torch.randn(4, 8), torch.randn(6, 8))
    compile_and_check("clipped_residual", clipped_residual, torch.randn(7), torch.randn(7) * 3)

    print("=== guards of the compiled MLP")
    explanation = torch._dynamo.explain(model)(x)
    for guard in explanation.out_guards:
        print(" ", guard.code_list[0] if guard.code_list else guard.name)

    print("=== a new batch size recompiles (TORCH_LOGS=recompiles)")
    torch._logging.set_logs(recompiles=True)
    compiled = torch.compile(model, backend="eager")
    compiled(x)
    y = torch.randn(9, cfg.d_in)
    assert torch.allclose(compiled(y), model(y), rtol=1e-5, atol=1e-6)
    torch._logging.set_logs(recompiles=False)
    print("done: every compiled result equals eager")


if __name__ == "__main__":
    main()
