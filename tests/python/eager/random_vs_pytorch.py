"""The random ops draw PyTorch's numbers: after `torch.manual_seed(s)` the same calls give the
values PyTorch 2.15 gives on CPU (the Mersenne Twister stream, ATen's transforms and draw order),
so module initialisation, dropout masks and sampling match PyTorch's. Its stdout equals
`random_vs_pytorch.out`, recorded under real PyTorch
(`/tmp/pt/bin/python random_vs_pytorch.py > random_vs_pytorch.out`).

Printed exactly (`repr` of every value) except one path: float32 normal samples drawn 16 or more
at a time into contiguous memory, which PyTorch computes with vectorised log/sin/cos of its own;
those print to 5 decimals (the draws are the same numbers, so every later value stays exact)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def exact(name, t):
    print(name, t.dtype, list(t.shape), t.tolist())


def approx(name, t):
    print(name, t.dtype, list(t.shape), [f"{v:.5f}" for v in t.flatten().tolist()])


torch.manual_seed(0)
exact("rand", torch.rand(5))
exact("rand f64", torch.rand(3, dtype=torch.float64))
exact("rand f16", torch.rand(4, dtype=torch.float16))
exact("rand bf16", torch.rand(2, 2, dtype=torch.bfloat16))
exact("randn serial", torch.randn(5))
exact("randn f64 serial", torch.randn(3, dtype=torch.float64))
exact("randn f64 blocks", torch.randn(20, dtype=torch.float64))
approx("randn f32 blocks", torch.randn(3, 7))
exact("rand after blocks", torch.rand(3))
exact("randint", torch.randint(0, 100, (6,)))
exact("randint negative low", torch.randint(-5, 5, (2, 3)))
exact("randint 64-bit range", torch.randint(0, 2**40, (3,)))
exact("randint float", torch.randint(3, 10, (4,), dtype=torch.float32))
exact("randperm", torch.randperm(10))
exact("randperm 1", torch.randperm(1))
exact("rand_like", torch.rand_like(torch.zeros(2, 3, dtype=torch.float64)))
exact("randn_like", torch.randn_like(torch.zeros(4)))

torch.manual_seed(1)
exact("uniform_", torch.empty(6).uniform_(-2, 3))
exact("uniform_ f64", torch.empty(4, dtype=torch.float64).uniform_(0.25, 0.75))
exact("uniform_ transposed", torch.empty(3, 4).t().uniform_())
exact("normal_ f64 serial", torch.empty(5, dtype=torch.float64).normal_(1.5, 0.3))
exact("normal_ transposed", torch.empty(4, 5).t().normal_(0.0, 2.0))
approx("normal_ f32 blocks", torch.empty(17).normal_(-1.0, 0.5))
exact("normal_ f64 blocks", torch.empty(2, 9, dtype=torch.float64).normal_(2.0, 3.0))

torch.manual_seed(2)
p = torch.tensor([[0.1, 0.2, 0.3, 0.4, 0.0], [0.5, 0.1, 0.1, 0.2, 0.1]])
exact("multinomial 1", torch.multinomial(p, 1))
exact("multinomial 3 no replacement", torch.multinomial(p, 3))
exact("multinomial 6 replacement", torch.multinomial(p, 6, replacement=True))
exact("multinomial 1-d", torch.multinomial(torch.tensor([1.0, 3.0, 6.0]), 2))
exact("multinomial f64", torch.multinomial(p.double(), 4, replacement=True))
logits = torch.randn(2, 10)
v, _ = torch.topk(logits, 3)
logits[logits < v[:, [-1]]] = -float("inf")
exact("top-k sample", torch.multinomial(F.softmax(logits, dim=-1), num_samples=1))

torch.manual_seed(7)
exact("exponential_", torch.empty(5).exponential_())
exact("exponential_ f64 lambd", torch.empty(3, dtype=torch.float64).exponential_(2.5))
exact("exponential_ transposed", torch.empty(2, 3).t().exponential_())
exact("bernoulli_ float", torch.empty(6).bernoulli_(0.3))
exact("bernoulli_ int64", torch.empty(4, dtype=torch.int64).bernoulli_(0.6))
exact("bernoulli_ bool", torch.empty(4, dtype=torch.bool).bernoulli_(0.5))
exact("bernoulli", torch.bernoulli(torch.tensor([[0.2, 0.9, 0.5], [0.0, 1.0, 0.5]])))
exact("bernoulli f64", torch.bernoulli(torch.full((5,), 0.5, dtype=torch.float64)))
exact("Tensor.bernoulli", torch.full((4,), 0.7).bernoulli())
# gpt-fast's sampler: an exponential race without a multinomial call.
probs = F.softmax(torch.tensor([[1.0, 2.0, 0.5, 3.0], [0.1, 0.1, 0.1, 2.0]]), dim=-1)
q = torch.empty_like(probs).exponential_(1)
exact("argmax(probs / q)", torch.argmax(probs / q, dim=-1, keepdim=True))
for bad in (lambda: torch.empty(2).exponential_(0.0), lambda: torch.empty(2).bernoulli_(1.5),
            lambda: torch.bernoulli(torch.tensor([0.5, 1.5])),
            lambda: torch.empty(2, dtype=torch.int64).exponential_()):
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError", str(e).split("  (Could this")[0])

torch.manual_seed(3)
exact("dropout", F.dropout(torch.ones(2, 8), 0.3, training=True))
exact("dropout f64", F.dropout(torch.arange(6, dtype=torch.float64), 0.5, training=True))
exact("dropout transposed", F.dropout(torch.arange(12.0).reshape(3, 4).t(), 0.25, training=True))
drop = nn.Dropout(0.5)
exact("nn.Dropout train", drop(torch.full((7,), 2.0)))
drop.eval()
exact("nn.Dropout eval", drop(torch.full((3,), 2.0)))

# Module initialisation: kaiming/xavier uniform and normal draws in PyTorch's order.
torch.manual_seed(4)
lin = nn.Linear(4, 3)
exact("Linear.weight", lin.weight.detach())
exact("Linear.bias", lin.bias.detach())
conv = nn.Conv2d(2, 2, 2)
exact("Conv2d.weight", conv.weight.detach())
exact("Conv2d.bias", conv.bias.detach())
emb = nn.Embedding(3, 4)
exact("Embedding.weight (12 serial)", emb.weight.detach())
w = torch.empty(3, 5)
nn.init.xavier_uniform_(w)
exact("xavier_uniform_", w)
nn.init.normal_(w, std=0.02)
exact("init.normal_ (15 serial)", w)
nn.init.trunc_normal_(w, std=0.5, a=-0.4, b=0.4)
exact("trunc_normal_ (accept/reject)", w)
nn.init.trunc_normal_(w, std=0.02)
exact("trunc_normal_ (redraw)", w)
nn.init.trunc_normal_(w, mean=0.1, std=0.3, a=-0.2, b=0.4)
exact("trunc_normal_ (redraw, narrow)", w)
nn.init.kaiming_normal_(w)
exact("kaiming_normal_", w)

# Generators and states.
g = torch.Generator().manual_seed(5)
exact("generator rand", torch.rand(3, generator=g))
exact("generator randn", torch.randn(2, generator=g))
exact("generator randint", torch.randint(0, 9, (3,), generator=g))
torch.manual_seed(6)
torch.randn(1)  # leaves the second value of a Box-Muller pair cached
state = torch.get_rng_state()
print("state", state.dtype, list(state.shape), state[:16].tolist(), int(state.sum()))
first = torch.randn(3)
torch.set_rng_state(state)
print("state restores the cached normal", torch.equal(first, torch.randn(3)))
torch.manual_seed(2**40 + 7)
print("initial_seed", torch.initial_seed())
exact("64-bit seed uses its low 32 bits", torch.rand(2))
try:
    torch.set_rng_state(torch.zeros(10, dtype=torch.uint8))
except RuntimeError as e:
    print("RuntimeError", e)

# torch.normal's four overloads draw as Tensor.normal_ then scale and shift.
torch.manual_seed(8)
exact("normal(Tensor, Tensor)", torch.normal(torch.arange(3.0), torch.tensor([1.0, 2.0, 0.5])))
exact("normal(Tensor, float)", torch.normal(torch.arange(3.0), 2.0))
exact("normal(float, Tensor)", torch.normal(1.0, torch.ones(2, 2)))
exact("normal(float, float, size)", torch.normal(2.0, 3.0, (4,)))
exact("normal broadcast", torch.normal(torch.zeros(2, 1), torch.ones(3)))
exact("normal f64", torch.normal(torch.zeros(3, dtype=torch.float64), 1.0))
exact("normal generator", torch.normal(0.0, 1.0, (2,), generator=torch.Generator().manual_seed(3)))
mean = torch.zeros(3, requires_grad=True)
drawn = torch.normal(mean, 1.0)
drawn.sum().backward()
print("normal requires_grad", drawn.requires_grad, "mean grad (zero, as PyTorch)", mean.grad.tolist())
for args in [(torch.zeros(2), -1.0), (torch.zeros(2), torch.tensor([1.0, -1.0])), (torch.zeros(2), torch.ones(3))]:
    try:
        torch.normal(*args)
    except RuntimeError as e:
        print("RuntimeError", e)
try:
    torch.normal(0.0, 1.0)
except TypeError as e:
    print("TypeError", str(e).splitlines()[0])
