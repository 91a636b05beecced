"""A denoising autoencoder: encoder and decoder built from a dict config, a reconstruction
(mse_loss) returned together with the latent code."""
import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {"d_in": 784, "layers": [256, 64], "latent": 16, "noise": 0.1}


def stack(dims, last_act):
    layers = []
    for i, (a, b) in enumerate(zip(dims[:-1], dims[1:])):
        layers.append(nn.Linear(a, b))
        layers.append(last_act if i == len(dims) - 2 else nn.ReLU())
    return nn.Sequential(*layers)


class AutoEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        dims = [cfg["d_in"], *cfg["layers"], cfg["latent"]]
        self.encoder = stack(dims, nn.Identity())
        self.decoder = stack(dims[::-1], nn.Sigmoid())
        self.noise = cfg["noise"]

    def forward(self, x, eps):
        z = self.encoder(x + self.noise * eps)
        recon = self.decoder(z)
        return F.mse_loss(recon, x), z


def build(small=False):
    cfg = {"d_in": 16, "layers": [8], "latent": 4, "noise": 0.1} if small else CONFIG
    batch = 3 if small else 128
    x = torch.rand(batch, cfg["d_in"])
    return AutoEncoder(cfg).eval(), (x, torch.randn_like(x))


def main():
    from _suite import check_model

    check_model(build, "autoencoder")


if __name__ == "__main__":
    main()
