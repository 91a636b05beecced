"""``torch.optim.swa_utils``: weight averaging (SWA and EMA) over a training run.

``AveragedModel`` keeps a deep copy of a model and folds each ``update_parameters(model)`` into it:
the running mean by default (SWA), or the given ``avg_fn``/``multi_avg_fn`` (``get_ema_*`` for an
exponential moving average). On the CPU PyTorch averages per tensor with ``get_swa_avg_fn``, and so
does this. ``SWALR`` anneals each group's learning rate to ``swa_lr``; ``update_bn`` recomputes
batch-norm statistics over a loader with the averaged weights."""

import copy
import itertools
import math

import torch
from torch.nn.modules.batchnorm import _BatchNorm
from torch.nn.modules.module import Module
from torch.optim.lr_scheduler import LRScheduler, _format_param, _warn_get_lr_called_within_step

__all__ = ["AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn", "get_swa_avg_fn",
           "get_swa_multi_avg_fn", "update_bn"]


def get_ema_multi_avg_fn(decay=0.999):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")

    @torch.no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if torch.is_floating_point(ema_param_list[0]) or torch.is_complex(ema_param_list[0]):
            torch._foreach_lerp_(ema_param_list, current_param_list, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    @torch.no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if torch.is_floating_point(averaged_param_list[0]) or torch.is_complex(averaged_param_list[0]):
            torch._foreach_lerp_(averaged_param_list, current_param_list, 1 / (num_averaged + 1))
        else:
            diffs = torch._foreach_sub(current_param_list, averaged_param_list)
            if isinstance(num_averaged, torch.Tensor):
                torch._foreach_addcdiv_(averaged_param_list, diffs, [num_averaged + 1] * len(averaged_param_list))
            else:
                torch._foreach_add_(averaged_param_list, diffs, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")

    @torch.no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    @torch.no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", torch.tensor(0, dtype=torch.long))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _tensors(self, model):
        if self.use_buffers:
            return list(itertools.chain(model.parameters(), model.buffers()))
        return list(model.parameters())

    def update_parameters(self, model):
        mine = [p.detach() for p in (self._tensors(self.module) if self.use_buffers else self.parameters())]
        theirs = [p.detach() for p in self._tensors(model)]
        if bool(self.n_averaged == 0):
            for p_averaged, p_model in zip(mine, theirs):
                p_averaged.copy_(p_model)
        elif self.multi_avg_fn is not None:
            for group in _by_dtype(mine, theirs):
                self.multi_avg_fn(group[0], group[1], self.n_averaged)
        else:
            # PyTorch's CPU path: one tensor at a time (the multi-tensor SWA kernel is for GPUs).
            avg_fn = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
            for p_averaged, p_model in zip(mine, theirs):
                p_averaged.copy_(avg_fn(p_averaged, p_model, self.n_averaged))
        if not self.use_buffers:
            # Buffers (batch-norm statistics) follow the latest model, not the average.
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach())
        self.n_averaged += 1


def _by_dtype(mine, theirs):
    """The (averaged, current) tensor lists grouped by dtype, in first-seen order."""
    groups = {}
    for a, b in zip(mine, theirs):
        groups.setdefault(a.dtype, ([], []))
        groups[a.dtype][0].append(a)
        groups[a.dtype][1].append(b)
    return list(groups.values())


@torch.no_grad()
def update_bn(loader, model, device=None):
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None  # a cumulative average over the whole loader
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]
