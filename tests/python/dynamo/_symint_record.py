"""Records PyTorch's compile counts for `_symint_cases.py` (run with real PyTorch:
`python tests/python/dynamo/_symint_record.py > tests/python/dynamo/dynamic_symint_pt.json`)."""
import json
import sys

import torch

from _symint_cases import MODES, SEQUENCES, functions, run


def compare(label, want, got):
    assert len(want) == len(got), label
    for w, g in zip(want, got):
        assert w.shape == g.shape and torch.allclose(w, g, atol=1e-5), label


counts = {}
for name, fn in functions().items():
    for mode in MODES:
        for seq_name, seq in SEQUENCES.items():
            counts[f"{name}/{mode}/{seq_name}"] = run(fn, mode, seq, "eager", compare)
json.dump({"torch": torch.__version__, "counts": counts}, sys.stdout, indent=1, sort_keys=True)
print()
