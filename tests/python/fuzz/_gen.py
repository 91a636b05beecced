"""The project fuzzer's program generator (issue 30 requirement 5): one random Python function
per (seed, index), written out as source, plus the description of its inputs for each call.

A program is shape-polymorphic: every tensor shape is a tuple of symbols (`1` or a name such
as "A"), and each call gives the names new sizes (0 and 1 included), so the same function runs
with changing shapes. The generator knows each symbol's size in every call, which is how it
keeps an op valid in all of them (`x[0]` only where dim 0 is never empty, `amax(d)` only where
dim d is never 0). Dtypes are tracked with PyTorch's promotion rules, closely enough to keep
ops meaningful; where the tracking and the runtime disagree the op may raise, which is a
finding only if eager and compiled raise differently.

This module is plain Python (no torch): `scripts/fuzz` imports it under CPython to minimize,
and `_run.py` under rynamo to run programs.
"""
import random

NCALLS = 3
DTYPES = ["bool", "int32", "int64", "float32", "float64"]
FLOAT_UNARY = [
    "sin", "cos", "tanh", "sigmoid", "exp", "log", "sqrt", "rsqrt", "reciprocal", "relu", "floor",
    "ceil", "round", "trunc", "erf", "expm1", "log1p", "frac", "sinh", "atan", "asin", "log2",
    "exp2", "nan_to_num", "sgn", "cosh", "log10", "deg2rad",
]
INT_UNARY = ["abs", "neg", "sign", "square"]
PRED_UNARY = ["isnan", "isinf", "isfinite", "signbit", "logical_not"]
ARITH = ["+", "-", "*"]
FLOAT_BINARY = ["/", "torch.atan2", "torch.hypot", "torch.copysign", "torch.fmod", "torch.remainder",
                "torch.xlogy", "torch.fmax", "torch.fmin"]
MINMAX = ["torch.maximum", "torch.minimum"]
COMPARE = ["<", ">", "==", "!=", "<=", ">="]
BITWISE = ["&", "|", "^"]
FLOAT_SCALARS = ["0.5", "-1.5", "2.0", "1e-3", "-0.0", "3.25", 'float("inf")', 'float("nan")']
INT_SCALARS = ["0", "1", "2", "3", "-1", "-2"]


def category(dt):
    return 0 if dt == "bool" else 1 if dt.startswith("int") else 2


def promote(a, b):
    """Result dtype of a tensor-tensor op between values of dtype/rank `a` and `b`
    ((dtype, rank) pairs): a 0-dim operand only raises the result's category."""
    (da, ra), (db, rb) = a, b
    if (ra == 0) == (rb == 0):
        return max(da, db, key=DTYPES.index)
    dim, zero = (da, db) if ra else (db, da)
    if category(zero) > category(dim):
        return zero
    return dim


def with_scalar(dt, scalar):
    """Result dtype of `tensor op python scalar`."""
    if "." in scalar or "float" in scalar or "e" in scalar:
        return dt if category(dt) == 2 else "float32"
    return "int64" if dt == "bool" else dt


class Var:
    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype

    @property
    def rank(self):
        return len(self.shape)


class Gen:
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
    def expr(self, pad):
        r = self.r
        kind = r.choices(
            ["unary", "binary", "scalar", "compare", "bitwise", "reduce", "view", "index", "mask",
             "where", "convert", "cat", "matmul", "softmax", "creation", "clamp", "cumulative", "sort"],
            [10, 12, 6, 4, 2, 8, 8, 5, 4, 4, 4, 3, 2, 2, 2, 2, 2, 1],
        )[0]
        a = self.pick()
        c = category(a.dtype)
        if kind == "unary":
            if c == 2 or r.random() < 0.4:
                op = r.choice(FLOAT_UNARY + INT_UNARY + PRED_UNARY) if c == 2 else r.choice(FLOAT_UNARY)
                dt = "bool" if op in PRED_UNARY else a.dtype if c == 2 else "float32"
                if op in ("abs", "neg", "sign", "square"):
                    dt = a.dtype
            elif c == 1:
                op = r.choice(INT_UNARY + ["isnan", "signbit", "bitwise_not"])
                dt = "bool" if op in ("isnan", "signbit") else a.dtype
            else:
                op = r.choice(["logical_not", "bitwise_not", "int", "float"])
                dt = {"int": "int32", "float": "float32"}.get(op, "bool")
            form = f"{a.name}.{op}()" if r.random() < 0.6 or op in ("int", "float") else f"torch.{op}({a.name})"
            return self.emit(pad, form, a.shape, dt)
        if kind == "binary":
            b = self.partner(a) or a
            shape = self.broadcast(a.shape, b.shape)
            dt = promote((a.dtype, a.rank), (b.dtype, b.rank))
            cd = category(dt)
            if cd == 2 and r.random() < 0.4:
                op = r.choice(FLOAT_BINARY + MINMAX + ["//", "%", "**"])
            elif r.random() < 0.2:
                op = r.choice(MINMAX)
            else:
                op = r.choice(ARITH if cd else ["*", "+"])
            if op == "/" or op in ("torch.atan2", "torch.hypot", "torch.copysign", "torch.xlogy"):
                dt = dt if cd == 2 else "float32"
            if cd == 0 and op == "+":
                op = "|"  # bool + bool is a logical or in PyTorch; spelled explicitly
            src = f"{op}({a.name}, {b.name})" if op.startswith("torch.") else f"{a.name} {op} {b.name}"
            return self.emit(pad, src, shape, dt)
        if kind == "scalar":
            s = self.scalar_for(a)
            dt = with_scalar(a.dtype, s)
            if category(dt) == 0:
                dt = "int64"
            op = r.choice(["+", "-", "*"] + (["/", "**"] if category(dt) == 2 else ["//", "%"]))
            if op in ("//", "%") and s in ("0", "-0.0"):
                s = "3"
            if op == "/":
                dt = dt if category(dt) == 2 else "float32"
            if op == "**" and s in ('float("nan")', 'float("inf")', "1e-3"):
                s = "2"
            if a.dtype == "bool" and op == "-":
                op = "+"
            src = f"{a.name} {op} {s}" if r.random() < 0.7 or op in ("//", "%", "**") else f"{s} {op} {a.name}"
            return self.emit(pad, src, a.shape, dt)
        if kind == "compare":
            b = self.partner(a) or a
            op = r.choice(COMPARE)
            other = b.name if r.random() < 0.7 else self.scalar_for(a)
            return self.emit(pad, f"{a.name} {op} {other}", self.broadcast(a.shape, b.shape) if other == b.name else a.shape, "bool")
        if kind == "bitwise":
            if c == 2:
                a = self.pick(lambda v: category(v.dtype) < 2)
                if a is None:
                    a = self.pick()
                    return self.emit(pad, f"{a.name} > 0", a.shape, "bool")
            b = self.partner(a)
            if b is None or category(b.dtype) == 2:
                b = a
            dt = promote((a.dtype, a.rank), (b.dtype, b.rank))
            return self.emit(pad, f"{a.name} {r.choice(BITWISE)} {b.name}", self.broadcast(a.shape, b.shape), dt)
        if kind == "reduce":
            return self.reduce(pad, a)
        if kind == "view":
            return self.view(pad, a)
        if kind == "index":
            return self.index(pad, a)
        if kind == "mask":
            m = self.pick(lambda v: v.dtype == "bool" and v.shape == a.shape)
            cond = m.name if m is not None and m is not a else f"{a.name} > {self.scalar_for(a)}"
            if r.random() < 0.5:
                return self.emit(pad, f"{a.name}[{cond}]", (self.sym(None),), a.dtype)
            fill = self.scalar_for(a) if c == 2 else "1"
            return self.emit(pad, f"{a.name}.masked_fill({cond}, {fill})", a.shape, a.dtype)
        if kind == "where":
            b = self.partner(a) or a
            shape = self.broadcast(a.shape, b.shape)
            cond = self.pick(lambda v: v.dtype == "bool" and self.broadcast(v.shape, shape) is not None)
            cond_src = cond.name if cond is not None else f"{a.name} > 0"
            cshape = cond.shape if cond is not None else a.shape
            if r.random() < 0.3:
                s = self.scalar_for(a)
                return self.emit(pad, f"torch.where({cond_src}, {a.name}, {s})", self.broadcast(a.shape, cshape), with_scalar(a.dtype, s))
            dt = promote((a.dtype, a.rank), (b.dtype, b.rank))
            return self.emit(pad, f"torch.where({cond_src}, {a.name}, {b.name})", self.broadcast(shape, cshape), dt)
        if kind == "convert":
            dt = r.choice(DTYPES)
            form = r.choice([f".to(torch.{dt})", {"bool": ".bool()", "int32": ".int()", "int64": ".long()", "float32": ".float()", "float64": ".double()"}[dt]])
            return self.emit(pad, f"{a.name}{form}", a.shape, dt)
        if kind == "cat" and a.rank:
            b = self.partner(a, same_shape=True)
            d = r.randrange(a.rank)
            dt = promote((a.dtype, a.rank), (b.dtype, b.rank))
            if r.random() < 0.5:
                shape = a.shape[:d] + (self.derived(a.shape[d], lambda x: 2 * x),) + a.shape[d + 1:]
                return self.emit(pad, f"torch.cat([{a.name}, {b.name}], dim={d})", shape, dt)
            return self.emit(pad, f"torch.stack([{a.name}, {b.name}], dim={d})", a.shape[:d] + (self.sym([2] * NCALLS),) + a.shape[d:], dt)
        if kind == "matmul" and a.rank >= 2 and c == 2:
            b = self.partner(a, same_shape=True)
            if b.dtype != a.dtype:
                b = a
            form = r.choice(["{a} @ {b}.transpose(-1, -2)", "torch.matmul({a}, {b}.mT)"])
            return self.emit(pad, form.format(a=a.name, b=b.name), a.shape[:-1] + (a.shape[-2],), a.dtype)
        if kind == "softmax" and a.rank and c == 2:
            fn = r.choice(["softmax", "log_softmax"])
            return self.emit(pad, f"{a.name}.{fn}({r.randrange(-a.rank, a.rank)})", a.shape, a.dtype)
        if kind == "creation":
            form, dt = r.choice([("torch.zeros_like({a})", a.dtype), ("torch.ones_like({a})", a.dtype),
                                 ("torch.full_like({a}, 7)", a.dtype), ("torch.zeros({a}.shape)", "float32"),
                                 ("{a}.new_ones({a}.shape)", a.dtype)])
            if a.dtype == "bool" and "full_like" in form:
                form = "torch.full_like({a}, True)"
            return self.emit(pad, form.format(a=a.name), a.shape, dt)
        if kind == "clamp" and c:
            lo = r.choice(["-1", "0", "-0.5"] if c == 2 else ["-1", "0"])
            if r.random() < 0.5:
                return self.emit(pad, f"{a.name}.clamp({lo}, 2)", a.shape, a.dtype)
            return self.emit(pad, f"torch.clamp({a.name}, min={lo})", a.shape, a.dtype)
        if kind == "cumulative" and a.rank:
            fn = r.choice(["cumsum", "cumprod"] if c else ["cumsum"])
            return self.emit(pad, f"{a.name}.{fn}({r.randrange(a.rank)})", a.shape, a.dtype if c else "int64")
        if kind == "sort" and a.rank and c:
            d = r.randrange(a.rank)
            if r.random() < 0.5:
                return self.emit(pad, f"torch.sort({a.name}, dim={d}, stable=True)[0]", a.shape, a.dtype)
            return self.emit(pad, f"{a.name}.flip({d})", a.shape, a.dtype)
        return self.emit(pad, f"{a.name} * 2", a.shape, "int64" if a.dtype == "bool" else a.dtype)

    def reduce(self, pad, a):
        r = self.r
        c = category(a.dtype)
        ops = ["sum", "prod", "amax", "amin", "any", "all", "count_nonzero", "argmax", "max"]
        if c == 2:
            ops += ["mean", "logsumexp", "std", "var", "norm", "nansum", "mean"]
        op = r.choice(ops)
        needs_data = op in ("amax", "amin", "argmax", "max")
        dims = [d for d in range(a.rank) if not needs_data or self.least(a.shape[d]) > 0]
        full = (r.random() < 0.3 or not dims) and op != "logsumexp"
        dt = {"any": "bool", "all": "bool", "count_nonzero": "int64", "argmax": "int64"}.get(op, a.dtype)
        if op in ("sum", "prod") and c < 2:
            dt = "int64"
        if full and op not in ("logsumexp",):
            if needs_data and not self.nonempty(a.shape):
                return self.emit(pad, f"{a.name}.sum()", (), "int64" if c < 2 else a.dtype)
            return self.emit(pad, f"{a.name}.{op}()", (), dt)
        if not dims:
            return self.emit(pad, f"{a.name}.sum()", (), "int64" if c < 2 else a.dtype)
        d = r.choice(dims)
        keep = r.random() < 0.4
        shape = tuple(1 if i == d else s for i, s in enumerate(a.shape)) if keep else a.shape[:d] + a.shape[d + 1:]
        if op == "max":
            part = r.choice(["[0]", ".values", ".indices"])
            return self.emit(pad, f"{a.name}.max(dim={d}, keepdim={keep}){part}", shape, "int64" if part == ".indices" else a.dtype)
        if op == "count_nonzero":
            return self.emit(pad, f"{a.name}.count_nonzero(dim={d})", a.shape[:d] + a.shape[d + 1:], dt)
        if op == "norm":
            return self.emit(pad, f"{a.name}.norm(dim={d}, keepdim={keep})", shape, dt)
        return self.emit(pad, f"{a.name}.{op}({d}, keepdim={keep})", shape, dt)

    def view(self, pad, a):
        r = self.r
        n = a.rank
        forms = ["unsqueeze", "flatten", "contiguous", "detach"]
        if n >= 2:
            forms += ["transpose", "permute", "mT", "movedim"]
        if n >= 1:
            forms += ["slice_step", "slice_from", "narrow", "reshape", "squeeze", "expand", "select"]
        f = r.choice(forms)
        if f == "unsqueeze":
            d = r.randrange(-n - 1, n + 1)
            pos = d if d >= 0 else n + 1 + d
            return self.emit(pad, f"{a.name}.unsqueeze({d})", a.shape[:pos] + (1,) + a.shape[pos:], a.dtype)
        if f == "flatten":
            return self.emit(pad, f"{a.name}.flatten()", (self.sym(self.numel(a.shape)),) if n != 1 else a.shape, a.dtype)
        if f in ("contiguous", "detach"):
            return self.emit(pad, f"{a.name}.{f}()", a.shape, a.dtype)
        if f == "transpose":
            i, j = r.sample(range(n), 2)
            s = list(a.shape)
            s[i], s[j] = s[j], s[i]
            return self.emit(pad, f"{a.name}.transpose({i}, {j})", s, a.dtype)
        if f == "permute":
            p = list(range(n))
            r.shuffle(p)
            return self.emit(pad, f"{a.name}.permute({', '.join(map(str, p))})", [a.shape[i] for i in p], a.dtype)
        if f == "mT":
            return self.emit(pad, f"{a.name}.mT", a.shape[:-2] + (a.shape[-1], a.shape[-2]), a.dtype)
        if f == "movedim":
            i, j = r.randrange(n), r.randrange(n)
            s = list(a.shape)
            s.insert(j, s.pop(i))
            return self.emit(pad, f"{a.name}.movedim({i}, {j})", s, a.dtype)
        d = r.randrange(n)
        s = list(a.shape)
        if f == "slice_step":
            s[d] = self.derived(s[d], lambda x: (x + 1) // 2)
            idx = ", ".join([":"] * d + ["::2"])
            return self.emit(pad, f"{a.name}[{idx}]", s, a.dtype)
        if f == "slice_from":
            s[d] = self.derived(s[d], lambda x: max(x - 1, 0))
            idx = ", ".join([":"] * d + ["1:"])
            return self.emit(pad, f"{a.name}[{idx}]", s, a.dtype)
        if f == "narrow" and self.least(s[d]) >= 1:
            s[d] = 1
            return self.emit(pad, f"{a.name}.narrow({d}, 0, 1)", s, a.dtype)
        if f == "squeeze" and s[d] == 1:
            return self.emit(pad, f"{a.name}.squeeze({d})", s[:d] + s[d + 1:], a.dtype)
        if f == "expand":
            b = self.pick(lambda v: self.broadcast(a.shape, v.shape) == v.shape and v.shape != a.shape)
            if b is not None:
                return self.emit(pad, f"{a.name}.expand_as({b.name})", b.shape, a.dtype)
        if f == "select" and self.least(s[0]) >= 1:
            return self.emit(pad, f"{a.name}[{r.choice(['0', '-1'])}]", s[1:], a.dtype)
        total = self.numel(s)
        if n >= 2 and total is not None and self.least(s[0]) > 0 and r.random() < 0.5:
            rest = self.sym([t // x for t, x in zip(total, self.vals(s[0]))])
            return self.emit(pad, f"{a.name}.reshape({a.name}.shape[0], -1)", (s[0], rest), a.dtype)
        return self.emit(pad, f"{a.name}.reshape(-1)", (self.sym(total),) if n != 1 else a.shape, a.dtype)

    def numel(self, shape):
        out = [1] * NCALLS
        for s in shape:
            v = self.vals(s)
            if v is None:
                return None
            out = [x * y for x, y in zip(out, v)]
        return out

    def index(self, pad, a):
        r = self.r
        if not a.rank:
            return self.emit(pad, f"{a.name}.reshape(1)", (1,), a.dtype)
        d = 0 if a.rank == 1 or r.random() < 0.6 else 1
        low = self.least(a.shape[d])
        if low == 0:
            return self.emit(pad, f"{a.name}.flip({d})", a.shape, a.dtype)
        k = r.randrange(1, 4)
        form = r.choice(["getitem", "index_select", "gather"])
        idx = [r.randrange(-low if form == "getitem" else 0, low) for _ in range(k)]
        it = f"torch.tensor({idx})"
        s = list(a.shape)
        s[d] = k if k == 1 else self.sym([k] * NCALLS)
        if form == "getitem":
            sub = it if d == 0 else f":, {it}"
            return self.emit(pad, f"{a.name}[{sub}]", s, a.dtype)
        if form == "index_select":
            return self.emit(pad, f"{a.name}.index_select({d}, {it})", s, a.dtype)
        keep = list(a.shape)
        keep[d] = 1
        if category(a.dtype) == 0 or not self.nonempty(a.shape):
            return self.emit(pad, f"{a.name}.index_select({d}, {it})", s, a.dtype)
        return self.emit(pad, f"{a.name}.gather({d}, {a.name}.argmax({d}, keepdim=True))", keep, a.dtype)

    # --- statements with effects -------------------------------------------------------------
    def inplace(self, pad):
        """Mutates an input, an intermediate, or a view of either; sometimes keeps the op's
        result (the mutated tensor itself, whose identity the runner checks)."""
        r = self.r
        a = self.pick()
        c = category(a.dtype)
        if r.random() < 0.4:
            self.emit(pad, f"{a.name}.clone()", a.shape, a.dtype)
            a = self.vars[-1]
        target, shape, is_view = a.name, a.shape, False
        if a.rank and r.random() < 0.3:
            if self.least(a.shape[0]) >= 1 and r.random() < 0.5:
                target, shape, is_view = f"{a.name}[0]", a.shape[1:], True
            elif a.rank >= 2:
                target, shape = f"{a.name}.transpose(0, 1)", (a.shape[1], a.shape[0]) + a.shape[2:]
                is_view = True
        b = self.pick(lambda v: self.broadcast(shape, v.shape) == tuple(shape) and category(v.dtype) <= c)
        same = b.name if b is not None and b.dtype == a.dtype else target
        s = self.scalar_for(a) if c == 2 else r.choice(["1", "2", "-1"]) if c else "True"
        methods = {"fill_": f"fill_({s})", "zero_": "zero_()"}
        if c:
            methods["masked_fill_"] = f"masked_fill_({target} > 0, {s})"
            methods.update({"add_": f"add_({s})", "mul_": f"mul_({s})", "sub_": f"sub_({s}, alpha=2)",
                            "clamp_": "clamp_(-1, 1)"})
            if b is not None:
                methods.update({"add_t": f"add_({b.name})", "copy_": f"copy_({b.name})", "mul_t": f"mul_({b.name})"})
        else:
            methods["masked_fill_"] = f"masked_fill_({target}, False)"
            methods["logical_not_"] = "logical_not_()"
        if c == 2:
            methods.update({"div_": f"div_({r.choice(['2', '-0.0', '3.5'])})", "abs_": "abs_()", "neg_": "neg_()",
                            "relu_": "relu_()", "sigmoid_": "sigmoid_()", "exp_": "clamp_(-5, 5).exp_()",
                            "lerp_": f"lerp_({same}, 0.25)", "addcmul_": f"addcmul_({same}, {target}, value=0.5)"})
        x = r.random()
        if x < 0.15:
            cond = f"{target} < 0" if c else f"~{target}"
            self.lines.append(f"{pad}{target}[{cond}] = {s}")
        elif x < 0.25 and c and shape and self.least(shape[-1]) >= 1:
            self.lines.append(f"{pad}{target}[..., 0] = {s}")
        elif x < 0.35 and not target.endswith(")"):
            other = b.name if b is not None and category(b.dtype) == c else s
            self.lines.append(f"{pad}{target} {'+=' if c else '|='} {other}")
        else:
            call = f"{target}.{methods[r.choice(sorted(methods))]}"
            if r.random() < 0.3:
                self.emit(pad, call, shape, a.dtype)
            else:
                self.lines.append(pad + call)

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
    inputs = []
    for i in range(r.randrange(1, 4)):
        shape = [1 if r.random() < 0.2 else s for s in base]
        if shape and r.random() < 0.2:
            shape = shape[1:]
        dtype = r.choices(DTYPES, [1, 1, 2, 8, 2])[0]
        special = r.random() < 0.5
        g.vars.append(Var(f"x{i}", shape, dtype))
        inputs.append({"dtype": dtype, "shape": shape, "special": special})
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
