"""Bag-of-words classifier in the EmbeddingBag style: fixed-size bags of token ids with a padding
id, embedded with nn.Embedding(padding_idx=0), mean-pooled over the non-padding ids."""
import torch
import torch.nn as nn


class BagClassifier(nn.Module):
    def __init__(self, vocab, dim, n_classes):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.fc = nn.Linear(dim, n_classes)

    def forward(self, bags):
        e = self.emb(bags)  # [batch, bag, dim]
        present = (bags != 0).unsqueeze(-1).float()
        mean = (e * present).sum(1) / present.sum(1).clamp(min=1.0)
        return self.fc(mean)


def build(small=False):
    vocab, dim, batch, bag = (20, 8, 3, 4) if small else (5000, 64, 128, 32)
    model = BagClassifier(vocab, dim, 5).eval()
    bags = torch.randint(0, vocab, (batch, bag))
    return model, (bags,)


def main():
    from _suite import check_model

    check_model(build, "embedding_bag")


if __name__ == "__main__":
    main()
