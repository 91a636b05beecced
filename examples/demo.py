"""The Rynamo demo: what the embedded interpreter runs today.

Run with `scripts/demo`. As the torch package and torch.compile land, this demo grows into a compiled
model on the default backend with its speed-up over eager.
"""
import dataclasses
import json
import sys
import time


@dataclasses.dataclass
class Layer:
    width: int
    activation: str = "relu"


def matvec(rows, vec):
    return [sum(a * b for a, b in zip(row, vec)) for row in rows]


def main():
    layers = [Layer(4), Layer(8, "gelu"), Layer(2)]
    print("interpreter:", sys.implementation.name, sys.version.split()[0])
    print("config:", json.dumps([dataclasses.asdict(layer) for layer in layers]))
    rows = [[float(i * j % 7) for j in range(64)] for i in range(64)]
    vec = [1.0 / (k + 1) for k in range(64)]
    start = time.perf_counter()
    for _ in range(20):
        out = matvec(rows, vec)
    took = (time.perf_counter() - start) / 20
    print(f"pure-Python 64x64 matvec: {took * 1e3:.2f} ms per call, checksum {sum(out):.4f}")


if __name__ == "__main__":
    main()
