"""Records PyTorch's compile counts for `_dynamic_cases.py` (run with real PyTorch:
`python tests/python/dynamo/_dynamic_record.py > tests/python/dynamo/dynamic_shapes_pt.json`)."""
import json
import sys

import torch

from _dynamic_cases import SEQUENCES, MODES, count, functions


def compare(label, expected, got):
    assert torch.allclose(expected, got, equal_nan=True, atol=1e-5), label


counts = {}
for name, fn in functions().items():
    for mode in MODES:
        for seq_name, seq in SEQUENCES.items():
            counts[f"{name}/{mode}/{seq_name}"] = count(fn, name, mode, seq, lambda: "eager", compare)
json.dump({"torch": torch.__version__, "counts": counts}, sys.stdout, indent=1, sort_keys=True)
print()
