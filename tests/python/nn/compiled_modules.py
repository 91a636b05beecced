# nn modules under torch.compile: compiled output equals eager output, and each model compiles to
# the number of graphs PyTorch produces (one: Dynamo inlines `forward`, the functional wrappers
# and, when hooks exist, `Module.__call__`). The built-in layers are called from a user function
# or a user module: compiling a `torch.nn` layer itself (`torch.compile(nn.Sequential(...))`)
# starts in a frozen `torch.nn` frame, which Rynamo's Dynamo skips for now (PyTorch traces it).
import torch
import torch.nn as nn
import torch.nn.functional as F
from _harness import check, done

torch.manual_seed(0)

mlp = nn.Sequential(nn.Linear(6, 16), nn.GELU(approximate="tanh"), nn.Dropout(0.2), nn.LayerNorm(16),
                    nn.Linear(16, 4)).eval()
x = torch.randn(5, 6)
check(lambda t: mlp(t), x)


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        x = self.pool(F.relu(self.bn(self.conv(x))))
        return self.head(torch.flatten(self.gap(x), 1))


cnn = Cnn().eval()
img = torch.randn(2, 3, 8, 8)
check(cnn, img)


def loss_fn(x, target):
    return F.cross_entropy(mlp(x), target, label_smoothing=0.1)


check(loss_fn, x, torch.tensor([0, 3, 1, 2, 2]))

emb = nn.Embedding(10, 4, padding_idx=0)
check(lambda idx: emb(idx).sum(-1), torch.tensor([[0, 3, 9], [1, 1, 2]]))

emb_renorm = nn.Embedding(10, 4, max_norm=1.0)
check(lambda idx: emb_renorm(idx) * 2, torch.tensor([[0, 3, 9], [1, 1, 2]]))

layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True).eval()
src = torch.randn(2, 5, 8)
check(lambda t: layer(t), src)
transformer = nn.Transformer(8, 2, 1, 2, 16, dropout=0.0, batch_first=True).eval()
tgt_mask = nn.Transformer.generate_square_subsequent_mask(3)
check(lambda s, t: transformer(s, t, tgt_mask=tgt_mask, tgt_is_causal=True), src, torch.randn(2, 3, 8))
mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()
pad = torch.tensor([[False, False, False, True, True], [False, False, False, False, False]])
check(lambda q: mha(q, q, q, key_padding_mask=pad), src)
check(lambda q: mha(q, q, q, need_weights=False)[0], src)



class Unrolled(nn.Module):
    """An LSTM cell unrolled over the time steps in a Python loop, then a GRU cell step."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTMCell(6, 5)
        self.gru = nn.GRUCell(5, 5)
        self.rnn = nn.RNNCell(5, 3, nonlinearity="relu")

    def forward(self, seq):
        h = c = torch.zeros(seq.shape[1], 5)
        for t in range(seq.shape[0]):
            h, c = self.lstm(seq[t], (h, c))
        return self.rnn(self.gru(c, h))


check(Unrolled(), torch.randn(4, 3, 6))



class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, self.num_flat_features(x))
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))

    def num_flat_features(self, x):
        num = 1
        for s in x.size()[1:]:
            num *= s
        return num


check(LeNet(), torch.randn(2, 1, 32, 32))


class BasicBlock(nn.Module):
    """ResNet's block, in training mode (batch statistics, running stats updated)."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.downsample(x)
        return self.relu(out)


check(BasicBlock(3, 4, 2), torch.randn(2, 3, 8, 8))

check(lambda t: F.one_hot(t, 5) * 2, torch.tensor([1, 4, 0]))
check(lambda t: F.normalize(F.pad(t, (1, 1), mode="reflect"), dim=-1), torch.randn(1, 2, 5))

# Training-mode dropout draws the same mask compiled as eager (same seed).
dropper = nn.Sequential(nn.Linear(6, 8), nn.Dropout(0.3), nn.ReLU(), nn.Dropout(0.5, inplace=True))
check(lambda t: dropper(t), x)

acts = nn.Sequential(nn.LeakyReLU(0.1, inplace=True), nn.ELU(0.5, inplace=True), nn.SiLU(inplace=True),
                     nn.Mish(inplace=True), nn.ReLU6(inplace=True), nn.Hardtanh(-0.5, 0.5, inplace=True))
check(lambda t: acts(t * 3), x)

# Training-mode batch norm updates its running statistics inside the graph.
bn_eager = nn.BatchNorm1d(4)
bn_compiled = nn.BatchNorm1d(4)
opt = torch.compile(bn_compiled, backend="eager")
for _ in range(2):
    batch = torch.randn(6, 4)
    a = bn_eager(batch)
    b = opt(batch)
    assert bool((a == b).all()), (a, b)
assert bool((bn_eager.running_mean == bn_compiled.running_mean).all())
assert bool((bn_eager.running_var == bn_compiled.running_var).all())
assert int(bn_compiled.num_batches_tracked) == 2

# A forward hook is part of the traced call.
hooked = nn.Linear(6, 3)
hooked.register_forward_hook(lambda m, args, out: out * 2)
hooked.register_forward_pre_hook(lambda m, args: (args[0] + 1,))
check(lambda t: hooked(t), x)
done()
