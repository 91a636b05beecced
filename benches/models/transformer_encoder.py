"""A stack of nn.TransformerEncoderLayer (batch_first, pre-norm) over token embeddings with a
learned positional embedding, mean-pooled into a classifier."""
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, vocab, d_model, nhead, n_layers, seq_len, n_classes=4):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Parameter(torch.randn(1, seq_len, d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(
            d_model, nhead, dim_feedforward=4 * d_model, dropout=0.0, batch_first=True, norm_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, num_layers=n_layers)
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, ids):
        h = self.tok(ids) + self.pos
        h = self.encoder(h)
        return self.head(h.mean(dim=1))


def build(small=False):
    vocab, d, heads, layers, seq, batch = (50, 16, 2, 1, 8, 2) if small else (1000, 128, 4, 2, 64, 8)
    model = Encoder(vocab, d, heads, layers, seq).eval()
    ids = torch.randint(0, vocab, (batch, seq))
    return model, (ids,)


def main():
    from _suite import check_model

    check_model(build, "transformer_encoder")


if __name__ == "__main__":
    main()
