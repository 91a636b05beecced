"""Golden cases recorded from PyTorch's eager mode, checked here eagerly and compiled.

A test makes `Goldens(__file__, "name_pt.json")` and declares cases with `check(label, fn, *inputs)`
(values of `fn(*inputs)` and the gradients of their sum w.r.t. each float input) and `text(label,
value)` (a string: an error message, a repr). Under PyTorch, `python test.py --record` writes the JSON
from eager runs; under Rynamo the same file compares eager and each compiled backend with the goldens
(float values within float32 reordering: rtol 1e-5, atol 1e-6) and `finish()` raises listing every
difference. Only eager is recorded: PyTorch's eager mode is the reference, and its inductor can differ
from it (avg_pool with ceil_mode and padding, PyTorch 2.15)."""
import json
import os
import sys

import torch


def data(*shape):
    """Distinct float32 values computed the same way on both sides (a seeded permutation, an exact
    scaling and one rounded step): PyTorch's vectorised normal sampler differs from the scalar one
    in the last bits. The irregular 1/1000 part keeps sums of them off the kinks of max, clamp and
    abs, where a last-bit difference would flip a gradient."""
    n = 1
    for s in shape:
        n *= s
    perm = torch.randperm(n).float()
    return ((perm - n / 2) / 16 + perm * 0.001).reshape(shape)


def _run(fn, inputs):
    xs = [x.detach().clone().requires_grad_(x.is_floating_point()) for x in inputs]
    out = fn(*xs)
    outs = out if isinstance(out, tuple) else (out,)
    floats = [o for o in outs if o.is_floating_point()]
    if floats and any(x.requires_grad for x in xs):
        sum(o.sum() for o in floats).backward()
    return list(outs) + [x.grad for x in xs if x.grad is not None]


def _encode(t):
    return {"shape": list(t.shape), "dtype": str(t.dtype), "values": t.flatten().tolist()}


class Goldens:
    def __init__(self, test_file, json_name, backends=("none", "inductor", "eager")):
        self.path = os.path.join(os.path.dirname(os.path.abspath(test_file)), json_name)
        self.recording = "--record" in sys.argv
        self.golden = {} if self.recording else json.load(open(self.path))
        self.backends = ("none",) if self.recording else backends
        self.failures = []
        self.runs = 0

    def check(self, label, fn, *inputs):
        for backend in self.backends:
            torch._dynamo.reset()
            f = fn if backend == "none" else torch.compile(fn, backend=backend)
            try:
                got, error = _run(f, inputs), None
            except Exception as e:
                got, error = [], f"{type(e).__name__}: {str(e).splitlines()[0]}"
            if self.recording:
                self.golden[label] = {"error": error, "tensors": [_encode(t) for t in got]}
                continue
            self.runs += 1
            want = self.golden[label]
            if error != want["error"]:
                self.failures.append(f"{label} [{backend}]: raised {error}, PyTorch {want['error']}")
            else:
                self._compare(f"{label} [{backend}]", got, want["tensors"])

    def _compare(self, tag, got, want):
        if len(got) != len(want):
            self.failures.append(f"{tag}: {len(got)} tensors, PyTorch has {len(want)}")
            return
        for i, (t, w) in enumerate(zip(got, want)):
            if list(t.shape) != w["shape"] or str(t.dtype) != w["dtype"]:
                self.failures.append(f"{tag} tensor {i}: {t.dtype}{list(t.shape)}, PyTorch {w['dtype']}{w['shape']}")
                continue
            ref = torch.tensor(w["values"], dtype=t.dtype).reshape(w["shape"])
            if t.is_floating_point():
                ok = torch.allclose(t, ref, rtol=1e-5, atol=1e-6, equal_nan=True)
            else:
                ok = torch.equal(t, ref)
            if not ok:
                diff = (t.double() - ref.double()).abs().max().item()
                self.failures.append(f"{tag} tensor {i}: max abs diff {diff:.3g}")

    def text(self, label, value):
        if self.recording:
            self.golden[label] = value
        elif value != self.golden[label]:
            self.failures.append(f"{label}: {value!r}, PyTorch {self.golden[label]!r}")

    def raises(self, label, call):
        """The error `call()` raises (type and first line), or "no error", as a text case."""
        try:
            call()
            value = "no error"
        except Exception as e:
            value = f"{type(e).__name__}: {str(e).splitlines()[0]}"
        self.text(label, value)

    def finish(self):
        if self.recording:
            with open(self.path, "w") as f:
                json.dump(self.golden, f)
            print("recorded", len(self.golden), "entries")
            return
        n = len(self.backends) - 1
        print(f"{self.runs} runs (eager and {n} compiled backends) checked against PyTorch 2.15's eager values")
        if self.failures:
            raise AssertionError("\n".join(self.failures))
