"""torch.distributions transforms, TransformedDistribution, LogNormal, HalfNormal and Gumbel against
PyTorch 2.15's eager values: forward/inverse values, log|det J| and their gradients, shapes and
event dims, reprs, samples from a seed (PyTorch's draws), log_prob/cdf/icdf/entropy/mean/variance,
and the errors. Goldens: `transforms_pt.json`, recorded by
`PYTHONPATH=tests/python /tmp/pt/bin/python tests/python/distributions/transforms_vs_pytorch.py --record`."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nn"))

import torch  # noqa: E402
import torch.distributions as D  # noqa: E402
import torch.distributions.transforms as T  # noqa: E402

from _eager_goldens import Goldens, data  # noqa: E402

goldens = Goldens(__file__, "transforms_pt.json")
torch.manual_seed(0)  # data() draws a permutation: start both sides from one state

x = data(3, 4) / 10
pos = data(3, 4).abs() / 10 + 0.1
unit = torch.sigmoid(data(3, 4) / 10)
vec = data(2, 3) / 10
cases = [
    ("exp", T.ExpTransform(), x),
    ("power", T.PowerTransform(torch.tensor(2.5)), pos),
    ("sigmoid", T.SigmoidTransform(), x),
    ("softplus", T.SoftplusTransform(), x),
    ("tanh", T.TanhTransform(), x),
    ("affine", T.AffineTransform(1.5, -2.0), x),
    ("affine tensor", T.AffineTransform(torch.tensor([1.0, 2.0, 3.0, 4.0]), torch.tensor([0.5, -1.0, 2.0, 3.0])), x),
    ("affine event_dim", T.AffineTransform(0.5, torch.tensor([1.0, 2.0, -3.0, 0.5]), event_dim=1), x),
    ("stick breaking", T.StickBreakingTransform(), vec),
    ("compose", T.ComposeTransform([T.AffineTransform(0.0, 2.0), T.ExpTransform()]), x),
    ("independent", T.IndependentTransform(T.ExpTransform(), 1), x),
    ("reshape", T.ReshapeTransform((4,), (2, 2)), x),
    ("inverse of exp", T.ExpTransform().inv, pos),
]
for label, t, inp in cases:
    goldens.check(f"{label} forward", lambda v: t(v), inp)
    goldens.check(f"{label} inverse", lambda v: t.inv(t(v)), inp)
    goldens.check(f"{label} log_abs_det_jacobian", lambda v: t.log_abs_det_jacobian(v, t(v)), inp)
    goldens.text(f"{label} shapes", f"{t.domain.event_dim} {t.codomain.event_dim} {t.bijective} "
                                    f"{tuple(t.forward_shape(inp.shape))} {tuple(t.inverse_shape(t(inp).shape))}")
goldens.check("softmax forward", lambda v: T.SoftmaxTransform()(v), vec)
goldens.check("abs forward", lambda v: T.AbsTransform()(v), x)
goldens.text("reprs", " | ".join(repr(t) for _, t, _ in cases))
goldens.text("equality", f"{T.ExpTransform() == T.ExpTransform()} {T.AffineTransform(1, 2) == T.AffineTransform(1, 2)} "
                         f"{T.AffineTransform(1, 2) == T.AffineTransform(1, 3)} {T.ExpTransform().inv == T.ExpTransform().inv}"
                         f" {T.SigmoidTransform() == T.TanhTransform()}")
cached = T.SigmoidTransform(cache_size=1)
y = cached(torch.tensor([40.0]))
goldens.text("cache returns x", f"{cached.inv(y).item()} {T.SigmoidTransform().inv(y).item():.4f}")
goldens.raises("reshape numel", lambda: T.ReshapeTransform((4,), (3,)))
goldens.raises("cache_size", lambda: T.ExpTransform(cache_size=2))

# --- distributions built on transforms ---
loc, scale = data(3) / 10, data(3).abs() / 10 + 0.5
dists = [
    ("LogNormal", lambda a, b: D.LogNormal(a, b), (loc, scale), pos[0, :3]),
    ("HalfNormal", lambda a, b: D.HalfNormal(b), (loc, scale), pos[0, :3]),
    ("Gumbel", lambda a, b: D.Gumbel(a, b), (loc, scale), x[0, :3]),
    ("Transformed sigmoid normal", lambda a, b: D.TransformedDistribution(D.Normal(a, b), [T.SigmoidTransform()]),
     (loc, scale), unit[0, :3]),
    ("Transformed affine-exp", lambda a, b: D.TransformedDistribution(
        D.Normal(a, b), [T.AffineTransform(1.0, 2.0), T.ExpTransform()]), (loc, scale), pos[0, :3] + 1),
]
for label, make, params, value in dists:
    goldens.check(f"{label} log_prob", lambda a, b: make(a, b).log_prob(value), *params)
    goldens.check(f"{label} rsample", lambda a, b: (torch.manual_seed(11), make(a, b).rsample((2,)))[1], *params)
    goldens.check(f"{label} sample", lambda a, b: (torch.manual_seed(12), make(a, b).sample((4,)))[1], *params)
    d = make(*params)
    goldens.text(f"{label} shapes", f"{tuple(d.batch_shape)} {tuple(d.event_shape)} {d.has_rsample} {d.support}")
    goldens.check(f"{label} expand", lambda a, b: make(a, b).expand((2, 3)).log_prob(value), *params)
for label, make, params, value in dists[:3]:
    goldens.check(f"{label} moments", lambda a, b: (make(a, b).mean, make(a, b).variance, make(a, b).entropy()),
                  *params)
    goldens.check(f"{label} cdf", lambda a, b: make(a, b).cdf(value), *params)
goldens.check("LogNormal icdf", lambda a, b: D.LogNormal(a, b).icdf(torch.tensor([0.1, 0.5, 0.9])), loc, scale)
goldens.check("HalfNormal icdf", lambda b: D.HalfNormal(b).icdf(torch.tensor([0.1, 0.5, 0.9])), scale)
goldens.check("LogNormal mode", lambda a, b: D.LogNormal(a, b).mode, loc, scale)
goldens.check("LogNormal scalar", lambda: (torch.manual_seed(3), D.LogNormal(0.0, 1.0).sample((5,)))[1])
# validate_args=True: compiling turned the default off (PyTorch's TorchPatcher does the same).
goldens.raises("LogNormal bad scale", lambda: D.LogNormal(0.0, -1.0, validate_args=True))
goldens.raises("LogNormal negative value",
               lambda: D.LogNormal(0.0, 1.0, validate_args=True).log_prob(torch.tensor(-1.0)))
goldens.raises("Transformed bad transforms", lambda: D.TransformedDistribution(D.Normal(0.0, 1.0), "exp"))
goldens.finish()
