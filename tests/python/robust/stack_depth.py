"""Issue 30: long unrolled loops and long histories never overflow the stack. A compiled loop of
thousands of iterations compiles and runs on the default backend (2,500 iterations segfaulted
before), also on a thread (2 MiB stacks); a 200,000-op autograd history is backpropagated and
dropped (recursive drop overflowed at about 20,000); deep Python recursion is a RecursionError,
in eager and compiled code."""
import threading

import torch


def loop(x):
    for _ in range(5000):
        x = x * 1.0001 + 0.25
    return x


x = torch.linspace(-1.0, 1.0, 7)
assert torch.equal(torch.compile(loop)(x), loop(x))


def mixed(x, w):
    for _ in range(1500):  # 6,000 ops
        x = (x @ w).relu().t().reshape(2, 2) + x.sum() * 0.0625
    return x


x2, w2 = torch.tensor([[0.5, -1.0], [2.0, 0.25]]), torch.eye(2) * 0.5
assert torch.equal(torch.compile(mixed)(x2, w2), mixed(x2, w2))


def training(a):
    for _ in range(2000):
        a = torch.sin(a) + a
    return a.sum()


a = torch.linspace(-1.0, 1.0, 4).requires_grad_(True)
b = a.detach().clone().requires_grad_(True)
training(a).backward()
torch.compile(training)(b).backward()
assert torch.allclose(a.grad, b.grad), (a.grad, b.grad)

results = []


def on_thread():
    torch._dynamo.reset()
    results.append(torch.equal(torch.compile(loop)(x), loop(x)))
    leaf = torch.ones(3, requires_grad=True)
    y = leaf
    for _ in range(200_000):
        y = y * 1.0
    y.sum().backward()
    del y  # the whole history goes here
    results.append(leaf.grad.tolist())


t = threading.Thread(target=on_thread)
t.start()
t.join()
assert results == [True, [1.0, 1.0, 1.0]], results


def deep(n):
    return deep(n + 1)


def compiled_deep(x, n):
    return compiled_deep(x + 1, n + 1)


for fn, args in ((deep, (0,)), (torch.compile(compiled_deep), (torch.zeros(2), 0))):
    try:
        fn(*args)
    except RecursionError:
        pass
    else:
        raise AssertionError("no RecursionError")
print("ok")
