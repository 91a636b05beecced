"""The project fuzzer's program generator (issue 30 requirement 5): one random Python function
per (seed, index), written out as source, plus the description of its inputs for each call.

A program is shape-polymorphic: every tensor shape is a tuple of symbols (`1` or a name such
as "A"), and each call gives the names new sizes (0 and 1 included), so the same function runs
with changing shapes. The generator knows each symbol's size in every call, which is how it
keeps an op valid in all of them (`x[0]` only where dim 0 is never empty, `amax(d)` only where
dim d is never 0). Dtypes are tracked with PyTorch's promotion rules, closely enough to keep
ops meaningful; where the tracking and the runtime disagree the op may raise, which is a
finding only if eager and compiled raise differently.

This module and `_gen_ops.py` (the tensor-op statements) are plain Python (no torch):
`scripts/fuzz` imports them under CPython, `_run.py` under rynamo.
"""
import random

from _gen_ops import DTYPES, FLOAT_SCALARS, INT_SCALARS, NCALLS, TensorOps, Var, category, promote, with_scalar


class Gen(TensorOps):
    """One program: variables with symbolic shapes and dtypes, and its lines of source."""

    def __init__(self, rng):
        self.r = rng
        self.lines = []
        self.vars = []
        self.py = []  # Python-level number variables
        self.dims = {}  # symbol -> size in each call; None where data-dependent
        self.n = 0
        self.uses_bump = False

    # --- shapes ------------------------------------------------------------------------------
    def sym(self, values):
        name = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[len(self.dims) % 26] + ("" if len(self.dims) < 26 else str(len(self.dims)))
        self.dims[name] = values
        return name

    def vals(self, s):
        return [1] * NCALLS if s == 1 else self.dims[s]

    def least(self, s):
        v = self.vals(s)
        return 0 if v is None else min(v)

    def nonempty(self, shape):
        return all(self.least(s) > 0 for s in shape)

    def derived(self, s, fn):
        """A new symbol whose size is fn(size of s) in every call (slices, diagonals)."""
        v = self.vals(s)
        return 1 if v is not None and all(fn(x) == 1 for x in v) else self.sym(None if v is None else [fn(x) for x in v])

    @staticmethod
    def broadcast(a, b):
        n = max(len(a), len(b))
        a = (1,) * (n - len(a)) + tuple(a)
        b = (1,) * (n - len(b)) + tuple(b)
        out = []
        for x, y in zip(a, b):
            if x == y or y == 1:
                out.append(x)
            elif x == 1:
                out.append(y)
            else:
                return None
        return tuple(out)

    # --- variables ---------------------------------------------------------------------------
    def fresh(self, prefix="v"):
        self.n += 1
        return f"{prefix}{self.n}"

    def pick(self, pred=lambda v: True):
        cands = [v for v in self.vars if pred(v)]
        return self.r.choice(cands) if cands else None

    def partner(self, a, same_shape=False, keep_shape=False):
        """A variable that broadcasts with `a` (to exactly a's shape if keep_shape)."""
        def ok(v):
            b = self.broadcast(a.shape, v.shape)
            if b is None:
                return False
            if same_shape:
                return v.shape == a.shape
            return not keep_shape or b == a.shape
        return self.pick(ok)

    def emit(self, pad, src, shape, dtype):
        name = self.fresh()
        self.lines.append(f"{pad}{name} = {src}")
        self.vars.append(Var(name, shape, dtype))
        return name

    def scalar_for(self, v):
        if category(v.dtype) == 2 or self.r.random() < 0.3:
            return self.r.choice(FLOAT_SCALARS + INT_SCALARS)
        return self.r.choice(INT_SCALARS)

    def pynum(self):
        if self.py and self.r.random() < 0.5:
            return self.r.choice(self.py)
        return self.r.choice(["2", "0.5", "-1", "3"])

    # --- expressions -------------------------------------------------------------------------
    def python_stmt(self, pad, depth):
        """Python around the tensors: .item(), shapes, containers, closures, globals, breaks."""
        r = self.r
        a = self.pick()
        k = r.randrange(12)
        if k == 0:
            name = self.fresh("s")
            red = "sum" if category(a.dtype) else "int().sum"
            self.lines.append(f"{pad}{name} = {a.name}.{red}().item()")
            self.py.append(name)
        elif k == 1 and a.rank:
            name = self.fresh("n")
            self.lines.append(f"{pad}{name} = {a.name}.shape[{r.randrange(a.rank)}] + {a.name}.dim()")
            self.py.append(name)
        elif k == 2:
            self.lines.append(f"{pad}print({r.choice([a.name, a.name + '.shape', a.name + '.dtype'])})")
        elif k == 3:
            self.lines.append(f"{pad}G.append({r.choice([a.name + '.shape[0]' if a.rank else a.name + '.dim()', a.name, a.name + '.tolist()', a.name + '.sum().item()' if category(a.dtype) else a.name + '.numel()'])})")
        elif k == 4:
            self.lines.append(f"{pad}COUNT += {a.name}.numel()")
        elif k == 5:
            self.uses_bump = True
            name = self.fresh("n")
            self.lines.append(f"{pad}{name} = bump({r.choice(['1', a.name + '.dim()'])})")
            self.py.append(name)
        elif k == 6:
            b = self.partner(a, keep_shape=True) or a
            lst = self.fresh("L")
            self.lines.append(f"{pad}{lst} = [{a.name}, {b.name}]")
            self.lines.append(f"{pad}{lst}.append({a.name} * 2)")
            i = r.choice([0, 1, -1])
            src = [a, b, None][i]
            dt = src.dtype if src is not None else ("int64" if a.dtype == "bool" else a.dtype)
            self.emit(pad, f"{lst}[{i}]", src.shape if src is not None else a.shape, dt)
        elif k == 7:
            b = self.partner(a) or a
            self.lines.append(f'{pad}D = {{"p": {a.name}, "q": {b.name}}}')
            self.lines.append(f'{pad}D["r"] = D["p"] {r.choice(["*", "+"]) if category(a.dtype) or category(b.dtype) else "|"} D["q"]')
            dt = promote((a.dtype, a.rank), (b.dtype, b.rank))
            self.emit(pad, 'D["r"]' if r.random() < 0.5 else 'sum(D.values()) if len(D) == 3 else D["r"]', self.broadcast(a.shape, b.shape), dt)
            if "sum(" in self.lines[-1]:
                self.vars[-1].dtype = "int64" if dt == "bool" else dt
        elif k == 8:
            self.emit(pad, f"helper({a.name}, {self.pynum()})", a.shape, a.dtype if category(a.dtype) == 2 else "float32")
        elif k == 9:
            b = self.partner(a, keep_shape=True) or a
            self.lines.append(f"{pad}def inner(t):")
            self.lines.append(f"{pad}    return t * 2 + {b.name}")
            dt = promote((a.dtype, a.rank), (b.dtype, b.rank))
            self.emit(pad, f"inner({a.name})", a.shape, "int64" if dt == "bool" else dt)
        elif k == 10 and depth == 0 and self.r.random() < 0.5:
            self.lines.append(f"{pad}torch._dynamo.graph_break()")
        else:
            p, q = self.fresh("p"), self.fresh("q")
            self.lines.append(f"{pad}{p}, {q} = {a.name}, {a.name}.shape")
            self.vars.append(Var(p, a.shape, a.dtype))

    def block(self, pad, depth, budget):
        r = self.r
        for _ in range(budget):
            x = r.random()
            if depth < 2 and x < 0.08:
                self.branch(pad, depth)
            elif depth < 2 and x < 0.14:
                self.loop(pad, depth)
            elif x < 0.26:
                self.inplace(pad)
            elif x < 0.40:
                self.python_stmt(pad, depth)
            else:
                self.expr(pad)

    def branch(self, pad, depth):
        r = self.r
        a = self.pick()
        cond = r.choice([
            f"{a.name}.numel() > 4", f"{a.name}.sum() > 0" if category(a.dtype) else f"{a.name}.any()",
            f"{self.pynum()} > 1", f"{a.name}.dtype == torch.float32", f"len(G) > 1", f"COUNT % 2 == 0",
        ])
        self.lines.append(f"{pad}if {cond}:")
        keep = len(self.vars), len(self.py)
        start = len(self.lines)
        self.block(pad + "    ", depth + 1, r.randrange(1, 4))
        if len(self.lines) == start:
            self.lines.append(pad + "    pass")
        del self.vars[keep[0]:], self.py[keep[1]:]
        if r.random() < 0.4:
            self.lines.append(f"{pad}else:")
            start = len(self.lines)
            self.block(pad + "    ", depth + 1, r.randrange(1, 3))
            if len(self.lines) == start:
                self.lines.append(pad + "    pass")
            del self.vars[keep[0]:], self.py[keep[1]:]

    def loop(self, pad, depth):
        r = self.r
        a = self.pick()
        acc = self.emit(pad, f"{a.name}.clone()" if category(a.dtype) else f"{a.name}.float()", a.shape, a.dtype if category(a.dtype) else "float32")
        accv = self.vars[-1]
        form = r.randrange(3)
        if form == 0:
            self.lines.append(f"{pad}for i in range({r.randrange(0, 4)}):")
            self.lines.append(f"{pad}    {acc} = {acc} * {'0.5' if category(accv.dtype) == 2 else '2'} + i")
        elif form == 1:
            b = self.partner(accv, keep_shape=True) or accv
            if category(b.dtype) > category(accv.dtype):
                b = accv
            self.lines.append(f"{pad}for t in [{b.name}, {accv.name}]:")
            self.lines.append(f"{pad}    {acc}.add_(t)" if r.random() < 0.5 else f"{pad}    {acc} = {acc} - t")
        else:
            self.lines.append(f"{pad}j = 0")
            self.lines.append(f"{pad}while j < {r.randrange(1, 4)} and {acc}.numel() > j:")
            self.lines.append(f"{pad}    {acc} = {acc}.flip(0) if {acc}.dim() else {acc} + 1")
            self.lines.append(f"{pad}    j += 1")
        keep = len(self.vars)
        if depth < 1 and r.random() < 0.3:
            self.lines.append(f"{pad}    " + "pass")
        del self.vars[keep:]


def make_case(seed, index):
    """(source, case) for program `index` of `seed`: the function's source and a dict naming
    its inputs (dtype, symbolic shape, whether special values are injected) and each symbol's
    size per call."""
    r = random.Random(seed * 1_000_003 + index)
    g = Gen(r)
    size = lambda: r.choices([0, 1, 2, 3, 4, 5], [1, 2, 3, 3, 2, 1])[0]
    rank = r.choices([0, 1, 2, 3], [1, 3, 4, 2])[0]
    base = [g.sym([size() for _ in range(NCALLS)]) for _ in range(rank)]
    if base and r.random() < 0.3:
        # One dim long enough for the JIT's vector loops, their unrolled copies and tails.
        g.dims[r.choice(base)] = [r.choice([7, 8, 9, 16, 17, 33, 64]) for _ in range(NCALLS)]
    inputs = []
    for i in range(r.randrange(1, 4)):
        shape = [1 if r.random() < 0.2 else s for s in base]
        if shape and r.random() < 0.2:
            shape = shape[1:]
        dtype = r.choices(DTYPES, [1, 1, 2, 8, 2])[0]
        special = r.random() < 0.5
        # How the input is laid out: contiguous, or a view with other strides or an offset.
        layout = r.choices(["contiguous", "transposed", "strided", "offset"], [6, 2, 1, 1])[0] if shape else "contiguous"
        if layout == "transposed" and len(shape) < 2:
            layout = "strided"
        g.vars.append(Var(f"x{i}", shape, dtype))
        inputs.append({"dtype": dtype, "shape": shape, "special": special, "layout": layout})
    for _ in range(r.randrange(1, 3)):
        g.block("    ", 0, r.randrange(2, 6))
    tensors = [v.name for v in g.vars]
    outs = r.sample(tensors, min(len(tensors), r.randrange(1, 4)))
    if g.py and r.random() < 0.5:
        outs.append(r.choice(g.py))
    if r.random() < 0.15:
        outs.append("x0")
    if r.random() < 0.1:
        outs.append(outs[0])  # the same object twice
    if r.random() < 0.15:
        ret = "{" + ", ".join(f'"r{i}": {o}' for i, o in enumerate(outs)) + "}"
    else:
        form = r.choice(["({},)", "[{}]", "{}"]) if len(outs) == 1 else "({})"
        ret = form.format(", ".join(outs))
    src = [
        "G = []",
        "COUNT = 0",
        "",
        "",
        "def helper(t, s):",
        "    return (t * s).tanh() + 1",
        "",
        "",
        "def make():",
        "    cell = 0",
        "",
        "    def bump(k):",
        "        nonlocal cell",
        "        cell += k",
        "        return cell",
        "",
        f"    def f({', '.join(f'x{i}' for i in range(len(inputs)))}):",
        "        global COUNT",
        *["    " + line for line in g.lines],
        f"        return {ret}",
        "",
        "    return f, lambda: cell",
    ]
    case = {"seed": seed, "index": index, "inputs": inputs,
            "dims": {k: v for k, v in g.dims.items() if v is not None and any(k in i["shape"] for i in inputs)}}
    return "\n".join(src) + "\n", case


def program_file(src, case):
    """The self-contained text of one program: its case on the first line, then the source."""
    return f"CASE = {case!r}\n{src}"
