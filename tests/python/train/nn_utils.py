"""torch.nn.utils against PyTorch: gradient clipping (norms 2, 1, inf, non-finite errors),
parameters_to_vector / vector_to_parameters, and the rnn packing utilities. Prints what it sees;
`nn_utils.out` is this script's output under real PyTorch 2.15."""

import math

import torch
from torch.nn.utils import clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters
from torch.nn.utils.rnn import (PackedSequence, pack_padded_sequence, pack_sequence, pad_packed_sequence,
                                pad_sequence, unpack_sequence, unpad_sequence)


def attempt(label, fn):
    try:
        print(label, "->", fn())
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


def params(scale):
    ps = [torch.nn.Parameter(torch.zeros(2, 3)), torch.nn.Parameter(torch.zeros(4)), torch.nn.Parameter(torch.zeros(1))]
    ps[0].grad = torch.arange(6, dtype=torch.float32).reshape(2, 3) * scale
    ps[1].grad = torch.tensor([1.0, -2.0, 3.0, -4.0]) * scale
    return ps


for norm_type in (2.0, 1, math.inf, 3.0):
    for max_norm in (0.5, 100.0):
        ps = params(1.0)
        flat = [v for p in ps[:2] for v in p.grad.reshape(-1).tolist()]
        exact = max(abs(v) for v in flat) if norm_type == math.inf else sum(abs(v) ** norm_type for v in flat) ** (1 / norm_type)
        total = clip_grad_norm_(ps, max_norm, norm_type=norm_type)
        # Within 1e-6 of the exact norm: p-norms go through pow, whose last bit differs between libms.
        print(f"norm {norm_type} max {max_norm}: total ~ exact {abs(total.item() - exact) <= 1e-6 * exact}",
              [round(v, 5) for p in ps[:2] for v in p.grad.reshape(-1).tolist()], ps[2].grad)
ps = params(1.0)
print("foreach:", clip_grad_norm_(ps, 1.0, foreach=True).item() == clip_grad_norm_(params(1.0), 1.0).item(),
      clip_grad_value_(ps, 0.1, foreach=True), ps[0].grad.tolist())
print("no grads:", clip_grad_norm_([torch.nn.Parameter(torch.zeros(1))], 1.0))
print("single tensor:", clip_grad_norm_(params(1.0)[0], 1.0).item())
ps = params(1.0)
ps[1].grad[0] = float("nan")
attempt("nonfinite error", lambda: clip_grad_norm_(ps, 1.0, error_if_nonfinite=True))
print("nonfinite allowed:", clip_grad_norm_(params(1.0), 1.0, error_if_nonfinite=False).item())
ps = params(1.0)
clip_grad_value_(ps, 2.5)
print("clip value:", ps[0].grad.tolist(), ps[1].grad.tolist())

ps = params(1.0)
vec = parameters_to_vector(ps)
print("to vector:", vec.shape, vec.tolist()[:3])
vector_to_parameters(torch.arange(11, dtype=torch.float32), ps)
print("from vector:", ps[0].tolist(), ps[1].tolist(), ps[2].tolist())
attempt("from list", lambda: vector_to_parameters([1.0], ps))

a, b, c = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0]), torch.tensor([6.0])
print("pad:", pad_sequence([a, b, c]).tolist())
print("pad batch_first:", pad_sequence([b, a, c], batch_first=True, padding_value=-1).tolist())
print("pad left:", pad_sequence([a, c], batch_first=True, padding_side="left").tolist())
feat = [torch.arange(6.0).reshape(3, 2), torch.arange(4.0).reshape(2, 2) + 10]
print("pad features:", pad_sequence(feat).shape)
packed = pack_sequence([a, b, c])
print("packed:", packed.data.tolist(), packed.batch_sizes.tolist(), packed.sorted_indices, packed.unsorted_indices)
print("is namedtuple:", isinstance(packed, tuple), PackedSequence._fields)
padded, lengths = pad_packed_sequence(packed)
print("unpacked:", padded.tolist(), lengths.tolist())
unsorted = pack_sequence([c, a, b], enforce_sorted=False)
print("unsorted:", unsorted.data.tolist(), unsorted.batch_sizes.tolist(), unsorted.sorted_indices.tolist(),
      unsorted.unsorted_indices.tolist())
padded, lengths = pad_packed_sequence(unsorted, batch_first=True, padding_value=9.0, total_length=4)
print("unpacked batch_first:", padded.tolist(), lengths.tolist())
print("unpack_sequence:", [s.tolist() for s in unpack_sequence(unsorted)])
x = pad_sequence(feat, batch_first=True)
p = pack_padded_sequence(x, [3, 2], batch_first=True)
print("features packed:", p.data.tolist(), p.batch_sizes.tolist())
print("unpad:", [s.tolist() for s in unpad_sequence(x, torch.tensor([3, 2]), batch_first=True)])
attempt("unsorted lengths", lambda: pack_padded_sequence(pad_sequence([b, a]), [2, 3]))
attempt("zero length", lambda: pack_padded_sequence(pad_sequence([a, b]), [3, 0]))
attempt("total_length short", lambda: pad_packed_sequence(packed, total_length=2))
attempt("bad side", lambda: pad_sequence([a], padding_side="middle"))
