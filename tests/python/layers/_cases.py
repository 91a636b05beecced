"""The layer cases of `layers_vs_pytorch.py`, shared with the golden generator (`_gen_goldens.py`, run
under real PyTorch): each case builds a module and its inputs deterministically (sines of a float64
ramp rounded to float32, no RNG), so both libraries start from the same values.

A case is `(name, make_module, input_specs, train)`: `input_specs` are shapes (float inputs, which get
gradients) or callables returning the input; `train` says whether the module runs in training mode."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence


def det(shape, phase, scale=1.0, dtype=torch.float32):
    n = 1
    for s in shape:
        n *= s
    i = torch.arange(n, dtype=torch.float64)
    return (torch.sin(i * 0.37 + phase) * scale).to(dtype).reshape(shape)


def init_params(module):
    """Deterministic parameters, in registration order."""
    with torch.no_grad():
        for k, (_, p) in enumerate(module.named_parameters()):
            p.copy_(det(p.shape, 0.5 + 0.1 * k, 0.5))
    return module


class Fn(nn.Module):
    """A functional call as a module (so every case compiles the same way)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def packed():
    x = det((4, 3, 5), 0.2)
    return pack_padded_sequence(x, torch.tensor([2, 4, 3]), enforce_sorted=False)


def rnn_cases():
    return [
        ("lstm_2layer_bidir", lambda: nn.LSTM(5, 6, num_layers=2, bidirectional=True), [(4, 3, 5)], False),
        ("lstm_hx", lambda: Wrap(nn.LSTM(3, 4, num_layers=2), _lstm_with_state), [(4, 2, 3)], False),
        ("lstm_proj_batch_first", lambda: nn.LSTM(5, 6, proj_size=3, batch_first=True), [(2, 4, 5)], False),
        ("gru_bidir_batch_first", lambda: nn.GRU(5, 4, num_layers=2, batch_first=True, bidirectional=True),
         [(3, 4, 5)], False),
        ("gru_unbatched", lambda: nn.GRU(5, 4), [(4, 5)], False),
        ("rnn_relu_nobias", lambda: nn.RNN(5, 4, num_layers=2, nonlinearity="relu", bias=False), [(3, 2, 5)],
         False),
        ("rnn_tanh", lambda: nn.RNN(5, 4), [(3, 2, 5)], False),
        ("lstm_packed_bidir", lambda: Wrap(nn.LSTM(5, 4, bidirectional=True), _packed_lstm), [], False),
        ("gru_packed", lambda: Wrap(nn.GRU(5, 3, num_layers=2), _packed_gru), [], False),
    ]


class Wrap(nn.Module):
    """A layer called with extra arguments or post-processing (its parameters are this module's)."""

    def __init__(self, inner, fn):
        super().__init__()
        self.inner = inner
        self.fn = fn

    def forward(self, *args):
        return self.fn(self.inner, *args)


def _lstm_with_state(lstm, x):
    h0, c0 = det((2, 2, 4), 1.3, 0.3), det((2, 2, 4), 1.7, 0.3)
    out, (h, c) = lstm(x, (h0, c0))
    return out, h, c


def _packed_lstm(lstm):
    out, (h, c) = lstm(packed())
    return out.data, h, c


def _packed_gru(gru):
    out, h = gru(packed())
    padded, lengths = nn.utils.rnn.pad_packed_sequence(out)
    return padded, h, lengths


def conv_cases():
    return [
        ("conv_transpose1d", lambda: nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
         [(2, 4, 5)], False),
        ("conv_transpose2d", lambda: nn.ConvTranspose2d(4, 3, 2, stride=2), [(2, 4, 3, 4)], False),
        ("conv_transpose2d_dil", lambda: nn.ConvTranspose2d(2, 4, (3, 2), stride=(1, 3), padding=(2, 0),
                                                            dilation=(2, 1), bias=False), [(1, 2, 4, 3)], False),
        ("conv_transpose2d_output_size", lambda: Wrap(nn.ConvTranspose2d(3, 2, 3, stride=2), _convt_output_size), [(1, 3, 3, 3)], False),
        ("conv_transpose3d", lambda: nn.ConvTranspose3d(2, 4, 3, stride=2, padding=1, output_padding=(1, 0, 1),
                                                        groups=2), [(1, 2, 2, 3, 2)], False),
        ("conv3d", lambda: nn.Conv3d(2, 4, (2, 3, 2), stride=(2, 1, 1), padding=(1, 1, 0), dilation=(1, 2, 1)),
         [(2, 2, 4, 5, 4)], False),
        ("conv3d_groups_same", lambda: nn.Conv3d(4, 4, 3, padding="same", groups=2, padding_mode="reflect"),
         [(1, 4, 3, 4, 3)], False),
        ("conv3d_unbatched", lambda: nn.Conv3d(2, 3, 2), [(2, 3, 3, 3)], False),
    ]


def _convt_output_size(convt, x):
    return convt(x, output_size=[8, 7])


def norm_cases():
    return [
        ("instance_norm1d", lambda: nn.InstanceNorm1d(3), [(2, 3, 6)], True),
        ("instance_norm2d_affine_stats", lambda: nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
         [(2, 3, 4, 5)], True),
        ("instance_norm2d_eval_stats", lambda: _eval_stats(), [(2, 3, 4, 5)], False),
        ("instance_norm3d_unbatched", lambda: nn.InstanceNorm3d(2, affine=True), [(2, 3, 2, 3)], True),
        ("local_response_norm", lambda: nn.LocalResponseNorm(3, alpha=0.5, beta=0.75, k=1.5), [(2, 5, 3, 2)],
         False),
        ("local_response_norm_3d", lambda: nn.LocalResponseNorm(2), [(2, 4, 5)], False),
        ("batch_norm3d", lambda: nn.BatchNorm3d(3), [(2, 3, 2, 2, 3)], True),
    ]


def _eval_stats():
    m = nn.InstanceNorm2d(3, track_running_stats=True)
    with torch.no_grad():
        m.running_mean.copy_(torch.tensor([0.1, -0.2, 0.3]))
        m.running_var.copy_(torch.tensor([0.5, 1.5, 2.0]))
    return m


def pad_cases():
    out = []
    for kind in ("Reflection", "Replication", "Circular", "Constant", "Zero"):
        for nd, pads, shape in ((1, (2, 1), (2, 3, 5)), (2, (1, 2, 0, 2), (1, 2, 4, 3)),
                                (3, (1, 0, 2, 1, 1, 1), (1, 2, 3, 3, 4))):
            cls = getattr(nn, f"{kind}Pad{nd}d")
            args = (pads, 0.75) if kind == "Constant" else (pads,)
            out.append((f"{kind.lower()}_pad{nd}d", (lambda c=cls, a=args: c(*a)), [shape], False))
    return out


def shuffle_cases():
    return [
        ("pixel_shuffle", lambda: nn.PixelShuffle(2), [(2, 8, 2, 3)], False),
        ("pixel_unshuffle", lambda: nn.PixelUnshuffle(2), [(1, 2, 4, 6)], False),
        ("channel_shuffle", lambda: nn.ChannelShuffle(3), [(2, 6, 2, 2)], False),
        ("unfold", lambda: nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [(2, 3, 5, 6)], False),
        ("fold", lambda: nn.Fold((5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [(2, 18, 12)],
         False),
        ("bilinear", lambda: nn.Bilinear(3, 4, 5), [(2, 3), (2, 4)], False),
    ]


_SAMPLES2 = torch.tensor([[[0.1, 0.7], [0.5, 0.2], [0.9, 0.99]], [[0.0, 0.3], [0.4, 0.6], [0.25, 0.75]]])
_SAMPLES3 = torch.tensor([[[0.15, 0.65, 0.35], [0.8, 0.05, 0.5]]])


def pool_cases():
    return [
        ("adaptive_max_pool1d", lambda: nn.AdaptiveMaxPool1d(3, return_indices=True), [(2, 3, 7)], False),
        ("adaptive_max_pool2d", lambda: nn.AdaptiveMaxPool2d((3, 4), return_indices=True), [(2, 2, 7, 9)], False),
        ("adaptive_max_pool2d_none", lambda: nn.AdaptiveMaxPool2d((None, 2)), [(2, 5, 6)], False),
        ("adaptive_max_pool3d", lambda: nn.AdaptiveMaxPool3d((2, 3, 2), return_indices=True), [(1, 2, 5, 4, 3)],
         False),
        ("adaptive_avg_pool3d", lambda: nn.AdaptiveAvgPool3d((2, 3, 1)), [(1, 2, 5, 4, 3)], False),
        ("fractional_max_pool2d", lambda: nn.FractionalMaxPool2d(3, output_size=(4, 5), return_indices=True,
                                                                  _random_samples=_SAMPLES2), [(2, 3, 9, 11)],
         False),
        ("fractional_max_pool2d_ratio", lambda: nn.FractionalMaxPool2d(2, output_ratio=0.5,
                                                                        _random_samples=_SAMPLES2[:1]),
         [(1, 3, 8, 7)], False),
        ("fractional_max_pool3d", lambda: nn.FractionalMaxPool3d((2, 3, 2), output_size=(3, 2, 4),
                                                                  return_indices=True, _random_samples=_SAMPLES3),
         [(1, 2, 5, 6, 7)], False),
    ]


def _interp(**kw):
    return lambda: Fn(lambda x: F.interpolate(x, **kw))


def interp_cases():
    return [
        ("bicubic_up", _interp(scale_factor=2.5, mode="bicubic"), [(1, 2, 4, 5)], False),
        ("bicubic_align", _interp(size=(7, 3), mode="bicubic", align_corners=True), [(1, 2, 4, 5)], False),
        ("trilinear", _interp(scale_factor=(1.5, 2, 0.5), mode="trilinear"), [(1, 2, 3, 4, 6)], False),
        ("trilinear_align", _interp(size=(4, 3, 5), mode="trilinear", align_corners=True), [(1, 1, 3, 4, 6)],
         False),
        ("area_down", _interp(size=(3, 2), mode="area"), [(2, 2, 7, 5)], False),
        ("area_1d", _interp(scale_factor=0.5, mode="area"), [(2, 3, 9)], False),
        ("nearest_exact", _interp(scale_factor=1.7, mode="nearest-exact"), [(1, 2, 5, 4)], False),
        ("nearest_exact_3d", _interp(size=(2, 5, 3), mode="nearest-exact"), [(1, 1, 3, 4, 6)], False),
        ("nearest_3d", _interp(size=(5, 2, 7), mode="nearest"), [(1, 1, 3, 4, 6)], False),
        ("bilinear_aa_down", _interp(size=(3, 4), mode="bilinear", antialias=True), [(1, 2, 9, 11)], False),
        ("bilinear_aa_up", _interp(scale_factor=1.5, mode="bilinear", antialias=True), [(1, 2, 4, 5)], False),
        ("bicubic_aa_down", _interp(scale_factor=0.4, mode="bicubic", antialias=True), [(1, 2, 10, 12)], False),
        ("bicubic_aa_align", _interp(size=(4, 5), mode="bicubic", antialias=True, align_corners=True),
         [(1, 1, 9, 11)], False),
        ("lanczos_down", _interp(size=(4, 3), mode="lanczos", antialias=True), [(1, 2, 9, 8)], False),
        ("upsample_module_bicubic", lambda: nn.Upsample(scale_factor=2, mode="bicubic"), [(1, 1, 3, 3)], False),
    ]


def all_cases():
    return rnn_cases() + conv_cases() + norm_cases() + pad_cases() + shuffle_cases() + pool_cases() + interp_cases()


def build(case):
    """The module (deterministic parameters, in the case's mode) and its inputs."""
    name, make, specs, train = case
    module = init_params(make())
    module.train(train)
    inputs = []
    for k, spec in enumerate(specs):
        if callable(spec):
            inputs.append(spec())
        else:
            inputs.append(det(spec, 0.3 + 0.7 * k).requires_grad_())
    return module, inputs


def outputs_of(result):
    """Tensors of a result (tuples, PackedSequences) in order."""
    if isinstance(result, torch.Tensor):
        return [result]
    out = []
    for r in result:
        out.extend(outputs_of(r))
    return out


def loss_of(tensors):
    """A fixed weighting of every float output, so each output element gets its own gradient."""
    total = None
    for k, t in enumerate(tensors):
        if not t.is_floating_point() or not t.requires_grad:
            continue
        term = (t * det(t.shape, 2.0 + k)).sum()
        total = term if total is None else total + term
    return total


def grads_of(module, inputs):
    """Gradients of the float inputs, then of the parameters (registration order); None where absent."""
    gs = [x.grad for x in inputs if isinstance(x, torch.Tensor) and x.is_floating_point()]
    return gs + [p.grad for p in module.parameters()]


def buffers_of(module):
    return [b for b in module.buffers() if b.is_floating_point()]


def zero_grads(module, inputs):
    for x in inputs:
        if isinstance(x, torch.Tensor):
            x.grad = None
    for p in module.parameters():
        p.grad = None

