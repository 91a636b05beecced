"""Semantics matrix: torch objects (issue 27 requirement 5). See `_matrix.py`."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from _matrix import entry, run

X = torch.arange(6.0).reshape(2, 3)
B = torch.arange(24.0).reshape(2, 3, 4)
W = nn.Parameter(torch.ones(3))
CPU = torch.device("cpu")


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)

    def forward(self, x):
        return self.lin(x)


@torch.no_grad()
def under_no_grad(t):
    return t * 2, torch.is_grad_enabled()


@torch.enable_grad()
def under_enable_grad(t):
    return t * 3, torch.is_grad_enabled()


def host_fn(a, b, scale=1.0):
    return a * scale + b


torch._dynamo.allow_in_graph(host_fn)


@entry(X)
def device_dtype_consts(x):
    d = torch.device("cpu")
    return x.to(d), d.type, d == CPU, x.dtype == torch.float32, str(torch.float32), x.device == d


@entry(X)
def tensor_of_tensor(x):
    return torch.tensor(x), torch.tensor(3.0) + x


@entry(B)
def arange_device_kw(x):
    T = x.shape[1]
    pos = torch.arange(0, T, dtype=torch.long, device=x.device)
    return pos, torch.zeros(T, device=x.device, dtype=x.dtype), torch.ones(2, requires_grad=False)


@entry(X)
def factory_requires_grad(x):
    w = torch.ones(3, requires_grad=True)
    return (x * 2).shape, w.requires_grad


@entry(X)
def tensor_type_and_new(x):
    return x.type(torch.int64), x.type(), x.new_zeros(2), x.new_ones((1, 2)), x.new_full((2,), 7.0), x.new_empty(0)


@entry(X)
def tensor_flag_methods(x):
    return x.is_complex(), x.is_inference(), torch.is_floating_point(input=x), len(x), x + 1


@entry(X)
def unbound_tensor_methods(x):
    return torch.Tensor.add(x, 1), torch.Tensor.sum(x), torch.Tensor.size(x, 0)


@entry(X)
def inplace_view_methods(x):
    y = x.clone()
    y.unsqueeze_(0)
    z = x.clone()
    z.t_()
    return y, z


@entry(B)
def index_with_list(x):
    return x[:, [-1], :], x[[0, 1], [1, 2]], x[:, [0, 2]]


@entry(B)
def index_with_tensor_in_list(x):
    i = torch.tensor([0, 2])
    j = torch.tensor([1, 0])
    return x[:, i], x[[i, j]], x[:, [0, 1], i]


@entry(B)
def index_with_0d_tensor(x):
    return x[torch.tensor(1)], x[:, torch.tensor(2)]


@entry(B, torch.tensor(1))
def index_with_0d_tensor_input(x, i):
    # The index is data (an input): one graph selecting by it, a view as in eager.
    row, col = x[i], x[:, i]
    row.mul_(2)
    return row, col, col.stride(), x


@entry(X)
def parameter_as_dict_key(x):
    d = {W: 2.0}
    return x * d[W], W in d


@entry(X)
def module_in_region(x):
    lin = nn.Linear(3, 2)
    return lin(x)


@entry(X)
def module_constructed_no_params(x):
    act = nn.ReLU()
    drop = nn.Dropout(0.0)
    return drop(act(x - 2))


@entry(X)
def sequential_in_region(x):
    seq = nn.Sequential(nn.ReLU(), nn.Softmax(dim=0))
    return seq(x), len(seq), type(seq[1]).__name__


@entry(X)
def sequential_append_in_region(x):
    seq = nn.Sequential(nn.Sequential(nn.Tanh(), nn.Flatten(start_dim=0)))
    seq.append(nn.Softmax(dim=-1))
    return seq(x), len(seq)


@entry(X)
def module_kwargs_leaves_region(x):
    flat = nn.Flatten(start_dim=0)
    return flat(x), flat.start_dim, type(flat).__name__


@entry(X)
def no_grad_decorator(x):
    a, g1 = under_no_grad(x)
    b, g2 = under_enable_grad(x)
    return a + b, g1, g2, torch.is_grad_enabled()


@entry(X)
def allow_in_graph_kwargs(x):
    return host_fn(x, x, scale=2.0), host_fn(a=x, b=1.0)


@entry(B)
def transformer_layer(x):
    layer = nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0, batch_first=True)
    layer.eval()
    return layer(x)


@entry(B)
def mingpt_attention_pattern(x):
    Bsz, T, C = x.size()
    mask = torch.tril(torch.ones(T, T)).view(1, T, T)
    att = (x @ x.transpose(-2, -1)) * (1.0 / C ** 0.5)
    att = att.masked_fill(mask[:, :T, :T] == 0, float("-inf"))
    att = F.softmax(att, dim=-1)
    return att @ x


@entry(B)
def nanogpt_position_and_logits(x):
    b, t, c = x.size()
    pos = torch.arange(0, t, dtype=torch.long, device=x.device)
    logits = x[:, [-1], :]
    return pos, logits


@entry(X)
def split_and_chunk(x):
    return torch.split(x, 1), torch.chunk(x, 1, dim=1), x.split(2, dim=1), torch.unbind(x)


run(__file__)
