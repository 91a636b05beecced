"""The ranking, margin, metric-learning and likelihood losses of ``torch.nn.functional``, composed of
tensor ops (gradients from those ops' formulas) with ATen's formulas and PyTorch's argument checks.
``functional.py`` re-exports them; ``modules/loss.py`` wraps them."""

import math

import torch
import torch._autocast_policy as _autocast_policy
from torch.nn import _reduction as _Reduction


def _reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _Reduction.legacy_get_string(size_average, reduce)
    return reduction


@_autocast_policy.fp32
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _Reduction.apply((-target * (input1 - input2) + margin).clamp_min(0), reduction)


@_autocast_policy.fp32
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    zeros = torch.zeros_like(input)
    margin_part = torch.where(target != 1, (margin - input).clamp_min(0), zeros)
    self_part = torch.where(target != -1, input, zeros)
    return _Reduction.apply(margin_part + self_part, reduction)


# Composite in ATen (no AutocastCPU entry): its inner ops see autocast, so bfloat16 inputs stay bfloat16.
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * torch.nn.functional.logsigmoid(input) + (1 - target) * torch.nn.functional.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def _as_batch(input):
    """An ``(N, C)`` view of a 1-D or 2-D input (and whether it was batched), with ATen's check."""
    if input.dim() > 2 or (input.dim() > 0 and input.numel() == 0 and input.dim() != 2):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    batched = input.dim() == 2
    x = input if batched else input.reshape(1, -1)
    return x, batched


@_autocast_policy.fp32
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x, batched = _as_batch(input)
    y = target.reshape(-1).long()
    if y.numel() != x.shape[0]:
        raise RuntimeError(f"inconsistent target size, expected {x.shape[0]} but got {list(target.shape)}")
    x_y = x.gather(1, y.unsqueeze(1))
    z = torch.relu(margin - x_y + x)  # ATen counts a violation only when strictly positive
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[y].unsqueeze(1)
    z = z.scatter(1, y.unsqueeze(1), 0.0)  # the target class is not a margin violation
    loss = z.sum(1) / x.shape[1]
    if not batched:
        loss = loss.reshape(())
    return _Reduction.apply(loss, reduction)


@_autocast_policy.fp32
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Each row's target lists class indices up to the first -1; every listed class is compared with
    every class not listed, with a margin of 1."""
    reduction = _reduction(size_average, reduce, reduction)
    x, batched = _as_batch(input)
    y = target.reshape(x.shape).long()
    listed = torch.cumprod((y != -1).long(), dim=1)  # entries before the first -1
    idx = y.clamp_min(0)
    is_target = torch.zeros_like(x).scatter_add(1, idx, listed.to(x.dtype)) > 0
    x_t = x.gather(1, idx)
    term = torch.relu(1 - x_t.unsqueeze(2) + x.unsqueeze(1))  # strictly positive, as ATen
    mask = listed.to(x.dtype).unsqueeze(2) * (~is_target).to(x.dtype).unsqueeze(1)
    loss = (term * mask).sum((1, 2)) / x.shape[1]
    if not batched:
        loss = loss.reshape(())
    return _Reduction.apply(loss, reduction)


def _check_triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")


def _triplet(anchor, positive, negative, distance, margin, swap, reduction):
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = torch.minimum(d_neg, distance(positive, negative))
    return _Reduction.apply((margin + d_pos - d_neg).clamp_min(0), reduction)


@_autocast_policy.fp32
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    _check_triplet_dims(anchor, positive, negative)
    if margin <= 0:
        raise RuntimeError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")

    def distance(x1, x2):
        return torch.nn.functional.pairwise_distance(x1, x2, p, eps)

    return _triplet(anchor, positive, negative, distance, margin, swap, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    if margin <= 0:
        raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead")
    _check_triplet_dims(anchor, positive, negative)
    distance = distance_function if distance_function is not None else torch.nn.functional.pairwise_distance
    return _triplet(anchor, positive, negative, distance, margin, swap, reduction)


@_autocast_policy.fp32
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = torch.exp(input) - target * input
    else:
        loss = input - target * torch.log(input + eps)
    if full:
        stirling = target * torch.log(target) - target + 0.5 * torch.log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _Reduction.apply(loss, reduction)


# Composite in ATen (no AutocastCPU entry), as multilabel_soft_margin_loss.
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * torch.ones_like(input)
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = torch.unsqueeze(var, -1)
        elif input.size()[:-1] == var.size()[:-1] and var.size(-1) == 1:
            pass  # heteroscedastic: one variance per sample
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if torch.any(var < 0):
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    with torch.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
