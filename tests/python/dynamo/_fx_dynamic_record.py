"""Records PyTorch 2.15's FX views for `_fx_dynamic_cases.py` (run with real PyTorch:
`python tests/python/dynamo/_fx_dynamic_record.py > tests/python/dynamo/fx_dynamic_views_pt.json`)."""
import json
import sys

import torch

from _fx_dynamic_cases import record_all

json.dump({"torch": torch.__version__, "cases": record_all()}, sys.stdout, indent=1, sort_keys=True)
print()
