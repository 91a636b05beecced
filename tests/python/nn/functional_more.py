# The less common functional compositions and utilities on deterministic inputs: the golden is
# PyTorch's output.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import utils

x = torch.tensor([[-2.0, -0.5, 0.0, 0.5, 2.0, 1.5], [1.0, -1.0, 2.6, -2.6, 0.25, -0.75]])
img = (torch.arange(32.0).reshape(2, 2, 2, 4) - 15) / 7

print("== activations")
print(F.hardtanh(x, -1.0, 1.5), F.relu6(x * 3)[0])
y = x.clone()
print(F.hardtanh(y, inplace=True) is y, y[1])
print(F.threshold(x, 0.25, -9.0))
print(F.hardsigmoid(x), F.hardswish(x))
print(F.selu(x), F.celu(x, 0.5))
print(F.logsigmoid(x), F.softsign(x))
print(F.tanhshrink(x), F.softshrink(x, 0.6), F.hardshrink(x, 0.6))
print(F.glu(x), F.glu(x, dim=0))
print(F.prelu(img, torch.tensor([0.1, 0.3])))
print(F.softmin(x, dim=1))
print(nn.Softmax2d()(img)[0, :, 0])

print("== normalization")
print(F.instance_norm(img))
print(F.rms_norm(x, (6,)), nn.RMSNorm(6, eps=1e-3)(x).detach())
print(F.layer_norm(img, (2, 4))[1, 1])
print(F.group_norm(img, 1, torch.tensor([2.0, 0.5]), torch.tensor([0.0, 1.0])))
print(F.batch_norm(img, torch.zeros(2), torch.ones(2), training=False))

print("== pooling 1d")
seq = torch.tensor([[[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]]])
print(F.max_pool1d(seq, 2), F.max_pool1d(seq, 3, 2, 1, return_indices=True))
print(F.avg_pool1d(seq, 3, 2), F.adaptive_avg_pool1d(seq, 3), nn.AdaptiveAvgPool1d(2)(seq))

print("== losses")
p = torch.tensor([0.9, 0.2, 0.6, 0.01])
t = torch.tensor([1.0, 0.0, 0.0, 1.0])
print(F.binary_cross_entropy(p, t), F.binary_cross_entropy(p, t, reduction="none"))
print(F.binary_cross_entropy_with_logits(x[0, :4], t), nn.BCEWithLogitsLoss(pos_weight=torch.tensor(2.0))(x[0, :4], t))
print(F.smooth_l1_loss(x[0], x[1]), F.huber_loss(x[0], x[1], delta=0.5), F.l1_loss(x[0], x[1], reduction="sum"))
logp = F.log_softmax(x, 1)
q = F.softmax(x.flip(1), 1)
print(F.kl_div(logp, q, reduction="batchmean"), F.kl_div(logp, q.log(), reduction="sum", log_target=True))
print(F.soft_margin_loss(x[0], torch.sign(x[1])), F.cosine_embedding_loss(img[0, 0], img[1, 0], torch.tensor([1, -1])))
print(nn.NLLLoss(reduction="sum")(logp, torch.tensor([5, 2])))

print("== distances and vision")
print(F.cosine_similarity(x[0], x[1], dim=0), F.pairwise_distance(x[:1], x[1:]))
print(F.normalize(x, p=1.0, dim=0), F.normalize(x, p=float("inf")))
ps = F.pixel_shuffle(torch.arange(16.0).reshape(1, 4, 2, 2), 2)
print(ps, F.pixel_unshuffle(ps, 2).shape)
print(nn.Bilinear(2, 3, 1).weight.shape)

print("== utils")
lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.arange(6.0).reshape(2, 3))
    lin.bias.copy_(torch.tensor([-1.0, 1.0]))
with torch.no_grad():
    v = utils.parameters_to_vector(lin.parameters())
print(v)
utils.vector_to_parameters(v * 2, lin.parameters())
print(lin.weight, lin.bias)
lin.weight.grad = torch.full((2, 3), 3.0)
lin.bias.grad = torch.tensor([4.0, 0.0])
print(utils.clip_grad_norm_(lin.parameters(), 1.0), lin.weight.grad[0], lin.bias.grad)
utils.clip_grad_value_(lin.parameters(), 0.1)
print(lin.weight.grad[0], lin.bias.grad)
print(F.instance_norm(img, torch.zeros(2), torch.ones(2), use_input_stats=False)[0, 1, 0])

print("== interpolate")
small = torch.tensor([[[[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]]])
print(F.interpolate(small, scale_factor=2))
print(F.interpolate(small, size=(3, 5)))
print(F.interpolate(small, size=(3, 4), mode="bilinear"))
print(F.interpolate(small, scale_factor=(1.5, 2.5), mode="bilinear", align_corners=True))
print(F.interpolate(small, scale_factor=1.7, mode="bilinear", recompute_scale_factor=True))
print(F.interpolate(small[0], size=7, mode="linear"), F.interpolate(small[0], scale_factor=0.5))
print(nn.Upsample(scale_factor=2, mode="bilinear")(small).shape, nn.Upsample(size=(4, 4)), nn.Upsample(scale_factor=(2, 3)))
