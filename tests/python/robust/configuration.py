"""Issue 30: configuration mistakes get PyTorch 2.15's errors (texts recorded from PyTorch):
an invalid `mode=` or `options=` to `torch.compile`, and an unknown `TORCH_LOGS` component, which
stops `import torch` with a ValueError listing the valid names (exit status 1)."""
import subprocess
import sys

import torch


def f(x):
    return x + 1


def error_of(**kw):
    try:
        torch.compile(f, **kw)(torch.ones(2))
    except RuntimeError as e:
        return str(e)
    raise AssertionError(f"torch.compile accepted {kw}")


MODES = "default, lite, reduce-overhead, max-autotune-no-cudagraphs, max-autotune"
assert error_of(mode="bogus") == f"Unrecognized mode=bogus, should be one of: {MODES}"
msg = error_of(options={"bogus_opt": 1})
assert msg.startswith("Unexpected optimization option bogus_opt, known options are ["), msg
assert "'max_autotune'" in msg and "'epilogue_fusion'" in msg, msg
assert error_of(options={"max_autotune": "yes"}) == (
    "Unexpected type of attr max_autotune, got str should be bool"
)
assert error_of(mode="default", options={}) == (
    "Either mode or options can be specified, but both can't be specified at the same time."
)
# Valid ones compile and run.
for kw in ({"mode": "max-autotune"}, {"options": {"max_autotune": True}}, {}):
    assert torch.equal(torch.compile(f, **kw)(torch.ones(2)), torch.full((2,), 2.0)), kw

r = subprocess.run(
    [sys.executable, "-c", "import torch"],
    env={"TORCH_LOGS": "bogus,+dynamo"},
    capture_output=True,
    text=True,
)
assert r.returncode == 1, (r.returncode, r.stderr)
assert "ValueError: \nInvalid log settings: bogus,+dynamo, must be a comma separated list of" in r.stderr, r.stderr
assert "Valid settings:\nall, annotation, aot," in r.stderr and "recompiles" in r.stderr, r.stderr
# Valid settings import fine.
r = subprocess.run(
    [sys.executable, "-c", "import torch; print('imported')"],
    env={"TORCH_LOGS": "+dynamo,recompiles,-inductor"},
    capture_output=True,
    text=True,
)
assert r.returncode == 0 and r.stdout == "imported\n", (r.returncode, r.stdout, r.stderr)
print("ok")
