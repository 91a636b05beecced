"""Correctness corpus: `match` statements and `del` of captured variables and globals. PyTorch 2.x traces
`match` on Python structure (sequence, mapping, class and literal patterns) like `if` on
constants: one graph, no break."""
import dataclasses

import torch
import torch._dynamo
from _corpus import check, check_state, done


@dataclasses.dataclass
class Cfg:
    scale: float
    shift: float = 0.0


class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


def apply(t, op):
    match op:
        case ("scale", k):
            return t * k
        case ("shift", k, *rest):
            return t + k + len(rest)
        case [name]:
            return t.relu() if name == "relu" else t
        case _:
            return t


def sequence_patterns(x):
    return apply(x, ("scale", 3.0)), apply(x, ("shift", 1.0, 7, 8)), apply(x, ["relu"]), apply(x, 5)


def mapping_patterns(x):
    outs = []
    for spec in ({"op": "mul", "k": 2.0}, {"op": "add", "k": -1.0, "extra": 1}, {"k": 0.0}):
        match spec:
            case {"op": "mul", "k": k}:
                outs.append(x * k)
            case {"op": "add", "k": k, **rest}:
                outs.append(x + k + len(rest))
            case {}:
                outs.append(x)
    return outs


def class_patterns(x):
    outs = []
    for obj in (Cfg(2.0, 1.0), Point(3, 4), 7, "name", 1.5):
        match obj:
            case Cfg(scale=s, shift=b):
                outs.append(x * s + b)
            case Point(px, py):
                outs.append(x * px - py)
            case int(n):
                outs.append(x + n)
            case str() as s:
                outs.append(x * len(s))
            case _:
                outs.append(x)
    return outs


def literal_and_guard_patterns(x, mode="train"):
    match mode:
        case "eval" | "test":
            y = x * 0
        case m if m.startswith("tr"):
            y = x.sigmoid()
        case _:
            y = x
    match x.dim():
        case 1:
            return y.sum()
        case 2:
            return y.sum(0)
    return y


def tensor_shape_pattern(x):
    match x.shape:
        case (n, m) if n == m:
            return x.t()
        case (n, m):
            return x.reshape(m, n)
    return x


def del_captured(x):
    k = 2.0

    def read():
        return k

    y = x * read()
    del k
    return y


scale = 2.0
temp = None


def del_global_then_rebind(x):
    global scale
    y = x * scale
    del scale
    scale = 5.0
    return y + scale


def del_global(x):
    global temp
    y = x + (temp is None)
    del temp
    return y


def reset_globals():
    global scale, temp
    scale, temp = 2.0, None


def global_state():
    g = globals()
    return (g.get("scale", "<deleted>"), "temp" in g)


x = torch.randn(3, 4)
check_state(del_global_then_rebind, (x,), reset_globals, global_state)
check_state(del_global, (x,), reset_globals, global_state)
check(sequence_patterns, x)
check(mapping_patterns, x)
check(class_patterns, x)
check(literal_and_guard_patterns, x)
check(literal_and_guard_patterns, x, mode="eval")
check(tensor_shape_pattern, x)
check(tensor_shape_pattern, torch.randn(3, 3))
check(del_captured, x)
done()
