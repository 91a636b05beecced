"""Regression tests for the differential-fuzzer bugs of issue 27 (requirement 6) and the
compound bitwise assignments of issue 23 (requirement 6): each case once gave a result different
from eager (or raised where eager does not). Compiled results, identities and mutations must be
eager's; graph counts are PyTorch's (checked with PyTorch 2.15)."""
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

from _harness import check, done, expect


# --- torch.split / chunk of one piece is a 1-tuple (was a bare tensor, shape [4]) -------------
def split_one(x):
    return list(torch.split(x, 1))


def chunk_one(x):
    return torch.chunk(x, 1), x.split(4, dim=1), torch.unbind(x)


check(split_one, torch.ones(1, 4))
check(chunk_one, torch.arange(4.0).reshape(1, 4))
for backend in ["eager", "inductor"]:
    torch._dynamo.reset()
    pieces = torch.compile(lambda x: list(torch.split(x, 1)), backend=backend)(torch.ones(1, 4))
    expect(f"split one piece ({backend})", [tuple(p.shape) for p in pieces], [(1, 4)])


# --- *_like of an otherwise unused intermediate on the default backend (raised "%v1 used
# before it was computed") ----------------------------------------------------------------------
for fn in [lambda x: torch.ones_like(x + 1), lambda x: torch.zeros_like(x * 2), lambda x: torch.full_like(x - 1, 3.0)]:
    torch._dynamo.reset()
    x = torch.ones(2, 3)
    got = torch.compile(fn)(x)
    expect("creation op of an intermediate", got.tolist(), fn(x).tolist())


# --- the mean of an empty tensor is nan on the default backend (was 0) -------------------------
def masked_mean(x):
    return x[x > 5].mean()


def empty_reductions(x):
    return x.mean(), x.sum(), x.mean(0)


for backend in ["eager", "inductor"]:
    torch._dynamo.reset()
    r = torch.compile(masked_mean, backend=backend)(torch.arange(4.0))
    expect(f"mean of an empty selection ({backend})", bool(r.isnan()), True)
    torch._dynamo.reset()
    m, s, m0 = torch.compile(empty_reductions, backend=backend)(torch.ones(0, 3))
    expect(f"empty reductions ({backend})", (bool(m.isnan()), s.item(), m0.isnan().tolist()), (True, 0.0, [True] * 3))


# --- a nonlocal counter changed between two graph breaks is read fresh ------------------------
def make_counter_fn():
    n = 0

    def bump():
        nonlocal n
        n += 1

    def f(x):
        print("a")
        bump()
        print("b")
        return n, n

    return f


def local_counter(x):
    n = 0

    def bump():
        nonlocal n
        n += 1

    y = x + 1
    print("a")
    bump()
    print("b")
    return (n, n), y


eager_f, compiled_f = make_counter_fn(), torch.compile(make_counter_fn(), backend="eager")
expect("nonlocal counter across breaks", [compiled_f(torch.ones(1)) for _ in range(3)], [eager_f(torch.ones(1)) for _ in range(3)])
check(local_counter, torch.ones(2), graphs=1)


# --- two locals aliasing one input across a break (raised "backend returned too few outputs"),
# and the alias an in-place method returns ---------------------------------------------------------
def alias_across_break(x):
    y = x
    print("p")
    return y, x


def inplace_alias_across_break(x):
    t = x.add_(1)
    print("p")
    return t, x


def alias_and_new(x):
    y = x
    z = x + 1
    print("p")
    return y, x, z


for fn in [alias_across_break, inplace_alias_across_break, alias_and_new]:
    torch._dynamo.reset()
    x = torch.ones(2)
    out = torch.compile(fn, backend="eager")(x)
    expect(f"{fn.__name__}: inputs come back as themselves", [o is x for o in out[:2]], [True, True])
check(alias_and_new, torch.ones(2), graphs=1)


# --- a returned input is the very object eager returns ----------------------------------------
def identities(x):
    return x.float(), x.contiguous(), x.to(torch.float32), x.to("cpu"), x.type(torch.float32), x.add_(1), x.mul_(2)


def made_in_graph(x):
    a = x + 1
    return a, a.float(), a.contiguous()


torch._dynamo.reset()
x = torch.ones(2)
out = torch.compile(identities, backend="eager")(x)
xe = torch.ones(2)
expect("identity of returned inputs", [o is x for o in out], [o is xe for o in identities(xe)])
torch._dynamo.reset()
a, b, c = torch.compile(made_in_graph, backend="eager")(torch.ones(2))
expect("identity of returned intermediates", (b is a, c is a), (True, True))
torch._dynamo.reset()
x = torch.ones(2, 3)
d = torch.compile(lambda t: t.detach(), backend="eager")(x)
expect("detach is a new object sharing data", (d is x, d.data_ptr() == x.data_ptr()), (False, True))


# --- eager x[tensor(2)] is a view (select), as in PyTorch; Dynamo breaks for the value --------
def write_through_index(x, i):
    v = x[i]
    v.fill_(7)
    return x


x = torch.zeros(4, 2)
write_through_index(x, torch.tensor(2))
expect("eager 0-d tensor index is a view", x.tolist(), [[0, 0], [0, 0], [7, 7], [0, 0]])
check(write_through_index, torch.zeros(4, 2), torch.tensor(2), graphs=1)


# --- compound bitwise (and @=) assignments write in place ------------------------------------
def bitwise_inplace(x, y):
    z = x
    z &= y
    w = x.clone()
    w2 = w
    w |= y
    v = x.clone()
    v2 = v
    v ^= y
    s = x.clone()
    s2 = s
    s <<= 1
    r = x.clone()
    r2 = r
    r >>= 1
    return z is x, x, w2, v2, s2, r2


def matmul_inplace(a, b):
    c = a
    c @= b
    return c is a, a


def bool_inplace(m, n):
    k = m
    k |= n
    return k is m, m


ints = (torch.tensor([1, 2, 3, 12]), torch.tensor([3, 3, 1, 5]))
check(bitwise_inplace, *ints)
check(matmul_inplace, torch.eye(3) * 2, torch.ones(3, 3))
check(bool_inplace, torch.tensor([True, False, False]), torch.tensor([False, False, True]))
for backend in ["inductor"]:
    torch._dynamo.reset()
    got = torch.compile(bitwise_inplace, backend=backend)(ints[0].clone(), ints[1])
    want = bitwise_inplace(ints[0].clone(), ints[1])
    expect("bitwise in place (inductor)", [g.tolist() if isinstance(g, torch.Tensor) else g for g in got], [w.tolist() if isinstance(w, torch.Tensor) else w for w in want])


# --- the code cache is shared per backend object (PyTorch's second wrapper is a cache hit) ----
def cached(x):
    return x + 1


torch._dynamo.reset()
cnt = CompileCounter()
a = torch.compile(cached, backend=cnt)
b = torch.compile(cached, backend=cnt)
a(torch.ones(2))
b(torch.ones(2))
expect("two wrappers, one backend: one compile", cnt.frame_count, 1)
other = CompileCounter()
torch.compile(cached, backend=other)(torch.ones(2))
b(torch.ones(2))
expect("another backend compiles its own", (other.frame_count, cnt.frame_count), (1, 1))

done()
