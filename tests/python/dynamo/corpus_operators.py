"""Binary, unary, comparison, identity and membership operators: on tensors, on constants, and
mixed (a Python number with a tensor, either side)."""
import torch
from _corpus import check, done


def arith_tensors(x, y):
    return x + y, x - y, x * y, x / y


def arith_reflected(x):
    return 2 + x, 3 - x, 4 * x, 5 / x


def arith_scalar_right(x):
    return x + 2, x - 3.5, x * 4, x / 8


def floordiv_mod(x, y):
    return x // y, x % y, x // 3, x % 2.5


def power(x):
    return x**2, 2**x, x ** x.abs()


def matmul_op(a, b):
    return a @ b


def bitwise_int(a, b):
    return a & b, a | b, a ^ b, ~a


def bitwise_bool(a, b):
    return a & b, a | b, a ^ b, ~a


def unary_tensor(x):
    return -x, +x, abs(x)


def inplace_operators(x, y):
    z = x.clone()
    z += y
    z -= 1
    z *= y
    z /= 2
    return z


def inplace_int_operators(a, b):
    c = a.clone()
    c //= 2
    c %= 5
    c &= b
    c |= 1
    c ^= b
    return c


def inplace_pow(x):
    z = x.abs().clone()
    z **= 2
    return z


def compare_tensors(x, y):
    return x < y, x <= y, x > y, x >= y, x == y, x != y


def compare_scalar(x):
    return x < 0, x <= 0.5, x > -1, x >= 1, x == 0, x != 0


def compare_reflected(x):
    return 0 < x, 0.5 >= x, 1 == x


def const_arith(x):
    a = 7
    b = 2
    return x * (a // b) + (a % b) + a**b - (a / b) - (a << 1) + (a >> 1) + (a & b) + (a | b) + (a ^ b)


def const_float_ops(x):
    return x * (1.5 * 2.0 - 0.25) / (3.0**0.5)


def const_compare_chain(x):
    k = 3
    if 1 < k < 5 and k != 4 and not k == 2:
        return x + k
    return x - k


def const_string_ops(x):
    s = "ab" + "cd"
    if s * 2 == "abcdabcd" and s[1:3] == "bc":
        return x + len(s)
    return x


def const_unary(x):
    a = 5
    return x * -a + ~a + (not a) + +a


def is_none(x, y=None):
    if y is None:
        return x + 1
    return x + y


def is_not_none(x, y):
    if y is not None:
        return x * y
    return x


def is_same_object(x, y):
    if x is y:
        return x * 2
    return x + y


def container_equality(x, xs):
    a = (1, [2])
    if xs == [1, 2] and a == (1, [2]) and {"k": 1} == dict(k=1) and xs != [2, 1]:
        return x + 1
    return x - 1


def contains_mixed_containers(x, xs):
    if [1] in ([1], 2) and (3, 4) in [xs, (3, 4)] and 5 not in (xs, 6):
        return x + 1
    return x - 1


def contains_const_list(x):
    if 3 in [1, 2, 3]:
        return x + 1
    return x - 1


def contains_tuple_str(x, mode="relu"):
    if mode in ("relu", "gelu"):
        return x.relu()
    return x


def not_in_dict(x):
    d = {"a": 1, "b": 2}
    if "c" not in d:
        return x * d["b"]
    return x


def contains_string(x):
    if "ell" in "hello":
        return x.sin()
    return x.cos()


def tensor_bool_mask_ops(x):
    m = (x > 0) & (x < 1)
    return x * m, ~m, m | (x < -1)


def mixed_int_float_dtypes(a, x):
    return a + x, a * 2.5, a // 2, a / 2


def chained_tensor_compare(x):
    return (x > 0) == (x < 1)


x, y = torch.randn(4, 5), torch.randn(4, 5) + 3.0
ai = torch.randint(0, 50, (4, 5))
bi = torch.randint(1, 50, (4, 5))
ab = torch.randn(4, 5) > 0
bb = torch.randn(4, 5) > 0.5

check(arith_tensors, x, y)
check(arith_reflected, y)
check(arith_scalar_right, x)
check(floordiv_mod, x, y)
check(floordiv_mod, ai, bi)
check(power, x)
check(matmul_op, torch.randn(3, 4), torch.randn(4, 2))
check(matmul_op, torch.randn(2, 3, 4), torch.randn(4, 2))
check(bitwise_int, ai, bi)
check(bitwise_bool, ab, bb)
check(unary_tensor, x)
check(inplace_operators, x, y)
check(inplace_int_operators, ai, bi)
check(inplace_pow, x)
check(compare_tensors, x, y)
check(compare_scalar, x)
check(compare_reflected, x)
check(const_arith, x)
check(const_float_ops, x)
check(const_compare_chain, x)
check(const_string_ops, x)
check(const_unary, x)
check(is_none, x)
check(is_none, x, y)
check(is_not_none, x, y)
check(is_not_none, x, None, graphs=0)
check(is_same_object, x, x)
check(is_same_object, x, y)
check(container_equality, x, [1, 2])
check(container_equality, x, [3])
check(contains_mixed_containers, x, (1, 2))
check(contains_const_list, x)
check(contains_tuple_str, x)
check(contains_tuple_str, x, "tanh", graphs=0)
check(not_in_dict, x)
check(contains_string, x)
check(tensor_bool_mask_ops, x)
check(mixed_int_float_dtypes, ai, x)
check(chained_tensor_compare, x)
done()
