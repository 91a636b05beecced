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


# === Whole-sequence recurrent layers ===

from torch.nn.modules import _rnn_impl  # noqa: E402
from torch.nn.utils.rnn import PackedSequence  # noqa: E402

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    """Parameters ``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}`` (and LSTM's
    ``weight_hr_l{k}``), ``_reverse`` suffixed for the second direction, registered in PyTorch's order
    so state_dicts load both ways."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]
    __jit_unused_properties__ = ["all_weights"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1

        if (not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            import warnings

            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size

        self._flat_weights_names = []
        self._all_weights = []
        kw = {"device": device, "dtype": dtype}
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                params = [Parameter(torch.empty((gate_size, layer_input_size), **kw)),
                          Parameter(torch.empty((gate_size, real_hidden_size), **kw))]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    params += [Parameter(torch.empty(gate_size, **kw)), Parameter(torch.empty(gate_size, **kw))]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    params.append(Parameter(torch.empty((proj_size, hidden_size), **kw)))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n in names]
                for name, param in zip(names, params):
                    setattr(self, name, param)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None for wn in self._flat_weights_names]

    def __setattr__(self, attr, value):
        if hasattr(self, "_flat_weights_names") and attr in self._flat_weights_names:
            # Keep `_flat_weights` in sync when a weight is reassigned (weight tying, pruning).
            idx = self._flat_weights_names.index(attr)
            self._flat_weights[idx] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self):
        """Packs the weights into one buffer for cuDNN in PyTorch; on the CPU there is nothing to pack."""
        self._init_flat_weights()

    def _apply(self, fn, recurse=True):
        ret = super()._apply(fn, recurse)
        self._init_flat_weights()
        return ret

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self):
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def check_input(self, input, batch_sizes):
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        if self.proj_size > 0:
            return (self.num_layers * num_directions, mini_batch, self.proj_size)
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def _layer_weights(self):
        """``(w_ih, w_hh, b_ih, b_hh, w_hr)`` per layer and direction."""
        out = []
        for names in self._all_weights:
            ws = [getattr(self, n) for n in names]
            w_ih, w_hh = ws[0], ws[1]
            b_ih = ws[2] if self.bias else None
            b_hh = ws[3] if self.bias else None
            w_hr = ws[-1] if self.proj_size > 0 else None
            out.append((w_ih, w_hh, b_ih, b_hh, w_hr))
        return out

    def _unpack_input(self, input, name):
        """``(input [T, B, F] or packed data, batch_sizes, sorted, unsorted, max_batch, is_batched)``."""
        if isinstance(input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            return input, batch_sizes, sorted_indices, unsorted_indices, int(batch_sizes[0]), True
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        max_batch = input.size(0) if self.batch_first else input.size(1)
        return input, None, None, None, max_batch, is_batched

    def _run(self, input, hx, cx, batch_sizes):
        if batch_sizes is None and self.batch_first:
            input = input.transpose(0, 1)
        out, h, c = _rnn_impl.run(self.mode, input, hx, cx, self._layer_weights(), self.num_layers,
                                  self.bidirectional, self.dropout, self.training, batch_sizes)
        if batch_sizes is None and self.batch_first:
            out = out.transpose(0, 1)
        return out, h, c

    def _wrap_output(self, output, batch_sizes, sorted_indices, unsorted_indices, is_batched):
        if batch_sizes is not None:
            return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        if not is_batched:
            return output.squeeze(0 if self.batch_first else 1)
        return output


class _SingleStateRNN(RNNBase):
    """``RNN`` and ``GRU``: one hidden state."""

    _name = "RNN"

    def forward(self, input, hx=None):
        input, batch_sizes, sorted_indices, unsorted_indices, max_batch, is_batched = self._unpack_input(
            input, self._name)
        num_directions = 2 if self.bidirectional else 1
        if hx is None:
            hx = torch.zeros(self.num_layers * num_directions, max_batch, self.hidden_size, dtype=input.dtype,
                             device=input.device)
        elif batch_sizes is None:
            if is_batched and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            if not is_batched:
                if hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D "
                                       "tensor")
                hx = hx.unsqueeze(1)
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden, _ = self._run(input, hx, None, batch_sizes)
        output = self._wrap_output(output, batch_sizes, sorted_indices, unsorted_indices, is_batched)
        if batch_sizes is not None:
            hidden = self.permute_hidden(hidden, unsorted_indices)
        elif not is_batched:
            hidden = hidden.squeeze(1)
        return output, hidden


class RNN(_SingleStateRNN):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ReLU)."""

    _name = "RNN"

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)


class GRU(_SingleStateRNN):
    """Gated recurrent unit; gate rows stacked ``(reset, update, new)``."""

    _name = "GRU"

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory; gate rows stacked ``(input, forget, cell, output)``; with ``proj_size`` the
    hidden state is projected by ``weight_hr``."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        input, batch_sizes, sorted_indices, unsorted_indices, max_batch, is_batched = self._unpack_input(
            input, "LSTM")
        num_directions = 2 if self.bidirectional else 1
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            h0 = torch.zeros(self.num_layers * num_directions, max_batch, real_hidden_size, dtype=input.dtype,
                             device=input.device)
            c0 = torch.zeros(self.num_layers * num_directions, max_batch, self.hidden_size, dtype=input.dtype,
                             device=input.device)
            hx = (h0, c0)
        elif batch_sizes is None:
            if is_batched:
                if hx[0].dim() != 3 or hx[1].dim() != 3:
                    raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                       f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            else:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                       f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, h, c = self._run(input, hx[0], hx[1], batch_sizes)
        output = self._wrap_output(output, batch_sizes, sorted_indices, unsorted_indices, is_batched)
        hidden = (h, c)
        if batch_sizes is not None:
            hidden = self.permute_hidden(hidden, unsorted_indices)
        elif not is_batched:
            hidden = (h.squeeze(1), c.squeeze(1))
        return output, hidden
