"""``torch.amp.GradScaler``: multiplies the loss by a scale so reduced-precision gradients do not
underflow, divides the gradients back before the optimizer step, skips steps whose gradients are not
finite, and adapts the scale (backoff on overflow, growth after ``growth_interval`` clean steps).

Written from PyTorch's documented behaviour; the state (scale as a float32 0-dim tensor, growth
tracker as int32) and every error text match PyTorch 2.15's, checked by
``tests/python/train/grad_scaler.py`` against a transcript recorded under PyTorch."""

import warnings

import torch

_READY, _UNSCALED, _STEPPED = 0, 1, 2


def _no_scale(what):
    return AssertionError(f"Attempted {what} but _scale is None.  This may indicate your script did not use "
                          "scaler.scale(loss or outputs) earlier in the iteration.")


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not torch.cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          stacklevel=2)
            self._enabled = False
        if not self._enabled:
            return
        if growth_factor <= 1.0:
            raise AssertionError("The growth factor must be > 1.0.")
        if backoff_factor >= 1.0:
            raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._scale = None
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._growth_tracker = None
        self._states = {}

    def _state(self, optimizer):
        return self._states.setdefault(id(optimizer), {"stage": _READY, "found_inf": None})

    def _lazy_init(self):
        self._scale = torch.full((), self._init_scale, dtype=torch.float32)
        self._growth_tracker = torch.full((), self._init_growth_tracker, dtype=torch.int32)

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        """``outputs`` (a tensor, or nested lists/tuples of tensors) times the current scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._lazy_init()
        if isinstance(outputs, torch.Tensor):
            return outputs * self._scale

        def apply(v):
            if isinstance(v, torch.Tensor):
                return v * self._scale
            if isinstance(v, (list, tuple)):
                mapped = [apply(x) for x in v]
                return type(v)(mapped) if isinstance(v, list) else tuple(mapped)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply(outputs)

    def unscale_(self, optimizer):
        """Divides ``optimizer``'s gradients by the scale, in place, and records whether any is inf/NaN."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        if self._scale is None:
            raise _no_scale("unscale_")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = torch.zeros((), dtype=torch.float32)
        with torch.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.grad.dtype == torch.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    if not bool(torch.isfinite(p.grad).all()):
                        found_inf.fill_(1.0)
                    p.grad.mul_(inv_scale)
        state["found_inf"] = found_inf
        state["stage"] = _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step(*args, **kwargs)`` after unscaling, unless a gradient was inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        if self._scale is None:
            raise _no_scale("step")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        if state["found_inf"] is None:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None
        if not float(state["found_inf"].item()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale=None):
        """Sets the scale to ``new_scale``, or backs off (an inf/NaN was seen since the last update)
        or grows it (``growth_interval`` clean updates in a row)."""
        if not self._enabled:
            return
        if self._scale is None:
            raise _no_scale("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                if not isinstance(new_scale, torch.Tensor) or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                                         "torch.FloatTensor with requires_grad=False.")
                self._scale.copy_(new_scale)
        else:
            found = [s["found_inf"] for s in self._states.values() if s["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(float(f.item()) for f in found):
                self._scale.mul_(self._backoff_factor)
                self._growth_tracker.fill_(0)
            else:
                clean = int(self._growth_tracker.item()) + 1
                if clean == self._growth_interval:
                    self._scale.mul_(self._growth_factor)
                    clean = 0
                self._growth_tracker.fill_(clean)
        self._states = {}

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
