"""RReLU, AlphaDropout, FeatureAlphaDropout, gumbel_softmax, dropout2d (drawn from a seed: PyTorch's
values), SyncBatchNorm (one process) and convert_sync_batchnorm, LazyInstanceNorm, pdist, the
in-place activation forms, nn.init.sparse_, and the ``torch.*`` forms of nn functions with ATen's
signatures (``torch.embedding``, ``torch.batch_norm``, int-reduction losses, ``isin``, ``take``,
``gcd``/``lcm``, ``rsub``, ``range``, ``unravel_index``, ...), against PyTorch 2.15's eager values:
outputs and gradients, eagerly and compiled. Goldens: `random_layers_pt.json`, recorded by
`PYTHONPATH=tests/python /tmp/pt/bin/python random_layers_vs_pytorch.py --record`."""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

from _eager_goldens import Goldens, data

goldens = Goldens(__file__, "random_layers_pt.json")
torch.manual_seed(0)  # data() draws a permutation: start both sides from one state


def seeded(fn, seed=3):
    """``fn`` drawing from a fixed seed at each call (every backend sees the same stream)."""
    def run(*args):
        torch.manual_seed(seed)
        return fn(*args)
    return run


# --- random activations: values and gradients from the same draws ---
x = data(3, 4, 5)
goldens.check("rrelu train", seeded(lambda t: F.rrelu(t, training=True)), x)
goldens.check("rrelu train bounds", seeded(lambda t: F.rrelu(t, 0.1, 0.7, training=True)), data(40))
goldens.check("rrelu train f64", seeded(lambda t: F.rrelu(t, training=True)), data(6, 7).double())
goldens.check("rrelu eval", lambda t: F.rrelu(t), x)
goldens.check("RReLU module", seeded(lambda t: nn.RReLU(0.2, 0.4)(t)), x)
goldens.check("torch.rrelu", seeded(lambda t: torch.rrelu(t, 0.125, 0.25, True)), x)
goldens.check("alpha_dropout", seeded(lambda t: F.alpha_dropout(t, 0.3, training=True)), x)
goldens.check("alpha_dropout eval", lambda t: F.alpha_dropout(t, 0.3), x)
goldens.check("alpha_dropout p=1", lambda t: F.alpha_dropout(t, 1.0, True), x)
goldens.check("feature_alpha_dropout", seeded(lambda t: F.feature_alpha_dropout(t, 0.5, True)), data(4, 6, 3, 3))
goldens.check("AlphaDropout module", seeded(lambda t: nn.AlphaDropout(0.2)(t)), x)
goldens.check("FeatureAlphaDropout module", seeded(lambda t: nn.FeatureAlphaDropout(0.4)(t)), data(3, 5, 4))
goldens.check("dropout2d", seeded(lambda t: F.dropout2d(t, 0.5)), data(4, 6, 3, 3))
goldens.check("dropout1d", seeded(lambda t: F.dropout1d(t, 0.3)), data(4, 6, 5))
goldens.check("gumbel_softmax", seeded(lambda t: F.gumbel_softmax(t, tau=0.5)), data(4, 6))
goldens.check("gumbel_softmax hard", seeded(lambda t: F.gumbel_softmax(t, hard=True, dim=0)), data(4, 6))
goldens.check("torch.dropout", seeded(lambda t: torch.dropout(t, 0.4, True)), x)
goldens.check("torch.feature_dropout", seeded(lambda t: torch.feature_dropout(t, 0.4, True)), data(3, 4, 2))
goldens.check("torch.alpha_dropout", seeded(lambda t: torch.alpha_dropout(t, 0.4, True)), x)
for label, make in [("AlphaDropout", lambda: nn.AlphaDropout(0.2)), ("RReLU", lambda: nn.RReLU()),
                    ("RReLU inplace", lambda: nn.RReLU(0.1, 0.3, inplace=True)),
                    ("FeatureAlphaDropout", lambda: nn.FeatureAlphaDropout())]:
    goldens.text(f"{label} repr", repr(make()))
goldens.raises("alpha_dropout bad p", lambda: F.alpha_dropout(x, 1.5, True))
goldens.raises("feature_alpha_dropout 1-d", lambda: F.feature_alpha_dropout(data(5), 0.5, True))

# --- SyncBatchNorm in one process, and the conversion ---


def sync_bn_steps(t):
    """Two training steps and one eval step of a fresh SyncBatchNorm, with its running stats."""
    sbn = nn.SyncBatchNorm(3, momentum=0.2)
    a = sbn(t)
    b = sbn(t * 2)
    sbn.eval()
    return a, b, sbn(t[:2]), sbn.running_mean.clone(), sbn.running_var.clone()


goldens.check("SyncBatchNorm", sync_bn_steps, data(4, 3, 5))
net = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.Sequential(nn.ReLU(), nn.BatchNorm1d(3, affine=False)))
conv = nn.SyncBatchNorm.convert_sync_batchnorm(net)
goldens.text("convert_sync_batchnorm", f"{conv!r} {conv[1].weight is net[1].weight}")
goldens.raises("SyncBatchNorm 1-d", lambda: nn.SyncBatchNorm(3)(data(3)))
goldens.raises("SyncBatchNorm no channels", lambda: nn.SyncBatchNorm(0)(torch.zeros(2, 0, 3)))

# --- LazyInstanceNorm ---
for label, make, inp in [("LazyInstanceNorm1d", lambda: nn.LazyInstanceNorm1d(), data(2, 3, 5)),
                         ("LazyInstanceNorm2d", lambda: nn.LazyInstanceNorm2d(affine=False), data(2, 3, 4, 4)),
                         ("LazyInstanceNorm3d", lambda: nn.LazyInstanceNorm3d(momentum=0.5), data(1, 2, 3, 3, 3))]:
    m = make()
    before = repr(m)
    m(inp)
    goldens.text(f"{label} repr", f"{before} -> {m!r} {type(m).__name__} {sorted(m.state_dict())}")
    goldens.check(label, lambda t: m(t), inp)

# --- distances and in-place forms ---
goldens.check("pdist", lambda t: F.pdist(t), data(5, 3))
goldens.check("pdist p=1", lambda t: torch.pdist(t, 1), data(4, 6))
goldens.check("pdist p=inf", lambda t: F.pdist(t, float("inf")), data(4, 3))
goldens.raises("pdist 3-d", lambda: F.pdist(data(2, 2, 2)))
for name, fn in [("elu_", lambda t: F.elu_(t * 1, 0.5)), ("leaky_relu_", lambda t: F.leaky_relu_(t * 1, 0.2)),
                 ("hardtanh_", lambda t: F.hardtanh_(t * 1, -2.0, 3.0)), ("selu_", lambda t: F.selu_(t * 1)),
                 ("celu_", lambda t: F.celu_(t * 1, 2.0)), ("threshold_", lambda t: F.threshold_(t * 1, 0.5, -1.0)),
                 ("torch.celu", lambda t: torch.celu(t, 1.5)), ("torch.selu_", lambda t: torch.selu_(t * 1)),
                 ("torch.threshold", lambda t: torch.threshold(t, 1.0, 0.0)),
                 ("torch.hardshrink", lambda t: torch.hardshrink(t, 2.0))]:
    goldens.check(name, fn, x)

# --- torch.* forms with ATen's signatures ---
w = data(10, 3)
idx = torch.tensor([[1, 0, 9], [2, 2, 4]])
goldens.check("torch.embedding", lambda weight: torch.embedding(weight, idx), w)
goldens.check("torch.embedding padding_idx", lambda weight: torch.embedding(weight, idx, 2), w)
rm, rv = torch.zeros(3), torch.ones(3)
goldens.check("torch.batch_norm", lambda t, g, b: torch.batch_norm(t, g, b, rm.clone(), rv.clone(), True, 0.1, 1e-5,
                                                                   False), data(4, 3, 2), data(3), data(3))
goldens.check("torch.instance_norm", lambda t: torch.instance_norm(t, None, None, None, None, True, 0.1, 1e-5, False),
              data(2, 3, 4))
tgt = torch.softmax(data(4, 5), 1)
goldens.check("torch.kl_div sum", lambda t: torch.kl_div(t, tgt, 2), torch.log_softmax(data(4, 5), 1))
goldens.check("torch.kl_div none", lambda t: torch.kl_div(t, tgt, 0), torch.log_softmax(data(4, 5), 1))
goldens.check("torch.margin_ranking_loss", lambda a, b: torch.margin_ranking_loss(a, b, torch.tensor([1., -1, 1]),
                                                                                   0.1, 1), data(3), data(3))
bce_target = torch.rand(3, 4)
goldens.check("torch.binary_cross_entropy_with_logits",
              lambda t: torch.binary_cross_entropy_with_logits(t, bce_target, None, None, 2), data(3, 4))
goldens.check("torch.conv_transpose2d", lambda t, k: torch.conv_transpose2d(t, k, None, 2, 1, 1),
              data(1, 2, 3, 3), data(2, 3, 3, 3))
goldens.check("torch.pixel_shuffle", lambda t: torch.pixel_shuffle(t, 2), data(1, 8, 2, 3))
goldens.check("torch.cosine_similarity", lambda a, b: torch.cosine_similarity(a, b, 0), data(4, 3), data(4, 3))
goldens.check("torch.constant_pad_nd", lambda t: torch.constant_pad_nd(t, [1, 2], 0.5), data(2, 3))
goldens.check("torch.max_pool1d", lambda t: torch.max_pool1d(t, 2), data(2, 3, 6))
goldens.check("torch.prelu", lambda t, a: torch.prelu(t, a), data(2, 3, 4), torch.tensor([0.1, 0.2, 0.3]))
goldens.check("torch.rsub", lambda a, b: torch.rsub(a, b, alpha=2), data(3, 2), data(3, 2))
goldens.check("torch.rsub scalar", lambda a: torch.rsub(a, 5), data(3, 2))
goldens.check("torch.fill", lambda a: torch.fill(a, 2.5) + a, data(3, 2))

ints = torch.tensor([0, 6, -9, 12, 35, 7])
m34, m62, v3, v4, m22 = data(3, 4), data(6, 2), data(3), data(4), data(2, 2)
other = torch.tensor([0, 4, 6, -18, 14, 0])
for label, fn in [
    ("isin", lambda: torch.isin(torch.tensor([[1, 2], [3, 4]]), torch.tensor([2, 3, 9]))),
    ("isin invert", lambda: torch.isin(torch.tensor([1.5, 2.0, float("nan")]), torch.tensor([2.0, float("nan")]),
                                       invert=True)),
    ("isin scalar", lambda: torch.isin(torch.tensor([1, 2, 3]), 2)),
    ("take", lambda: torch.take(m34, torch.tensor([[0, 11], [-1, 5]]))),
    ("gcd", lambda: torch.gcd(ints, other)),
    ("lcm", lambda: torch.lcm(ints, other)),
    ("gcd broadcast", lambda: torch.gcd(ints, torch.tensor(4))),
    ("range", lambda: torch.range(1, 4, 0.5)),
    ("range int args", lambda: torch.range(0, 5)),
    ("unravel_index", lambda: torch.unravel_index(torch.tensor([4, 1, -1, 23, 24, -25]), (2, 3, 4))),
    ("split_with_sizes", lambda: torch.split_with_sizes(m62, [1, 3, 2])),
    ("ger", lambda: torch.ger(v3, v4)),
    ("zero_", lambda: torch.zero_(m22.clone())),
]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        goldens.check(label, fn)
goldens.text("is_signed", f"{torch.is_signed(ints)} {torch.is_signed(torch.tensor([1], dtype=torch.uint8))}")
goldens.text("matmul precision", f"{torch.get_float32_matmul_precision()}")
torch.set_float32_matmul_precision("high")
goldens.text("matmul precision set", f"{torch.get_float32_matmul_precision()}")
torch.set_float32_matmul_precision("highest")
for label, call in [
    ("take out of range", lambda: torch.take(data(2, 2), torch.tensor([4]))),
    ("take float index", lambda: torch.take(data(2, 2), torch.tensor([1.0]))),
    ("gcd float", lambda: torch.gcd(data(2), data(2))),
    ("split_with_sizes bad sum", lambda: torch.split_with_sizes(data(6), [1, 2])),
    ("unravel_index out of range", lambda: torch.unravel_index(torch.tensor([24]), (2, 3, 4))),
    ("kl_div bad reduction", lambda: torch.kl_div(data(2), data(2), 5)),
    ("matmul precision bad", lambda: torch.set_float32_matmul_precision("low")),
]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        goldens.raises(label, call)

# --- nn.init.sparse_ and the deprecated spellings ---
goldens.check("init.sparse_", seeded(lambda: nn.init.sparse_(torch.empty(6, 4), 0.5, std=0.1), 5))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    nn.init.eye(torch.empty(2, 3))
goldens.text("init.eye warns", str(caught[0].message) if caught else "no warning")
goldens.raises("init.sparse_ 3-d", lambda: nn.init.sparse_(torch.empty(2, 2, 2), 0.1))
goldens.finish()
