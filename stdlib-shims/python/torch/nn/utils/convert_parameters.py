"""``parameters_to_vector`` / ``vector_to_parameters``."""

import torch


def parameters_to_vector(parameters):
    """One 1-D tensor of all parameters, concatenated in order."""
    return torch.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Makes each parameter's data the next slice of ``vec`` (as PyTorch: ``param.data = ...``,
    so the parameters view ``vec``'s memory afterwards)."""
    if not isinstance(vec, torch.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {torch.typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
