"""Custom differentiable functions (``torch/autograd/function.py``): ``Function`` with static
``forward``/``backward`` (or ``forward`` + ``setup_context``), the ``ctx`` API and
``once_differentiable``. ``Function.apply`` runs ``forward`` without recording, then hands the
outputs to the native engine, which makes one node whose backward calls ``backward`` here."""

import functools
import warnings

import torch
import _rynamo_autograd as _engine

_FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed when "
    "you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)


class FunctionCtx:
    """What ``forward`` / ``setup_context`` record for ``backward``."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, torch.Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{tensors.index(t)} is of type {type(t).__name__}"
                )
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self._materialize_grads = bool(value)


class BackwardCFunction(FunctionCtx):
    """The ``ctx`` object: ``saved_tensors`` (checked against in-place changes),
    ``needs_input_grad``."""

    def __init__(self, cls, needs_input_grad):
        self._cls = cls
        self.needs_input_grad = needs_input_grad
        self._materialize_grads = True
        self._saved = None
        self._freed = False

    def _pack(self, outputs):
        saved = []
        for t in getattr(self, "to_save", ()):
            if t is None:
                saved.append(None)
                continue
            out_nr = next((i for i, o in enumerate(outputs) if o is t), None)
            # An output is kept without its history (the node holding it is its grad_fn).
            kept = t.detach() if out_nr is not None else t
            saved.append((kept, t._version, out_nr))
        self._saved = saved
        if hasattr(self, "to_save"):
            del self.to_save

    @property
    def saved_tensors(self):
        if self._freed:
            raise RuntimeError(_FREED)
        out = []
        for item in self._saved or ():
            if item is None:
                out.append(None)
                continue
            t, version, out_nr = item
            if t._version != version:
                if out_nr is not None:
                    where = f", which is output {out_nr} of {self._cls.__name__},"
                elif t.grad_fn is not None:
                    where = f", which is output {t.output_nr} of {_short_name(t.grad_fn.name())},"
                else:
                    where = ""
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified "
                    f"by an inplace operation: [{t.type()} {list(t.shape)}]{where} is at version "
                    f"{t._version}; expected version {version} instead. Hint: enable anomaly "
                    "detection to find the operation that failed to compute its gradient, with "
                    "torch.autograd.set_detect_anomaly(True, check_nan=False)."
                )
            out.append(t)
        return tuple(out)

    saved_variables = saved_tensors

    def _release_saved(self):
        self._saved = None
        self._freed = True


def _short_name(name):
    """PyTorch's form of a node in saved-tensor errors: ``AddBackward0`` is ``Add``."""
    head, sep, tail = name.rpartition("Backward")
    return head if sep and (tail == "" or tail.isdigit()) else name


def _call_backward(ctx, grads):
    """Runs the class's backward (or vjp) for the engine and checks the gradient count."""
    cls = ctx._cls
    fn = cls.backward if cls.backward is not Function.backward else cls.vjp
    res = fn(ctx, *grads)
    if not isinstance(res, tuple):
        res = (res,)
    n = len(ctx.needs_input_grad)
    if len(res) != n:
        if len(res) > n and all(r is None for r in res[n:]):
            res = res[:n]
        else:
            raise RuntimeError(
                f"function {cls.__name__}Backward returned an incorrect number of gradients "
                f"(expected {n}, got {len(res)})"
            )
    return list(res)


def _flatten_tensors(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [o for o in out if isinstance(o, torch.Tensor)]
    return []


def _replace_tensors(out, new):
    it = iter(new)
    if isinstance(out, torch.Tensor):
        return next(it)
    if isinstance(out, (tuple, list)):
        items = [next(it) if isinstance(o, torch.Tensor) else o for o in out]
        return type(out)(items)
    return out


class FunctionMeta(type):
    """Checks at class creation that ``backward`` and ``vjp`` are not both defined."""

    def __init__(cls, name, bases, attrs):
        if "backward" in attrs and "vjp" in attrs and attrs["backward"] is not attrs["vjp"]:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                "You should only implement one of them."
            )
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Base class of custom autograd functions; call them with ``MyFunction.apply(...)``."""

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are "
            "all static, so you should invoke them on the class itself. Instantiating an "
            "autograd function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    generate_vmap_rule = False

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        new_style = cls.setup_context is not Function.setup_context
        if kwargs:
            # inspect costs ~20 ms to import (re, dis, ast, tokenize): only keyword calls pay it.
            import inspect

            sig = inspect.signature(cls.forward)
            params = list(sig.parameters)
            bound = sig.bind(*(((None,) if not new_style else ()) + args), **kwargs)
            bound.apply_defaults()
            args = tuple(bound.arguments[p] for p in params)[0 if new_style else 1:]
        grad_on = torch.is_grad_enabled()
        needs = tuple(
            grad_on and isinstance(a, torch.Tensor) and a.requires_grad for a in args
        )
        ctx = BackwardCFunction(cls, needs)
        with torch.no_grad():
            if new_style:
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args)
        outs = _flatten_tensors(output)
        ctx._pack(outs)
        if not any(needs):
            return output
        new = _engine._function_apply(
            ctx,
            cls.__name__ + "Backward",
            list(args),
            outs,
            list(getattr(ctx, "dirty_tensors", ())),
            list(getattr(ctx, "non_differentiable", ())),
        )
        return _replace_tensors(output, new)


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    pass


_TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"


class _DelayedError(Function):
    """Marks a result computed without recording: differentiating it raises."""

    @staticmethod
    def forward(ctx, t, *deps):
        return t.clone()

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(_TWICE)


def once_differentiable(fn):
    """Runs ``backward`` without recording; under ``create_graph=True`` its results raise when
    differentiated again."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with torch.no_grad():
            out = fn(ctx, *args)
        if not torch.is_grad_enabled():
            return out
        deps = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
        if not deps:
            return out
        single = not isinstance(out, tuple)
        items = (out,) if single else out
        wrapped = tuple(
            _DelayedError.apply(r, *deps)
            if isinstance(r, torch.Tensor) and r.dtype.is_floating_point else r
            for r in items
        )
        return wrapped[0] if single else wrapped

    return wrapper
