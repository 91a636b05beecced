"""``torch.utils``: ``data`` (datasets, samplers, DataLoader)."""
