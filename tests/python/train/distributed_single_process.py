"""torch.distributed over one process: the errors before init_process_group and the env://
rendezvous checks, then a world of size 1 under gloo: every collective, DistributedDataParallel
(training steps equal to the bare module's, no_sync, compiled), DistributedSampler shares and
DataParallel. Stdout equals PyTorch 2.15's (recorded with /tmp/pt's python running this file)."""
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def attempt(f, *args, **kwargs):
    try:
        r = f(*args, **kwargs)
        print("returned", r)
    except Exception as e:
        print(type(e).__name__, e)


print(dist.is_available(), dist.is_initialized())
for f in (dist.get_rank, dist.get_world_size, dist.get_backend, dist.barrier):
    attempt(f)
attempt(DDP, nn.Linear(2, 2))
for k in ["RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"]:
    os.environ.pop(k, None)
# Each missing variable is reported in PyTorch's order; set one more each time.
for k, v in [("RANK", "0"), ("WORLD_SIZE", "1"), ("MASTER_ADDR", "localhost"), (None, None)]:
    attempt(init_process_group, "gloo")
    if k:
        os.environ[k] = v
print(dist.is_initialized())
attempt(init_process_group, "gloo", init_method="tcp://localhost:29534")

os.environ["MASTER_PORT"] = "29533"
init_process_group(backend="gloo")
print(dist.is_initialized(), dist.get_rank(), dist.get_world_size(), dist.get_backend())
attempt(init_process_group, backend="gloo")

t = torch.arange(6.).reshape(2, 3)
print(dist.all_reduce(t), t.tolist())
w = dist.all_reduce(t, op=dist.ReduceOp.MAX, async_op=True)
print(w.wait(), w.is_completed(), t.tolist())
dist.broadcast(t, src=0)
print(t.tolist())
outs = [torch.zeros(2, 3)]
dist.all_gather(outs, t)
print([o.tolist() for o in outs])
big = torch.zeros(2, 3)
dist.all_gather_into_tensor(big, t)
print(big.tolist())
objs = [None]
dist.all_gather_object(objs, {"a": 1})
print(objs)
ol = ["x", 3]
dist.broadcast_object_list(ol, src=0)
print(ol)
rs = torch.zeros(2, 3)
dist.reduce_scatter(rs, [t * 2])
print(rs.tolist())
rst = torch.zeros(3)
dist.reduce_scatter_tensor(rst, torch.arange(3.))
print(rst.tolist())
dist.barrier()
print("barrier")
print(dist.ReduceOp.SUM, dist.Backend.GLOO, dist.Backend("GLOO"), dist.get_rank(group=dist.group.WORLD))
g = dist.new_group([0])
print(dist.get_world_size(g), dist.get_rank(g))

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
ref = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
ref.load_state_dict(model.state_dict())
ddp = DDP(model)
print(type(ddp).__name__, ddp.module is model, list(ddp.state_dict().keys())[:2])
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
opt_ref = torch.optim.SGD(ref.parameters(), lr=0.1)
x = torch.randn(5, 4)
for step in range(3):
    for m, o in ((ddp, opt), (ref, opt_ref)):
        o.zero_grad()
        loss = m(x).pow(2).mean()
        loss.backward()
        o.step()
    same = all(torch.equal(a, b) for a, b in zip(model.parameters(), ref.parameters()))
    print(step, round(loss.item(), 6), same)
with ddp.no_sync():
    ddp(x).sum().backward()
print("no_sync ok")
print(torch.allclose(torch.compile(ddp)(x), ref(x)))
attempt(DDP, nn.ReLU())

ds = TensorDataset(torch.arange(10))
for kw in [dict(num_replicas=3, rank=1), dict(num_replicas=3, rank=2, shuffle=False),
           dict(num_replicas=4, rank=0, drop_last=True), dict(num_replicas=3, rank=0, seed=5), dict(),
           dict(num_replicas=25, rank=24)]:
    s = DistributedSampler(ds, **kw)
    first = list(s)
    s.set_epoch(1)
    print(kw, len(s), first, list(s))
dl = DataLoader(ds, batch_size=2, sampler=DistributedSampler(ds, num_replicas=2, rank=1))
print([b[0].tolist() for b in dl])
attempt(DistributedSampler, ds, num_replicas=2, rank=2)
dp = nn.DataParallel(nn.Linear(4, 2))
print(type(dp).__name__, dp(x).shape, list(dp.state_dict())[:1])
destroy_process_group()
print(dist.is_initialized())
attempt(dist.get_rank)
