"""A diffusion-UNet residual block: GroupNorm, SiLU, Conv2d, a sinusoidal timestep embedding
projected and broadcast over the feature map, a 1x1 skip projection."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
    args = t.float().unsqueeze(1) * freqs.unsqueeze(0)
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, c_in, c_out, t_dim, groups):
        super().__init__()
        self.norm1 = nn.GroupNorm(groups, c_in)
        self.conv1 = nn.Conv2d(c_in, c_out, 3, padding=1)
        self.t_proj = nn.Linear(t_dim, c_out)
        self.norm2 = nn.GroupNorm(groups, c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, padding=1)
        self.skip = nn.Conv2d(c_in, c_out, 1) if c_in != c_out else nn.Identity()
        self.t_dim = t_dim

    def forward(self, x, t):
        h = self.conv1(F.silu(self.norm1(x)))
        temb = self.t_proj(F.silu(timestep_embedding(t, self.t_dim)))
        h = h + temb[:, :, None, None]
        h = self.conv2(F.silu(self.norm2(h)))
        return self.skip(x) + h


def build(small=False):
    c_in, c_out, t_dim, groups, batch, hw = (4, 8, 8, 2, 2, 6) if small else (32, 64, 64, 8, 4, 16)
    model = ResBlock(c_in, c_out, t_dim, groups).eval()
    return model, (torch.randn(batch, c_in, hw, hw), torch.randint(0, 1000, (batch,)))


def main():
    from _suite import check_model

    check_model(build, "unet_res_block")


if __name__ == "__main__":
    main()
