"""torch.manual_seed, torch.Generator and get_rng_state/set_rng_state make shuffling,
random_split and dropout repeatable (Rynamo's streams are ChaCha8, not PyTorch's mt19937, so
the values themselves differ from PyTorch's; repeatability is the contract)."""

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


ds = TensorDataset(torch.arange(50))


def run():
    order = [i for (b,) in DataLoader(ds, batch_size=8, shuffle=True) for i in b.tolist()]
    split = [list(s.indices) for s in random_split(range(20), [5, 15])]
    drop = F.dropout(torch.ones(64), 0.5).tolist()
    layer = torch.nn.Dropout(0.3)
    layer.train()
    drop2 = layer(torch.ones(32)).tolist()
    return order, split, drop, drop2, torch.rand(3).tolist()


torch.manual_seed(123)
first = run()
torch.manual_seed(123)
expect(run() == first, "manual_seed does not repeat shuffling/random_split/dropout")
torch.manual_seed(124)
expect(run() != first, "another seed gives the same streams")

torch.manual_seed(5)
torch.rand(7)
state = torch.get_rng_state()
expect(state.dtype == torch.uint8 and state.dim() == 1, f"state {state.dtype} {state.shape}")
after = run()
torch.set_rng_state(state)
expect(run() == after, "set_rng_state does not restore the stream")
torch.set_rng_state(state)
expect(torch.equal(torch.get_rng_state(), state), "get_rng_state after set_rng_state differs")

g = torch.Generator().manual_seed(9)
gs = g.get_state()
a = torch.randperm(30, generator=g).tolist()
g.set_state(gs)
expect(torch.randperm(30, generator=g).tolist() == a, "Generator.set_state")
expect(g.initial_seed() == 9, "initial_seed")
# A private generator does not disturb the default stream.
torch.manual_seed(1)
x = torch.rand(4)
torch.manual_seed(1)
torch.randperm(10, generator=torch.Generator().manual_seed(3))
expect(torch.equal(torch.rand(4), x), "a private generator advanced the default one")
loader = DataLoader(ds, batch_size=10, shuffle=True, generator=torch.Generator().manual_seed(42))
o1 = [b.tolist() for (b,) in loader]
loader2 = DataLoader(ds, batch_size=10, shuffle=True, generator=torch.Generator().manual_seed(42))
expect([b.tolist() for (b,) in loader2] == o1, "DataLoader(generator=...) not repeatable")

try:
    torch.set_rng_state(torch.zeros(3, dtype=torch.uint8))
    failures.append("bad state accepted")
except RuntimeError:
    pass


def cnn_weights_after_training():
    # Parallel weight-gradient sums (convolution, layer norm, long reductions) add their
    # partials in a fixed order, so two runs of the same steps give bitwise the same weights.
    torch.manual_seed(5)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(8, 8, 3, stride=2),
        torch.nn.Flatten(), torch.nn.LayerNorm(8 * 7 * 7), torch.nn.Linear(8 * 7 * 7, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = torch.randn(64, 3, 16, 16), torch.randint(0, 4, (64,))
    for _ in range(3):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return [p.detach().clone() for p in model.parameters()]


runs = [cnn_weights_after_training() for _ in range(3)]
expect(all(torch.equal(a, b) for r in runs[1:] for a, b in zip(runs[0], r)),
       "training steps are not bitwise repeatable")

if failures:
    print("\n".join(failures))
    raise SystemExit(1)
print("reproducibility: seeds, generators and rng states repeat shuffling, splits, dropout and training steps")
