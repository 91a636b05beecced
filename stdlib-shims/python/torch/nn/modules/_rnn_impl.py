"""The recurrences behind ``nn.RNN``, ``nn.LSTM`` and ``nn.GRU`` (PyTorch's ``_VF.rnn_tanh``,
``_VF.lstm``, ``_VF.gru``), written as Python loops over the cells' registry ops, so gradients come
from the ops' formulas and ``torch.compile`` traces them as the unrolled cells.

As in ATen, the input projection of a whole layer is one ``linear`` over every time step; each step
then adds the hidden projection and applies the gates. Layer ``l``'s output feeds layer ``l + 1``
(with dropout between layers in training), and a bidirectional layer concatenates the forward and
reverse outputs along the feature dim. Final states are ordered ``layer * num_directions + direction``.

Packed sequences (``batch_sizes`` given): time step ``t`` holds the first ``batch_sizes[t]`` sequences
(sorted by decreasing length). The forward direction shrinks its running state as sequences end and
keeps the ended rows as their final state; the reverse direction starts from the last step and grows
its state with the initial state of each sequence as it begins."""

import torch
import torch._autocast_policy as _autocast_policy
import torch._autocast_state as _autocast_state
from torch.nn import functional as F


def _lstm_cell(gi, h, c, w_hh, b_hh, w_hr):
    gates = F.linear(h, w_hh, b_hh) + gi
    i, f, g, o = gates.chunk(4, 1)
    i = torch.sigmoid(i)
    f = torch.sigmoid(f)
    g = torch.tanh(g)
    o = torch.sigmoid(o)
    c_next = f * c + i * g
    h_next = o * torch.tanh(c_next)
    if w_hr is not None:
        h_next = F.linear(h_next, w_hr)
    return h_next, c_next


def _gru_cell(gi, h, w_hh, b_hh):
    gh = F.linear(h, w_hh, b_hh)
    i_r, i_z, i_n = gi.chunk(3, 1)
    h_r, h_z, h_n = gh.chunk(3, 1)
    r = torch.sigmoid(h_r + i_r)
    z = torch.sigmoid(h_z + i_z)
    n = torch.tanh(i_n + h_n * r)
    return (h - n) * z + n


def _step(mode, gi, h, c, w):
    """One cell step on precomputed input gates ``gi``: ``(h', c')`` (``c'`` is None but for LSTM)."""
    _, w_hh, _, b_hh, w_hr = w
    if mode == "LSTM":
        return _lstm_cell(gi, h, c, w_hh, b_hh, w_hr)
    if mode == "GRU":
        return _gru_cell(gi, h, w_hh, b_hh), None
    pre = F.linear(h, w_hh, b_hh) + gi
    return (torch.tanh(pre) if mode == "RNN_TANH" else torch.relu(pre)), None


def _direction(mode, x, h, c, w, reverse):
    """One direction of one layer over a padded ``x`` ``[T, B, F]``: ``(output [T, B, H], h_n, c_n)``."""
    w_ih, _, b_ih, _, _ = w
    steps = F.linear(x, w_ih, b_ih).unbind(0)
    outs = []
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    for t in order:
        h, c = _step(mode, steps[t], h, c, w)
        outs.append(h)
    if reverse:
        outs.reverse()
    return torch.stack(outs, 0), h, c


def _direction_packed(mode, x, h0, c0, w, reverse, sizes):
    """One direction over packed ``x`` ``[sum(sizes), F]`` with the Python list ``sizes``."""
    w_ih, _, b_ih, _, _ = w
    gi = F.linear(x, w_ih, b_ih)
    offsets = [0]
    for s in sizes:
        offsets.append(offsets[-1] + s)
    outs = [None] * len(sizes)
    if not reverse:
        h, c = h0, c0
        ended_h, ended_c = [], []
        for t, bs in enumerate(sizes):
            if bs < h.shape[0]:
                # The sequences past `bs` ended at step t - 1: their state is final.
                ended_h.append(h[bs:])
                h = h[:bs]
                if c is not None:
                    ended_c.append(c[bs:])
                    c = c[:bs]
            h, c = _step(mode, gi[offsets[t]:offsets[t + 1]], h, c, w)
            outs[t] = h
        ended_h.append(h)
        h_n = torch.cat(ended_h[::-1], 0)
        c_n = None
        if c is not None:
            ended_c.append(c)
            c_n = torch.cat(ended_c[::-1], 0)
    else:
        last = sizes[-1]
        h = h0[:last]
        c = None if c0 is None else c0[:last]
        for t in range(len(sizes) - 1, -1, -1):
            bs = sizes[t]
            if bs > h.shape[0]:
                # Sequences that are this long start here, from their initial state.
                h = torch.cat([h, h0[h.shape[0]:bs]], 0)
                if c is not None:
                    c = torch.cat([c, c0[c.shape[0]:bs]], 0)
            h, c = _step(mode, gi[offsets[t]:offsets[t + 1]], h, c, w)
            outs[t] = h
        h_n, c_n = h, c
    return torch.cat(outs, 0), h_n, c_n


def run(mode, input, hx, cx, weights, num_layers, bidirectional, dropout, training, batch_sizes=None):
    """The whole stack. ``input`` is ``[T, B, F]`` (or packed data ``[N, F]`` with ``batch_sizes``);
    ``hx``/``cx`` are ``[layers * dirs, B, H]``; ``weights[layer * dirs + dir]`` is
    ``(w_ih, w_hh, b_ih, b_hh, w_hr)`` with None for absent ones. Returns ``(output, h_n, c_n)``."""
    if (mode == "LSTM" and batch_sizes is None and all(w[4] is None for w in weights)
            and _autocast_state.is_autocast_enabled("cpu")):
        # PyTorch runs a padded LSTM without projections through oneDNN (`mkldnn_rnn_layer`), a
        # lower-precision autocast op: inputs, states and weights are cast and every output,
        # states included, comes back in the autocast dtype. Other RNNs run cell by cell, each
        # op under its own policy, as here.
        flat = [t for w in weights for t in w]
        return _lstm_lower_precision(input, hx, cx, flat, num_layers, bidirectional, dropout, training)
    return _run(mode, input, hx, cx, weights, num_layers, bidirectional, dropout, training, batch_sizes)


@_autocast_policy.lower_precision_fp
def _lstm_lower_precision(input, hx, cx, flat, num_layers, bidirectional, dropout, training):
    weights = [tuple(flat[i:i + 5]) for i in range(0, len(flat), 5)]
    return _run("LSTM", input, hx, cx, weights, num_layers, bidirectional, dropout, training, None)


def _run(mode, input, hx, cx, weights, num_layers, bidirectional, dropout, training, batch_sizes):
    dirs = 2 if bidirectional else 1
    sizes = None if batch_sizes is None else [int(s) for s in batch_sizes.tolist()]
    h_out, c_out = [], []
    x = input
    for layer in range(num_layers):
        if layer > 0 and dropout != 0 and training:
            x = F.dropout(x, dropout, True)
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            c0 = None if cx is None else cx[k]
            if sizes is None:
                out, h, c = _direction(mode, x, hx[k], c0, weights[k], d == 1)
            else:
                out, h, c = _direction_packed(mode, x, hx[k], c0, weights[k], d == 1, sizes)
            outs.append(out)
            h_out.append(h)
            c_out.append(c)
        x = outs[0] if dirs == 1 else torch.cat(outs, -1)
    h_n = torch.stack(h_out, 0)
    c_n = None if cx is None else torch.stack(c_out, 0)
    return x, h_n, c_n
