"""`cov`, `corrcoef`, `quantile`/`nanquantile`, `nanmedian`, issue 29's in-place forms and
`Tensor.untyped_storage()` against PyTorch 2.15's goldens (`stats_goldens.json`, recorded by
`_gen_stats_goldens.py` under real PyTorch): outputs, gradients where the case says so, the error
texts and the storage facts, eagerly and compiled with the `eager` and `inductor` (dynasm)
backends (the check itself: `_golden_check.py`)."""

from _golden_check import check
from _stats_cases import all_cases, error_cases, storage_facts

check("stats_goldens.json", all_cases, error_cases, [("untyped_storage facts", storage_facts(), "storage")])
