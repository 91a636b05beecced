"""`for` loops Dynamo unrolls: over range, lists, tuples, dict keys/values/items, enumerate,
zip, reversed and tensors; `while` on constants; break and continue."""
import torch
from _corpus import check, done


def loop_range(x):
    acc = x
    for i in range(4):
        acc = acc * 0.5 + i
    return acc


def loop_range_step(x):
    acc = x
    for i in range(10, 0, -3):
        acc = acc - i
    return acc


def loop_list_arg(xs):
    acc = torch.zeros(4, 5)
    for t in xs:
        acc = acc + t
    return acc


def loop_tuple_const(x):
    for k in (1.0, 2.0, 3.0):
        x = x * k
    return x


def loop_dict_keys(d):
    acc = 0
    for k in d:
        acc = acc + d[k]
    return acc


def loop_dict_values(d):
    out = []
    for v in d.values():
        out.append(v.sum())
    return out


def loop_dict_items(d):
    acc = None
    for k, v in d.items():
        term = v * len(k)
        acc = term if acc is None else acc + term
    return acc


def loop_enumerate(xs):
    acc = xs[0] * 0
    for i, t in enumerate(xs):
        acc = acc + t * i
    return acc


def loop_enumerate_start(xs):
    out = {}
    for i, t in enumerate(xs, start=1):
        out[i] = t + i
    return out


def loop_zip(xs, ys):
    return [a * b for a, b in zip(xs, ys)]


def loop_zip_three(x):
    acc = x
    for a, b, c in zip([1, 2, 3], (4, 5, 6), range(3)):
        acc = acc + a * b - c
    return acc


def loop_reversed(xs):
    acc = []
    for t in reversed(xs):
        acc.append(t.sum())
    return acc


def loop_reversed_range(x):
    for i in reversed(range(3)):
        x = x * (i + 1)
    return x


def loop_over_tensor_rows(x):
    acc = torch.zeros(5)
    for row in x:
        acc = acc + row
    return acc


def loop_tensor_enumerate(x):
    out = x[0] * 0
    for i, row in enumerate(x):
        out = out + row * i
    return out


def loop_break(x):
    for i in range(10):
        if i == 3:
            break
        x = x + i
    return x


def loop_continue(x):
    for i in range(5):
        if i % 2 == 0:
            continue
        x = x * i
    return x


def loop_else(x):
    for i in range(3):
        x = x + i
    else:
        x = x * 10
    return x


def while_const(x):
    i = 0
    while i < 4:
        x = x + i
        i += 1
    return x


def while_true_break(x):
    n = 0
    while True:
        x = x * 2
        n += 1
        if n == 3:
            break
    return x


def nested_loops(x):
    for i in range(2):
        for j in range(3):
            x = x + i * j
    return x


def loop_over_shape(x):
    n = 1
    for s in x.shape:
        n *= s
    return x / n


def loop_iter_next(xs):
    it = iter(xs)
    a = next(it)
    b = next(it)
    return a - b


def loop_enumerate_zip(xs, ys):
    acc = xs[0] * 0
    for i, (a, b) in enumerate(zip(xs, ys), 1):
        acc = acc + (a - b) * i
    return acc


def loop_zip_enumerate_early_exit(xs, ys):
    # The inner iterators are unreachable after the call, so unrolling them whole is unobservable.
    acc = xs[0] * 0
    for (i, a), b in zip(enumerate(iter(xs)), reversed(ys)):
        if i == 2:
            break
        acc = acc + a * b
    return acc


def loop_enumerate_shared_iterator(xs):
    # `it` is shared with the loop: the items left after the early exit are still `it`'s, so
    # Dynamo must not drain it up front (a graph break, then the rest runs in Python).
    it = iter(xs)
    acc = xs[0] * 0
    for i, t in enumerate(it):
        acc = acc + t * i
        if i == 1:
            break
    return acc, list(it)


def loop_string_chars(x):
    for ch in "abc":
        if ch == "b":
            x = x + 1
    return x


x, y = torch.randn(4, 5), torch.randn(4, 5)
check(loop_range, x)
check(loop_range_step, x)
check(loop_list_arg, [x, y, x])
check(loop_tuple_const, x)
check(loop_dict_keys, {"a": x, "b": y})
check(loop_dict_values, {"a": x, "b": y})
check(loop_dict_items, {"a": x, "bb": y})
check(loop_enumerate, [x, y, x])
check(loop_enumerate_start, (x, y))
check(loop_zip, [x, y], (y, x))
check(loop_zip_three, x)
check(loop_reversed, [x, y])
check(loop_reversed_range, x)
check(loop_over_tensor_rows, x)
check(loop_tensor_enumerate, x)
check(loop_break, x)
check(loop_continue, x)
check(loop_else, x)
check(while_const, x)
check(while_true_break, x)
check(nested_loops, x)
check(loop_over_shape, x)
check(loop_iter_next, [x, y])
check(loop_enumerate_zip, [x, y, x], (y, x, y))
check(loop_zip_enumerate_early_exit, [x, y, x, y], [y, x, y])
check(loop_enumerate_shared_iterator, [x, y, x * 2], graphs=0, breaks=1)
check(loop_string_chars, x)
done()
