"""MLP-Mixer blocks: token mixing across the sequence (transpose, MLP, transpose back) and channel
mixing, pre-LayerNorm, patches from a Conv2d stem."""
import torch
import torch.nn as nn


class MlpBlock(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, d)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class MixerLayer(nn.Module):
    def __init__(self, n_tokens, d):
        super().__init__()
        self.norm1 = nn.LayerNorm(d)
        self.token_mix = MlpBlock(n_tokens, 2 * n_tokens)
        self.norm2 = nn.LayerNorm(d)
        self.channel_mix = MlpBlock(d, 4 * d)

    def forward(self, x):
        x = x + self.token_mix(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mix(self.norm2(x))


class Mixer(nn.Module):
    def __init__(self, image, patch, d, depth, n_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, d, kernel_size=patch, stride=patch)
        n_tokens = (image // patch) ** 2
        self.layers = nn.Sequential(*[MixerLayer(n_tokens, d) for _ in range(depth)])
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, n_classes)

    def forward(self, img):
        x = self.stem(img).flatten(2).transpose(1, 2)
        x = self.layers(x)
        return self.head(self.norm(x).mean(dim=1))


def build(small=False):
    image, patch, d, depth, batch = (8, 4, 8, 1, 2) if small else (32, 4, 64, 2, 8)
    return Mixer(image, patch, d, depth).eval(), (torch.randn(batch, 3, image, image),)


def main():
    from _suite import check_model

    check_model(build, "mlp_mixer")


if __name__ == "__main__":
    main()
