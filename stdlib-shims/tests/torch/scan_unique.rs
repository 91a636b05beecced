//! `cummax`/`cummin` (named tuples, ties, NaN, dtypes), `logcumsumexp`, and `unique` /
//! `unique_consecutive` with and without `dim`, against hand-checked PyTorch outputs.

use crate::harness::{check, check_err};

#[test]
fn cummax_cummin_named_tuples() {
    check(
        r#"
        nan = float("nan")
        x = torch.tensor([[1., 3., 2.], [0., 5., 5.]])
        r = torch.cummax(x, 1)
        print(r)
        print(type(r).__name__, type(r).__module__, r.n_fields, r[1] is r.indices)
        m = x.cummin(0)
        print(m.values, m.indices)
        print(torch.cummax(torch.tensor([1., nan, 3., nan, 0.]), 0))
        print(torch.tensor([2, -1, 2, 5]).cummax(0).indices, torch.tensor([2, -1, 2, 5]).cummin(dim=0).values)
        print(torch.cummin(torch.tensor([False, True, False]), -1))
        print(torch.cummax(torch.tensor(2.5), 0), torch.cummin(torch.zeros(0, 2), 1).indices.shape)
        "#,
        r#"
        torch.return_types.cummax(
        values=tensor([[1., 3., 3.],
                [0., 5., 5.]]),
        indices=tensor([[0, 1, 1],
                [0, 1, 2]]))
        cummax torch.return_types 2 True
        tensor([[1., 3., 2.],
                [0., 3., 2.]]) tensor([[0, 0, 0],
                [1, 0, 0]])
        torch.return_types.cummax(
        values=tensor([1., nan, nan, nan, nan]),
        indices=tensor([0, 1, 1, 3, 3]))
        tensor([0, 0, 2, 3]) tensor([ 2, -1, -1, -1])
        torch.return_types.cummin(
        values=tensor([False, False, False]),
        indices=tensor([0, 0, 2]))
        torch.return_types.cummax(
        values=tensor(2.5000),
        indices=tensor(0)) torch.Size([0, 2])
        "#,
    );
    check_err(
        "torch.cummax(torch.tensor([1., 2.]), 1)",
        "IndexError",
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
    );
}

#[test]
fn logcumsumexp_values_and_errors() {
    check(
        r#"
        inf = float("inf")
        print(torch.logcumsumexp(torch.tensor([0., 0., 0.]), 0))
        print(torch.tensor([1000., 1000.]).logcumsumexp(0), torch.tensor([-inf, -inf, 1.]).logcumsumexp(-1))
        print(torch.logcumsumexp(torch.tensor([[0., 1.], [2., 3.]], dtype=torch.float64), dim=1))
        "#,
        r#"
        tensor([0.0000, 0.6931, 1.0986])
        tensor([1000.0000, 1000.6932]) tensor([-inf, -inf, 1.])
        tensor([[0.0000, 1.3133],
                [2.0000, 3.3133]], dtype=torch.float64)
        "#,
    );
    check_err(
        "torch.logcumsumexp(torch.tensor([1, 2]), 0)",
        "NotImplementedError",
        "\"logcumsumexp_out_cpu\" not implemented for 'Long'",
    );
}

#[test]
fn unique_along_a_dim() {
    check(
        r#"
        x = torch.tensor([[1, 2], [0, 5], [1, 2], [0, 3]])
        print(torch.unique(x, dim=0))
        print(torch.unique(x, dim=0, return_inverse=True, return_counts=True))
        print(torch.tensor([[2, 1, 2], [4, 3, 4]]).unique(dim=1, return_inverse=True))
        print(torch.unique(torch.tensor([[1, 2, 3], [1, 2, 1], [0, 9, 9], [1, 2, 3]]), dim=-2, return_counts=True))
        t = torch.tensor([[[1, 0], [1, 0]], [[0, 2], [0, 2]]])
        print(torch.unique(t, dim=2))
        print(torch.unique(torch.tensor([[True, False], [True, False]]), dim=1, sorted=False))
        print(torch.unique(torch.zeros(0, 3), dim=0, return_inverse=True, return_counts=True))
        "#,
        r#"
        tensor([[0, 3],
                [0, 5],
                [1, 2]])
        (tensor([[0, 3],
                [0, 5],
                [1, 2]]), tensor([2, 1, 2, 0]), tensor([1, 1, 2]))
        (tensor([[1, 2],
                [3, 4]]), tensor([1, 0, 1]))
        (tensor([[0, 9, 9],
                [1, 2, 1],
                [1, 2, 3]]), tensor([1, 1, 2]))
        tensor([[[0, 1],
                 [0, 1]],

                [[2, 0],
                 [2, 0]]])
        tensor([[False,  True],
                [False,  True]])
        (tensor([], size=(0, 3)), tensor([], dtype=torch.int64), tensor([], dtype=torch.int64))
        "#,
    );
}

/// Slices of many elements (prefix doubling over 37 columns, an odd count at several rounds) and
/// many slices, checked against Python sets of tuples.
#[test]
fn unique_dim_matches_sets_of_tuples() {
    check(
        r#"
        a = (torch.arange(5 * 37).reshape(5, 37) * 7919 % 11) % 3
        x = torch.cat([a, a[[3, 0]], a[[3]]])
        u, inv, cnt = torch.unique(x, dim=0, return_inverse=True, return_counts=True)
        rows = sorted(set(tuple(r) for r in x.tolist()))
        print(u.tolist() == [list(r) for r in rows], torch.equal(u[inv], x), cnt.tolist() == [x.tolist().count(list(r)) for r in rows])
        y = (torch.arange(3 * 300).reshape(3, 300) * 31 % 7) % 2
        u, inv = torch.unique(y, dim=1, return_inverse=True)
        cols = sorted(set(tuple(c) for c in y.t().tolist()))
        print(u.t().tolist() == [list(c) for c in cols], torch.equal(u.index_select(1, inv), y), u.shape)
        "#,
        "
        True True True
        True True torch.Size([3, 5])
        ",
    );
}

#[test]
fn unique_dim_errors() {
    check_err(
        "torch.unique(torch.zeros(0, 3), dim=1)",
        "RuntimeError",
        "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied",
    );
    check_err(
        "torch.unique(torch.zeros(0, 0), dim=0)",
        "RuntimeError",
        "Number of zero sized dimensions is more than one, so unique cannot be applied ",
    );
    check_err(
        "torch.unique(torch.tensor(1), dim=0)",
        "IndexError",
        "dimension specified as 0 but tensor has no dimensions",
    );
    check_err(
        "torch.unique(torch.ones(2, 2), dim=2)",
        "IndexError",
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
    );
    check_err(
        "torch.unique_consecutive(torch.zeros(2, 0), dim=0)",
        "RuntimeError",
        "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied",
    );
}

#[test]
fn unique_consecutive_with_and_without_dim() {
    check(
        r#"
        nan = float("nan")
        x = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])
        print(torch.unique_consecutive(x))
        print(torch.unique_consecutive(x, return_inverse=True))
        print(torch.unique_consecutive(x, return_counts=True))
        print(torch.tensor([[1, 1], [1, 2]]).unique_consecutive(return_inverse=True))
        print(torch.unique_consecutive(torch.tensor([[1, 2], [1, 2], [3, 4], [1, 2]]), dim=0, return_counts=True))
        print(torch.tensor([[1, 1, 2], [3, 3, 3]]).unique_consecutive(dim=1, return_inverse=True))
        print(torch.unique_consecutive(torch.tensor([nan, nan, 1.])), torch.unique_consecutive(x, dim=0, return_counts=True)[1])
        print(torch.unique_consecutive(torch.tensor(5), return_inverse=True, return_counts=True))
        print(torch.unique_consecutive(torch.tensor([]), return_counts=True))
        "#,
        r#"
        tensor([1, 2, 3, 1, 2])
        (tensor([1, 2, 3, 1, 2]), tensor([0, 0, 1, 1, 2, 3, 3, 4]))
        (tensor([1, 2, 3, 1, 2]), tensor([2, 2, 1, 2, 1]))
        (tensor([1, 2]), tensor([[0, 0],
                [0, 1]]))
        (tensor([[1, 2],
                [3, 4],
                [1, 2]]), tensor([2, 1, 1]))
        (tensor([[1, 2],
                [3, 3]]), tensor([0, 0, 1]))
        tensor([nan, nan, 1.]) tensor([2, 2, 1, 2, 1])
        (tensor([5]), tensor(0), tensor([1]))
        (tensor([]), tensor([], dtype=torch.int64))
        "#,
    );
}
