//! The `torch.Tensor` type: metadata, conversions, operators, indexing, iteration, and the
//! errors PyTorch raises for misuse.

use crate::harness::{Py, check, check_err};

#[test]
fn metadata() {
    check(
        "
        x = torch.zeros(3, 4)
        print(x.shape, x.size(), x.size(1), x.size(-1), x.shape[0], type(x.shape[0]).__name__)
        print(x.dim(), x.ndim, x.ndimension(), x.numel(), x.nelement(), len(x))
        print(x.stride(), x.stride(0), x.stride(-1), x.storage_offset())
        print(x.dtype, x.device, x.is_cpu, x.is_cuda, x.is_floating_point(), x.is_complex())
        print(x.element_size(), x.itemsize, x.nbytes, x.is_contiguous(), x.t().is_contiguous())
        print(x.T.shape, x.mT.shape, x[1:, ::2].stride(), x[1:].storage_offset())
        print(torch.zeros(2, 3, 4).T.shape, torch.zeros(2, 3, 4).mT.shape)
        ",
        "
        torch.Size([3, 4]) torch.Size([3, 4]) 4 4 3 int
        2 2 2 12 12 3
        (4, 1) 4 1 0
        torch.float32 cpu True False True False
        4 4 48 True False
        torch.Size([4, 3]) torch.Size([4, 3]) (4, 2) 4
        torch.Size([4, 3, 2]) torch.Size([2, 4, 3])
        ",
    );
}

#[test]
fn python_scalars() {
    check(
        "
        print(torch.tensor(3.5).item(), torch.tensor(3).item(), torch.tensor(True).item())
        print(torch.tensor([[1, 2], [3, 4]]).tolist(), torch.tensor([0.5]).tolist(), torch.tensor(2).tolist())
        print(torch.tensor([True, False]).tolist())
        print(int(torch.tensor(3.7)), int(torch.tensor([-2.5])), float(torch.tensor(2)), bool(torch.tensor([0.0])))
        print([10, 20, 30][torch.tensor(1)], range(10)[torch.tensor(4)])
        ",
        "
        3.5 3 True
        [[1, 2], [3, 4]] [0.5] 2
        [True, False]
        3 -2 2.0 False
        20 4
        ",
    );
}

#[test]
fn scalar_conversion_errors() {
    check_err(
        "bool(torch.ones(2))",
        "RuntimeError",
        "Boolean value of Tensor with more than one value is ambiguous",
    );
    check_err(
        "bool(torch.ones(0))",
        "RuntimeError",
        "Boolean value of Tensor with no values is ambiguous",
    );
    check_err(
        "int(torch.ones(2))",
        "ValueError",
        "only one element tensors can be converted to Python scalars",
    );
    check_err(
        "[1][torch.tensor(0.)]",
        "TypeError",
        "only integer tensors of a single element can be converted to an index",
    );
    check_err(
        "torch.ones(2).item()",
        "RuntimeError",
        "a Tensor with 2 elements cannot be converted to Scalar",
    );
    check_err(
        "len(torch.tensor(1.))",
        "TypeError",
        "len() of a 0-d tensor",
    );
    check_err(
        "iter(torch.tensor(1.))",
        "TypeError",
        "iteration over a 0-d tensor",
    );
}

#[test]
fn dtype_conversions() {
    check(
        "
        x = torch.tensor([1.7, -2.2])
        print(x.to(torch.int64), x.long().dtype, x.int().dtype, x.double().dtype, x.half().dtype)
        print(x.bool(), x.byte().dtype, x.short().dtype, x.char().dtype, x.bfloat16().dtype)
        print(x.float() is x, x.to(torch.float32) is x, x.to('cpu') is x, x.cpu() is x)
        print(x.to(torch.float32, copy=True) is x, x.to(dtype=torch.float64).dtype)
        print(x.to(torch.tensor([1])).dtype, x.to('cpu', torch.int32).dtype, x.type_as(torch.tensor([1], dtype=torch.int16)).dtype)
        print(x.type(), x.long().type(), x.type(torch.float64).dtype, x.type('torch.IntTensor').dtype)
        print(torch.tensor([1, 2]).to(torch.device('cpu')).dtype)
        ",
        "
        tensor([ 1, -2]) torch.int64 torch.int32 torch.float64 torch.float16
        tensor([True, True]) torch.uint8 torch.int16 torch.int8 torch.bfloat16
        True True True True
        False torch.float64
        torch.int64 torch.int32 torch.int16
        torch.FloatTensor torch.LongTensor torch.float64 torch.int32
        torch.int64
        ",
    );
    check_err(
        "torch.ones(2).to('cuda')",
        "AssertionError",
        "Torch not compiled with CUDA enabled",
    );
}

#[test]
fn arithmetic_operators_and_reflection() {
    check(
        "
        x = torch.tensor([1., 2., 4.])
        print(x + 1, 1 + x, x - 1, 1 - x, x * 2, 2 * x)
        print(x / 2, 2 / x, x // 3, 7 // x, x % 3, 7 % x)
        print(x ** 2, 2 ** x, -x, +x is x, abs(-x))
        print(x @ x, torch.ones(2, 3) @ torch.ones(3, 2))
        i = torch.tensor([6, 3])
        print(i & 2, 2 | i, i ^ i, ~i, ~torch.tensor([True, False]))
        print(i / 4, i // 4, i + 0.5, i * True)
        print(i << 2, 1 << i, i >> 1, 64 >> i, torch.tensor([-8]) >> 1)
        ",
        "
        tensor([2., 3., 5.]) tensor([2., 3., 5.]) tensor([0., 1., 3.]) tensor([ 0., -1., -3.]) tensor([2., 4., 8.]) tensor([2., 4., 8.])
        tensor([0.5000, 1.0000, 2.0000]) tensor([2.0000, 1.0000, 0.5000]) tensor([0., 0., 1.]) tensor([7., 3., 1.]) tensor([1., 2., 1.]) tensor([0., 1., 3.])
        tensor([ 1.,  4., 16.]) tensor([ 2.,  4., 16.]) tensor([-1., -2., -4.]) True tensor([1., 2., 4.])
        tensor(21.) tensor([[3., 3.],
                [3., 3.]])
        tensor([2, 2]) tensor([6, 3]) tensor([0, 0]) tensor([-7, -4]) tensor([False,  True])
        tensor([1.5000, 0.7500]) tensor([1, 0]) tensor([6.5000, 3.5000]) tensor([6, 3])
        tensor([24, 12]) tensor([64,  8]) tensor([3, 1]) tensor([1, 8]) tensor([-4])
        ",
    );
}

#[test]
fn in_place_operators_mutate_and_keep_identity() {
    check(
        "
        x = torch.tensor([1., 2.])
        alias = x.view(2)
        y = x
        x += 1
        x *= 3
        x -= 1
        x /= 2
        print(x is y, x, alias)
        i = torch.tensor([7, 5])
        j = i
        i //= 2
        i %= 2
        i |= 4
        i &= 5
        i ^= 1
        i <<= 3
        i >>= 1
        print(i is j, i)
        m = torch.eye(2)
        m @= torch.tensor([[1., 2.], [3., 4.]])
        print(m)
        z = torch.zeros(2)
        print(z.add_(1) is z, z.mul_(3), z.zero_(), z.fill_(2.5))
        ",
        "
        True tensor([2.5000, 4.0000]) tensor([2.5000, 4.0000])
        True tensor([16, 20])
        tensor([[1., 2.],
                [3., 4.]])
        True tensor([2.5000, 2.5000]) tensor([2.5000, 2.5000]) tensor([2.5000, 2.5000])
        ",
    );
    // PyTorch's wording.
    check_err(
        "x = torch.tensor([1, 2]); x += 0.5",
        "RuntimeError",
        "result type Float can't be cast to the desired output type Long",
    );
    check_err(
        "x = torch.tensor([1, 2]); x //= 0.5",
        "RuntimeError",
        "result type Float can't be cast to the desired output type Long",
    );
}

#[test]
fn comparisons_return_tensors() {
    check(
        "
        x = torch.tensor([1., 2., 3.])
        print(x < 2, x <= 2, x > 2, x >= 2, x == 2, x != 2)
        print(2 < x, 2 == x, x == torch.tensor([1., 0., 3.]))
        print(x == None, x != 'a', x in [x], 2.0 in x, 5 in x, torch.tensor(3.) in x)
        print(hash(x) == hash(x), {x: 1}[x], len({x, x.clone()}))
        ",
        "
        tensor([ True, False, False]) tensor([ True,  True, False]) tensor([False, False,  True]) tensor([False,  True,  True]) tensor([False,  True, False]) tensor([ True, False,  True])
        tensor([False, False,  True]) tensor([False,  True, False]) tensor([ True, False,  True])
        False True True True False True
        True 1 2
        ",
    );
}

#[test]
fn indexing_and_assignment() {
    check(
        "
        x = torch.arange(12).reshape(3, 4)
        print(x[0], x[-1, 1], x[:, 1], x[1:, ::2], x[..., 0], x[None].shape, x[0, None].shape)
        print(x[[0, 2]], x[torch.tensor([2, 0])], x[x > 8], x[torch.tensor([True, False, True])].shape)
        print(x[[0, 1], [1, 2]], x[1:2, [0, 3]])
        x[0] = 100
        x[1, 1:3] = torch.tensor([-1, -2])
        x[x > 10] = 0
        x[:, -1] += 1000
        print(x)
        ",
        "
        tensor([0, 1, 2, 3]) tensor(9) tensor([1, 5, 9]) tensor([[ 4,  6],
                [ 8, 10]]) tensor([0, 4, 8]) torch.Size([1, 3, 4]) torch.Size([1, 4])
        tensor([[ 0,  1,  2,  3],
                [ 8,  9, 10, 11]]) tensor([[ 8,  9, 10, 11],
                [ 0,  1,  2,  3]]) tensor([ 9, 10, 11]) torch.Size([2, 4])
        tensor([1, 6]) tensor([[4, 7]])
        tensor([[   0,    0,    0, 1000],
                [   4,   -1,   -2, 1007],
                [   8,    9,   10, 1000]])
        ",
    );
    check_err(
        "torch.ones(2)[5]",
        "IndexError",
        "index 5 is out of bounds for dimension 0 with size 2",
    );
    check_err(
        "torch.ones(2)[1.5]",
        "IndexError",
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got float)",
    );
}

#[test]
fn iteration_unbinds_the_first_dim() {
    check(
        "
        x = torch.arange(6).reshape(3, 2)
        print(len(x), [r.tolist() for r in x], list(torch.tensor([1, 2])))
        a, b = torch.tensor([5., 6.])
        print(a, b, x.unbind(1))
        ",
        "
        3 [[0, 1], [2, 3], [4, 5]] [tensor(1), tensor(2)]
        tensor(5.) tensor(6.) (tensor([0, 2, 4]), tensor([1, 3, 5]))
        ",
    );
}

#[test]
fn method_ops_match_their_python_signatures() {
    check(
        "
        x = torch.arange(6.).reshape(2, 3)
        print(x.sum(), x.sum(1), x.sum(dim=0, keepdim=True), x.mean((0, 1)), x.sum(dtype=torch.float64).dtype)
        print(x.view(3, 2).shape, x.view(-1).shape, x.view((6,)).shape, x.reshape(3, -1).shape, x.permute(1, 0).shape)
        print(x.max(), x.max(dim=1), x.max(1).indices, x.max(torch.ones(2, 3)).shape)
        print(x.transpose(0, 1).shape, x.unsqueeze(0).shape, x.flatten().shape, x.expand(4, 2, 3).shape)
        print(x.split(1), x.chunk(3, dim=1)[2].shape, x.clamp(min=1, max=4), x.clamp(2).min())
        print(x.softmax(-1).argmax(-1), x.masked_fill(x > 2, -1.0), x.where(x > 2, 0.0))
        print(torch.Tensor.add(x, 1)[0], torch.Tensor.sum.__name__, callable(x.add))
        ",
        "
        tensor(15.) tensor([ 3., 12.]) tensor([[3., 5., 7.]]) tensor(2.5000) torch.float64
        torch.Size([3, 2]) torch.Size([6]) torch.Size([6]) torch.Size([3, 2]) torch.Size([3, 2])
        tensor(5.) torch.return_types.max(
        values=tensor([2., 5.]),
        indices=tensor([2, 2])) tensor([2, 2]) torch.Size([2, 3])
        torch.Size([3, 2]) torch.Size([1, 2, 3]) torch.Size([6]) torch.Size([4, 2, 3])
        (tensor([[0., 1., 2.]]), tensor([[3., 4., 5.]])) torch.Size([2, 1]) tensor([[1., 1., 2.],
                [3., 4., 4.]]) tensor(2.)
        tensor([2, 2]) tensor([[ 0.,  1.,  2.],
                [-1., -1., -1.]]) tensor([[0., 0., 0.],
                [3., 4., 5.]])
        tensor([1., 2., 3.]) sum True
        ",
    );
}

/// PyTorch's `std(Tensor self, bool unbiased=True)` overloads: a bool second argument is
/// `unbiased`, not `dim`.
#[test]
fn std_var_take_unbiased_positionally() {
    check(
        "
        x = torch.arange(6.).reshape(2, 3)
        print(torch.var(x, False), x.std(True), x.std(False), x.std(1, False), x.var(0))
        ",
        "
        tensor(2.9167) tensor(1.8708) tensor(1.7078) tensor([0.8165, 0.8165]) tensor([4.5000, 4.5000, 4.5000])
        ",
    );
}

/// `x.view(dtype)` reinterprets the bytes (the overload after `view(size)`); `signbit` and
/// `copysign` read the sign bit itself, also of -0.0 and NaN.
#[test]
fn view_dtype_reads_the_same_bytes() {
    check(
        "
        x = torch.tensor([1.0, -2.0, 0.5])
        print(x.view(torch.int32), x.view(torch.uint8).shape, x.view(-1, 1).shape)
        print(torch.tensor([0, 1], dtype=torch.uint8).view(torch.bool))
        print(torch.signbit(torch.tensor([-0.0, float('nan'), -float('nan'), 1.0])))
        print(torch.copysign(torch.tensor([2.0, 3.0]), torch.tensor([-float('nan'), -0.0])))
        ",
        "
        tensor([ 1065353216, -1073741824,  1056964608], dtype=torch.int32) torch.Size([12]) torch.Size([3, 1])
        tensor([False,  True])
        tensor([ True, False,  True, False])
        tensor([-2., -3.])
        ",
    );
    check_err(
        "torch.ones(3).view(torch.float64)",
        "RuntimeError",
        "self.size(-1) must be divisible by 2 to view Float as Double (different element sizes), but got 3",
    );
}

#[test]
fn argument_errors_are_type_errors() {
    check_err(
        "torch.ones(2).sum(foo=1)",
        "TypeError",
        "sum() got an unexpected keyword argument 'foo'",
    );
    // Operators turn binding errors into `NotImplemented`, so Python reports the operands (it
    // names the native type `torch.Tensor`, where PyTorch's Python class says `Tensor`).
    let (t, m) = Py::new().err("torch.ones(2, 2) @ 2");
    assert_eq!(t, "TypeError");
    assert!(m.starts_with("unsupported operand type(s) for @:"), "{m}");
    check_err(
        "torch.matmul(torch.ones(2, 2), 2)",
        "TypeError",
        "matmul(): argument 'other' (position 2) must be Tensor, not int",
    );
    let (t, m) = Py::new().err("torch.ones(2) + 'a'");
    assert_eq!(t, "TypeError");
    assert!(m.starts_with("unsupported operand type(s) for +:"), "{m}");
    check_err(
        "torch.ones(2).sum(dim=3)",
        "IndexError",
        "Dimension out of range (expected to be in range of [-1, 0], but got 3)",
    );
    check_err(
        "torch.ones(2).view(3)",
        "RuntimeError",
        "shape '[3]' is invalid for input of size 2",
    );
    check_err(
        "torch.ones(2, 3) + torch.ones(4)",
        "RuntimeError",
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
    );
}

#[test]
fn autograd_flags_and_data() {
    check(
        "
        x = torch.ones(2)
        print(x.requires_grad, x.requires_grad_() is x, x.requires_grad, x.is_leaf, x.grad, x.grad_fn)
        x.requires_grad = False
        x.grad = torch.zeros(2)
        print(x.requires_grad, x.grad, x.detach().requires_grad, x.detach_() is x)
        d = x.data
        x.data = torch.arange(3.)
        print(x, d, x.shape)
        y = torch.zeros(2)
        print(y.data_ptr() == y.view(2).data_ptr(), y[1:].data_ptr() - y.data_ptr())
        ",
        "
        False True True True None None
        False tensor([0., 0.]) False True
        tensor([0., 1., 2.]) tensor([1., 1.]) torch.Size([3])
        True 4
        ",
    );
    check_err(
        "torch.ones(2, dtype=torch.int64).requires_grad_()",
        "RuntimeError",
        // PyTorch 2.15's wording for the method (the attribute setter says "floating point and
        // complex dtype").
        "only Tensors of floating point dtype can require gradients",
    );
}

#[test]
fn subclasses_and_copies() {
    check(
        "
        import copy
        class Param(torch.Tensor):
            def __new__(cls, data, requires_grad=True):
                return torch.Tensor._make_subclass(cls, data, requires_grad)
        p = Param(torch.tensor([1., 2.]))
        print(type(p).__name__, p.requires_grad, isinstance(p, torch.Tensor), type(p + 1).__name__)
        q = copy.deepcopy(p)
        with torch.no_grad():
            q.add_(1)
        print(type(q).__name__, q.requires_grad, p, q)
        t = torch.tensor([3.])
        t.note = 'x'
        print(copy.deepcopy(t).note)
        print(torch.Tensor(2, 3).shape, torch.Tensor([1, 2]).dtype, torch.Tensor().shape)
        ",
        "
        Param True True Tensor
        Param True Param([1., 2.], requires_grad=True) Param([2., 3.], requires_grad=True)
        x
        torch.Size([2, 3]) torch.float32 torch.Size([0])
        ",
    );
}

#[test]
fn new_factories_default_to_self_dtype() {
    check(
        "
        x = torch.ones(2, dtype=torch.float64)
        print(x.new_zeros(2, 3).dtype, x.new_ones((2,)), x.new_full((2,), 7).dtype, x.new_empty(3).shape)
        print(x.new_tensor([1, 2]), x.new_zeros(2, dtype=torch.int32), x.new_ones(1, requires_grad=True).requires_grad)
        print(x.view_as(torch.zeros(2, 1)).shape, x.expand_as(torch.zeros(3, 2)).shape, x.reshape_as(torch.zeros(1, 2)).shape)
        ",
        "
        torch.float64 tensor([1., 1.], dtype=torch.float64) torch.float64 torch.Size([3])
        tensor([1., 2.], dtype=torch.float64) tensor([0, 0], dtype=torch.int32) True
        torch.Size([2, 1]) torch.Size([3, 2]) torch.Size([1, 2])
        ",
    );
}
