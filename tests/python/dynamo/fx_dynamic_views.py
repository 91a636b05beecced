# env: RYNAMO_DYNAMIC_SHAPES=0
# (the automatic and mark_dynamic cases pin a static first compile, so the script runs with
# static-by-default shapes even when the suite forces dynamic shapes on)
"""The FX view a user backend receives under dynamic shapes, against PyTorch 2.15's
(`fx_dynamic_views_pt.json`, recorded by `_fx_dynamic_record.py`): `print_readable()` text with
`Sym(s0)` placeholders before the input that introduces them, symbolic annotations of computed
values (`f32[s0*s1, s2]`, `Sym(s0*s1)`), inputs only whose sizes are read left out; the
`example_inputs` (`torch.SymInt` in the size places); what the backend's callable is called with
at each call (the concrete sizes); and compiled results equal to eager at 3 sizes. The texts are
compared after renaming size symbols in order of first appearance, and nothing else."""
import json
import os

from _harness import done, expect
from _fx_dynamic_cases import normalise_symbols, record_all

HERE = os.path.dirname(os.path.abspath(__file__))
PT = json.load(open(os.path.join(HERE, "fx_dynamic_views_pt.json")))["cases"]

got = record_all()
expect("cases", sorted(got), sorted(PT))
for name, want in PT.items():
    mine = got[name]
    expect(f"{name} graph count", len(mine["graphs"]), len(want["graphs"]))
    for k, (a, b) in enumerate(zip(mine["graphs"], want["graphs"])):
        expect(f"{name} graph {k}", normalise_symbols(a), normalise_symbols(b))
    expect(f"{name} example_inputs", mine["examples"], want["examples"])
    expect(f"{name} compiled callable arguments", mine["calls"], want["calls"])
    expect(f"{name} equal to eager", mine["equal"], [True] * len(want["equal"]))
done()
