"""User-class instances made inside the compiled region: `__init__` inlined, attributes tracked,
the object rebuilt fresh on every call when it outlives the trace (returned, stored, aliased,
live at a graph break), as PyTorch's UserDefinedObjectVariable does."""
import dataclasses

import torch
import torch._dynamo

from _corpus import check, done


class Point:
    scale = 2.0

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm(self):
        return (self.x**2 + self.y**2).sqrt() * self.scale

    def moved(self, d):
        return Point(self.x + d, self.y - d)


@dataclasses.dataclass
class Output:
    logits: torch.Tensor
    loss: float = 0.0
    extra: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        self.extra["n"] = self.logits.numel()


class Bag:
    pass


def fields(p):
    return type(p).__name__, p.x, p.y


def method_on_new(a, b):
    return Point(a, b).norm() + 1


def returned(a, b):
    p = Point(a * 2, b)
    p.x = p.x + 1
    return fields(p)


def returned_object_is_fresh(a, b):
    return Point(a, b)


def chained_construction(a):
    return fields(Point(a, a).moved(0.5).moved(1.0))


def dataclass_with_post_init(a):
    o = Output(logits=a.relu())
    return o.logits.sum(), o.loss, o.extra["n"]


def empty_class_attrs(a):
    b = Bag()
    b.t = a + 1
    b.k = 3
    del b.k
    return b.t * 2, hasattr(b, "k")


def aliased_in_list(a):
    b = Bag()
    b.t = a.sin()
    lst = [b, b]
    return lst[0] is lst[1], lst[1].t


store = []


def stored_in_global_list(a):
    p = Point(a, a + 1)
    store.append(p)
    return p.norm()


def live_across_break(a):
    p = Point(a, a * 2)
    torch._dynamo.graph_break()
    return p.norm()


@torch._dynamo.disable
def disabled_reader(p):
    return p.x + p.y


def passed_to_disabled(a):
    p = Point(a.cos(), a)
    return disabled_reader(p) * 2



class Scaled:
    factor = 1.0

    def __init__(self):
        self.factor = 2.0  # shadows the class attribute

    @property
    def doubled(self):
        return self.factor * 2

    @staticmethod
    def shift(v):
        return v + 1

    @classmethod
    def by_class(cls, v):
        return v * cls.factor


def property_and_descriptors(a):
    s = Scaled()
    return a * s.doubled, s.shift(a), Scaled.shift(a), s.by_class(a)


class Knob:
    k = 2.0

    def __init__(self, t):
        self.t = t

    def apply(self):
        return self.t * self.k

x, y = torch.randn(4), torch.randn(4)
check(method_on_new, x, y)
check(returned, x, y)
check(chained_construction, x)
check(dataclass_with_post_init, x)
check(empty_class_attrs, x)
check(aliased_in_list, x)
# The global list is guarded by length (as PyTorch's SEQUENCE_LENGTH): the second call recompiles.
check(stored_in_global_list, x, graphs=2)
check(live_across_break, x, graphs=2, breaks=1)
check(passed_to_disabled, x, graphs=2, breaks=1)

check(property_and_descriptors, x)

# A class attribute read through a new object is guarded: changing it recompiles.
opt = torch.compile(lambda t: Knob(t).apply(), backend="eager")
assert torch.equal(opt(x), x * 2.0)
Knob.k = 5.0
assert torch.equal(opt(x), x * 5.0)

# Every call returns a new object, as in eager.
opt = torch.compile(returned_object_is_fresh, backend="eager")
first, second = opt(x, y), opt(x, y)
assert first is not second and type(first) is Point, (first, second)
assert torch.equal(first.x, x) and torch.equal(second.y, y)
done()
