"""As einops' module of that name: importing it registers the ops with Dynamo. (The flag is
set first: PyTorch's `allow_in_graph` runs its einops init, which imports this module's flag.)"""
import torch

from ._core import rearrange, repeat

_ops_were_registered_in_torchdynamo = True
torch._dynamo.allow_in_graph(rearrange)
torch._dynamo.allow_in_graph(repeat)
