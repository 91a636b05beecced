"""Multi-head attention with a key padding mask: nn.MultiheadAttention over padded sequences
whose lengths come as a tensor, the mask built with arange and a comparison, masked mean pooling."""
import torch
import torch.nn as nn


class PaddedAttentionPool(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
        self.norm = nn.LayerNorm(d_model)
        self.out = nn.Linear(d_model, 1)

    def forward(self, x, lengths):
        T = x.shape[1]
        pad = torch.arange(T).unsqueeze(0) >= lengths.unsqueeze(1)  # True where padded
        h, _ = self.attn(x, x, x, key_padding_mask=pad, need_weights=False)
        h = self.norm(x + h)
        keep = (~pad).unsqueeze(-1).to(h.dtype)
        pooled = (h * keep).sum(dim=1) / keep.sum(dim=1)
        return self.out(pooled).squeeze(-1)


def build(small=False):
    d, heads, batch, seq = (8, 2, 3, 5) if small else (128, 8, 16, 64)
    model = PaddedAttentionPool(d, heads).eval()
    x = torch.randn(batch, seq, d)
    lengths = torch.randint(1, seq + 1, (batch,))
    return model, (x, lengths)


def main():
    from _suite import check_model

    check_model(build, "masked_attention")


if __name__ == "__main__":
    main()
