"""Writes `fixtures/mnist_init.pt` (the CNN's initial weights, from PyTorch's seeded init) and
records `_mnist_golden.py` by running `mnist_style.py --record`. Run in the scratch venv:
`/tmp/pt/bin/python _gen_mnist.py`."""

import os
import subprocess
import sys

import torch

sys.argv = [sys.argv[0]]
here = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(1234)
ns = {"__file__": os.path.join(here, "mnist_style.py")}
src = open(os.path.join(here, "mnist_style.py")).read()
exec(src.split("def train(")[0], ns)  # the Net class and imports, without running the training
model = ns["Net"]()
torch.save({"model": model.state_dict()}, os.path.join(here, "fixtures", "mnist_init.pt"))
subprocess.run([sys.executable, os.path.join(here, "mnist_style.py"), "--record"], check=True)
