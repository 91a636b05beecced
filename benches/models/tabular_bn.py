"""A tabular model: categorical columns through one nn.Embedding each (an nn.ModuleList indexed
in a loop), concatenated with BatchNorm1d-normalised numeric columns, an MLP with dropout."""
import torch
import torch.nn as nn


class TabularNet(nn.Module):
    def __init__(self, cardinalities, n_numeric, emb_dim, hidden):
        super().__init__()
        self.embeds = nn.ModuleList([nn.Embedding(c, emb_dim) for c in cardinalities])
        self.bn = nn.BatchNorm1d(n_numeric)
        d = emb_dim * len(cardinalities) + n_numeric
        self.mlp = nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Dropout(0.1), nn.Linear(hidden, 1))

    def forward(self, cats, nums):
        cols = [emb(cats[:, i]) for i, emb in enumerate(self.embeds)]
        h = torch.cat(cols + [self.bn(nums)], dim=1)
        return torch.sigmoid(self.mlp(h)).squeeze(1)


def build(small=False):
    cards, n_num, emb, hidden, batch = ((3, 5), 2, 4, 8, 4) if small else ((10, 50, 200, 7), 16, 16, 128, 512)
    model = TabularNet(cards, n_num, emb, hidden).eval()
    cats = torch.stack([torch.randint(0, c, (batch,)) for c in cards], dim=1)
    return model, (cats, torch.randn(batch, n_num))


def main():
    from _suite import check_model

    check_model(build, "tabular_bn")


if __name__ == "__main__":
    main()
