"""A tiny ViT: Conv2d patch embedding, a class token concatenated in front, positional
embeddings, pre-norm blocks with nn.MultiheadAttention, the class token into the head."""
import torch
import torch.nn as nn


class ViTBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class ViT(nn.Module):
    def __init__(self, image, patch, d, heads, depth, n_classes=10):
        super().__init__()
        self.patch = nn.Conv2d(3, d, patch, stride=patch)
        n = (image // patch) ** 2
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.randn(1, n + 1, d) * 0.02)
        self.blocks = nn.ModuleList([ViTBlock(d, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, n_classes)

    def forward(self, img):
        x = self.patch(img).flatten(2).transpose(1, 2)
        cls = self.cls.expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x[:, 0]))


def build(small=False):
    image, patch, d, heads, depth, batch = (8, 4, 8, 2, 1, 2) if small else (32, 4, 64, 4, 2, 8)
    return ViT(image, patch, d, heads, depth).eval(), (torch.randn(batch, 3, image, image),)


def main():
    from _suite import check_model

    check_model(build, "vit_tiny")


if __name__ == "__main__":
    main()
