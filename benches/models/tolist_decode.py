"""Greedy decoding bookkeeping: logits from a small model, `argmax(...).tolist()` into Python
lists (a fundamental break) and a confidence tensor computed after it."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Tagger(nn.Module):
    def __init__(self, vocab, dim, n_tags):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, n_tags)

    def forward(self, ids):
        return self.proj(torch.tanh(self.emb(ids)))


def make_step(model):
    def decode(ids):
        logits = model(ids)
        tags = logits.argmax(-1).tolist()
        probs = F.softmax(logits, dim=-1)
        confidence = probs.amax(-1).mean(-1)
        return confidence, tags

    return decode


def build(small=False):
    vocab, dim, tags, batch, seq = (10, 8, 3, 2, 4) if small else (1000, 128, 16, 32, 32)
    model = Tagger(vocab, dim, tags).eval()
    return make_step(model), (torch.randint(0, vocab, (batch, seq)),)


def main():
    from _suite import check_model

    check_model(build, "tolist_decode")


if __name__ == "__main__":
    main()
