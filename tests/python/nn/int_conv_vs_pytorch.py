"""Integer convolutions against PyTorch 2.15's eager values, eagerly and compiled on both backends.
PyTorch's CPU kernels compute conv1d/2d/3d on uint8, int8, int16, int32 and int64 exactly, wrapping
on overflow in the tensor's own width (int8 100 * 100 * 3 is 48), and the transposed ones on int64
only; Bool, and the other integer dtypes of the transposed kernels, raise NotImplementedError naming
the ATen kernel. Integers cannot require gradients, so only values are compared. Goldens:
`int_conv_pt.json`, recorded by `PYTHONPATH=tests/python /tmp/pt/bin/python
tests/python/nn/int_conv_vs_pytorch.py --record`."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from torch._dynamo.testing import CompileCounter

from _eager_goldens import Goldens

goldens = Goldens(__file__, "int_conv_pt.json")
INTS = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)


def ints(*shape, dtype=torch.int64, scale=1):
    """Irregular small integers (negative ones too, which uint8 wraps), the same on both sides."""
    n = 1
    for s in shape:
        n *= s
    return ((torch.arange(n) * 37 % 23 - 11) * scale).reshape(shape).to(dtype)


for dt in INTS:
    name = str(dt).removeprefix("torch.")
    x, w, b = ints(2, 4, 9, dtype=dt), ints(6, 2, 3, dtype=dt), ints(6, dtype=dt)
    goldens.check(f"conv1d {name}", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, groups=2), x, w, b)
    # ATen's dilated kernel takes Long only: the other dtypes raise.
    goldens.check(f"conv1d dilated {name}", lambda x, w, b: F.conv1d(x, w, b, padding=1, dilation=2, groups=2),
                  x, w, b)
    x, w, b = ints(2, 4, 7, 6, dtype=dt), ints(6, 2, 3, 2, dtype=dt), ints(6, dtype=dt)
    goldens.check(f"conv2d {name}", lambda x, w, b: F.conv2d(x, w, b, (2, 1), (1, 2), 1, 2), x, w, b)
    goldens.check(f"conv2d dilated {name}", lambda x, w, b: F.conv2d(x, w, b, 1, 0, (1, 2), 2), x, w, b)
    goldens.check(f"conv2d 1x1 {name}", lambda x, w: F.conv2d(x, w[:, :, :1, :1].repeat(1, 2, 1, 1)), x, w)
    x, w = ints(1, 2, 4, 5, 3, dtype=dt), ints(3, 2, 2, 3, 2, dtype=dt)
    goldens.check(f"conv3d {name}", lambda x, w: F.conv3d(x, w, None, (1, 2, 1), (1, 0, 1)), x, w)
    goldens.check(f"conv3d depth-dilated {name}", lambda x, w: F.conv3d(x, w, None, 1, 0, (2, 1, 1)), x, w)

# Overflow wraps in the tensor's own width; int64 sums beyond 2**53 stay exact.
big8 = torch.full((1, 1, 3, 3), 100, dtype=torch.int8)
goldens.check("int8 wraps", lambda x, w: F.conv2d(x, w), big8, big8)
goldens.check("uint8 wraps", lambda x, w, b: F.conv2d(x, w, b), big8.to(torch.uint8) * 2, big8.to(torch.uint8) * 2,
              torch.tensor([100], dtype=torch.uint8))
goldens.check("int16 wraps", lambda x, w: F.conv1d(x, w), ints(1, 3, 8, dtype=torch.int16, scale=300),
              ints(2, 3, 4, dtype=torch.int16, scale=200))
goldens.check("int64 exact", lambda x, w: F.conv1d(x, w), ints(1, 2, 6, scale=3**33), ints(2, 2, 3, scale=7))
goldens.check("int64 wraps", lambda x, w: F.conv1d(x, w), ints(1, 2, 6, scale=2**40), ints(2, 2, 3, scale=2**30 + 1))

goldens.check("conv1d same", lambda x, w: F.conv1d(x, w, padding="same"), ints(2, 3, 7, dtype=torch.int16),
              ints(4, 3, 4, dtype=torch.int16))
goldens.check("conv1d same dilated", lambda x, w: F.conv1d(x, w, padding="same", dilation=2), ints(2, 3, 7),
              ints(4, 3, 4))
goldens.check("conv2d empty batch", lambda x, w: F.conv2d(x, w), ints(0, 2, 5, 5, dtype=torch.int8),
              ints(3, 2, 2, 2, dtype=torch.int8))
# An input without channels gives a result without channels, whatever the weight's.
goldens.check("conv2d no channels", lambda x, w, b: F.conv2d(x, w, b, padding=1), ints(2, 0, 5, 5),
              ints(3, 0, 2, 2), ints(3))
# For floats too, and every gradient is zero (the bias's has the weight's output channels).
goldens.check("float conv2d no channels", lambda x, w, b: F.conv2d(x, w, b), torch.ones(1, 0, 5, 5),
              torch.ones(3, 0, 2, 2), torch.ones(3))
goldens.check("float conv1d unbatched no channels", lambda x, w, b: F.conv1d(x, w, b, padding=1),
              torch.ones(0, 6), torch.ones(2, 0, 3), torch.ones(2))
goldens.check("conv2d valid", lambda x, w: F.conv2d(x, w, padding="valid"), ints(1, 2, 5, 5, dtype=torch.int32),
              ints(3, 2, 2, 2, dtype=torch.int32))
goldens.check("conv2d unbatched", lambda x, w: F.conv2d(x, w, padding=1), ints(2, 4, 4, dtype=torch.int32),
              ints(3, 2, 3, 3, dtype=torch.int32))
goldens.check("conv3d same", lambda x, w: F.conv3d(x, w, padding="same"), ints(1, 2, 3, 4, 4),
              ints(2, 2, 2, 3, 3))
cl = ints(2, 3, 5, 4).contiguous(memory_format=torch.channels_last)
goldens.check("conv2d channels_last", lambda x, w: F.conv2d(x, w), cl, ints(4, 3, 2, 2))
goldens.text("conv2d channels_last strides", str(F.conv2d(cl, ints(4, 3, 2, 2)).stride()))

for nd, fn in ((1, F.conv_transpose1d), (2, F.conv_transpose2d), (3, F.conv_transpose3d)):
    x, w, b = ints(2, 4, *(3,) * nd), ints(4, 3, *(2,) * nd), ints(6)
    goldens.check(f"conv_transpose{nd}d int64", lambda x, w, b: fn(x, w, b, 2, 1, 1, 2, 2), x, w, b)
    goldens.check(f"conv_transpose{nd}d unbatched", lambda x, w: fn(x, w), x[0], w)
    for dt in INTS[:-1] + (torch.bool,):
        goldens.raises(f"conv_transpose{nd}d {dt}", lambda: fn(x.to(dt), w.to(dt)))
x, w = ints(1, 4, 3, 3), ints(4, 2, 2, 2)
# The 1-D and 2-D transposed kernels add the bias in place: an int32 bias is cast, a float one refused.
goldens.check("conv_transpose2d int32 bias", lambda x, w, b: F.conv_transpose2d(x, w, b), x, w,
              ints(2, dtype=torch.int32))
goldens.raises("conv_transpose2d float bias", lambda: F.conv_transpose2d(x, w, torch.ones(2)))
goldens.raises("conv_transpose3d int32 bias",
               lambda: F.conv_transpose3d(ints(1, 4, 2, 2, 2), ints(4, 2, 2, 2, 2), ints(2, dtype=torch.int32)))
goldens.raises("conv_transpose2d int8 channels", lambda: F.conv_transpose2d(ints(1, 3, 4, 4, dtype=torch.int8),
                                                                           ints(2, 2, 2, 2, dtype=torch.int8)))

for label, call in [
    ("conv1d bool", lambda: F.conv1d(ints(1, 2, 4).bool(), ints(2, 2, 2).bool())),
    ("conv2d bool", lambda: F.conv2d(ints(1, 2, 4, 4).bool(), ints(2, 2, 2, 2).bool())),
    ("conv3d bool", lambda: F.conv3d(ints(1, 2, 4, 4, 4).bool(), ints(2, 2, 2, 2, 2).bool())),
    ("conv2d bool float weight", lambda: F.conv2d(ints(1, 2, 4, 4).bool(), torch.ones(2, 2, 2, 2))),
    ("conv3d bool float weight", lambda: F.conv3d(ints(1, 2, 4, 4, 4).bool(), torch.ones(2, 2, 2, 2, 2))),
    ("conv2d bool too small", lambda: F.conv2d(ints(1, 2, 1, 1).bool(), ints(2, 2, 2, 2).bool())),
    ("conv2d int32 int64", lambda: F.conv2d(ints(1, 2, 4, 4, dtype=torch.int32), ints(2, 2, 2, 2))),
    ("conv2d int32 float", lambda: F.conv2d(ints(1, 2, 4, 4, dtype=torch.int32), torch.ones(2, 2, 2, 2))),
    ("conv2d float int64", lambda: F.conv2d(torch.ones(1, 2, 4, 4), ints(2, 2, 2, 2))),
    ("conv3d int64 float", lambda: F.conv3d(ints(1, 2, 4, 4, 4), torch.ones(2, 2, 2, 2, 2))),
    ("conv2d int32 int64 dilated", lambda: F.conv2d(ints(1, 2, 4, 4, dtype=torch.int32), ints(2, 2, 2, 2),
                                                    dilation=2)),
    ("conv1d bool dilated", lambda: F.conv1d(ints(1, 2, 5).bool(), ints(2, 2, 2).bool(), dilation=2)),
    ("conv3d bool dilated", lambda: F.conv3d(ints(1, 2, 5, 5, 5).bool(), ints(2, 2, 2, 2, 2).bool(), dilation=2)),
    # The bias's dtype is compared first, before any shape (and for floats too).
    ("conv2d int64 int32 bias", lambda: F.conv2d(ints(1, 2, 4, 4), ints(2, 2, 2, 2), ints(2, dtype=torch.int32))),
    ("conv2d bias dtype then channels", lambda: F.conv2d(ints(1, 3, 5, 5), ints(2, 2, 2, 2),
                                                         ints(2, dtype=torch.int32))),
    ("conv2d bias dtype then rank", lambda: F.conv2d(ints(5, 5), ints(2, 2, 2, 2), ints(2, dtype=torch.int16))),
    ("conv2d bool int32 bias", lambda: F.conv2d(ints(1, 2, 5, 5).bool(), ints(2, 2, 2, 2).bool(),
                                                ints(2, dtype=torch.int32))),
    ("conv1d float half bias", lambda: F.conv1d(torch.ones(1, 2, 5), torch.ones(2, 2, 2), torch.ones(2).half())),
    ("conv3d float double bias", lambda: F.conv3d(torch.ones(1, 2, 3, 3, 3), torch.ones(2, 2, 2, 2, 2),
                                                  torch.ones(2).double())),
    ("conv3d bias dtype then channels", lambda: F.conv3d(ints(1, 3, 5, 5, 5), ints(2, 2, 2, 2, 2),
                                                         ints(2, dtype=torch.int32))),
    ("conv2d same strided bias dtype", lambda: F.conv2d(ints(1, 2, 5, 5), ints(2, 2, 2, 2), ints(2).int(), stride=2,
                                                        padding="same")),
    ("int requires_grad", lambda: ints(2).requires_grad_()),
    ("Conv2d.to(int64)", lambda: nn.Conv2d(2, 3, 3).to(torch.int64)),
]:
    goldens.raises(label, call)
# The dtype checks must not break the graph (a dict lookup keyed by dtype did, once per call).
for label, fn, args in [
    ("conv_transpose2d", F.conv_transpose2d, (torch.ones(1, 2, 3, 3), torch.ones(2, 2, 2, 2), torch.ones(2))),
    ("conv_transpose2d int64", F.conv_transpose2d, (ints(1, 2, 3, 3), ints(2, 2, 2, 2), ints(2))),
    ("conv_transpose3d", F.conv_transpose3d, (torch.ones(1, 2, 3, 3, 3), torch.ones(2, 2, 2, 2, 2))),
    ("conv3d", F.conv3d, (torch.ones(1, 2, 3, 3, 3), torch.ones(2, 2, 2, 2, 2), torch.ones(2))),
    ("conv3d int64 dilated", lambda x, w: F.conv3d(x, w, dilation=(2, 1, 1)), (ints(1, 2, 3, 3, 3), ints(2, 2, 1, 2, 2))),
]:
    torch._dynamo.reset()
    counter = CompileCounter()
    torch.compile(fn, backend=counter)(*args)
    goldens.text(f"graphs {label}", counter.frame_count)
goldens.finish()
