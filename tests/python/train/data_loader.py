"""torch.utils.data against PyTorch: batches, collation of every supported type, samplers,
argument errors, iterable datasets with workers, worker errors. Prints what it sees;
`data_loader.out` is this script's output under real PyTorch 2.15. Shuffled orders come from the
generator's stream (Rynamo's is not PyTorch's mt19937), so only their properties are printed:
repeatable under a seed, a permutation, different across epochs."""

import collections

import torch
from torch.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset, RandomSampler,
                              SequentialSampler, Subset, SubsetRandomSampler, TensorDataset, WeightedRandomSampler,
                              default_collate, get_worker_info, random_split)


def attempt(label, fn):
    try:
        out = fn()
        print(label, "->", out)
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


x = torch.arange(20, dtype=torch.float32).reshape(10, 2)
y = torch.arange(10)
ds = TensorDataset(x, y)

for nw in (0, 2):
    for bs, drop in ((4, False), (4, True), (10, False), (1, False)):
        dl = DataLoader(ds, batch_size=bs, drop_last=drop, num_workers=nw)
        batches = list(dl)
        print(f"workers={nw} bs={bs} drop_last={drop}: len={len(dl)}",
              [(type(b).__name__, b[0].shape, b[1].tolist()) for b in batches][:3])
    dl = DataLoader(ds, batch_size=None, num_workers=nw)
    print("no auto-batching:", len(dl), [(s[0].tolist(), int(s[1])) for s in list(dl)[:2]])
    dl = DataLoader(ds, batch_sampler=[[9, 0], [3], [5, 6, 7]], num_workers=nw)
    print("batch_sampler:", [b[1].tolist() for b in dl])

Pair = collections.namedtuple("Pair", "a b")
print("collate tensors:", default_collate([torch.tensor([1, 2]), torch.tensor([3, 4])]))
print("collate floats:", default_collate([1.5, 2.5]))
print("collate ints:", default_collate([1, 2]))
print("collate bools:", default_collate([True, False]))
print("collate str:", default_collate(["a", "b"]))
print("collate dict:", default_collate([{"x": 1, "y": "p"}, {"x": 2, "y": "q"}]))
print("collate tuple:", default_collate([(1, 2.0), (3, 4.0)]))
print("collate list:", default_collate([[1, 2], [3, 4]]))
print("collate namedtuple:", default_collate([Pair(1, torch.zeros(2)), Pair(2, torch.ones(2))]))
print("collate ordered:", type(default_collate([collections.OrderedDict(k=1)])).__name__)
attempt("collate ragged", lambda: default_collate([[1, 2], [3]]))
attempt("collate object", lambda: default_collate([object(), object()]))

attempt("sampler+shuffle", lambda: DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True))
attempt("batch_sampler+bs", lambda: DataLoader(ds, batch_sampler=[[0]], batch_size=2))
attempt("None+drop_last", lambda: DataLoader(ds, batch_size=None, drop_last=True))
attempt("persistent no workers", lambda: DataLoader(ds, persistent_workers=True))
attempt("prefetch no workers", lambda: DataLoader(ds, prefetch_factor=2))
attempt("negative workers", lambda: DataLoader(ds, num_workers=-1))
attempt("set after init", lambda: setattr(DataLoader(ds), "batch_size", 3))
attempt("bad batch_size", lambda: BatchSampler(SequentialSampler(ds), 0, False))
attempt("bad num_samples", lambda: RandomSampler(ds, num_samples=0))
attempt("weights 2d", lambda: WeightedRandomSampler([[1.0]], 2))
attempt("tensor size mismatch", lambda: TensorDataset(torch.zeros(2), torch.zeros(3)))
print("get_worker_info in main:", get_worker_info())

print("concat:", [ConcatDataset([ds, Subset(ds, [0, 1])])[i][1].item() for i in (0, 9, 10, 11, -1)])
print("concat len:", len(ConcatDataset([ds, ds])), len(ds + ds))
parts = random_split(ds, [3, 7], generator=torch.Generator().manual_seed(0))
print("random_split sizes:", [len(p) for p in parts], sorted(int(p[i][1]) for p in parts for i in range(len(p))))
parts = random_split(range(11), [0.5, 0.5])
print("random_split fractions:", [len(p) for p in parts])
attempt("random_split bad sum", lambda: random_split(range(5), [2, 2]))


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))

    def __len__(self):
        return self.n


for nw in (0, 1, 3):
    dl = DataLoader(Stream(11), batch_size=3, num_workers=nw)  # 3 workers on 2 CPUs: PyTorch warns on stderr
    print(f"iterable workers={nw}:", [b.tolist() for b in dl], "len", len(dl))
print("iterable drop_last:", [b.tolist() for b in DataLoader(Stream(7), batch_size=3, drop_last=True)])
print("iterable no batching:", [int(b) for b in DataLoader(Stream(4), batch_size=None, num_workers=2)])
attempt("iterable+shuffle", lambda: DataLoader(Stream(3), shuffle=True))


class Flaky(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 4:
            raise ValueError(f"bad sample {i}")
        return i


for nw in (0, 2):
    attempt(f"error in dataset (workers={nw})", lambda: [b.tolist() for b in DataLoader(Flaky(), batch_size=2, num_workers=nw)])

def init(worker_id):
    if worker_id == 0:
        raise RuntimeError(f"init failed in {worker_id} of {get_worker_info().num_workers}")


attempt("worker_init_fn error", lambda: list(DataLoader(ds, batch_size=2, num_workers=2, worker_init_fn=init)))

# Persistent workers: the same iterator object each epoch, full epochs each time.
dl = DataLoader(ds, batch_size=3, num_workers=2, persistent_workers=True)
first = iter(dl)
epoch1 = [b[1].tolist() for b in first]
second = iter(dl)
print("persistent:", first is second, epoch1 == [b[1].tolist() for b in second])

# Shuffling: repeatable under a seeded generator, a permutation, and new each epoch.
def order(loader):
    return [i for b in loader for i in b[1].tolist()]


g1 = DataLoader(ds, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(7))
g2 = DataLoader(ds, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(7), num_workers=2)
e1, e2 = order(g1), order(g1)
print("shuffle repeatable:", e1 == order(g2), "permutation:", sorted(e1) == list(range(10)), "epochs differ:", e1 != e2)
torch.manual_seed(3)
a = order(DataLoader(ds, batch_size=4, shuffle=True))
torch.manual_seed(3)
print("manual_seed repeatable:", a == order(DataLoader(ds, batch_size=4, shuffle=True)))
ws = list(WeightedRandomSampler([0.0, 1.0, 0.0, 2.0], 50, generator=torch.Generator().manual_seed(1)))
print("weighted support:", sorted(set(ws)), len(ws))
wn = list(WeightedRandomSampler([1.0, 1.0, 0.0, 2.0], 3, replacement=False))
print("weighted no replacement:", sorted(wn))
sr = list(SubsetRandomSampler([5, 6, 7]))
print("subset random:", sorted(sr))
print("random with replacement:", len(list(RandomSampler(ds, replacement=True, num_samples=40))))
