"""Ops with more than 32 outputs (split, unbind, chunk) give every output history and every
piece its gradient, eagerly and compiled: the masks of saved and differentiable outputs cover
all outputs by default. Stdout equals PyTorch 2.15's (recorded with /tmp/pt's python)."""
import torch


def pieces(x):
    parts = torch.split(x, 1)
    rows = torch.unbind(x.reshape(20, 2))
    chunks = torch.chunk(x, 40)
    return (sum(p * (i + 1) for i, p in enumerate(parts))
            + sum(r.sum() * i for i, r in enumerate(rows))
            + sum(c.exp().sum() for c in chunks[33:]))


for label, fn in [("eager", pieces), ("compiled", torch.compile(pieces, backend="eager")),
                  ("compiled default", torch.compile(pieces))]:
    x = (torch.arange(40.) / 8).requires_grad_()
    parts = torch.split(x, 1)
    print(label, len(parts), all(p.requires_grad for p in parts), parts[39].grad_fn is not None)
    fn(x).sum().backward()
    print(label, [round(v, 4) for v in x.grad[30:].tolist()])
