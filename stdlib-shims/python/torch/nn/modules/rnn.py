"""The recurrent cells ``RNNCell``, ``LSTMCell`` and ``GRUCell``: one time step each, composed
from ``F.linear`` and pointwise ops (user code unrolls them in a Python loop, which Dynamo
traces into one graph). Gate weights are stacked along dim 0 in PyTorch's order: LSTM
``(input, forget, cell, output)``, GRU ``(reset, update, new)``."""

import math

import torch
from torch.nn import functional as F
from torch.nn import init
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter


class RNNCellBase(Module):
    """``weight_ih`` ``(chunks * hidden, input)``, ``weight_hh`` ``(chunks * hidden, hidden)``
    and the two biases, all drawn from U(-1/sqrt(hidden), 1/sqrt(hidden))."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(torch.empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(torch.empty((num_chunks * hidden_size, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(torch.empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(torch.empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = self.__dict__.get("nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, name, input, hidden, hidden_name="hidden"):
        """``(input, hidden, is_batched)`` with a batch dim added to 1-D arguments."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hidden is not None and hidden.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected {hidden_name} to be 1D or 2D, got {hidden.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
            if hidden is not None:
                hidden = hidden.unsqueeze(0)
        if hidden is None:
            hidden = torch.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)
        return input, hidden, is_batched


class RNNCell(RNNCellBase):
    """``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ReLU)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        x, h, is_batched = self._batched("RNNCell", input, hx)
        pre = F.linear(x, self.weight_ih, self.bias_ih) + F.linear(h, self.weight_hh, self.bias_hh)
        if self.nonlinearity == "tanh":
            out = torch.tanh(pre)
        elif self.nonlinearity == "relu":
            out = torch.relu(pre)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return out if is_batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """Returns ``(h', c')``: ``c' = f * c + i * g``, ``h' = o * tanh(c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        if hx is not None:
            for idx in range(2):
                if hx[idx].dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {hx[idx].dim()}D instead")
        h = None if hx is None else hx[0]
        x, h, is_batched = self._batched("LSTMCell", input, h)
        if hx is None:
            c = torch.zeros_like(h)
        else:
            c = hx[1] if is_batched else hx[1].unsqueeze(0)
        gates = F.linear(x, self.weight_ih, self.bias_ih) + F.linear(h, self.weight_hh, self.bias_hh)
        i, f, g, o = gates.chunk(4, 1)
        c_next = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h_next = torch.sigmoid(o) * torch.tanh(c_next)
        if not is_batched:
            return h_next.squeeze(0), c_next.squeeze(0)
        return h_next, c_next


class GRUCell(RNNCellBase):
    """``h' = (1 - z) * n + z * h`` with ``n = tanh(x W_in + b_in + r * (h W_hn + b_hn))``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        x, h, is_batched = self._batched("GRUCell", input, hx)
        gi = F.linear(x, self.weight_ih, self.bias_ih)
        gh = F.linear(h, self.weight_hh, self.bias_hh)
        i_r, i_z, i_n = gi.chunk(3, 1)
        h_r, h_z, h_n = gh.chunk(3, 1)
        r = torch.sigmoid(i_r + h_r)
        z = torch.sigmoid(i_z + h_z)
        n = torch.tanh(i_n + r * h_n)
        out = (1 - z) * n + z * h
        return out if is_batched else out.squeeze(0)
