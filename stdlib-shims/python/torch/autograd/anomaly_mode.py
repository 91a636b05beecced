"""Anomaly detection (``torch/autograd/anomaly_mode.py``): nodes made while it is on remember the
forward call's stack; a failing backward prints it and names the node."""

import warnings

from torch.autograd.grad_mode import _DecoratorContextManager
import _rynamo_autograd as _engine


class detect_anomaly(_DecoratorContextManager):
    """Context manager (and decorator) that turns anomaly detection on."""

    def __init__(self, check_nan=True):
        self.prev = _engine._is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = _engine._is_anomaly_check_nan_enabled()
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and "
            "should only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self):
        _engine._set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        _engine._set_anomaly_enabled(self.prev, self.prev_check_nan)

    def clone(self):
        return self.__class__(self.check_nan)


class set_detect_anomaly:
    """Sets anomaly detection on or off; as a context manager, restores it on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev = _engine._is_anomaly_enabled()
        self.prev_check_nan = _engine._is_anomaly_check_nan_enabled()
        _engine._set_anomaly_enabled(bool(mode), bool(check_nan))

    def __enter__(self):
        pass

    def __exit__(self, *args):
        _engine._set_anomaly_enabled(self.prev, self.prev_check_nan)
