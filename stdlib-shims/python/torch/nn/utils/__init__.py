"""``torch.nn.utils``: gradient clipping, flattening parameters to a vector and back, and the
``rnn`` packing utilities."""

from torch.nn.utils import rnn  # noqa: F401
from torch.nn.utils.clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_,  # noqa: F401
                                      clip_grads_with_norm_, get_total_norm)
from torch.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
