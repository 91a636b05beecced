//! The `torch` namespace around the tensor type: dtypes, devices, `torch.Size`, limits, grad
//! mode, default dtype, seeds, `torch.tensor`, return types, `torch.nn.functional`, and the
//! dispatch counter.

use crate::harness::{Py, check, check_err, check_exclusive};

#[test]
fn dtype_objects() {
    check(
        "
        print(torch.float32, repr(torch.float), torch.float is torch.float32, torch.double is torch.float64)
        print(torch.long, torch.int, torch.short, torch.half, torch.bool, torch.uint8, torch.int8, torch.bfloat16)
        print(torch.float32.is_floating_point, torch.int64.is_floating_point, torch.float16.itemsize, torch.int64.itemsize)
        print(torch.int8.is_signed, torch.uint8.is_signed, torch.bool.is_complex, type(torch.float32).__name__)
        print(torch.ones(1).dtype is torch.float32, torch.tensor([1]).dtype == torch.int64, {torch.float32: 1}[torch.float])
        print(isinstance(torch.float16, torch.dtype), torch.zeros(2, dtype=float).dtype, torch.zeros(2, dtype=int).dtype, torch.zeros(2, dtype=bool).dtype)
        ",
        "
        torch.float32 torch.float32 True True
        torch.int64 torch.int32 torch.int16 torch.float16 torch.bool torch.uint8 torch.int8 torch.bfloat16
        True False 2 8
        True False False dtype
        True True 1
        True torch.float32 torch.int64 torch.bool
        ",
    );
}

#[test]
fn devices() {
    check(
        "
        d = torch.device('cpu')
        print(d, repr(d), d.type, d.index, d == torch.device('cpu'), d == 'cpu')
        print(repr(torch.device('cuda:1')), torch.device('cuda', 0), torch.device(d) == d)
        print(torch.ones(1).device == d, hash(d) == hash(torch.device('cpu')))
        print(torch.zeros(2, device='cpu').shape, torch.ones(2, device=d).shape, torch.cuda.is_available())
        ",
        "
        cpu device(type='cpu') cpu None True False
        device(type='cuda', index=1) cuda:0 True
        True True
        torch.Size([2]) torch.Size([2]) False
        ",
    );
    check_err(
        "torch.device('tpu')",
        "RuntimeError",
        "Expected one of cpu, cuda, mps, meta, xpu, xla, hip, ipu, mtia, lazy, hpu device type at start of device string: tpu",
    );
    check_err(
        "torch.zeros(2, device='cuda')",
        "AssertionError",
        "Torch not compiled with CUDA enabled",
    );
}

#[test]
fn size_is_a_tuple() {
    check(
        "
        s = torch.Size([2, 3, 4])
        print(s, repr(torch.Size([])), s.numel(), torch.Size([]).numel(), len(s), s[0], s[-1])
        print(s[1:], s[::-1], isinstance(s, tuple), s == (2, 3, 4), tuple(s), list(s))
        a, b, c = s
        print(a * b * c, s + (5,), torch.Size((1,)), torch.Size(torch.tensor([1, 2])))
        import pickle
        print(pickle.loads(pickle.dumps(s)), hash(s) == hash((2, 3, 4)), 3 in s, (1,) + s)
        ",
        "
        torch.Size([2, 3, 4]) torch.Size([]) 24 1 3 2 4
        torch.Size([3, 4]) torch.Size([4, 3, 2]) True True (2, 3, 4) [2, 3, 4]
        24 torch.Size([2, 3, 4, 5]) torch.Size([1]) torch.Size([1, 2])
        torch.Size([2, 3, 4]) True True (1, 2, 3, 4)
        ",
    );
    check_err(
        "torch.Size([1.5])",
        "TypeError",
        "torch.Size() takes an iterable of 'int' (item 0 is 'float')",
    );
}

#[test]
fn numeric_limits() {
    check(
        "
        print(torch.finfo(torch.float32))
        print(torch.finfo(torch.float16))
        print(torch.finfo().eps == torch.finfo(torch.float32).eps, torch.finfo(torch.float64).max, torch.finfo(torch.bfloat16).eps)
        print(torch.iinfo(torch.int32), torch.iinfo(torch.uint8), torch.iinfo(torch.int64).max, torch.iinfo(torch.int8).min)
        ",
        "
        finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)
        finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)
        True 1.7976931348623157e+308 0.0078125
        iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32) iinfo(min=0, max=255, dtype=uint8) 9223372036854775807 -128
        ",
    );
    check_err(
        "torch.finfo(torch.int32)",
        "TypeError",
        "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'",
    );
}

#[test]
fn grad_mode_switches() {
    check(
        "
        print(torch.is_grad_enabled())
        with torch.no_grad():
            print(torch.is_grad_enabled())
            with torch.enable_grad():
                print(torch.is_grad_enabled())
            print(torch.is_grad_enabled())
        print(torch.is_grad_enabled())

        @torch.no_grad()
        def f():
            return torch.is_grad_enabled()

        @torch.no_grad
        def g():
            return torch.is_grad_enabled()

        print(f(), g(), f.__name__, torch.is_grad_enabled())
        torch.set_grad_enabled(False)
        print(torch.is_grad_enabled())
        torch.set_grad_enabled(True)
        with torch.set_grad_enabled(False):
            print(torch.is_grad_enabled())
        print(torch.is_grad_enabled())
        with torch.inference_mode():
            print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())
        print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())

        @torch.inference_mode()
        def h():
            return torch.is_inference_mode_enabled()

        print(h(), torch.autograd.no_grad is torch.no_grad)
        ",
        "
        True
        False
        True
        False
        True
        False False f True
        False
        False
        True
        False True
        True False
        True True
        ",
    );
}

#[test]
fn default_dtype() {
    check_exclusive(
        "
        print(torch.get_default_dtype())
        torch.set_default_dtype(torch.float64)
        print(torch.get_default_dtype(), torch.tensor([1.5]).dtype, torch.zeros(2).dtype, torch.ones(1).dtype)
        print(torch.arange(3).dtype, torch.arange(3.).dtype, torch.full((1,), 2).dtype, torch.rand(2).dtype)
        print(torch.zeros_like(torch.ones(2, dtype=torch.float32)).dtype, torch.tensor([1]).dtype)
        print(torch.tensor([1.5]), torch.finfo().bits)
        torch.set_default_dtype(torch.float32)
        print(torch.zeros(1).dtype)
        ",
        "
        torch.float32
        torch.float64 torch.float64 torch.float64 torch.float64
        torch.int64 torch.float64 torch.int64 torch.float64
        torch.float32 torch.int64
        tensor([1.5000]) 64
        torch.float32
        ",
    );
    check_err(
        "torch.set_default_dtype(torch.int32)",
        "TypeError",
        "only floating-point types are supported as the default type, got torch.int32",
    );
}

#[test]
fn seeds_and_generators_are_deterministic() {
    check_exclusive(
        "
        torch.manual_seed(0)
        a = torch.rand(4)
        torch.manual_seed(0)
        b = torch.rand(4)
        print(torch.equal(a, b), torch.initial_seed(), torch.equal(a, b[:2]))
        g = torch.Generator().manual_seed(7)
        h = torch.Generator()
        h.manual_seed(7)
        x = torch.randn(3, generator=g)
        y = torch.randn(3, generator=h)
        print(bool((x == y).all()), g.initial_seed(), type(torch.manual_seed(3)).__name__)
        torch.manual_seed(1)
        c = torch.rand(2)
        torch.manual_seed(1)
        torch.rand(5, generator=torch.Generator().manual_seed(9))
        d = torch.rand(2)
        print(bool((c == d).all()))
        r = torch.randint(0, 10, (100,))
        print(r.dtype, bool(((r >= 0) & (r < 10)).all()), sorted(torch.randperm(5).tolist()))
        ",
        "
        True 0 False
        True 7 Generator
        True
        torch.int64 True [0, 1, 2, 3, 4]
        ",
    );
}

#[test]
fn tensor_constructor_infers_dtype_and_shape() {
    check(
        "
        print(torch.tensor(1).dtype, torch.tensor(1.).dtype, torch.tensor(True).dtype, torch.tensor([1, 2.]).dtype, torch.tensor([True, 2]).dtype)
        print(torch.tensor([[1, 2], [3, 4]]).shape, torch.tensor([[], []]).shape, torch.tensor(((1,), (2,))).shape)
        print(torch.tensor([torch.tensor(1.5), 2]), torch.tensor(torch.tensor([1, 2])), torch.tensor([1, 2], dtype=torch.float16))
        t = torch.tensor([1., 2.])
        u = torch.tensor(t)
        u[0] = 9
        print(t, torch.as_tensor(t) is t, torch.as_tensor(t, dtype=torch.int64), torch.as_tensor([1, 2]))
        print(torch.tensor([1.], requires_grad=True).requires_grad, torch.is_tensor(t), torch.is_tensor([1]), torch.numel(t))
        ",
        "
        torch.int64 torch.float32 torch.bool torch.float32 torch.int64
        torch.Size([2, 2]) torch.Size([2, 0]) torch.Size([2, 1])
        tensor([1.5000, 2.0000]) tensor([1, 2]) tensor([1., 2.], dtype=torch.float16)
        tensor([1., 2.]) True tensor([1, 2]) tensor([1, 2])
        True True False 2
        ",
    );
    check_err(
        "torch.tensor([[1, 2], [3]])",
        "ValueError",
        "expected sequence of length 2 at dim 1 (got 1)",
    );
    check_err(
        "torch.tensor(['a'])",
        "TypeError",
        "new(): invalid data type 'str'",
    );
    check_err(
        "torch.tensor([1], requires_grad=True)",
        "RuntimeError",
        "Only Tensors of floating point and complex dtype can require gradients",
    );
}

#[test]
fn named_tuple_returns() {
    check(
        "
        x = torch.tensor([[1., 5.], [7., 3.]])
        r = torch.max(x, dim=1)
        print(r)
        v, i = torch.min(x, 0)
        print(v, i, r.values is r[0], r.indices, type(r).__name__, isinstance(r, tuple))
        print(torch.return_types.max is type(r), torch.return_types.min._fields)
        ",
        "
        torch.return_types.max(
        values=tensor([5., 7.]),
        indices=tensor([1, 0]))
        tensor([1., 3.]) tensor([0, 1]) True tensor([1, 0]) max True
        True ('values', 'indices')
        ",
    );
}

#[test]
fn nn_functional_ops() {
    check(
        "
        x = torch.tensor([[-1., 0.5], [2., -3.]])
        print(F.relu(x), F.relu6(x * 4), F.leaky_relu(x, 0.1))
        print(F.softmax(x, dim=-1).argmax(-1), F.log_softmax(x, 1).shape, F.gelu(x, approximate='tanh').shape)
        print(F.silu(x).shape, F.elu(input=x).shape, F.softplus(x, beta=2).shape, F.tanh(x).shape, F.sigmoid(x).shape)
        w = torch.ones(3, 2)
        print(F.linear(x, w), F.linear(x, w, torch.tensor([1., 2., 3.])).shape)
        print(F.layer_norm(x, (2,)), F.embedding(torch.tensor([1, 0]), torch.eye(3)))
        print(F.dropout(x, p=0.5, training=False), F.dropout(x, 0.0).shape)
        y = x.clone()
        r = F.relu(y, inplace=True)
        print(r is y, y)
        z = x.clone()
        F.leaky_relu(z, 0.5, True)
        print(z, F.relu.__name__, F.relu.__module__)
        ",
        "
        tensor([[0.0000, 0.5000],
                [2.0000, 0.0000]]) tensor([[0., 2.],
                [6., 0.]]) tensor([[-0.1000,  0.5000],
                [ 2.0000, -0.3000]])
        tensor([1, 0]) torch.Size([2, 2]) torch.Size([2, 2])
        torch.Size([2, 2]) torch.Size([2, 2]) torch.Size([2, 2]) torch.Size([2, 2]) torch.Size([2, 2])
        tensor([[-0.5000, -0.5000, -0.5000],
                [-1.0000, -1.0000, -1.0000]]) torch.Size([2, 3])
        tensor([[-1.0000,  1.0000],
                [ 1.0000, -1.0000]]) tensor([[0., 1., 0.],
                [1., 0., 0.]])
        tensor([[-1.0000,  0.5000],
                [ 2.0000, -3.0000]]) torch.Size([2, 2])
        True tensor([[0.0000, 0.5000],
                [2.0000, 0.0000]])
        tensor([[-0.5000,  0.5000],
                [ 2.0000, -1.5000]]) relu torch.nn.functional
        ",
    );
}

#[test]
fn dispatch_counter_counts_every_eager_op() {
    // The counter is process-wide and other tests may run ops in parallel, so this checks a
    // lower bound: the five ops below (add, mul, sum, getitem, and one more add) all count.
    let py = Py::new();
    let out = py.out(
        "
        x = torch.ones(3)
        before = torch._C._dispatch_count()
        y = (x + 1) * 2
        z = y.sum()
        w = x[0]
        v = torch.add(w, 1)
        after = torch._C._dispatch_count()
        print(after - before >= 5, type(torch._C._in_graph_count()).__name__)
        ",
    );
    assert_eq!(out.trim(), "True int");
}

#[test]
fn functions_on_dtypes_and_shapes() {
    check(
        "
        print(torch.result_type(torch.tensor([1]), 1.0), torch.result_type(torch.tensor([1], dtype=torch.int32), torch.tensor(1)))
        print(torch.promote_types(torch.uint8, torch.int8), torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float32))
        print(torch.broadcast_shapes((2, 1), (3,)), torch.broadcast_shapes(2, (1,)), torch.is_floating_point(torch.ones(1)))
        print(torch.pi == 3.141592653589793, torch.inf, torch.strided, torch.__version__.endswith('rynamo'))
        ",
        "
        torch.float32 torch.int32
        torch.int16 False True
        torch.Size([2, 3]) torch.Size([2]) True
        True inf torch.strided True
        ",
    );
}

#[test]
fn op_functions_accept_pytorch_keywords() {
    check(
        "
        x = torch.tensor([1., 2.])
        print(torch.add(input=x, other=x), torch.add(x, x, alpha=2), torch.sum(x, dim=0), torch.zeros(2, 2, dtype=torch.int32, device='cpu', requires_grad=False))
        print(torch.ones(2, requires_grad=True).requires_grad, torch.cat([x, x]), torch.stack((x, x), dim=1).shape)
        print(torch.clone(x, memory_format=torch.preserve_format), torch.where(x > 1, x, 0.0), torch.arange(0, 1, 0.25))
        print(torch.add.__name__, repr(torch.add), torch.max._overload_names)
        ",
        "
        tensor([2., 4.]) tensor([3., 6.]) tensor(3.) tensor([[0, 0],
                [0, 0]], dtype=torch.int32)
        True tensor([1., 2., 1., 2.]) torch.Size([2, 2])
        tensor([1., 2.]) tensor([0., 2.]) tensor([0.0000, 0.2500, 0.5000, 0.7500])
        add <built-in function add> ('max.other', 'max', 'max.dim')
        ",
    );
    check_err(
        "torch.max(torch.ones(2), 'a')",
        "TypeError",
        "max() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor self, Tensor other)\n * (Tensor self)\n * (Tensor self, int dim, bool keepdim=False)",
    );
    check_err(
        "torch.zeros(2, dtype=torch.int64, requires_grad=True)",
        "RuntimeError",
        "Only Tensors of floating point and complex dtype can require gradients",
    );
    check_err(
        "torch.add(torch.ones(2), torch.ones(2), out=torch.ones(2))",
        "NotImplementedError",
        "add(): the out= argument is not supported",
    );
}
