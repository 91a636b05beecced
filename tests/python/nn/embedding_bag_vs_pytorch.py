"""nn.EmbeddingBag / F.embedding_bag against PyTorch 2.15's eager values: sum, mean and max bags
from 2-D input and from 1-D input with offsets (include_last_offset, empty bags), per_sample_weights,
padding_idx (skipped, not counted in the mean), from_pretrained; outputs and the gradient of the
weight, eagerly and compiled; reprs and argument errors. Goldens: `embedding_bag_pt.json`, recorded
by `PYTHONPATH=tests/python /tmp/pt/bin/python embedding_bag_vs_pytorch.py --record`."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from _eager_goldens import Goldens, data

goldens = Goldens(__file__, "embedding_bag_pt.json")
torch.manual_seed(0)
weight = data(10, 3)
flat = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 0])
offsets = torch.tensor([0, 4, 4, 7])
grid = torch.tensor([[1, 2, 4, 5], [4, 3, 2, 9], [0, 0, 7, 1]])
psw = data(10).abs()
for mode in ("sum", "mean", "max"):
    goldens.check(f"{mode} 2-D", lambda w: F.embedding_bag(grid, w, mode=mode), weight)
    goldens.check(f"{mode} offsets", lambda w: F.embedding_bag(flat, w, offsets, mode=mode), weight)
    goldens.check(f"{mode} last offset", lambda w: F.embedding_bag(flat, w, torch.tensor([0, 3, 3, 10]), mode=mode,
                                                                  include_last_offset=True), weight)
    goldens.check(f"{mode} padding_idx", lambda w: F.embedding_bag(flat, w, offsets, mode=mode, padding_idx=0), weight)
goldens.check("per_sample_weights", lambda w, p: F.embedding_bag(flat, w, offsets, mode="sum",
                                                                 per_sample_weights=p), weight, psw)
goldens.check("int32 indices", lambda w: F.embedding_bag(grid.int(), w), weight)
torch.manual_seed(4)
bag = nn.EmbeddingBag(10, 3, mode="max", padding_idx=2)
goldens.check("module", lambda inp: bag(inp, offsets), flat)
goldens.text("module repr", f"{bag} {nn.EmbeddingBag(5, 2)} {nn.EmbeddingBag(5, 2, mode='sum', max_norm=1.0)}")
pre = nn.EmbeddingBag.from_pretrained(weight.clone(), mode="sum")
goldens.text("from_pretrained", f"{pre} {pre.weight.requires_grad}")
goldens.check("from_pretrained forward", lambda: pre(grid))
for label, call in [
    ("2-D with offsets", lambda: F.embedding_bag(grid, weight, offsets)),
    ("1-D without offsets", lambda: F.embedding_bag(flat, weight)),
    ("weights in mean", lambda: F.embedding_bag(flat, weight, offsets, mode="mean", per_sample_weights=psw)),
    ("weights shape", lambda: F.embedding_bag(flat, weight, offsets, mode="sum", per_sample_weights=psw[:3])),
    ("first offset", lambda: F.embedding_bag(flat, weight, torch.tensor([1, 4]))),
    ("bad mode", lambda: F.embedding_bag(flat, weight, offsets, mode="min")),
    ("padding_idx range", lambda: F.embedding_bag(grid, weight, padding_idx=100)),
    ("float indices", lambda: F.embedding_bag(grid.float(), weight)),
    ("3-D input", lambda: F.embedding_bag(grid.reshape(1, 3, 4), weight)),
]:
    goldens.raises(label, call)
goldens.finish()
