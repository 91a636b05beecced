//! Eager behaviours a bug hunt found differing from PyTorch 2.x: assignment of batch-of-one values,
//! zero-dim tensors as sizes, integer powers, index lists, `torch.tensor` inference, and the
//! one-index-tensor-per-dim forms of `where`/`nonzero`.

use crate::harness::{Py, check, check_err};

#[test]
fn setitem_drops_leading_unit_dims_of_the_value() {
    check(
        "
        y = torch.zeros(3)
        y[0] = torch.tensor([5.])
        print(y)
        z = torch.zeros(2, 3)
        z[0] = torch.ones(1, 1, 3)
        print(z)
        w = torch.zeros(2, 3)
        w[[0, 1]] = torch.arange(6.).reshape(1, 2, 3)
        print(w)
        x = torch.tensor([[1., 2.], [3., 4.]])
        out = torch.zeros(2, 2)
        for i in range(2):
            out[i] = x[i:i + 1] * 2
        print(out)
        ",
        "
        tensor([5., 0., 0.])
        tensor([[1., 1., 1.],
                [0., 0., 0.]])
        tensor([[0., 1., 2.],
                [3., 4., 5.]])
        tensor([[2., 4.],
                [6., 8.]])
        ",
    );
    // Only leading ones go; what is left must still broadcast.
    check_err(
        "w = torch.zeros(2, 3)\nw[[0, 1]] = torch.ones(1, 3, 3)",
        "RuntimeError",
        "shape mismatch: value tensor of shape [3, 3] cannot be broadcast to indexing result of shape [2, 3]",
    );
    let (ty, _) = Py::new().err("w = torch.zeros(2, 3)\nw[0] = torch.ones(1, 2, 1)");
    assert_eq!(ty, "RuntimeError");
    // `index_put_` does not strip (PyTorch neither).
    let (ty, _) =
        Py::new().err("torch.zeros(3).index_put_((torch.tensor([0]),), torch.ones(1, 1))");
    assert_eq!(ty, "RuntimeError");
}

#[test]
fn zero_dim_int_tensors_count_as_sizes() {
    check(
        "
        x = torch.arange(6)
        n = torch.tensor(2)
        print(x.view(n, -1).shape, x.reshape(2, torch.tensor(3)).shape)
        print(torch.zeros(n, 3).shape, torch.randn(torch.tensor(2), 2).shape, torch.zeros(n).shape)
        print(torch.ones(2, 3).permute(1, torch.tensor(0)).shape)
        print(torch.full((n,), 1.), torch.full((n, torch.tensor(1)), 1.).shape)
        ",
        "
        torch.Size([2, 3]) torch.Size([2, 3])
        torch.Size([2, 3]) torch.Size([2, 2]) torch.Size([2])
        torch.Size([3, 2])
        tensor([1., 1.]) torch.Size([2, 1])
        ",
    );
    // A float tensor is no size.
    let (ty, _) = Py::new().err("torch.zeros(torch.tensor(2.), 3)");
    assert_eq!(ty, "TypeError");
}

#[test]
fn integer_pow_with_negative_tensor_exponents() {
    check(
        "
        print(torch.pow(torch.tensor([2, -1, 1]), torch.tensor([-2, -3, -5])))
        print(2 ** torch.tensor([-1, 2]), torch.tensor([-1, 3]) ** torch.tensor(-2))
        a = torch.tensor([2, 3])
        a **= torch.tensor([-1, 1])
        print(a)
        ",
        "
        tensor([ 0, -1,  1])
        tensor([0, 4]) tensor([1, 0])
        tensor([0, 3])
        ",
    );
    check_err(
        "torch.tensor([2]) ** -1",
        "RuntimeError",
        "Integers to negative integer powers are not allowed.",
    );
}

#[test]
fn index_lists_are_int64_even_when_empty() {
    check(
        "
        print(torch.zeros(3, 4)[[]])
        print(torch.arange(12).reshape(3, 4)[[]], torch.arange(3)[[2, 0]])
        x = torch.zeros(3)
        x[[]] = 1.
        print(x)
        ",
        "
        tensor([], size=(0, 4))
        tensor([], size=(0, 4), dtype=torch.int64) tensor([2, 0])
        tensor([0., 0., 0.])
        ",
    );
}

#[test]
fn tensor_infers_the_dtype_of_tensor_elements() {
    check(
        "
        T = torch.tensor
        print(T([T(1, dtype=torch.int32)]).dtype, T([T(1, dtype=torch.int32), 2]).dtype)
        print(T([T(1., dtype=torch.float64), 2]))
        print(T([T(1, dtype=torch.int32), 2.5]).dtype, T([T(2., dtype=torch.float16), 1]).dtype)
        print(T([T(1, dtype=torch.uint8), T(1, dtype=torch.int8)]).dtype, T([[T(True)], [1]]).dtype)
        print(T([T(True), False]).dtype, T([]).dtype, T([[], []]).dtype)
        ",
        "
        torch.int32 torch.int64
        tensor([1., 2.], dtype=torch.float64)
        torch.float32 torch.float16
        torch.int16 torch.int64
        torch.bool torch.float32 torch.float32
        ",
    );
}

#[test]
fn tensor_accepts_any_sequence() {
    check(
        "
        print(torch.tensor(range(3)))
        print(torch.tensor([range(2), (5, 6)]))
        print(torch.tensor(torch.Size([2, 3])), torch.tensor(range(0)))
        ",
        "
        tensor([0, 1, 2])
        tensor([[0, 1],
                [5, 6]])
        tensor([2, 3]) tensor([])
        ",
    );
    check_err(
        "torch.tensor(x for x in range(3))",
        "RuntimeError",
        "Could not infer dtype of generator",
    );
    check_err(
        "torch.tensor([1, None])",
        "RuntimeError",
        "Could not infer dtype of NoneType",
    );
    check_err(
        "torch.tensor(['a'])",
        "TypeError",
        "new(): invalid data type 'str'",
    );
}

#[test]
fn where_and_nonzero_give_one_index_tensor_per_dim() {
    check(
        "
        c = torch.tensor([[True, False], [False, True]])
        print(torch.where(c))
        print(torch.tensor([0, 3, 0, 5]).nonzero(as_tuple=True), torch.nonzero(c, as_tuple=False))
        print(torch.where(torch.tensor(3.)), torch.where(torch.tensor(0)))
        print(torch.nonzero(torch.zeros(2, 0, 3), as_tuple=True))
        print(torch.where(c, 1., 0.))
        ",
        "
        (tensor([0, 1]), tensor([0, 1]))
        (tensor([1, 3]),) tensor([[0, 0],
                [1, 1]])
        (tensor([0]),) (tensor([], dtype=torch.int64),)
        (tensor([], dtype=torch.int64), tensor([], dtype=torch.int64), tensor([], dtype=torch.int64))
        tensor([[1., 0.],
                [0., 1.]])
        ",
    );
}

#[test]
fn clone_and_like_factories_preserve_the_memory_order() {
    check(
        "
        a = torch.ones(2, 3).t()
        print(a.clone().stride(), a.clone().is_contiguous(), torch.empty_like(a).stride())
        print(torch.zeros_like(a).stride(), torch.ones_like(a).stride(), torch.full_like(a, 2.).stride())
        print(torch.rand_like(a).stride(), torch.randn_like(a).stride(), torch.zeros_like(a, dtype=torch.int64).stride())
        c = torch.arange(12.).reshape(3, 4).t().clone()
        print(c, c.stride())
        print(torch.ones(4, 6)[:, ::2].t().clone().stride(), torch.ones(3).expand(2, 3).clone().stride())
        print(torch.ones(3, 4)[::2].clone().stride(), a.contiguous().stride(), c.reshape(-1))
        ",
        "
        (1, 3) False (1, 3)
        (1, 3) (1, 3) (1, 3)
        (1, 3) (1, 3) (1, 3)
        tensor([[ 0.,  4.,  8.],
                [ 1.,  5.,  9.],
                [ 2.,  6., 10.],
                [ 3.,  7., 11.]]) (1, 4)
        (1, 3) (3, 1)
        (4, 1) (2, 1) tensor([ 0.,  4.,  8.,  1.,  5.,  9.,  2.,  6., 10.,  3.,  7., 11.])
        ",
    );
    // As in PyTorch, the transposed copy is no `view`-able row-major block.
    let (ty, _) = Py::new().err("torch.ones(2, 3).t().clone().view(-1)");
    assert_eq!(ty, "RuntimeError");
}

#[test]
fn size_and_stride_take_dim_by_keyword() {
    check(
        "
        x = torch.zeros(2, 3)
        print(x.size(dim=1), x.size(-1), x.stride(dim=0), x.t().stride(dim=-1), x.size(dim=None))
        ",
        "
        3 3 3 3 torch.Size([2, 3])
        ",
    );
    check_err(
        "torch.zeros(2).size(dim=1)",
        "IndexError",
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
    );
}

#[test]
fn no_op_contiguous_and_to_return_the_input_itself() {
    check(
        "
        x = torch.ones(2, 3)
        print(x.contiguous() is x, x.to(torch.float32) is x, x.to() is x, x.type(torch.float32) is x)
        print(x.t().contiguous() is x, x.to(torch.float64) is x, x.to(copy=True) is x)
        t = x.t()
        print(t.contiguous() is t, t.contiguous().is_contiguous(), torch.ones(3)[::2].contiguous().stride())
        ",
        "
        True True True True
        False False False
        False True (1,)
        ",
    );
}
