"""Every matrix product called with mismatched dtypes raises PyTorch's exception class and
message: the products fold into different ATen kernels (`mm`, `bmm`, `addmv`, `addmm`, `dot`,
`baddbmm`), each with its own wording, chosen by the operands' ranks. Bool operands raise the
kernel's `NotImplementedError`; other dtype-without-kernel errors too. `outer` promotes (complex
included) and its gradients follow PyTorch's conjugate convention. Its stdout equals
`product_dtype_errors.out`, recorded under real PyTorch
(`/tmp/pt/bin/python product_dtype_errors.py > product_dtype_errors.out`)."""
import itertools

import torch
import torch.nn.functional as F

DTYPES = [torch.float32, torch.float64, torch.complex64, torch.bfloat16, torch.int64, torch.bool]


def ones(shape, dt):
    return torch.ones(shape, dtype=dt)


def report(name, fn):
    try:
        r = fn()
        print(name, "ok", r.dtype, list(r.shape))
    except Exception as e:  # the class and the message are what is compared
        print(name, type(e).__name__, e)


# Two-operand products, by operand ranks: (name, function, shape of a, shape of b).
BINARY = [
    ("mm", torch.mm, (2, 3), (3, 2)),
    ("bmm", torch.bmm, (2, 2, 3), (2, 3, 2)),
    ("mv", torch.mv, (2, 3), (3,)),
    ("dot", torch.dot, (3,), (3,)),
    ("matmul 1x1", torch.matmul, (3,), (3,)),
    ("matmul 1x2", torch.matmul, (3,), (3, 2)),
    ("matmul 2x1", torch.matmul, (2, 3), (3,)),
    ("matmul 2x2", torch.matmul, (2, 3), (3, 2)),
    ("matmul 3x1", torch.matmul, (4, 2, 3), (3,)),
    ("matmul 3x2", torch.matmul, (4, 2, 3), (3, 2)),
    ("matmul 1x3", torch.matmul, (3,), (4, 3, 2)),
    ("matmul 2x3", torch.matmul, (2, 3), (4, 3, 2)),
    ("matmul 3x3", torch.matmul, (4, 2, 3), (4, 3, 2)),
    ("matmul 4x3", torch.matmul, (5, 4, 2, 3), (4, 3, 2)),
    ("linear 2", F.linear, (2, 3), (4, 3)),
    ("linear 3", F.linear, (5, 2, 3), (4, 3)),
    ("einsum", lambda a, b: torch.einsum("ij,jk->ik", a, b), (2, 3), (3, 2)),
]
for (name, fn, sa, sb), da, db in itertools.product(BINARY, DTYPES, DTYPES):
    if da == db and da not in (torch.bool,):
        continue
    report(f"{name} {da} {db}", lambda: fn(ones(sa, da), ones(sb, db)))

# Three-operand products: one operand at a time differs from the other two.
TERNARY = [
    ("addmm", torch.addmm, (2, 2), (2, 3), (3, 2)),
    ("addbmm", torch.addbmm, (2, 2), (4, 2, 3), (4, 3, 2)),
    ("baddbmm", torch.baddbmm, (4, 2, 2), (4, 2, 3), (4, 3, 2)),
    ("addmv", torch.addmv, (2,), (2, 3), (3,)),
    ("linear bias", lambda b, x, w: F.linear(x, w, b), (4,), (2, 3), (4, 3)),
    ("linear bias 3", lambda b, x, w: F.linear(x, w, b), (4,), (5, 2, 3), (4, 3)),
]
for (name, fn, *shapes), base, other in itertools.product(TERNARY, DTYPES[:3], DTYPES[:3]):
    if base == other:
        continue
    for pos in range(3):
        dts = [base] * 3
        dts[pos] = other
        report(f"{name} {dts}", lambda: fn(*(ones(s, d) for s, d in zip(shapes, dts))))

# Kernels without a dtype: NotImplementedError, as ATen's dispatch macros raise.
i, b = torch.tensor([1, 2]), torch.tensor([True, False])
report("log_softmax long", lambda: torch.log_softmax(i, 0))
report("mean long", lambda: i.mean())
report("neg bool", lambda: -b)
report("deg2rad bool", lambda: torch.deg2rad(b))

# outer promotes, complex included; the gradients are PyTorch's (conjugates for complex).
a = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
c = torch.tensor([2 - 1j, 1j, 4 + 0j], requires_grad=True)
r = torch.tensor([0.5, -2.0, 3.0], requires_grad=True)
o = torch.outer(a, c)
print("outer c64", o.dtype, o.tolist())
(o * torch.arange(6.0).reshape(2, 3)).abs().sum().backward()
print("outer grads", [round(v.real, 4) for v in a.grad.tolist()], [round(v.imag, 4) for v in a.grad.tolist()])
print("outer grads", [round(v.real, 4) for v in c.grad.tolist()], [round(v.imag, 4) for v in c.grad.tolist()])
a.grad = None
m = torch.outer(a, r)
print("outer mixed", m.dtype, m.tolist())
torch.view_as_real(m).sum().backward()
print("outer mixed grads", [round(v.real, 4) for v in a.grad.tolist()], r.grad.dtype, [round(v, 4) for v in r.grad.tolist()])
print("outer long float", torch.outer(torch.tensor([1, 2]), torch.tensor([0.5])).dtype)

# linear on complex tensors, with a bias, and its gradients (conjugated operands).
x = torch.tensor([[1 + 1j, 2 - 1j, 0.5j], [-1 + 0j, 3j, 2 + 2j]], requires_grad=True)
w = torch.tensor([[0.5 - 1j, 1 + 0j, -2j], [1j, 1 - 1j, 2 + 0j]], requires_grad=True)
bias = torch.tensor([1 - 1j, 0.5j], requires_grad=True)
y = F.linear(x, w, bias)
print("linear c64", y.dtype, y.tolist())
(y * torch.tensor([[1 + 2j, 3 + 0j], [-1j, 2 - 1j]])).real.sum().backward()
for n, p in (("x", x), ("w", w), ("bias", bias)):
    print("linear grad", n, [[(round(v.real, 4), round(v.imag, 4)) for v in row] for row in p.grad.reshape(-1, p.shape[-1]).tolist()])
fc = torch.compile(lambda x, w, b: F.linear(x, w, b).abs())
print("linear c64 compiled equal", torch.equal(fc(x.detach(), w.detach(), bias.detach()), F.linear(x, w, bias).abs().detach()))

# Shape and rank errors, named after the ATen kernel the product folds into (PyTorch 2.15's
# wording): addmm's `self` is expanded (expand's errors), mm/addmm rank checks, and the folded
# row count of a batched or vector operand.
for name, fn in [
    ("addmm bias shape", lambda: torch.addmm(torch.zeros(5), torch.ones(2, 3), torch.ones(3, 4))),
    ("addmm bias 2d", lambda: torch.addmm(torch.zeros(3, 4), torch.ones(2, 3), torch.ones(3, 4))),
    ("addmm bias 3d", lambda: torch.addmm(torch.zeros(1, 2, 4), torch.ones(2, 3), torch.ones(3, 4))),
    ("addmm bias dtype and shape", lambda: torch.addmm(torch.zeros(5, dtype=torch.float64), torch.ones(2, 3), torch.ones(3, 4))),
    ("addmm inner", lambda: torch.addmm(torch.zeros(4), torch.ones(2, 3), torch.ones(5, 4))),
    ("addmm 1-D mat1", lambda: torch.addmm(torch.zeros(4), torch.ones(3), torch.ones(3, 4))),
    ("addmm 3-D mat1", lambda: torch.addmm(torch.zeros(4), torch.ones(1, 2, 3), torch.ones(3, 4))),
    ("addmm 1-D mat2", lambda: torch.addmm(torch.zeros(4), torch.ones(2, 3), torch.ones(3))),
    ("mm 1-D", lambda: torch.mm(torch.ones(3), torch.ones(3, 4))),
    ("mm 1-D mat2", lambda: torch.mm(torch.ones(2, 3), torch.ones(3))),
    ("mm inner", lambda: torch.mm(torch.ones(2, 3), torch.ones(5, 4))),
    ("matmul inner", lambda: torch.ones(2, 3) @ torch.ones(5, 4)),
    ("matmul vector inner", lambda: torch.ones(3) @ torch.ones(5, 4)),
    ("matmul folded inner", lambda: torch.ones(2, 2, 3) @ torch.ones(5, 4)),
    ("matmul batched inner", lambda: torch.ones(2, 2, 3) @ torch.ones(2, 5, 4)),
    ("matmul vector batched inner", lambda: torch.ones(3) @ torch.ones(2, 5, 4)),
    ("matmul batched vector inner", lambda: torch.ones(2, 2, 3) @ torch.ones(5)),
    ("linear inner", lambda: F.linear(torch.ones(2, 3), torch.ones(4, 5))),
    ("linear bias inner", lambda: F.linear(torch.ones(2, 3), torch.ones(4, 5), torch.ones(4))),
    ("linear folded bias inner", lambda: F.linear(torch.ones(2, 2, 3), torch.ones(4, 5), torch.ones(4))),
    ("linear vector bias inner", lambda: F.linear(torch.ones(3), torch.ones(4, 5), torch.ones(4))),
]:
    report(name, fn)

# Which check comes first: addmm's dtypes before its ranks and sizes; mm's ranks and sizes
# before its dtypes.
f64 = torch.float64
for name, fn in [
    ("addmm dtype and 1-D mat1", lambda: torch.addmm(torch.zeros(4, dtype=f64), torch.ones(3), torch.ones(3, 4))),
    ("addmm dtype and inner", lambda: torch.addmm(torch.zeros(4), torch.ones(2, 3), torch.ones(5, 4, dtype=f64))),
    ("mm dtype and 1-D", lambda: torch.mm(torch.ones(3, dtype=f64), torch.ones(3, 4))),
    ("mm dtype and inner", lambda: torch.mm(torch.ones(2, 3, dtype=f64), torch.ones(5, 4))),
]:
    report(name, fn)
