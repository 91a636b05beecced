"""ResNet-style stage: BasicBlocks (conv-bn-relu, residual with a 1x1 projection when the shape
changes) in an nn.ModuleList, a stem, global average pooling and a classifier."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, c_in, c_out, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.shortcut = None
        if stride != 1 or c_in != c_out:
            self.shortcut = nn.Sequential(
                nn.Conv2d(c_in, c_out, 1, stride=stride, bias=False), nn.BatchNorm2d(c_out)
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.shortcut is None else self.shortcut(x)
        return F.relu(out + identity)


class ResNetTiny(nn.Module):
    def __init__(self, widths=(16, 32), n_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, widths[0], 3, padding=1, bias=False), nn.BatchNorm2d(widths[0]), nn.ReLU())
        blocks = []
        c = widths[0]
        for i, w in enumerate(widths):
            blocks.append(BasicBlock(c, w, stride=1 if i == 0 else 2))
            blocks.append(BasicBlock(w, w))
            c = w
        self.blocks = nn.ModuleList(blocks)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(c, n_classes)

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.fc(self.pool(x).flatten(1))


def build(small=False):
    model = ResNetTiny(widths=(4, 8) if small else (16, 32)).eval()
    x = torch.randn(2, 3, 8, 8) if small else torch.randn(8, 3, 32, 32)
    return model, (x,)


def main():
    from _suite import check_model

    check_model(build, "resnet_block")


if __name__ == "__main__":
    main()
