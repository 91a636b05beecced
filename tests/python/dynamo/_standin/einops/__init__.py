"""A stand-in for einops 0.8 (CI has no einops) with the one structure Dynamo's einops init
depends on: the torch backend is made on the first call, and making it registers the ops as
`allow_in_graph` (einops' `_torch_specific`). Only the patterns the test uses are supported."""
from ._core import get_backend, rearrange, repeat  # noqa: F401

# As an einops that registers its ops itself (0.7: PyTorch imports `_torch_specific` for it).
__version__ = "0.7.0"
