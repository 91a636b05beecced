"""Cases of `dynamic_symint.py` (sizes read in traced Python: SymInt trackers), shared with
`_symint_record.py`, which runs them under real PyTorch (`python _symint_record.py >
dynamic_symint_pt.json`) to record the compile counts the test pins. Each case reads a size of
a dynamic dimension and uses it: arithmetic, op arguments, slicing, branches, or a use that
specialises it (a Python int, a size-dependent number of outputs)."""
import torch

MASK = torch.tril(torch.ones(16, 16))


def view_bt(x):
    B, T = x.size()
    return x.view(B * T).cumsum(0).view(B, T // 2, 2)


def computed_view(x):
    return x.view(x.size(0) * 2, 2).sum(1)


def arange_add(x):
    T = x.shape[0]
    return x + torch.arange(T).unsqueeze(1)


def mask_slice(x):
    T = x.size(0)
    return x * MASK[:T, :4] + MASK[:, :T].sum()


def branch_on_size(x):
    if x.shape[0] > 4:
        return x * 2
    return x + 1


def mean_by_numel(x):
    return x.sum() / x.numel()


def len_scale(x):
    return x * len(x)


def new_zeros_cat(x):
    z = x.new_zeros(x.size(0) - 1, x.size(1))
    return torch.cat([x, z], 0)


def half_slices(x):
    h = x.size(0) // 2
    return x[:h].sum(0) - x[-h:].sum(0) + x[h % 2]


def narrow_tail(x):
    return x.narrow(0, 1, x.size(0) - 1) * 3


def reshape_neg(x):
    n = x.size(1)
    return x.reshape(-1, n * 2)[: x.size(0) // 2]


def int_of_size(x):
    return x * int(x.size(0))


def split_pairs(x):
    return x.split(2)


def split_features(x):
    a, b = x.split(2, dim=1)
    return a * b.sum(0)


def expand_rows(x):
    B = x.shape[0]
    return x.sum(1, keepdim=True).expand(B, 4) + torch.ones(B, 1)


def functions():
    return {
        "view_bt": view_bt,
        "computed_view": computed_view,
        "arange_add": arange_add,
        "mask_slice": mask_slice,
        "branch_on_size": branch_on_size,
        "mean_by_numel": mean_by_numel,
        "len_scale": len_scale,
        "new_zeros_cat": new_zeros_cat,
        "half_slices": half_slices,
        "narrow_tail": narrow_tail,
        "reshape_neg": reshape_neg,
        "int_of_size": int_of_size,
        "split_pairs": split_pairs,
        "split_features": split_features,
        "expand_rows": expand_rows,
    }


# Row counts of successive calls (view_bt needs an even row count: it views rows as pairs).
SEQUENCES = {
    "grow": [4, 6, 8, 10, 12, 14],
    "mixed": [6, 10, 4, 8, 6, 12, 4],
}
MODES = {"auto": None, "true": True}


def run(fn, mode, seq, backend, compare):
    """Compiles `fn` with a counting backend in `mode`, calls it on `(n, 4)` inputs for each
    `n` of `seq`, `compare(label, eager, compiled)` on every result; the compile count."""
    import torch._dynamo
    from torch._dynamo.testing import CompileCounterWithBackend

    torch._dynamo.reset()
    cnt = CompileCounterWithBackend(backend)
    opt = torch.compile(fn, backend=cnt, dynamic=MODES[mode])
    gen = torch.Generator().manual_seed(1)
    for n in seq:
        x = torch.randn(n, 4, generator=gen)
        want, got = fn(x), opt(x)
        want = list(want) if isinstance(want, (tuple, list)) else [want]
        got = list(got) if isinstance(got, (tuple, list)) else [got]
        compare(f"{fn.__name__}/{mode}/n={n}", want, got)
    return cnt.frame_count
