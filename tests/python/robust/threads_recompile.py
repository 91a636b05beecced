"""Issue 30: one compiled function called from 8 threads at once, with shapes that force
recompiles racing each other (each thread walks its own order of 6 shapes, and dtypes): every
result equals eager's, no deadlock (joins are bounded), no crash. Past the recompile limit
(8) the frame runs eagerly, as in PyTorch; the first 8 compiles race."""
import threading

import torch
import torch._dynamo


def f(x, y):
    z = torch.sin(x) * y + x.sum(dim=-1, keepdim=True)
    if x.shape[0] > 3:
        z = z.relu()
    return z * 2.0


torch._dynamo.reset()
compiled = torch.compile(f)
SHAPES = [(2, 3), (5, 3), (4, 7), (1, 1), (6, 2), (3, 8)]
ROUNDS = 4
errors = []
done = []
start = threading.Barrier(8)


def worker(k):
    try:
        start.wait()
        for r in range(ROUNDS):
            for i in range(len(SHAPES)):
                shape = SHAPES[(i * (k + 1) + r) % len(SHAPES)]
                dtype = torch.float64 if (k + r) % 3 == 0 else torch.float32
                g = torch.Generator().manual_seed(k * 1000 + r * 10 + i)
                x = torch.randn(*shape, generator=g, dtype=dtype)
                y = torch.randn(shape[-1], generator=g, dtype=dtype)
                got, want = compiled(x, y), f(x, y)
                if got.dtype != want.dtype or got.shape != want.shape or not torch.allclose(got, want):
                    errors.append((k, r, shape, dtype))
        done.append(k)
    except BaseException as e:  # noqa: BLE001 -- reported below
        errors.append((k, repr(e)))


threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join(timeout=600)
assert not any(t.is_alive() for t in threads), "deadlock: a thread did not finish"
assert not errors, errors[:5]
assert sorted(done) == list(range(8)), done
print("ok")
