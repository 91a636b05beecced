"""Guards that read an object's attributes stay right when the object's class changes.

Rynamo's guards read an attribute straight from the instance `__dict__` once they have seen
that the class lets them (`object.__getattribute__`, no data descriptor of that name), and only
while the class is unchanged. These cases change the class between calls in the ways that
break that shortcut: a property (a data descriptor) shadowing the instance value, a
`__getattribute__` override, an instance attribute deleted so the class attribute shows, and a
plain class attribute (which the instance value still outranks). Each call must give eager's
result, with the graph counts of PyTorch 2.15 (.out recorded from it). The attribute is a string
(specialised, a recompile per new value, in both), not a number (PyTorch makes a changed number a
graph input).

The last line of the `Scaler` cases, `__getattribute__ removed`, is the one place the .out is not
PyTorch's: PyTorch 2.15 keeps running the entry compiled under the override and returns its stale
7.0 (`False`, not eager's result); the .out holds eager's value there, which Rynamo gives."""
import torch
from torch._dynamo.testing import CompileCounter


class Scaler:
    factor = "class"

    def __init__(self):
        self.factor = "double"


OPS = {"double": 2.0, "triple": 3.0, "class": 10.0, "class2": 11.0, "property": 5.0,
       "getattribute": 7.0, "class3": 4.0, "back": 6.0, "slot": 8.0, "slot2": 9.0}


def scaled(obj, x):
    return x * OPS[obj.factor]


x = torch.ones(3)
s = Scaler()
cnt = CompileCounter()
f = torch.compile(scaled, backend=cnt)


def call(label):
    got, want = f(s, x), scaled(s, x)
    print(label, got.tolist(), torch.equal(got, want), "frames:", cnt.frame_count)


call("instance value")
s.factor = "triple"
call("instance value changed")

# A plain class attribute does not outrank the instance value: the same graph.
Scaler.factor = "class2"
call("class attribute changed")

# A property (data descriptor) outranks the instance dict.
Scaler.factor = property(lambda self: "property")
call("property")
del Scaler.factor
call("property removed")

# The instance value deleted: the class attribute shows.
Scaler.factor = "class3"
del s.factor
call("instance value deleted")
s.factor = "back"
call("instance value back")


# __getattribute__ on the class intercepts every read.
def getattribute(self, name):
    if name == "factor":
        return "getattribute"
    return object.__getattribute__(self, name)


Scaler.__getattribute__ = getattribute
call("__getattribute__")
del Scaler.__getattribute__
call("__getattribute__ removed")


class Slotted:
    __slots__ = ("factor",)

    def __init__(self):
        self.factor = "slot"


s = Slotted()
cnt2 = CompileCounter()
f = torch.compile(scaled, backend=cnt2)
got = f(s, x)
s.factor = "slot2"
print("slots", f(s, x).tolist(), torch.equal(f(s, x), scaled(s, x)), "frames:", cnt2.frame_count)
