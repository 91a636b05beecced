# env: RYNAMO_DYNAMIC_SHAPES=0
# (pins the recompile automatic dynamic shapes make, so it runs static-by-default)
"""A text-serving loop as a new user writes it: a compiled model gets batches of varying
sequence length. Under automatic dynamic shapes the second length recompiles once, with the
sequence dimension dynamic (`TORCH_LOGS=recompiles` names it), and every later length runs that
entry; every result equals eager. The model takes every size from its tensors (embedding,
layer norm, MLP, masked mean pooling), as PyTorch's does when nothing reads a size in Python."""
import re

import torch
import torch.nn as nn
import torch._dynamo
import torch._logging
from torch._dynamo.testing import CompileCounterWithBackend

from _harness import done, expect, fd2_text


class Classifier(nn.Module):
    def __init__(self, vocab=50, dim=16, classes=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens, mask):
        h = self.emb(tokens)
        h = h + self.mlp(self.norm(h))
        m = mask.unsqueeze(-1).to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.head(pooled).softmax(-1)


def logged(fn):
    text = fd2_text(fn)
    return [re.sub(r"^[IVW]\d+ [\d:.]+ \d+ \S+\] (\[\d+/\d+\] )?(\[__recompiles\] )?", "", l) for l in text.splitlines()]


torch.manual_seed(0)
model = Classifier().eval()
gen = torch.Generator().manual_seed(0)
LENGTHS = [7, 12, 5, 31, 18, 64, 9, 12, 40, 3]
failures = []
for backend in ("eager", "inductor"):
    torch._dynamo.reset()
    cnt = CompileCounterWithBackend(backend)
    served = torch.compile(model, backend=cnt)

    def serve():
        for t in LENGTHS:
            tokens = torch.randint(0, 50, (4, t), generator=gen)
            mask = torch.rand(4, t, generator=gen) > 0.2
            with torch.no_grad():
                want, got = model(tokens, mask), served(tokens, mask)
            if not (want.shape == got.shape and torch.allclose(want, got, atol=1e-6)):
                failures.append(f"{backend} length {t}")

    torch._logging.set_logs(recompiles=True)
    lines = logged(serve)
    torch._logging.set_logs()
    expect(f"{backend} compiles", cnt.frame_count, 2)
    reasons = [l.strip() for l in lines if l.strip().startswith("- ")]
    expect(
        f"{backend} recompile reason names the sequence dimension",
        reasons,
        ["- 0/0: tensor 'tokens' size mismatch at index 1. expected 7, actual 12"],
    )
expect("every result equals eager", failures, [])
done()
