"""``torch.utils.data``: datasets, samplers, ``default_collate`` and the ``DataLoader``."""

from torch.utils.data._collate import collate, default_collate, default_convert
from torch.utils.data._worker import get_worker_info
from torch.utils.data.dataloader import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torch.utils.data.dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset,
                                      TensorDataset, random_split)
from torch.utils.data.sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                                      WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "collate", "default_collate", "default_convert",
           "get_worker_info", "random_split"]
