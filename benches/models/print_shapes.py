"""Debug printing inside forward: a `print` of a shape and a Python-side counter between layers
(print is a side effect Dynamo must keep; PyTorch breaks the graph on it)."""
import torch
import torch.nn as nn

calls = {"n": 0}


class Net(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.a = nn.Linear(d, d)
        self.b = nn.Linear(d, d)

    def forward(self, x):
        calls["n"] += 1
        h = torch.relu(self.a(x))
        print("hidden shape", tuple(h.shape), "call", calls["n"])
        return self.b(h).softmax(-1)


def build(small=False):
    d, batch = (8, 2) if small else (256, 64)
    return Net(d).eval(), (torch.randn(batch, d),)


def main():
    from _suite import check_model

    check_model(build, "print_shapes")


if __name__ == "__main__":
    main()
