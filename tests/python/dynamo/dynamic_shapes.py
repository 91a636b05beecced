# env: RYNAMO_DYNAMIC_SHAPES=0
# (pins recompiles caused by size changes, so it runs with static-by-default shapes even when the
# suite is run with dynamic shapes forced on)
"""Dynamic shapes: compile counts of the static (`dynamic=False`), automatic (`dynamic=None`)
and `dynamic=True` modes over size sequences, pinned to PyTorch's (`dynamic_shapes_pt.json`,
recorded by `_dynamic_record.py` under real PyTorch), with every compiled result compared with
eager, on the eager backend and on the dynasm JIT (`inductor`)."""
import json
import os

import torch

from _dynamic_cases import MODES, SEQUENCES, count, functions
from _harness import done, expect

HERE = os.path.dirname(os.path.abspath(__file__))
PT = json.load(open(os.path.join(HERE, "dynamic_shapes_pt.json")))["counts"]

# Where PyTorch compiles more often than Rynamo, and why. PyTorch reasons about slice bounds
# symbolically and guards the branch it took (`x[:3]` with 2 rows takes `min(s0, 3) == s0`, so 2
# and 3 rows need separate entries; `x[1:-1]` of 2 rows is empty, which its size-oblivious rules
# specialise). Rynamo re-runs the ops' meta rules for each call's sizes
# (`dynamo/per_shape.rs`), so one entry serves these sizes. The value is Rynamo's count.
FEWER_THAN_PYTORCH = {
    "slice_head/true/b23423": 1,
    "inner_slice/true/b23423": 1,
    "inner_slice/true/with01": 3,
    "inner_slice/auto/b23423": 2,
}

failures = []


def compare(label, expected, got):
    ok = expected.shape == got.shape and torch.allclose(expected, got, equal_nan=True, atol=1e-5, rtol=1e-5)
    if not ok:
        failures.append(f"{label}: compiled {got} != eager {expected}")


seen = {}
for backend in ("eager", "inductor"):
    for name, fn in functions().items():
        for mode in MODES:
            for seq_name, seq in SEQUENCES.items():
                key = f"{name}/{mode}/{seq_name}"
                got = count(fn, name, mode, seq, lambda: backend, compare)
                want = FEWER_THAN_PYTORCH.get(key, PT[key])
                if key in FEWER_THAN_PYTORCH:
                    expect(f"{key} below PyTorch's", want < PT[key], True)
                expect(f"{backend} {key} compiles", got, want)
expect("results equal eager", failures, [])
done()
