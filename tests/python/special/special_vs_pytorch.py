"""The `torch.special` kernel ops (issue 29) against PyTorch 2.15's goldens
(`special_goldens.json`, recorded by `_gen_special_goldens.py` under real PyTorch): outputs,
gradients where the case says so, and the error texts, eagerly and compiled with the `eager` and
`inductor` (dynasm) backends (the check itself: `_golden_check.py`)."""

from _golden_check import check
from _special_cases import all_cases, error_cases

check("special_goldens.json", all_cases, error_cases)
