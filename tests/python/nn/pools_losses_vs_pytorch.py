"""3-D max/average pools (indices, padding, dilation, ceil_mode, count_include_pad, divisor_override),
LP pools, max unpooling, the Upsampling modules, distance modules and the ranking, margin, metric and
likelihood losses: values and input gradients against PyTorch 2.15, eagerly and compiled with the
default and eager backends. Goldens: PyTorch's eager values in `pools_losses_pt.json`, recorded by
`PYTHONPATH=tests/python /tmp/pt/bin/python pools_losses_vs_pytorch.py --record` (see `_eager_goldens.py`)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from _eager_goldens import Goldens, data


goldens = Goldens(__file__, "pools_losses_pt.json")
check = goldens.check


torch.manual_seed(0)
v = data(2, 2, 5, 4, 6)
v[0, 0, 1, 2, 3] = v[0, 0, 1, 2, 4]  # a tie: the first maximum (row-major) wins
check("max_pool3d", lambda x: F.max_pool3d(x, 2), v)
check("max_pool3d pad dil ceil", lambda x: F.max_pool3d(x, (3, 2, 2), (2, 1, 2), (1, 0, 1), (1, 2, 1), True), v)
check("max_pool3d indices", lambda x: F.max_pool3d(x, 3, 2, 1, return_indices=True), v)
check("max_pool3d unbatched", lambda x: nn.MaxPool3d(2, 1)(x), v[0])
check("avg_pool3d", lambda x: F.avg_pool3d(x, 2), v)
check("avg_pool3d pad ceil", lambda x: nn.AvgPool3d(3, 2, 1, ceil_mode=True)(x), v)
check("avg_pool3d no pad count", lambda x: F.avg_pool3d(x, 3, 2, 1, count_include_pad=False), v)
check("avg_pool3d divisor", lambda x: F.avg_pool3d(x, (2, 3, 2), divisor_override=5), v)
check("lp_pool1d", lambda x: nn.LPPool1d(2, 3, 2)(x), v[0, 0, 0].abs() + 0.1)
check("lp_pool2d", lambda x: nn.LPPool2d(3, (2, 3))(x), v[0, 0].abs() + 0.1)
check("lp_pool3d", lambda x: nn.LPPool3d(2, 2)(x), v.abs() + 0.1)

img = data(1, 2, 6, 6)
pooled, idx = F.max_pool2d(img, 2, return_indices=True)
check("max_unpool2d", lambda p: nn.MaxUnpool2d(2)(p, idx), pooled)
check("max_unpool2d output_size", lambda p: F.max_unpool2d(p, idx, 2, output_size=(7, 7)), pooled)
seq = data(2, 3, 8)
p1, i1 = F.max_pool1d(seq, 2, return_indices=True)
check("max_unpool1d", lambda p: nn.MaxUnpool1d(2)(p, i1), p1)
p3, i3 = F.max_pool3d(v, 2, return_indices=True)
check("max_unpool3d", lambda p: nn.MaxUnpool3d(2)(p, i3, output_size=v.shape), p3)
check("upsampling nearest", lambda x: nn.UpsamplingNearest2d(scale_factor=2)(x), img)
check("upsampling bilinear", lambda x: nn.UpsamplingBilinear2d(size=(9, 8))(x), img)
a, b = data(4, 5), data(4, 5)
check("PairwiseDistance", lambda x, y: nn.PairwiseDistance(p=1.5, keepdim=True)(x, y), a, b)
check("CosineSimilarity", lambda x, y: nn.CosineSimilarity(dim=0)(x, y), a, b)

x1, x2 = data(6), data(6)
sign = torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
check("MarginRankingLoss", lambda p, q: nn.MarginRankingLoss(0.3)(p, q, sign), x1, x2)
check("HingeEmbeddingLoss", lambda p: nn.HingeEmbeddingLoss(0.8, reduction="none")(p, sign), x1)
check("SoftMarginLoss", lambda p: nn.SoftMarginLoss()(p, sign), x1)
check("CosineEmbeddingLoss", lambda p, q: nn.CosineEmbeddingLoss(0.1)(p, q, sign[:4]), a, b)
scores = data(4, 5)
labels = torch.tensor([1, 0, 4, 2])
multi = (torch.rand(4, 5) > 0.5).float()
check("MultiLabelSoftMarginLoss", lambda s: nn.MultiLabelSoftMarginLoss(torch.arange(1.0, 6.0))(s, multi), scores)
check("MultiMarginLoss p1", lambda s: nn.MultiMarginLoss()(s, labels), scores)
check("MultiMarginLoss p2 weight", lambda s: nn.MultiMarginLoss(2, 0.7, torch.arange(1.0, 6.0),
                                                                reduction="none")(s, labels), scores)
check("MultiMarginLoss 1-D", lambda s: F.multi_margin_loss(s, torch.tensor(3)), scores[0])
listed = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 4, 0, -1], [2, -1, 0, 0, 0], [-1, 1, 1, 1, 1]])
check("MultiLabelMarginLoss", lambda s: nn.MultiLabelMarginLoss(reduction="none")(s, listed), scores)
anc, pos, neg = data(3, 4), data(3, 4), data(3, 4)
check("TripletMarginLoss", lambda p, q, r: nn.TripletMarginLoss(0.5, p=1.0)(p, q, r), anc, pos, neg)
check("TripletMarginLoss swap", lambda p, q, r: nn.TripletMarginLoss(swap=True, reduction="sum")(p, q, r),
      anc, pos, neg)
check("TripletMarginWithDistanceLoss",
      lambda p, q, r: nn.TripletMarginWithDistanceLoss(
          distance_function=lambda u, w: 1 - F.cosine_similarity(u, w), margin=0.4)(p, q, r), anc, pos, neg)
rates = data(5)
counts = torch.tensor([0.0, 1.0, 2.0, 5.0, 3.0])
check("PoissonNLLLoss", lambda r: nn.PoissonNLLLoss()(r, counts), rates)
check("PoissonNLLLoss full", lambda r: nn.PoissonNLLLoss(log_input=False, full=True, reduction="none")(r, counts),
      rates.abs() + 0.5)
mu, target, var = data(4, 3), data(4, 3), data(4, 3).abs() + 0.125
check("GaussianNLLLoss", lambda m, s: nn.GaussianNLLLoss()(m, target, s), mu, var)
check("GaussianNLLLoss full per-sample var", lambda m, s: nn.GaussianNLLLoss(full=True, reduction="sum")(m, target, s),
      mu, var[:, :1])
check("GaussianNLLLoss var without last dim", lambda m, s: F.gaussian_nll_loss(m, target, s), mu, var[:, 0])

for label, call in [
    ("max_pool3d 3-D input", lambda: F.max_pool3d(torch.randn(2, 3, 4), 2)),
    ("margin ranking dims", lambda: F.margin_ranking_loss(torch.randn(3), torch.randn(3, 1), torch.ones(3))),
    ("multi margin p", lambda: nn.MultiMarginLoss(p=3)),
    ("triplet dims", lambda: F.triplet_margin_loss(anc, pos[0], neg)),
    ("triplet margin", lambda: nn.TripletMarginLoss(margin=0.0)),
    ("gaussian var size", lambda: F.gaussian_nll_loss(mu, target, torch.ones(2))),
    ("gaussian negative var", lambda: F.gaussian_nll_loss(mu, target, -var)),
    ("unpool index", lambda: F.max_unpool2d(pooled, idx.index_fill(3, torch.tensor([1]), 99), 2)),
]:
    goldens.raises(label, call)
goldens.text("reprs", " ".join(repr(m) for m in (nn.LPPool2d(2, 3), nn.MaxPool3d(2), nn.AvgPool3d(2),
                                                  nn.MaxUnpool2d(2))))
goldens.finish()
