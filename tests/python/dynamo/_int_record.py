"""Records PyTorch's compile counts for `_int_cases.py` (run with real PyTorch:
`python tests/python/dynamo/_int_record.py > tests/python/dynamo/dynamic_int_inputs_pt.json`)."""
import json
import sys

import torch

from _int_cases import MODES, SEQUENCES, all_cases, run


def compare(label, want, got):
    for w, g in zip(want, got):
        if isinstance(w, torch.Tensor):
            assert torch.allclose(w, g), label
        else:
            assert w == g, label


counts = {}
for name, fn in all_cases().items():
    for mode in MODES:
        for seq_name, seq in SEQUENCES.items():
            counts[f"{name}/{mode}/{seq_name}"] = run(fn, mode, seq, "eager", compare)
json.dump({"torch": torch.__version__, "counts": counts}, sys.stdout, indent=1, sort_keys=True)
print()
