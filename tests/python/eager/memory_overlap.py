"""In-place writes whose destination shares memory with an input raise as in PyTorch (ATen's
MemoryOverlap checks), eager and compiled; the layouts PyTorch accepts still compute the same
values as on a cloned input."""
import torch

PARTIAL = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
    "single memory location. Please clone() the tensor before performing the operation."
)
INTERNAL = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)

failures = []


def raises(name, fn, message):
    try:
        fn()
    except RuntimeError as e:
        if message not in str(e):
            failures.append(f"{name}: RuntimeError {e!s} lacks the expected message")
        return
    except Exception as e:  # noqa: BLE001 - reported as a failure
        failures.append(f"{name}: raised {type(e).__name__}: {e}")
        return
    failures.append(f"{name}: did not raise")


def computes(name, fn, want):
    try:
        got = fn()
    except Exception as e:  # noqa: BLE001 - reported as a failure
        failures.append(f"{name}: raised {type(e).__name__}: {e}")
        return
    if not torch.equal(got, want):
        failures.append(f"{name}: got {got}, want {want}")


def a5():
    return torch.arange(5.0)


def shift_setitem():
    a = a5()
    a[1:] = a[:-1]


def shift_add():
    a = a5()
    a[1:].add_(a[:-1])


def transpose_add():
    m = torch.arange(9.0).reshape(3, 3)
    m.add_(m.t())


def shift_copy():
    a = a5()
    a[:-1].copy_(a[1:])


def shift_mul_operator():
    a = a5()
    b = a[1:]
    b *= a[:-1]


def expanded_add():
    torch.zeros(3).expand(2, 3).add_(1)


def expanded_copy():
    torch.zeros(3).expand(2, 3).copy_(torch.ones(2, 3))


def expanded_normal():
    torch.zeros(3).expand(2, 3).normal_()


def index_put_value_view():
    a = a5()
    a[torch.tensor([0, 1])] = a[2:4]


def index_put_accumulate():
    a = a5()
    a.index_put_((torch.tensor([0, 1]),), a[3:], accumulate=True)


def scatter_src_self():
    a = a5()
    a.scatter_(0, torch.tensor([1, 0]), a)


def addcmul_partial():
    a = a5()
    a[1:].addcmul_(a[:-1], torch.ones(4))


def clamp_partial():
    a = a5()
    a[1:].clamp_(min=a[:-1])


for name, fn, message in [
    ("a[1:] = a[:-1]", shift_setitem, PARTIAL),
    ("a[1:].add_(a[:-1])", shift_add, PARTIAL),
    ("m.add_(m.t())", transpose_add, PARTIAL),
    ("a[:-1].copy_(a[1:])", shift_copy, PARTIAL),
    ("b *= a[:-1]", shift_mul_operator, PARTIAL),
    ("expand(...).add_", expanded_add, INTERNAL),
    ("expand(...).copy_", expanded_copy, INTERNAL),
    ("expand(...).normal_", expanded_normal, INTERNAL),
    ("a[idx] = a[2:4]", index_put_value_view, PARTIAL),
    ("index_put_(accumulate=True) of a view", index_put_accumulate, PARTIAL),
    ("a.scatter_(0, i, a)", scatter_src_self, PARTIAL),
    ("a[1:].addcmul_(a[:-1], ...)", addcmul_partial, PARTIAL),
    ("a[1:].clamp_(min=a[:-1])", clamp_partial, PARTIAL),
]:
    raises(name, fn, message)


def accepted_cases():
    """(name, fn, expected) for layouts PyTorch writes without complaint."""
    out = []

    def self_add():
        a = a5()
        a.add_(a)
        return a

    out.append(("a.add_(a)", self_add, torch.arange(5.0) * 2))

    def disjoint_halves():
        a = torch.arange(6.0)
        a[:3] = a[3:]
        return a

    out.append(("a[:3] = a[3:]", disjoint_halves, torch.tensor([3.0, 4, 5, 3, 4, 5])))

    def columns():
        # Strided (not dense) views: too hard to decide, so allowed; the copy reads the source first.
        m = torch.arange(6.0).reshape(2, 3)
        m[:, 1:] = m[:, :-1]
        return m

    out.append(("m[:, 1:] = m[:, :-1]", columns, torch.tensor([[0.0, 0, 1], [3, 3, 4]])))

    def cloned_shift():
        a = a5()
        a[1:] = a[:-1].clone()
        return a

    out.append(("a[1:] = a[:-1].clone()", cloned_shift, torch.tensor([0.0, 0, 1, 2, 3])))

    def expanded_fill():
        base = torch.zeros(3)
        base.expand(2, 3).fill_(7)
        return base

    out.append(("expand(...).fill_", expanded_fill, torch.full((3,), 7.0)))

    def expanded_zero():
        base = torch.ones(3)
        base.expand(2, 3).zero_()
        return base

    out.append(("expand(...).zero_", expanded_zero, torch.zeros(3)))

    def mask_fill_from_self():
        # One boolean mask and a one-element value: ATen's masked_fill_ path, no overlap check.
        a = a5()
        a[a > 2] = a[0]
        return a

    out.append(("a[a > 2] = a[0]", mask_fill_from_self, torch.tensor([0.0, 1, 2, 0, 0])))

    def copy_onto_itself():
        a = a5()
        a.copy_(a)
        return a

    out.append(("a.copy_(a)", copy_onto_itself, torch.arange(5.0)))
    return out


for name, fn, want in accepted_cases():
    computes(name, fn, want)


# Compiled: the same programs raise the same error (or compute the same values).
def compiled_shift(a):
    a[1:].add_(a[:-1])
    return a


def compiled_disjoint(a):
    a[:3] = a[3:] * 2
    return a


opt = torch.compile(compiled_shift)
try:
    opt(a5())
    failures.append("compiled a[1:].add_(a[:-1]): did not raise")
except RuntimeError as e:
    if PARTIAL not in str(e):
        failures.append(f"compiled a[1:].add_(a[:-1]): {e}")
computes("compiled a[:3] = a[3:] * 2", lambda: torch.compile(compiled_disjoint)(torch.arange(6.0)),
         torch.tensor([6.0, 8, 10, 3, 4, 5]))

if failures:
    raise SystemExit("memory overlap: " + "\n".join(failures))
print("memory overlap: ok")
