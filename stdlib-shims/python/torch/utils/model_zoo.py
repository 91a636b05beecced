"""``torch.utils.model_zoo``: the old name of ``torch.hub.load_state_dict_from_url``, which older
model code (torchvision before 0.4) imports."""
from torch.hub import load_state_dict_from_url as load_url  # noqa: F401
