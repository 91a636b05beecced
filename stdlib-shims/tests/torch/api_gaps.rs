//! PyTorch APIs written in Python over registry ops (`torch/functional.py`, `torch/_refs*.py`):
//! aliases, shape helpers, data ops, searching and order statistics, and a compiled
//! function using them (captured whole, equal to eager). Expected outputs are PyTorch 2.x's
//! printed results, values checked against NumPy where it has the op.

use crate::harness::check;

/// Method forms and aliases: results equal the aliased op's; `moveaxis` is `movedim`.
#[test]
fn aliases_and_method_forms() {
    check(
        r#"
        x = torch.arange(6.).reshape(2, 3)
        print(x.allclose(x + 1e-9), x.allclose(x + 1e-3), x.isclose(torch.tensor([0., 1.1, 2.])), x.equal(x.clone()), x.equal(x[:1]))
        print(torch.concat([x, x]).shape, torch.concatenate((x, x), 1).shape)
        print(torch.swapaxes(x, 0, 1).shape, x.swapdims(1, 0).stride(), torch.zeros(2, 3, 4).swapaxes(0, 2).shape)
        print(torch.movedim(torch.zeros(2, 3, 4), 0, -1).shape, torch.zeros(2, 3, 4).moveaxis((0, 1), (2, 0)).shape)
        print(torch.movedim(x, 1, 0).equal(x.t()), torch.moveaxis is torch.movedim)
        print(torch.tensor([1, 2]).true_divide(torch.tensor([2, 4])), torch.true_divide(torch.tensor([3.]), 2))
        print(torch.deg2rad(torch.tensor([180, 90])), torch.tensor([3.141592653589793]).rad2deg())
        print(torch.argwhere(torch.tensor([[1, 0], [0, 2]])), torch.tensor([0., 3.]).argwhere())
        "#,
        r#"
        True False tensor([[ True, False,  True],
                [False, False, False]]) True False
        torch.Size([4, 3]) torch.Size([2, 6])
        torch.Size([3, 2]) (1, 3) torch.Size([4, 3, 2])
        torch.Size([3, 4, 2]) torch.Size([3, 4, 2])
        True True
        tensor([0.5000, 0.5000]) tensor([1.5000])
        tensor([3.1416, 1.5708]) tensor([180.])
        tensor([[0, 0],
                [1, 1]]) tensor([[1]])
        "#,
    );
}

/// Broadcasting, stacking, grids, splits, flips and rotations, diagonals and triangle indices.
#[test]
fn shape_helpers() {
    check(
        r#"
        print(torch.broadcast_to(torch.tensor([1, 2]), (2, 2)), torch.tensor([[1], [2]]).broadcast_to(2, 3).stride())
        a, b = torch.broadcast_tensors(torch.tensor([[1], [2]]), torch.tensor([3, 4, 5]))
        print(a, b)
        print(torch.atleast_1d(torch.tensor(1.)), torch.atleast_2d(torch.tensor([1, 2])).shape, torch.atleast_3d(torch.ones(2, 3)).shape)
        print([t.shape for t in torch.atleast_3d(torch.tensor(1), torch.ones(4))], type(torch.atleast_1d([torch.ones(2)])).__name__)
        print(torch.hstack([torch.tensor([1, 2]), torch.tensor([3])]), torch.hstack([torch.ones(2, 1), torch.zeros(2, 2)]))
        print(torch.vstack([torch.tensor([1, 2]), torch.tensor([3, 4])]), torch.row_stack([torch.tensor([5, 6])]))
        print(torch.dstack([torch.tensor([1, 2]), torch.tensor([3, 4])]), torch.column_stack([torch.tensor([1, 2]), torch.tensor([[3, 4], [5, 6]])]))
        gx, gy = torch.meshgrid(torch.tensor([1, 2, 3]), torch.tensor([4, 5]), indexing="xy")
        print(gx, gy)
        gx, gy = torch.meshgrid([torch.tensor([1, 2, 3]), torch.tensor([4, 5])], indexing="ij")
        print(gx.shape, gy)
        print(torch.tensor_split(torch.arange(7), 3), torch.arange(7).tensor_split([1, 5]))
        print(torch.tensor_split(torch.arange(6).reshape(2, 3), torch.tensor(2), dim=1))
        print(torch.hsplit(torch.arange(12).reshape(3, 4), 2)[1], torch.vsplit(torch.arange(12).reshape(4, 3), [1, 3]))
        print(torch.dsplit(torch.arange(8).reshape(1, 2, 4), 2)[0])
        m = torch.tensor([[1, 2], [3, 4]])
        print(torch.fliplr(m), torch.flipud(m))
        print(torch.rot90(m), m.rot90(2), torch.rot90(m, -1), torch.rot90(m, 1, [1, 0]))
        print(torch.take_along_dim(torch.tensor([[10, 30, 20], [60, 40, 50]]), torch.tensor([[0], [2]]), 1), m.take_along_dim(torch.tensor([3, 0])))
        print(torch.diag(torch.tensor([1, 2])), torch.diag(torch.tensor([1., 2.]), 1))
        print(torch.diag(torch.tensor([1, 2]), -1), torch.arange(9).reshape(3, 3).diag(1))
        print(torch.trace(torch.arange(9).reshape(3, 3)), torch.tensor([[1.5, 2.], [3., 4.]]).trace(), torch.trace(torch.ones(2, 2, dtype=torch.int32)).dtype)
        print(torch.tril_indices(3, 3), torch.triu_indices(2, 3, 1), torch.tril_indices(2, 3, -1, dtype=torch.int32))
        print(torch.meshgrid(torch.tensor([1, 2]), torch.tensor([3, 4, 5]))[0])  # no indexing: "ij" (PyTorch warns once)
        "#,
        r#"
        tensor([[1, 2],
                [1, 2]]) (1, 0)
        tensor([[1, 1, 1],
                [2, 2, 2]]) tensor([[3, 4, 5],
                [3, 4, 5]])
        tensor([1.]) torch.Size([1, 2]) torch.Size([2, 3, 1])
        [torch.Size([1, 1, 1]), torch.Size([1, 4, 1])] tuple
        tensor([1, 2, 3]) tensor([[1., 0., 0.],
                [1., 0., 0.]])
        tensor([[1, 2],
                [3, 4]]) tensor([[5, 6]])
        tensor([[[1, 3],
                 [2, 4]]]) tensor([[1, 3, 4],
                [2, 5, 6]])
        tensor([[1, 2, 3],
                [1, 2, 3]]) tensor([[4, 4, 4],
                [5, 5, 5]])
        torch.Size([3, 2]) tensor([[4, 5],
                [4, 5],
                [4, 5]])
        (tensor([0, 1, 2]), tensor([3, 4]), tensor([5, 6])) (tensor([0]), tensor([1, 2, 3, 4]), tensor([5, 6]))
        (tensor([[0, 1],
                [3, 4]]), tensor([[2],
                [5]]))
        tensor([[ 2,  3],
                [ 6,  7],
                [10, 11]]) (tensor([[0, 1, 2]]), tensor([[3, 4, 5],
                [6, 7, 8]]), tensor([[ 9, 10, 11]]))
        tensor([[[0, 1],
                 [4, 5]]])
        tensor([[2, 1],
                [4, 3]]) tensor([[3, 4],
                [1, 2]])
        tensor([[2, 4],
                [1, 3]]) tensor([[4, 3],
                [2, 1]]) tensor([[3, 1],
                [4, 2]]) tensor([[3, 1],
                [4, 2]])
        tensor([[10],
                [50]]) tensor([4, 1])
        tensor([[1, 0],
                [0, 2]]) tensor([[0., 1., 0.],
                [0., 0., 2.],
                [0., 0., 0.]])
        tensor([[0, 0, 0],
                [1, 0, 0],
                [0, 2, 0]]) tensor([1, 5])
        tensor(12) tensor(5.5000) torch.int64
        tensor([[0, 1, 1, 2, 2, 2],
                [0, 0, 1, 0, 1, 2]]) tensor([[0, 0, 1],
                [1, 2, 2]]) tensor([[1],
                [0]], dtype=torch.int32)
        tensor([[1, 1, 1],
                [2, 2, 2]])
        "#,
    );
}

/// Repeats, masked and indexed updates, differences, NaN-aware pointwise functions and reductions, products.
#[test]
fn data_ops() {
    check(
        r#"
        nan = float("nan"); inf = float("inf")
        print(torch.repeat_interleave(torch.tensor([1, 2]), 2), torch.tensor([[1, 2], [3, 4]]).repeat_interleave(torch.tensor([1, 2]), dim=0))
        print(torch.repeat_interleave(torch.tensor([2, 1])), torch.tensor([[1, 2]]).repeat_interleave(2, dim=1), torch.tensor([5]).repeat_interleave(torch.tensor(3)))
        print(torch.masked_select(torch.tensor([[1, 2], [3, 4]]), torch.tensor([True, False])), torch.tensor([1., 2.]).masked_select(torch.tensor([[False, True], [True, True]])))
        x = torch.ones(3, 2)
        print(x.index_add(0, torch.tensor([0, 2, 0]), torch.tensor([[1., 2.], [3., 4.], [5., 6.]]), alpha=2), x)
        y = torch.zeros(3, 2)
        print(y.index_add_(1, torch.tensor([1]), torch.ones(3, 1)) is y, y)
        print(torch.zeros(3, 2).index_copy(0, torch.tensor([2, 0]), torch.tensor([[1., 2.], [3., 4.]])))
        z = torch.zeros(2, 2, dtype=torch.int64)
        print(z.index_copy_(1, torch.tensor([1]), torch.tensor([[7], [8]])), z)
        print(torch.zeros(2, 3).index_fill(1, torch.tensor([0, 2]), -1.5), torch.zeros(2, 3).index_fill_(0, torch.tensor([1]), torch.tensor(7.)))
        print(torch.diff(torch.tensor([1, 3, 6, 10])), torch.diff(torch.tensor([1, 3, 6, 10]), n=2), torch.tensor([1, 3]).diff(n=3))
        print(torch.diff(torch.tensor([[1, 2], [4, 8]]), dim=0, prepend=torch.tensor([[0, 0]])), torch.diff(torch.tensor([True, False, False])))
        print(torch.diff(torch.tensor([1., 4.]), append=torch.tensor([0.])))
        print(torch.logaddexp(torch.tensor([0., 1000., -inf, inf]), torch.tensor([0., 1000., -inf, inf])), torch.logaddexp2(torch.tensor([1., 3.]), torch.tensor([1., 2.])))
        print(torch.heaviside(torch.tensor([-1.5, 0., 2.]), torch.tensor([0.5])), torch.tensor([0, -3]).heaviside(torch.tensor([9, 9])))
        print(torch.copysign(torch.tensor([1., -2., 3.]), torch.tensor([-0.0, 1., -1.])), torch.copysign(torch.tensor([1, 2]), -1))
        print(torch.fmax(torch.tensor([1., nan, 3., nan]), torch.tensor([2., 0., nan, nan])), torch.tensor([1., nan]).fmin(torch.tensor([2., 0.])), torch.fmax(torch.tensor([1, 5]), torch.tensor([3, 2])))
        print(torch.sgn(torch.tensor([-2., 0., 3.])), torch.signbit(torch.tensor([-0.0, 0.0, -1., 2.])), torch.tensor([-1, 0]).signbit())
        print(torch.xlogy(torch.tensor([0., 2., 0.]), torch.tensor([0., 3., nan])), torch.xlogy(torch.tensor([1, 2]), 4))
        print(torch.float_power(torch.tensor([2, 3]), 2), torch.tensor([4.]).float_power(torch.tensor([0.5])).dtype)
        print(torch.sinc(torch.tensor([0., 0.5, 1.])), torch.tensor([0, 2]).sinc())
        print(torch.nansum(torch.tensor([1., nan, 2.])), torch.tensor([[1., nan], [3., 5.]]).nanmean(dim=1), torch.nansum(torch.tensor([[1, 2], [3, 4]]), 0))
        print(torch.std_mean(torch.tensor([1., 2., 3., 4.])), torch.var_mean(torch.tensor([[1., 2.], [3., 5.]]), dim=1, correction=0))
        print(torch.var_mean(torch.tensor([1., 2., 3., 4.]), False))
        print(torch.aminmax(torch.tensor([[3, 1], [2, 5]])))
        print(torch.tensor([[3., 1.], [2., 5.]]).aminmax(dim=0, keepdim=True).max)
        print(torch.kron(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[0, 1], [1, 0]])), torch.kron(torch.tensor([1., 2.]), torch.ones(2, 2)).shape)
        print(torch.inner(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([1., 1.])), torch.tensor([1, 2]).inner(torch.tensor([[3, 4], [5, 6], [7, 8]])))
        print(torch.cross(torch.tensor([[1., 0., 0.], [0., 1., 0.]]), torch.tensor([[0., 1., 0.], [0., 0., 1.]]), dim=1))
        print(torch.tensor([[1], [2], [3]]).cross(torch.tensor([[4], [5], [6]])))
        print(torch.logspace(0, 2, 3), torch.logspace(0, 3, 4, base=2), torch.logspace(-1, 1, 3, dtype=torch.float64))
        "#,
        r#"
        tensor([1, 1, 2, 2]) tensor([[1, 2],
                [3, 4],
                [3, 4]])
        tensor([0, 0, 1]) tensor([[1, 1, 2, 2]]) tensor([5, 5, 5])
        tensor([1, 3]) tensor([2., 1., 2.])
        tensor([[13., 17.],
                [ 1.,  1.],
                [ 7.,  9.]]) tensor([[1., 1.],
                [1., 1.],
                [1., 1.]])
        True tensor([[0., 1.],
                [0., 1.],
                [0., 1.]])
        tensor([[3., 4.],
                [0., 0.],
                [1., 2.]])
        tensor([[0, 7],
                [0, 8]]) tensor([[0, 7],
                [0, 8]])
        tensor([[-1.5000,  0.0000, -1.5000],
                [-1.5000,  0.0000, -1.5000]]) tensor([[0., 0., 0.],
                [7., 7., 7.]])
        tensor([2, 3, 4]) tensor([1, 1]) tensor([], dtype=torch.int64)
        tensor([[1, 2],
                [3, 6]]) tensor([ True, False])
        tensor([ 3., -4.])
        tensor([6.9315e-01, 1.0007e+03,       -inf,        inf]) tensor([2.0000, 3.5850])
        tensor([0.0000, 0.5000, 1.0000]) tensor([9, 0])
        tensor([-1.,  2., -3.]) tensor([-1., -2.])
        tensor([2., 0., 3., nan]) tensor([1., 0.]) tensor([3, 5])
        tensor([-1.,  0.,  1.]) tensor([ True, False,  True, False]) tensor([ True, False])
        tensor([0.0000, 2.1972,    nan]) tensor([1.3863, 2.7726])
        tensor([4., 9.], dtype=torch.float64) torch.float64
        tensor([ 1.0000e+00,  6.3662e-01, -2.7828e-08]) tensor([1.0000e+00, 2.7828e-08])
        tensor(3.) tensor([1., 4.]) tensor([4, 6])
        (tensor(1.2910), tensor(2.5000)) (tensor([0.2500, 1.0000]), tensor([1.5000, 4.0000]))
        (tensor(1.2500), tensor(2.5000))
        torch.return_types.aminmax(
        min=tensor(1),
        max=tensor(5))
        tensor([[3., 5.]])
        tensor([[0, 1, 0, 2],
                [1, 0, 2, 0],
                [0, 3, 0, 4],
                [3, 0, 4, 0]]) torch.Size([2, 4])
        tensor([3., 7.]) tensor([11, 17, 23])
        tensor([[0., 0., 1.],
                [1., 0., 0.]])
        tensor([[-3],
                [ 6],
                [-3]])
        tensor([  1.,  10., 100.]) tensor([1., 2., 4., 8.]) tensor([ 0.1000,  1.0000, 10.0000], dtype=torch.float64)
        "#,
    );
}

/// `searchsorted`/`bucketize` (NaN lands at the end), counting, `unique`, lower medians, `kthvalue`.
#[test]
fn search_count_and_order_statistics() {
    check(
        r#"
        nan = float("nan")
        s = torch.tensor([1, 3, 5, 7, 9])
        print(torch.searchsorted(s, torch.tensor([3, 6, 9])), torch.searchsorted(s, torch.tensor([3, 6, 9]), right=True), torch.searchsorted(s, 5, side="right"))
        print(torch.searchsorted(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([[2.], [nan]])), torch.searchsorted(s, torch.tensor([4]), out_int32=True))
        print(torch.searchsorted(torch.tensor([5, 1, 3]), torch.tensor([2, 4]), sorter=torch.tensor([1, 2, 0])))
        print(torch.bucketize(torch.tensor([[2, 5], [10, 0]]), s), torch.bucketize(torch.tensor([5]), s, right=True))
        print(torch.bincount(torch.tensor([1, 1, 3])), torch.tensor([0, 2]).bincount(torch.tensor([0.5, 1.5]), minlength=4), torch.bincount(torch.tensor([0, 2]), weights=torch.tensor([1, 2])))
        print(torch.bincount(torch.tensor([], dtype=torch.int64)), torch.bincount(torch.tensor([], dtype=torch.int64), minlength=2))
        print(torch.unique(torch.tensor([3, 1, 2, 3, 1])), torch.unique(torch.tensor([[3, 1], [3, 2]]), return_inverse=True, return_counts=True))
        print(torch.tensor([2., 2., 1.]).unique(return_counts=True), torch.unique(torch.tensor([True, False, True]), return_inverse=True))
        print(torch.median(torch.tensor([4., 1., 3., 2.])), torch.tensor([[5, 2], [1, 9]]).median(), torch.median(torch.tensor([1., nan, 0.])))
        print(torch.median(torch.tensor([[4., 1., 3.], [nan, 0., 2.]]), dim=1))
        print(torch.tensor([[4, 1], [3, 2]]).median(0, keepdim=True))
        print(torch.kthvalue(torch.tensor([[5, 2, 8], [1, 9, 4]]), 2, dim=1, keepdim=True))
        print(torch.tensor([3., 1., nan, 2.]).kthvalue(4), torch.kthvalue(torch.tensor([3., 1., 2.]), 1).indices)
        "#,
        r#"
        tensor([1, 3, 4]) tensor([2, 3, 5]) tensor(3)
        tensor([[1],
                [2]]) tensor([2], dtype=torch.int32)
        tensor([1, 2])
        tensor([[1, 2],
                [5, 0]]) tensor([3])
        tensor([0, 2, 0, 1]) tensor([0.5000, 0.0000, 1.5000, 0.0000]) tensor([1., 0., 2.], dtype=torch.float64)
        tensor([], dtype=torch.int64) tensor([0, 0])
        tensor([1, 2, 3]) (tensor([1, 2, 3]), tensor([[2, 0],
                [2, 1]]), tensor([1, 1, 2]))
        (tensor([1., 2.]), tensor([1, 2])) (tensor([False,  True]), tensor([1, 0, 1]))
        tensor(2.) tensor(2) tensor(nan)
        torch.return_types.median(
        values=tensor([3., nan]),
        indices=tensor([2, 0]))
        torch.return_types.median(
        values=tensor([[3, 1]]),
        indices=tensor([[1, 0]]))
        torch.return_types.kthvalue(
        values=tensor([[5],
                [4]]),
        indices=tensor([[0],
                [2]]))
        torch.return_types.kthvalue(
        values=tensor(nan),
        indices=tensor(2)) tensor(1)
        "#,
    );
}

/// A compiled function using the new APIs is one graph (Dynamo inlines the Python decompositions and their Tensor methods) and returns eager's results; data-dependent ones graph-break and still agree.
#[test]
fn compiled_matches_eager() {
    check(
        r#"
        import torch._dynamo.testing
        def f(x, y, idx):
            a = torch.movedim(x, 0, -1).swapaxes(0, 1) + x.true_divide(2)
            b = torch.hstack([x.flatten(), y]) + torch.diag(y).sum() + torch.deg2rad(y).sum()
            c = torch.logaddexp(x, x * 2).fmax(x) + torch.xlogy(x, x.abs() + 1) + x.copysign(-y)
            d = torch.kron(x, x[:1]) + torch.vstack([x, x]).sum()
            e = x.index_add(0, idx, x[:2], alpha=3).diff(dim=1) + x.index_fill(1, idx, 0.5)[:, :2]
            g = torch.meshgrid(y, y, indexing="xy")[1] * torch.rot90(torch.atleast_2d(y).T @ y[None], 1)
            h = x.take_along_dim(idx[:, None].expand(2, 3), 1) + torch.cross(x[:1].expand(3, 3), x[1:].expand(3, 3), dim=1).sum()
            i = torch.searchsorted(y.sort()[0], x) + torch.bucketize(x, torch.tensor([0., 2.]))
            return a, b, c, d, e, g, h, i, torch.std_mean(x, 1), x.aminmax(dim=1), x.median(1), torch.kthvalue(x, 2), torch.inner(x, x), x.repeat_interleave(2, dim=0), torch.tensor_split(x, 2, dim=1)
        x = torch.tensor([[1., -2., 3.], [0.5, 4., -1.]]); y = torch.tensor([3., 1., 2.]); idx = torch.tensor([1, 0])
        def same(a, b):
            if isinstance(a, tuple):
                return type(a) is type(b) and len(a) == len(b) and all(same(p, q) for p, q in zip(a, b))
            return a.dtype == b.dtype and a.shape == b.shape and bool(torch.equal(a, b))
        cnt = torch._dynamo.testing.CompileCounter()
        eager = f(x, y, idx)
        print(same(eager, torch.compile(f, backend=cnt)(x, y, idx)), cnt.frame_count)
        print(same(eager, torch.compile(f)(x, y, idx)), same(eager, torch.compile(f)(x, y, idx)))
        print(type(torch.compile(f)(x, y, idx)[-5]).__name__)
        def g(x, m):
            return torch.masked_select(x, m) * 2, torch.unique(x, return_counts=True), torch.bincount(m.long().flatten())
        m = x > 0
        cnt2 = torch._dynamo.testing.CompileCounter()
        print(same(g(x, m), torch.compile(g, backend=cnt2)(x, m)), same(g(x, m), torch.compile(g)(x, m)))
        "#,
        r#"
        True 1
        True True
        median
        True True
        "#,
    );
}

/// `searchsorted` merges boundaries and values with one sort (linear memory): checked against
/// brute-force counts on random data with many ties, batched boundaries and mixed dtypes.
#[test]
fn searchsorted_matches_brute_force_counts() {
    check(
        "
        torch.manual_seed(0)
        s = torch.randint(0, 20, (50,)).sort()[0]
        v = torch.randint(-2, 22, (7, 9))
        lt, le = (s < v.unsqueeze(-1)).sum(-1), (s <= v.unsqueeze(-1)).sum(-1)
        print(torch.equal(torch.searchsorted(s, v), lt), torch.equal(torch.searchsorted(s, v, right=True), le))
        S = torch.randn(4, 30).sort(-1)[0]
        V = torch.cat([torch.randn(4, 11), S[:, 3:5]], -1)
        lt, le = (S.unsqueeze(-2) < V.unsqueeze(-1)).sum(-1), (S.unsqueeze(-2) <= V.unsqueeze(-1)).sum(-1)
        print(torch.equal(torch.searchsorted(S, V), lt), torch.equal(torch.searchsorted(S, V, side='right'), le))
        f = torch.tensor([0.5, 1.0, 1.0, 2.5])
        print(torch.searchsorted(f, torch.tensor([1, 2, 3])), torch.searchsorted(f, torch.tensor([1, 2, 3]), right=True))
        print(torch.searchsorted(torch.tensor([], dtype=torch.int64), torch.tensor([1, 2])), torch.searchsorted(s, torch.tensor([], dtype=torch.int64)))
        ",
        "
        True True
        True True
        tensor([1, 3, 4]) tensor([3, 3, 4])
        tensor([0, 0]) tensor([], dtype=torch.int64)
        ",
    );
}

/// Tensor `repeats` with zeros (empty slices) and an all-zero count.
#[test]
fn repeat_interleave_with_zero_counts() {
    check(
        "
        print(torch.tensor([7, 8, 9]).repeat_interleave(torch.tensor([0, 3, 1])))
        print(torch.tensor([[1., 2.], [3., 4.]]).repeat_interleave(torch.tensor([0, 2], dtype=torch.int32), dim=1))
        print(torch.tensor([7, 8]).repeat_interleave(torch.tensor([0, 0])), torch.repeat_interleave(torch.tensor([0, 2, 1])))
        ",
        "
        tensor([8, 8, 8, 9])
        tensor([[2., 2.],
                [4., 4.]])
        tensor([], dtype=torch.int64) tensor([1, 1, 2])
        ",
    );
}
