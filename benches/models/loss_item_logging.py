"""A training-style step with logging: forward, cross-entropy loss, `loss.item()` into a Python
float and a `print` of it every call (the item is a fundamental break: conversion to Python)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

model_cfg = {"d_in": 32, "hidden": 64, "n_classes": 5}
history = []


class Classifier(nn.Module):
    def __init__(self, d_in, hidden, n_classes):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def make_step(model):
    def step(x, y):
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        value = loss.item()
        history.append(value)
        print(f"step {len(history)}: loss {value:.4f}")
        acc = (logits.argmax(-1) == y).float().mean()
        return loss, acc

    return step


def build(small=False):
    cfg = dict(model_cfg, d_in=8, hidden=16) if small else model_cfg
    model = Classifier(**cfg).eval()
    batch = 4 if small else 256
    x = torch.randn(batch, cfg["d_in"])
    y = torch.randint(0, cfg["n_classes"], (batch,))
    return make_step(model), (x, y)


def main():
    from _suite import check_model

    check_model(build, "loss_item_logging")


if __name__ == "__main__":
    main()
