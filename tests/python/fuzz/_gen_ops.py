"""The fuzzer's tensor-op statements (`_gen.py` builds programs from them): op tables by
family, PyTorch's dtype promotion as the generator tracks it, and the `TensorOps` methods that
emit one statement each: expressions of every op family, reductions, views, indexing, and in-place
updates of inputs, intermediates and views of either. Plain Python (no torch)."""


NCALLS = 3  # calls per program, each with its own sizes
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


class TensorOps:
    """Statement emitters, mixed into `_gen.Gen` (which provides the variables, shapes and
    `emit`)."""

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
