"""One measurement of the training-library workloads, run by `scripts/bench_training` under
Rynamo and under PyTorch alike (the same file): DataLoader batches/s on a TensorDataset (batch 64,
shuffle=True, num_workers 0 and 2), one Adam step over 10M parameters (foreach=False and fused=True), torch.save / torch.load
of a 100 MB state_dict. Prints one JSON object of timings."""

import json
import os
import sys
import tempfile
import time
from collections import OrderedDict

import torch
from torch.utils.data import DataLoader, TensorDataset


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


out = {}
which = sys.argv[1].split(",") if len(sys.argv) > 1 else ["loader", "adam", "save"]

if "loader" in which:
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(16384, 128), torch.randint(0, 10, (16384,)))
    for nw in (0, 2):
        dl = DataLoader(ds, batch_size=64, shuffle=True, num_workers=nw)
        n = len(dl)
        t = best_of(lambda: sum(1 for _ in dl), 3)
        out[f"loader_w{nw}_batches_per_s"] = n / t

if "adam" in which:
    # The single-tensor path (foreach=False), the fused one (fused=True: one multi-tensor op per
    # group on both sides) and the default (PyTorch on CPU: single-tensor; Rynamo: the op).
    for mode, kwargs in (("single", dict(foreach=False)), ("fused", dict(fused=True)), ("default", {})):
        params = [torch.zeros(2_500_000, requires_grad=True) for _ in range(4)]
        for i, p in enumerate(params):
            p.grad = torch.full_like(p, 0.001 * (i + 1))
        opt = torch.optim.Adam(params, lr=1e-3, **kwargs)
        opt.step()
        out[f"adam_10M_{mode}_step_ms"] = best_of(opt.step, 5) * 1e3
        del opt, params

if "save" in which:
    sd = OrderedDict((f"layer{i}.weight", torch.full((1024, 1024), float(i))) for i in range(25))
    nbytes = sum(t.numel() * t.element_size() for t in sd.values())
    path = os.path.join(tempfile.mkdtemp(), "state.pt")
    t_save = best_of(lambda: torch.save(sd, path), 3)
    t_load = best_of(lambda: torch.load(path), 3)
    out["save_MB_per_s"] = nbytes / 1e6 / t_save
    out["load_MB_per_s"] = nbytes / 1e6 / t_load
    os.remove(path)

print(json.dumps(out))
