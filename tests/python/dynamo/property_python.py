"""Property test (issue 27 requirement 8): random programs that mix tensor ops with the Python
users write around them: builtins (map, filter, sorted with key=, enumerate(start=), zip, sum
with start=, min/max, any/all over generators, divmod/abs/round), containers (list, dict and its
live views, tuple, set) and the standard library (collections.deque/OrderedDict/defaultdict/
Counter/namedtuple, itertools, functools.partial/reduce, operator, math). Each program is
written out as Python source, compiled with `fullgraph=True` (every construct used traces in one
graph in PyTorch 2.15: this file runs under real PyTorch too, and does there) and checked
against eager exactly. Fixed seed and budget; a failure prints the program.

    PYTHONPATH=tests/python /tmp/pt/bin/python tests/python/dynamo/property_python.py
"""
import collections
import functools
import itertools
import math
import operator
import os
import random
import sys
import time

import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

from _harness import same

SEED = int(os.environ.get("PROPERTY_SEED", "20261127"))
PROGRAMS = int(os.environ.get("PROPERTY_PROGRAMS", "150"))

Pt = collections.namedtuple("Pt", ["x", "y"])
NAMESPACE = {
    "torch": torch,
    "collections": collections,
    "functools": functools,
    "itertools": itertools,
    "math": math,
    "operator": operator,
    "Pt": Pt,
}


class Gen:
    """One program: tensor variables (all of one shape) and Python int variables."""

    def __init__(self, rng):
        self.r = rng
        self.lines = []
        self.tensors = []
        self.ints = []
        self.n = 0

    def fresh(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"

    def t(self):
        return self.r.choice(self.tensors)

    def i(self):
        return self.r.choice(self.ints) if self.ints and self.r.random() < 0.7 else str(self.r.randrange(-3, 6))

    def emit_int(self, expr):
        name = self.fresh("n")
        self.lines.append(f"{name} = {expr}")
        self.ints.append(name)

    def emit_tensor(self, expr):
        name = self.fresh("t")
        self.lines.append(f"{name} = {expr}")
        self.tensors.append(name)

    def stmt(self):
        r = self.r
        a, b, c = self.t(), self.t(), self.t()
        kind = r.randrange(22)
        if kind == 0:
            lst = self.fresh("L")
            self.lines.append(f"{lst} = [{a}, {b}]")
            self.lines.append(f"{lst}.append({c})")
            self.lines.append(f"{lst}.insert(1, {a} * 2)")
            self.emit_tensor(f"{lst}.pop({r.choice(['', '0', '-2'])}) + len({lst})")
        elif kind == 1:
            d = self.fresh("d")
            self.lines.append(f'{d} = {{"p": {a}, "q": {b}}}')
            self.lines.append(f"vs = {d}.values()")
            self.lines.append(f'{d}.setdefault("r", {c})')
            self.lines.append(f'{d}.update(s={a} - 1)')
            self.emit_tensor(f"sum(vs, start={a} * 0) + len({d}.keys())")
        elif kind == 2:
            self.emit_int(f"sorted([{self.i()}, {self.i()}, {self.i()}], key=lambda v: (-v, v % 2))[{r.randrange(3)}]")
        elif kind == 3:
            self.emit_tensor(f"sum(map(lambda u: u * {r.choice([2, -1, 0.5])}, [{a}, {b}]), start={c})")
        elif kind == 4:
            self.emit_int(f"len(list(filter(lambda v: v % 2, range({r.randrange(1, 7)}))))")
        elif kind == 5:
            self.emit_tensor(f"sum(({a} * i for i, _ in enumerate([{b}, {c}], start={r.randrange(3)})), start={b})")
        elif kind == 6:
            self.emit_tensor(f"sum(x * y for x, y in zip([{a}, {b}], [{self.i()}, {self.i()}], strict=True))")
        elif kind == 7:
            q = self.fresh("q")
            self.lines.append(f"{q} = collections.deque([{a}, {b}], maxlen={r.randrange(2, 4)})")
            self.lines.append(f"{q}.append({c})")
            self.lines.append(f"{q}.appendleft({a} + 1)")
            self.lines.append(f"{q}.rotate({r.randrange(-2, 3)})")
            self.emit_tensor(f"{q}[0] - {q}.pop() + len({q})")
        elif kind == 8:
            od = self.fresh("od")
            self.lines.append(f"{od} = collections.OrderedDict(a=1, b=2, c=3)")
            self.lines.append(f'{od}.move_to_end("{r.choice("abc")}", last={r.choice(["True", "False"])})')
            self.emit_int(f'{od}[list({od})[0]] * 10 + {od}.popitem(last={r.choice(["True", "False"])})[1]')
        elif kind == 9:
            dd = self.fresh("dd")
            self.lines.append(f"{dd} = collections.defaultdict(list)")
            self.lines.append(f'{dd}["k"].append({a})')
            self.lines.append(f'{dd}["k"].append({b})')
            self.emit_tensor(f'torch.stack({dd}["k"]).sum(0) + len({dd}["z"])')
        elif kind == 10:
            self.emit_int(f'collections.Counter("{"".join(r.choice("abc") for _ in range(6))}").most_common(1)[0][1]')
        elif kind == 11:
            p = self.fresh("p")
            self.lines.append(f"{p} = Pt({a}, {b})")
            self.lines.append(f"{p} = {p}._replace(y={c})")
            self.emit_tensor(f"{p}.x * 2 + {p}.y + len({p}._fields)")
        elif kind == 12:
            self.emit_tensor(
                f"torch.stack(list(itertools.islice(itertools.chain([{a}], [{b}, {c}]), {r.randrange(2)}, 3))).sum(0)"
            )
        elif kind == 13:
            self.emit_tensor(f"functools.reduce(operator.add, [{a}, {b}, {c}])")
        elif kind == 14:
            self.lines.append(f"f = functools.partial(torch.add, alpha={r.choice([2, -1])})")
            self.emit_tensor(f"f({a}, {b})")
        elif kind == 15:
            self.emit_int(f"math.gcd({r.randrange(1, 30)}, {r.randrange(1, 30)}) + math.floor({r.choice([2.5, -1.5, 0.25])})")
        elif kind == 16:
            self.emit_int(f"divmod({self.i()}, 3)[{r.randrange(2)}] + abs({self.i()}) + round({r.choice([2.5, 3.5, -0.5])})")
        elif kind == 17:
            self.emit_int(f"int(any(v > {self.i()} for v in [{self.i()}, {self.i()}])) + int(all(v for v in [{self.i()}]))")
        elif kind == 18:
            self.emit_int(f"max([{self.i()}, {self.i()}], key=abs) - min([{self.i()}, {self.i()}][:{r.randrange(3)}], default=0)")
        elif kind == 19:
            self.emit_tensor(f"{a}[:, [{r.randrange(3)}, -1]].sum(1, keepdim=True) + {b}")
        elif kind == 20:
            s = self.fresh("s")
            self.lines.append(f"{s} = {{{self.i()}, {self.i()}}}")
            self.lines.append(f"{s}.add({self.i()})")
            self.emit_int(f"len({s}) + sorted({s})[0]")
        else:
            self.emit_tensor(f"{a} * {self.i()} + {b}")


def make_program(rng, idx):
    g = Gen(rng)
    nin = rng.randrange(1, 4)
    params = [f"x{k}" for k in range(nin)]
    g.tensors.extend(params)
    for _ in range(rng.randrange(3, 8)):
        g.stmt()
    # Every program has a tensor op, so each compiles exactly one graph.
    g.emit_tensor("x0 + 1")
    outs = rng.sample(g.tensors, min(2, len(g.tensors))) + rng.sample(g.ints, min(2, len(g.ints)))
    body = "\n".join("    " + line for line in g.lines)
    return f"def prog_{idx}({', '.join(params)}):\n{body}\n    return {', '.join(outs)},\n", nin


def main():
    rng = random.Random(SEED)
    torch.manual_seed(SEED)
    start = time.time()
    failures = 0
    for idx in range(PROGRAMS):
        src, nin = make_program(rng, idx)
        ns = dict(NAMESPACE)
        exec(compile(src, f"<prog_{idx}>", "exec"), ns)
        fn = ns[f"prog_{idx}"]
        inputs = [torch.randn(2, 3) for _ in range(nin)]
        torch._dynamo.reset()
        cnt = CompileCounter()
        opt = torch.compile(fn, backend=cnt, fullgraph=True)
        problem = None
        try:
            for _ in range(2):
                want = fn(*[t.clone() for t in inputs])
                got = opt(*[t.clone() for t in inputs])
                if not same(want, got):
                    problem = f"compiled {got!r} != eager {want!r}"
                    break
            if problem is None and cnt.frame_count != 1:
                problem = f"expected 1 graph, got {cnt.frame_count}"
            if problem is None and idx % 3 == 0:
                # The default backend (the JIT) too: the fuzzer's other source of wrong results.
                torch._dynamo.reset()
                jit = torch.compile(fn, fullgraph=True)
                want = fn(*[t.clone() for t in inputs])
                got = jit(*[t.clone() for t in inputs])
                if not same(want, got):
                    problem = f"default backend {got!r} != eager {want!r}"
        except Exception as e:  # noqa: BLE001 - reported with the program
            problem = f"raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        if problem:
            failures += 1
            print(f"FAIL program {idx} (seed {SEED}): {problem}\n{src}")
            if failures >= 5:
                break
    print(f"seed={SEED} programs={PROGRAMS} seconds={time.time() - start:.1f}")
    if failures:
        sys.exit(1)
    print("ok")


main()
