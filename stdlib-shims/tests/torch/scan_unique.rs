//! `cummax`/`cummin` (named tuples, ties, NaN, dtypes) and `logcumsumexp`, against hand-checked
//! PyTorch outputs.

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
        "RuntimeError",
        "\"logcumsumexp_out_cpu\" not implemented for 'Long'",
    );
}
