# The repr of every layer, in PyTorch's format.
import torch.nn as nn

layers = [
    nn.Linear(4, 8), nn.Linear(4, 8, bias=False), nn.Bilinear(2, 3, 4), nn.Identity(54, unused="x"),
    nn.Conv2d(1, 20, 5), nn.Conv2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2), dilation=(3, 1)),
    nn.Conv1d(16, 33, 3, stride=2), nn.Conv2d(4, 4, 3, padding="valid", padding_mode="circular"),
    nn.ReLU(), nn.ReLU(inplace=True), nn.ReLU6(), nn.LeakyReLU(), nn.LeakyReLU(0.2, inplace=True), nn.ELU(),
    nn.CELU(0.5), nn.SELU(), nn.GELU(), nn.GELU(approximate="tanh"), nn.SiLU(), nn.Mish(), nn.Hardtanh(),
    nn.Hardswish(), nn.Hardsigmoid(), nn.Softplus(), nn.Softplus(2, 10), nn.Threshold(0.1, 20),
    nn.Tanh(), nn.Sigmoid(), nn.LogSigmoid(), nn.Softsign(), nn.Tanhshrink(), nn.Softshrink(), nn.Hardshrink(0.3),
    nn.GLU(), nn.PReLU(), nn.PReLU(3), nn.Softmax(dim=1), nn.Softmax(), nn.LogSoftmax(dim=-1), nn.Softmin(0),
    nn.Softmax2d(), nn.LayerNorm(8), nn.LayerNorm([2, 3], eps=1e-6, elementwise_affine=False),
    nn.RMSNorm(4), nn.RMSNorm([2, 2], eps=1e-5), nn.GroupNorm(2, 8), nn.GroupNorm(1, 4, affine=False),
    nn.BatchNorm1d(4), nn.BatchNorm2d(16, momentum=None, affine=False, track_running_stats=False),
    nn.Embedding(10, 3), nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0, norm_type=1.0),
    nn.Dropout(), nn.Dropout(0.2, inplace=True), nn.Dropout1d(0.1), nn.Dropout2d(), nn.Dropout3d(),
    nn.MaxPool2d(2), nn.MaxPool2d((3, 2), stride=(2, 1), padding=1, ceil_mode=True), nn.MaxPool1d(3),
    nn.AvgPool2d(2), nn.AvgPool2d(3, stride=2, padding=1), nn.AvgPool1d(3), nn.AdaptiveAvgPool2d((1, 1)),
    nn.AdaptiveAvgPool2d(5), nn.AdaptiveAvgPool2d((None, 7)), nn.AdaptiveAvgPool1d(4), nn.Flatten(),
    nn.Flatten(0, 2), nn.Unflatten(1, (2, 3)), nn.CrossEntropyLoss(), nn.NLLLoss(), nn.MSELoss(), nn.L1Loss(),
    nn.BCELoss(), nn.BCEWithLogitsLoss(), nn.SmoothL1Loss(), nn.HuberLoss(), nn.KLDivLoss(),
    nn.MultiheadAttention(8, 2), nn.MultiheadAttention(8, 2, kdim=4, vdim=6, bias=False),
    nn.RNNCell(3, 4), nn.RNNCell(3, 4, bias=False, nonlinearity="relu"), nn.LSTMCell(5, 2), nn.GRUCell(2, 2),
]
for layer in layers:
    print(layer)
print(nn.Sequential(nn.Conv2d(1, 20, 5), nn.ReLU(), nn.Conv2d(20, 64, 5), nn.ReLU()))
print(nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2)]))
print(nn.Transformer(8, 2, 1, 2, 16))
print(nn.Transformer.generate_square_subsequent_mask(3))
