"""``torch.nn.utils``: gradient clipping, flattening parameters to a vector and back, the ``rnn``
packing utilities, parametrizations, weight and spectral normalisation, batch-norm fusion,
``skip_init``, ``stateless`` and the convolution weight memory-format converters."""

from torch.nn.utils import rnn  # noqa: F401
from torch.nn.utils.clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_,  # noqa: F401
                                      clip_grads_with_norm_, get_total_norm)
from torch.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from torch.nn.utils import parametrizations, parametrize  # noqa: F401,E402
from torch.nn.utils.fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,  # noqa: F401
                                   fuse_linear_bn_weights)
from torch.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from torch.nn.utils.weight_norm import remove_weight_norm, weight_norm  # noqa: F401
from torch.nn.utils import stateless  # noqa: F401,E402
from torch.nn.utils.init import skip_init  # noqa: F401,E402
from torch.nn.utils.memory_format import (  # noqa: F401,E402
    convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format,
)
