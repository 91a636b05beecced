"""The layer classes of ``torch.nn``, one file per family as in PyTorch."""

from torch.nn.modules.module import Module  # noqa: F401  (first: every layer subclasses it)
from torch.nn.modules.activation import (  # noqa: F401
    CELU, ELU, GELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSigmoid,
    LogSoftmax, Mish, MultiheadAttention, PReLU, ReLU, ReLU6, SiLU, Sigmoid, Softmax, Softmax2d, Softmin,
    Softplus, Softshrink, Softsign, Tanh, Tanhshrink, Threshold, RReLU,
)
from torch.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm  # noqa: F401
from torch.nn.modules.container import (  # noqa: F401
    ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential,
)
from torch.nn.modules.conv import (  # noqa: F401
    Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d,
)
from torch.nn.modules.dropout import (  # noqa: F401
    AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout,
)
from torch.nn.modules.flatten import Flatten, Unflatten  # noqa: F401
from torch.nn.modules.linear import Bilinear, Identity, Linear  # noqa: F401
from torch.nn.modules.lazy import (  # noqa: F401
    LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d,
    LazyConvTranspose2d, LazyConvTranspose3d, LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear,
)
from torch.nn.modules.distance import CosineSimilarity, PairwiseDistance  # noqa: F401
from torch.nn.modules.loss import (  # noqa: F401
    BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss, GaussianNLLLoss, HingeEmbeddingLoss,
    HuberLoss, KLDivLoss, L1Loss, MarginRankingLoss, MSELoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss,
    MultiMarginLoss, NLLLoss, NLLLoss2d, PoissonNLLLoss, SmoothL1Loss, SoftMarginLoss, TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from torch.nn.modules.normalization import GroupNorm, LayerNorm, RMSNorm  # noqa: F401
from torch.nn.modules.pooling import (  # noqa: F401
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d,
    AvgPool1d, AvgPool2d, AvgPool3d, FractionalMaxPool2d, FractionalMaxPool3d, LPPool1d, LPPool2d, LPPool3d,
    MaxPool1d, MaxPool2d, MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, Upsample, UpsamplingBilinear2d,
    UpsamplingNearest2d,
)
from torch.nn.modules.instancenorm import (  # noqa: F401
    InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LocalResponseNorm,
)
from torch.nn.modules.padding import (  # noqa: F401
    CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d, ConstantPad3d, ReflectionPad1d,
    ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, ZeroPad1d, ZeroPad2d,
    ZeroPad3d,
)
from torch.nn.modules.pixelshuffle import ChannelShuffle, Fold, PixelShuffle, PixelUnshuffle, Unfold  # noqa: F401
from torch.nn.modules.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: F401
from torch.nn.modules.sparse import Embedding, EmbeddingBag  # noqa: F401
from torch.nn.modules.transformer import (  # noqa: F401
    Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer,
)

# `from torch.nn.modules import *` (in `torch/nn/__init__.py`) exports the layers only: without
# this list it would also bind the submodules, `utils` among them, over `torch.nn.utils`.
__all__ = [name for name in dir() if name[:1].isupper()]
