import torch
from _harness import check, done


def pointwise(x, y):
    return (x.sin() * 1.5 + y.cos()).relu() - 0.25


def helpers_and_loops(x, n=3):
    def scale(v, k):
        return v * k

    acc = x
    for i in range(n):
        acc = acc + scale(x, i)
    return acc, {"n": n, "shape": x.shape}


def graph_break_print(x):
    y = x + 1
    print("logging", y.shape)
    return y * 2


def data_dependent(x):
    if x.sum() > 0:
        return x * 2
    return x - 1


x, y = torch.randn(4, 5), torch.randn(4, 5)
check(pointwise, x, y)
check(helpers_and_loops, x)
check(graph_break_print, x, graphs=2)
check(data_dependent, x, graphs=2)
check(data_dependent, -x.abs() - 1, graphs=2)
done()
