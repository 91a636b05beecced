"""A world of more than one process cannot form in Rynamo's single process: init_process_group
refuses it at once with an error naming the world size (PyTorch would wait for the other ranks),
unsupported backends give PyTorch's texts, and the script goes on untouched."""
import os

import torch
import torch.distributed as dist

os.environ.update(RANK="0", WORLD_SIZE="2", MASTER_ADDR="localhost", MASTER_PORT="29540")
try:
    dist.init_process_group("gloo")
except RuntimeError as e:
    assert "world_size=2" in str(e) and "one process" in str(e), e
    print("world_size=2 refused")
else:
    raise AssertionError("a world of 2 formed")
assert not dist.is_initialized()
os.environ["WORLD_SIZE"] = "1"
for backend, text in [("nccl", "doesn't have NCCL built in"), ("mpi", "doesn't have MPI built in")]:
    try:
        dist.init_process_group(backend)
    except RuntimeError as e:
        assert text in str(e), e
        print(backend, "refused")
try:
    dist.init_process_group("gloo", init_method="udp://x")
except RuntimeError as e:
    print(e)
dist.init_process_group("gloo", world_size=1, rank=0)
print(dist.get_world_size(), torch.ones(2).sum().item())
