# A small CNN block: conv, batch norm, pooling, a classifier head, cross entropy.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size=3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        return self.pool(F.relu(self.bn(self.conv(x))))


class Net(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(Block(3, 8), Block(8, 16))
        self.gap = nn.AdaptiveAvgPool2d((1, 1))
        self.flatten = nn.Flatten()
        self.head = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = self.flatten(self.gap(x))
        return self.head(x)


net = Net()
print(net)
x = torch.randn(4, 3, 16, 16)
out = net(x)
print(out.shape)
loss = F.cross_entropy(out, torch.tensor([1, 0, 9, 3]))
print(loss.shape, loss.dtype)
print(net.features[0].bn.running_mean.shape, int(net.features[0].bn.num_batches_tracked))
print([k for k in net.state_dict()])
print(sum(p.numel() for p in net.parameters() if p.requires_grad))

# Deterministic forward: a 1-channel edge filter and identity batch norm in eval mode.
conv = nn.Conv2d(1, 1, 3, padding=1, bias=False)
with torch.no_grad():
    conv.weight.copy_(torch.tensor([[[[0.0, -1.0, 0.0], [-1.0, 4.0, -1.0], [0.0, -1.0, 0.0]]]]))
img = torch.arange(16.0).reshape(1, 1, 4, 4)
with torch.no_grad():
    y = conv(img)
    print(y)
    print(F.max_pool2d(y, 2))
    print(F.avg_pool2d(img, 2, stride=1))
    print(nn.AdaptiveAvgPool2d(1)(img).flatten())
bn = nn.BatchNorm2d(1).eval()
with torch.no_grad():
    print(bn(img)[0, 0, 0])
print(conv, bn, sep="\n")
print(nn.Conv2d(3, 6, (3, 5), stride=2, padding=(1, 2), dilation=1, groups=3, bias=False, padding_mode="reflect"))
print(nn.Conv1d(4, 4, 3, padding="same"))
