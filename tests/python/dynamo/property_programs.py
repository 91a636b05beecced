"""Property test: random straight-line tensor programs with Python-level control on constants
(`if k > 2:`, `for i in range(k):`, inlined helpers, lists), written out as Python source,
compiled with a counting backend and checked against eager exactly; some programs also carry
explicit graph breaks, and the number of graphs must be what PyTorch makes. Fixed seed and
budget; a failure prints the program."""
import os
import random
import sys
import time

import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

from _harness import same

# Fixed for CI; PROPERTY_SEED / PROPERTY_PROGRAMS reproduce or widen a search locally.
SEED = int(os.environ.get("PROPERTY_SEED", "20240611"))
PROGRAMS = int(os.environ.get("PROPERTY_PROGRAMS", "200"))

UNARY = ["sin", "cos", "tanh", "sigmoid", "relu", "abs", "neg", "square", "floor", "ceil", "exp"]
BINARY_OPS = ["+", "-", "*"]
BINARY_FNS = ["torch.maximum", "torch.minimum"]
REDUCTIONS = ["sum", "mean", "amax", "amin"]


class Gen:
    """Builds one program: a pool of variables with known shapes, and lines of source."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.pool = {}  # name -> shape tuple
        self.n = 0
        self.segment = 0
        self.taken = True  # whether the lines being generated run (not in a false `if`)
        self.executed_ops = {}  # segment -> tensor ops that run in it

    def fresh(self, shape):
        self.n += 1
        name = f"v{self.n}"
        self.pool[name] = shape
        return name

    def op(self, n=1):
        """Counts `n` tensor ops emitted at the current point."""
        if self.taken:
            self.executed_ops[self.segment] = self.executed_ops.get(self.segment, 0) + n

    def pick(self, pred=lambda s: True):
        names = [k for k, s in self.pool.items() if pred(s)]
        return self.rng.choice(names) if names else None

    def scalar(self):
        return repr(self.rng.choice([0.5, 1.5, 2.0, -1.0, 3, 0.25]))

    def broadcast_partner(self, shape):
        """A variable whose shape broadcasts with `shape` (same, or ones in some dims)."""
        def ok(s):
            if len(s) > len(shape):
                return False
            for a, b in zip(reversed(s), reversed(shape)):
                if a != b and a != 1 and b != 1:
                    return False
            return True

        return self.pick(ok)

    def result_shape(self, a, b):
        n = max(len(a), len(b))
        a = (1,) * (n - len(a)) + a
        b = (1,) * (n - len(b)) + b
        return tuple(max(x, y) for x, y in zip(a, b))

    def expr(self, indent):
        """Appends one statement defining a new variable; returns nothing."""
        r = self.rng
        kind = r.choice(
            ["unary", "binary", "binary", "scalar", "reduce", "view", "where", "inplace", "slice",
             "cat", "matmul", "softmax", "mask", "setitem", "dict"]
        )
        a = self.pick()
        sa = self.pool[a]
        pad = "    " * indent
        if kind == "unary":
            op = r.choice(UNARY)
            src = f"{a}.{op}()" if op != "exp" else f"{a}.clamp(-3, 3).exp()"
            out = self.fresh(sa)
        elif kind == "binary":
            b = self.broadcast_partner(sa) or a
            shape = self.result_shape(sa, self.pool[b])
            if r.random() < 0.7:
                src = f"{a} {r.choice(BINARY_OPS)} {b}"
            else:
                src = f"{r.choice(BINARY_FNS)}({a}, {b})"
            out = self.fresh(shape)
        elif kind == "scalar":
            op = r.choice(BINARY_OPS)
            src = f"{a} {op} {self.scalar()}" if r.random() < 0.5 else f"{self.scalar()} {op} {a}"
            out = self.fresh(sa)
        elif kind == "reduce" and len(sa) >= 1:
            dim = r.randrange(len(sa))
            keep = r.random() < 0.5
            op = r.choice(REDUCTIONS)
            src = f"{a}.{op}(dim={dim}, keepdim={keep})"
            shape = tuple(1 if i == dim else s for i, s in enumerate(sa)) if keep else tuple(
                s for i, s in enumerate(sa) if i != dim
            )
            out = self.fresh(shape)
        elif kind == "view" and len(sa) >= 2:
            if r.random() < 0.5:
                src = f"{a}.transpose(0, {len(sa) - 1})"
                shape = (sa[-1],) + sa[1:-1] + (sa[0],)
            else:
                n = 1
                for s in sa:
                    n *= s
                src = f"{a}.reshape(-1)"
                shape = (n,)
            out = self.fresh(shape)
        elif kind == "where":
            b = self.broadcast_partner(sa) or a
            shape = self.result_shape(sa, self.pool[b])
            src = f"torch.where({a} > {b}, {a}, {b})"
            out = self.fresh(shape)
        elif kind == "inplace":
            out = self.fresh(sa)
            self.lines.append(f"{pad}{out} = {a}.clone()")
            self.op()
            src = f"{out}.mul_({self.scalar()}).add_(1)"
            self.lines.append(f"{pad}{src}")
            self.op()
            return
        elif kind == "slice" and len(sa) >= 1:
            src = f"{a}[..., ::2]"
            out = self.fresh(sa[:-1] + ((sa[-1] + 1) // 2,))
        elif kind == "cat" and len(sa) >= 1:
            b = self.pick(lambda s, sa=sa: s == sa)
            dim = r.randrange(len(sa))
            fn = r.choice(["cat", "stack"])
            src = f"torch.{fn}([{a}, {b}], dim={dim})"
            if fn == "cat":
                shape = tuple(d * 2 if i == dim else d for i, d in enumerate(sa))
            else:
                shape = sa[:dim] + (2,) + sa[dim:]
            out = self.fresh(shape)
        elif kind == "matmul" and len(sa) >= 2:
            src = f"{a} @ {a}.transpose(-1, -2)"
            out = self.fresh(sa[:-1] + (sa[-2],))
        elif kind == "softmax" and len(sa) >= 1:
            src = f"{a}.softmax(dim={r.randrange(len(sa))})"
            out = self.fresh(sa)
        elif kind == "mask":
            src = f"({a} > {self.scalar()}).float() * {a}"
            out = self.fresh(sa)
        elif kind == "setitem" and len(sa) >= 1:
            out = self.fresh(sa)
            self.lines.append(f"{pad}{out} = {a}.clone()")
            self.lines.append(f"{pad}{out}[0] = {self.scalar()}")
            self.op(2)
            return
        elif kind == "dict":
            b = self.broadcast_partner(sa) or a
            shape = self.result_shape(sa, self.pool[b])
            self.lines.append(f'{pad}d = {{"p": {a}, "q": {b}}}')
            src = 'd["p"] * d["q"]'
            out = self.fresh(shape)
        else:
            src = f"{a} * 2"
            out = self.fresh(sa)
        self.lines.append(f"{pad}{out} = {src}")
        self.op()

    def block(self, depth, budget):
        r = self.rng
        for _ in range(budget):
            choice = r.random()
            if depth < 2 and choice < 0.12:
                k = r.randrange(0, 5)
                self.lines.append(f"{'    ' * depth}k{depth} = {k}")
                self.lines.append(f"{'    ' * depth}if k{depth} > 2:")
                before = len(self.pool)
                outer = self.taken
                self.taken = outer and k > 2
                self.block(depth + 1, r.randrange(1, 3))
                self.taken = outer
                self._hoist(depth, before)
            elif depth < 2 and choice < 0.22:
                k = r.randrange(1, 4)
                a = self.pick()
                acc = self.fresh(self.pool[a])
                pad = "    " * depth
                self.lines.append(f"{pad}{acc} = {a} * 1")
                self.lines.append(f"{pad}for i{depth} in range({k}):")
                self.lines.append(f"{pad}    {acc} = {acc} * 0.5 + i{depth}")
                self.op(1 + 2 * k)
            elif choice < 0.28:
                a = self.pick()
                out = self.fresh(self.pool[a])
                pad = "    " * depth
                self.lines.append(f"{pad}{out} = helper({a}, {self.scalar()})")
                self.op(2)
            elif choice < 0.33:
                a = self.pick()
                b = self.pick(lambda s, sa=self.pool[a]: s == sa)
                out = self.fresh(self.pool[a])
                pad = "    " * depth
                self.lines.append(f"{pad}items = [{a}, {b}]")
                self.lines.append(f"{pad}{out} = items[-1] - items[0]")
                self.op()
            else:
                self.expr(depth)

    def expected_graphs(self, segments):
        """PyTorch's graph count: each segment between breaks whose traced graph has any call
        compiles one (Dynamo does not drop dead calls before counting them)."""
        return sum(1 for seg in range(segments) if self.executed_ops.get(seg, 0) > 0)

    def _hoist(self, depth, before):
        """Variables defined inside an `if` may not exist after it: forget them (and give the
        block a body if it got none)."""
        names = list(self.pool)
        for name in names[before:]:
            del self.pool[name]
        if not self.lines[-1].startswith("    " * (depth + 1)):
            self.lines.append(f"{'    ' * (depth + 1)}pass")


def make_program(rng, idx):
    g = Gen(rng)
    ninputs = rng.randrange(1, 4)
    rank = rng.randrange(1, 4)
    base = tuple(rng.randrange(1, 5) for _ in range(rank))
    shapes = []
    for _ in range(ninputs):
        s = tuple(1 if rng.random() < 0.25 else d for d in base)
        if len(s) > 1 and rng.random() < 0.25:
            s = s[1:]
        shapes.append(s)
    params = [g.fresh(s) for s in shapes]
    breaks = rng.random() < 0.15
    segments = rng.randrange(2, 4) if breaks else 1
    for seg in range(segments):
        if seg:
            g.lines.append("torch._dynamo.graph_break()")
        g.segment = seg
        g.block(0, rng.randrange(2, 6))
    outs = rng.sample(list(g.pool), min(3, len(g.pool)))
    expected = g.expected_graphs(segments)
    body = "\n".join("    " + line for line in g.lines)
    src = (
        f"def helper(t, s):\n    return (t * s).tanh() + 1\n\n\n"
        f"def prog_{idx}({', '.join(params)}):\n{body}\n    return {', '.join(outs)},\n"
    )
    return src, shapes, expected


def main():
    rng = random.Random(SEED)
    torch.manual_seed(SEED)
    start = time.time()
    failures = 0
    graphs_total = 0
    for idx in range(PROGRAMS):
        src, shapes, segments = make_program(rng, idx)
        namespace = {"torch": torch}
        exec(compile(src, f"<prog_{idx}>", "exec"), namespace)
        fn = namespace[f"prog_{idx}"]
        inputs = [torch.randn(*s) for s in shapes]
        torch._dynamo.reset()
        cnt = CompileCounter()
        opt = torch.compile(fn, backend=cnt)
        problem = None
        try:
            for _ in range(2):
                want = fn(*[t.clone() for t in inputs])
                got = opt(*[t.clone() for t in inputs])
                if not same(want, got):
                    problem = f"compiled {got!r} != eager {want!r}"
                    break
            if problem is None and cnt.frame_count != segments:
                problem = f"expected {segments} graph(s), got {cnt.frame_count}"
        except Exception as e:  # noqa: BLE001 - reported with the program
            problem = f"raised {type(e).__name__}: {e}"
        graphs_total += cnt.frame_count
        if problem:
            failures += 1
            print(f"FAIL program {idx} (seed {SEED}): {problem}\n{src}")
            if failures >= 5:
                break
    elapsed = time.time() - start
    print(f"seed={SEED} programs={PROGRAMS} graphs={graphs_total} seconds={elapsed:.1f}")
    if failures:
        sys.exit(1)
    print("ok")


main()
