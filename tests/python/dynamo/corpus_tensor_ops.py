"""Tensor ops across the registry: pointwise, reductions with dims, views, indexing and
`__setitem__`, matmul, creation ops, dtype conversions, and in-place ops on inputs and on
intermediates."""
import torch
from _corpus import check, done


def pointwise_unary(x):
    return (
        x.abs(), x.neg(), x.exp(), x.sin(), x.cos(), x.tanh(), x.sigmoid(), x.relu(),
        x.floor(), x.ceil(), x.round(), x.trunc(), x.sign(), x.square(), x.frac(),
    )


def pointwise_unary_domain(x):
    p = x.abs() + 0.1
    return p.log(), p.sqrt(), p.rsqrt(), p.reciprocal(), p.log2(), p.log10(), p.log1p(), x.expm1()


def pointwise_torch_fns(x, y):
    return torch.maximum(x, y), torch.minimum(x, y), torch.atan2(x, y), torch.where(x > y, x, y)


def pointwise_clamp(x):
    return x.clamp(-0.5, 0.5), torch.clamp(x, min=0.0), x.clip(max=0.1)


def pointwise_broadcast(x, row, col):
    return x + row, x * col, row - col


def pointwise_pow_div(x, y):
    return torch.pow(x.abs(), 1.5), torch.div(x, y), torch.remainder(x, 2.0), torch.floor_divide(x, 3)


def pointwise_predicates(x):
    z = x / (x - x)
    return torch.isnan(z), torch.isinf(z), torch.isfinite(x), torch.nan_to_num(z, nan=0.0)


def logical_ops(a, b):
    return torch.logical_and(a, b), torch.logical_or(a, b), torch.logical_not(a), torch.logical_xor(a, b)


def reductions_full(x):
    return x.sum(), x.mean(), x.amax(), x.amin(), x.prod(), x.std(), x.var()


def reductions_dims(x):
    return x.sum(0), x.sum(dim=1, keepdim=True), x.mean((0, 1)), x.amax(-1), torch.sum(x, dim=-2)


def reductions_indices(x):
    return x.argmax(), x.argmin(dim=1), x.max(dim=0), torch.min(x, 1)


def scans_with_indices(x):
    r = torch.cummax(x, 1)
    return r, x.cummin(0).indices, r.values - x.cummin(dim=-1)[0], torch.logcumsumexp(x, 1), x.logcumsumexp(0)


def return_types_fields(x):
    r = x.max(dim=1)
    values, indices = torch.min(x, 0)
    return r.values + 1, r.indices * 2, r[0].sum() - values.sum(), indices, type(r).__name__


def reductions_bool(x):
    return (x > 0).any(), (x > -10).all(), (x > 0).sum(), (x > 0).any(dim=1)


def softmax_family(x):
    return x.softmax(-1), torch.log_softmax(x, dim=0), torch.logsumexp(x, dim=1)


def views(x):
    return (
        x.view(20), x.reshape(2, 10), x.t(), x.transpose(0, 1), x.permute(1, 0),
        x.unsqueeze(0), x.unsqueeze(-1).squeeze(-1), x.flatten(), x.expand(3, 4, 5),
    )


def views_chain_then_compute(x):
    return x.view(2, 2, 5).permute(2, 0, 1).reshape(5, 4).contiguous() * 2


def views_split(x):
    a, b = x.split(2)
    c = x.chunk(5, dim=1)
    return a + b, c[0] * c[4], torch.narrow(x, 1, 1, 2), x.select(0, 2)


def views_unbind_diag(x):
    rows = x.unbind(0)
    return rows[0] + rows[-1], torch.diagonal(x), x.unflatten(1, (5, 1))


def indexing_basic(x):
    return x[0], x[-1, 2], x[1:3], x[:, ::2], x[..., 1], x[None, 1], x[1:, :-1]


def indexing_tensor_index(x, idx, mask):
    return x[idx], x[mask], x[:, idx[:2]]


def setitem_on_intermediate(x):
    y = x.clone()
    y[0] = 1.0
    y[:, 1] = y[:, 2]
    y[y > 0.5] = 0.5
    return y


def setitem_with_tensor_value(x, v):
    y = torch.zeros(4, 5)
    y[1] = v
    y[2:4] = x[0:2]
    return y


def matmul_family(a, b, c):
    return a @ b, torch.mm(a, b), torch.matmul(a, b), a.matmul(b), torch.bmm(c, c.transpose(1, 2))


def matmul_broadcast(x, w):
    return torch.matmul(x, w), torch.addmm(torch.ones(5), x[0], w)


def creation_ops(x):
    return (
        torch.zeros(2, 3), torch.ones(3), torch.full((2, 2), 7.0), torch.arange(5),
        torch.arange(1, 10, 2), torch.eye(3), torch.linspace(0, 1, 5),
        torch.zeros_like(x), torch.ones_like(x), torch.full_like(x, 2.0),
    )


def tensor_from_constant_list(x):
    return torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0]) * x


def creation_with_dtype(x):
    return torch.zeros(3, dtype=torch.int64), torch.ones(2, 2, dtype=torch.float64), torch.arange(4, dtype=torch.float32) + x[0, :4]


def creation_from_shape(x):
    return torch.zeros(x.shape), torch.ones(x.size(0), 2) * x.sum()


def new_methods(x):
    return x.new_zeros(2, 3), x.new_ones((3,)), x.new_full((2,), 5.0)


def dtype_conversions(x):
    return x.to(torch.float64), x.double(), x.long(), x.int(), x.bool(), x.half().float(), x.to(dtype=torch.int32)


def dtype_promotion(a, x):
    return a + x, a * 2, a / 2, a + True, (a > 1).float() + 1


def type_as_and_to_other(x, a):
    return a.type_as(x) + x, x.to(a)


def inplace_on_intermediate(x):
    y = x * 2
    y.add_(1)
    y.mul_(x)
    y.clamp_(-1, 1)
    return y


def inplace_on_input_returned(x):
    x.sub_(0.5)
    return x


def inplace_alias_view(x):
    y = x.clone()
    v = y[0]
    v.fill_(3.0)
    return y


def inplace_zero_and_copy(x, y):
    z = x.clone()
    z.zero_()
    z.copy_(y)
    return z


def inplace_masked_fill(x):
    y = x.clone()
    y.masked_fill_(y < 0, 0.0)
    return y, x.masked_fill(x > 0, -1.0)


def cat_stack(x, y):
    return torch.cat([x, y]), torch.cat((x, y), dim=1), torch.stack([x, y]), torch.stack([x, y], dim=2)


def layer_norm_like(x):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + 1e-5)


def tensor_scalar_methods(x):
    return x.add(1, alpha=2), x.sub(y=None) if False else x.sub(1), x.mul(3), x.div(4)


def expand_as_view_as(x, row):
    return row.expand_as(x) + x, x.reshape(5, 4).view_as(x)


def shape_arithmetic(x):
    a = x.view(*x.shape)
    b = x.reshape(x.shape[0], -1)
    c = x.view(x.shape + (1,))
    d = x.reshape(x.size()[1:] + x.size()[:1])
    return a, b, c, d, len(x.shape), x.shape[-1], list(enumerate(x.shape))


def return_view_of_mutated_input(x):
    x.mul_(2)
    return x[0]


def randomness(x):
    return x + torch.rand(4, 5), torch.randn_like(x)


x, y = torch.randn(4, 5), torch.randn(4, 5)


def tensor_literal(x):
    return x * torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])


def tensor_literal_kwargs(x):
    return x + torch.tensor([[1, 2, 3, 4, 5]], dtype=torch.float64).sum()


def tensor_literal_from_args(x, k):
    return x[:2] * torch.tensor([k, 2 * k])


def tensor_literal_returned(x):
    # A fresh tensor per call, as in eager (the harness compares two calls).
    return torch.tensor(3.5), x + 1



def functional_inplace(x):
    y = x * 2
    torch.nn.functional.relu(y, inplace=True)
    z = torch.nn.functional.silu(x, inplace=False)
    return y + z, torch.nn.functional.leaky_relu(x.clone(), 0.1, inplace=True)



def finfo_iinfo(x):
    eps = torch.finfo(x.dtype).eps
    return (x + eps) * (torch.iinfo(torch.int32).max > 0), torch.finfo(torch.float16).max



def new_tensor_literal(x):
    return x.double().new_tensor([1, 2, 3, 4]) + x.new_tensor([0.5]).sum()

check(pointwise_unary, x)
check(pointwise_unary_domain, x)
check(pointwise_torch_fns, x, y)
check(pointwise_clamp, x)
check(pointwise_broadcast, x, torch.randn(5), torch.randn(4, 1))
check(pointwise_pow_div, x, y)
check(pointwise_predicates, x)
check(logical_ops, x > 0, y > 0)
check(reductions_full, x)
check(reductions_dims, x)
check(reductions_indices, x)
check(return_types_fields, x)
check(scans_with_indices, x)
check(reductions_bool, x)
check(softmax_family, x)
check(views, x)
check(views_chain_then_compute, x)
check(views_split, x)
check(views_unbind_diag, torch.randn(5, 5), breaks=0)
check(indexing_basic, x)
check(indexing_tensor_index, x, torch.tensor([2, 0, 3]), x > 0, graphs=2)
check(setitem_on_intermediate, x)
check(setitem_with_tensor_value, x, torch.randn(5))
def folded_torch_functions(x, y, s):
    # Answered at trace time from guarded dtypes and shapes: constants, no graph breaks.
    dt = torch.result_type(x, y)
    wide = torch.promote_types(x.dtype, torch.float64)
    out = x.to(dt) + y
    if torch.can_cast(x.dtype, torch.int32) and torch.is_tensor(y) and not torch.is_tensor(s):
        out = out * torch.numel(y)
    if torch.is_floating_point(y):
        out = out.to(torch.result_type(y, s))
    shape = torch.broadcast_shapes(x.shape, (2, 1, 1))
    return out.expand(shape), wide, torch.get_default_dtype(), torch.result_type(x, 2.5)


def enumerate_zip_rows(x, y):
    out = []
    for i, (a, b) in enumerate(zip(x, y)):
        out.append(a * i - b)
    return torch.stack(out)


def std_var_positional_unbiased(x):
    return x.std(False), torch.var(x, True), x.std(1, False)


def view_dtype_bits(x):
    bits = x.view(torch.int32)
    return (bits >> 23) & 0xFF, torch.signbit(x), x.view(torch.uint8).sum()


def inplace_through_dtype_view(x):
    z = x * 2
    z.view(torch.int32).add_(1)  # one ulp up, seen through z
    return z, z + 1


check(std_var_positional_unbiased, torch.randn(3, 4))
check(inplace_through_dtype_view, torch.tensor([1.0, -3.5, 8.0]))
check(view_dtype_bits, torch.tensor([1.0, -0.0, float("nan"), -float("nan"), -3.5]))
check(folded_torch_functions, torch.arange(4), torch.randn(4), 3)
check(enumerate_zip_rows, torch.randn(3, 4), torch.randn(3, 4))
check(matmul_family, torch.randn(3, 4), torch.randn(4, 2), torch.randn(2, 3, 4))
check(matmul_broadcast, torch.randn(2, 3, 4), torch.randn(4, 5))
check(creation_ops, x, breaks=0)
check(tensor_from_constant_list, x)
check(creation_with_dtype, x)
check(creation_from_shape, x)
check(new_methods, x)
check(dtype_conversions, x)
check(dtype_promotion, torch.randint(0, 9, (4, 5)), x)
check(type_as_and_to_other, x, torch.randint(0, 9, (4, 5)))
check(inplace_on_intermediate, x)
check(inplace_on_input_returned, x)
check(inplace_alias_view, x)
check(inplace_zero_and_copy, x, y)
check(inplace_masked_fill, x)
check(cat_stack, x, y)
check(layer_norm_like, x)
check(tensor_scalar_methods, x)
check(expand_as_view_as, x, torch.randn(5), breaks=0)
check(shape_arithmetic, x)
check(return_view_of_mutated_input, x)
check(randomness, x)
check(tensor_literal, torch.randn(5))
check(tensor_literal_kwargs, torch.randn(5))
check(tensor_literal_from_args, torch.randn(5), 3)
check(tensor_literal_returned, torch.randn(5))
check(functional_inplace, torch.randn(6))
check(finfo_iinfo, torch.randn(4))
check(new_tensor_literal, torch.randn(4))
done()
