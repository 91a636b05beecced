"""Issue 30: corrupt and malicious checkpoint files never crash the process or read memory a
tensor does not own. Hand-made `torch.save` archives whose tensors reach past their storage
(size, offset, overflowing or negative strides), claim absurd storage sizes, name records outside
the archive, or call unsafe globals get PyTorch 2.15's errors (texts recorded from PyTorch), with
`mmap` off and on (records written by Python's `zipfile`, so unaligned, which PyTorch loads). Then a fixed-seed mutation fuzz (byte flips, truncations, splices) of a
`torch.save` archive and a safetensors file runs in a child process: every load either raises a
Python exception or gives tensors whose every element can be read."""
import io
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections import OrderedDict

import torch
import torch._utils

TMP = tempfile.mkdtemp()
failures = []


class Storage:
    """Pickled as a storage persistent id ('storage', FloatStorage, key, 'cpu', numel)."""

    def __init__(self, key, numel):
        self.key, self.numel = key, numel


class Rebuild:
    def __init__(self, *args):
        self.args = args

    def __reduce__(self):
        return (torch._utils._rebuild_tensor_v2, self.args)


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


class Writer(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, Storage):
            return ("storage", torch.FloatStorage, obj.key, "cpu", obj.numel)
        return None


def archive(name, obj, records):
    """A checkpoint zip `name` holding `obj` pickled as data.pkl and the given data records."""
    buf = io.BytesIO()
    Writer(buf, protocol=2).dump(obj)
    path = os.path.join(TMP, name + ".pt")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", buf.getvalue())
        z.writestr("archive/byteorder", "little")
        for key, blob in records.items():
            z.writestr(f"archive/data/{key}", blob)
        z.writestr("archive/version", "3\n")
    return path


FOUR = bytes(bytearray(b"\x00\x00\x00\x00\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40"))


def t(storage, offset, size, stride):
    return {"t": Rebuild(storage, offset, size, stride, False, OrderedDict())}


S = Storage("0", 4)
OOB = "Trying to resize storage that is not resizable"
CASES = [
    ("good", t(S, 1, (3,), (1,)), None),
    ("size", t(S, 0, (10**6,), (1,)), OOB),
    ("offset", t(S, 10**6, (2,), (1,)), OOB),
    ("stride", t(S, 0, (2, 2), (1, 3)), OOB),
    ("negative-stride", t(S, 1, (2,), (-1,)), "Storage size calculation overflowed with sizes=[2] and strides=[-1]"),
    ("negative-offset", t(S, -1, (2,), (1,)), "Tensor: invalid storage offset -1"),
    ("negative-size", t(S, 0, (2, -1), (1, 1)), "numel: integer multiplication overflow"),
    ("overflow", t(S, 0, (2**62, 4), (1, 2**62)), "numel: integer multiplication overflow"),
    ("offset-overflow", t(S, 2**62, (1,), (1,)), "Storage size calculation overflowed with sizes=[1] and strides=[1]"),
    ("rank-mismatch", t(S, 0, (2, 2), (1,)), "unequal size length (2) and stride length (1)"),
]


def load_error(path, mmap):
    try:
        out = torch.load(path, mmap=mmap)
    except (RuntimeError, pickle.UnpicklingError, ValueError, TypeError) as e:
        return str(e)
    return out


for name, obj, want in CASES:
    path = archive(name, obj, {"0": FOUR})
    for mmap in (False, True):
        got = load_error(path, mmap)
        if want is None:
            if not isinstance(got, dict) or got["t"].tolist() != [1.0, 2.0, 3.0]:
                failures.append(f"{name} mmap={mmap}: {got!r}")
        elif got != want:
            failures.append(f"{name} mmap={mmap}: {got!r} != {want!r}")

# Storage records that lie about their size, or live outside the archive: an error naming the file.
for name, storage, records in (
    ("numel-huge", Storage("0", 10**12), {"0": FOUR}),
    ("numel-negative", Storage("0", -4), {"0": FOUR}),
    ("numel-short", Storage("0", 8), {"0": FOUR}),
    ("record-missing", Storage("../../../etc/passwd", 4), {"0": FOUR}),
    ("record-ragged", Storage("0", 4), {"0": FOUR[:-1]}),
):
    path = archive(name, t(storage, 0, (1,), (1,)), records)
    for mmap in (False, True):
        got = load_error(path, mmap)
        if isinstance(got, dict):
            got["t"].tolist()  # readable, whatever mmap made of it
        if not isinstance(got, str) and not mmap:
            failures.append(f"{name} mmap={mmap}: loaded {got!r}")
        elif name.startswith("record-missing") and "file not found" not in got:
            failures.append(f"{name}: {got}")

# Unsafe globals: weights_only (the default) refuses them without running anything.
path = archive("evil", {"x": Evil()}, {})
try:
    torch.load(path)
    failures.append("evil: loaded")
except pickle.UnpicklingError as e:
    msg = str(e)
    if not msg.startswith("Weights only load failed.") or "os.system" not in msg and "posix.system" not in msg:
        failures.append(f"evil: {msg[:300]}")

# torch.frombuffer over memory misaligned for the dtype: kernels need aligned data, so Rynamo
# refuses to share it (PyTorch shares it; x86 tolerates unaligned loads).
try:
    torch.frombuffer(bytearray(12), dtype=torch.float32, offset=1, count=2)
    failures.append("unaligned frombuffer shared")
except ValueError as e:
    if "not a multiple of the element size" not in str(e):
        failures.append(f"unaligned frombuffer: {e}")
aligned = torch.frombuffer(bytearray(12), dtype=torch.float32, offset=4, count=2)
if aligned.tolist() != [0.0, 0.0]:
    failures.append(f"aligned frombuffer: {aligned}")

# --- mutation fuzz, in a child so a crash is reported, not fatal to the suite ---
CHILD = r'''
import os, random, sys, pickle
import torch
from safetensors.torch import load_file
from safetensors import SafetensorError
seed, count, tmp = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(seed)
good_pt = os.path.join(tmp, "good_fuzz.pt")
good_st = os.path.join(tmp, "good_fuzz.safetensors")
base = torch.arange(24.0).reshape(4, 6)
torch.save({"a": base, "b": base[1:, ::2], "n": torch.arange(5), "h": torch.ones(3, dtype=torch.float16), "s": "x"}, good_pt)
from safetensors.torch import save_file
save_file({"a": base, "n": torch.arange(5), "h": torch.ones(3, dtype=torch.bfloat16)}, good_st)
originals = [(good_pt, open(good_pt, "rb").read()), (good_st, open(good_st, "rb").read())]
loaded = raised = 0
for i in range(count):
    src, raw = originals[i % 2]
    blob = bytearray(raw)
    for _ in range(rng.choice((1, 1, 2, 4, 16))):
        kind = rng.random()
        pos = rng.randrange(len(blob)) if blob else 0
        if kind < 0.55 and blob:
            blob[pos] = rng.randrange(256)
        elif kind < 0.7:
            del blob[pos:]
        elif kind < 0.85 and blob:
            n = rng.choice((1, 2, 4, 8))
            blob[pos:pos + n] = rng.choice((b"\xff" * n, b"\x00" * n, b"\x7f" * n, bytes(rng.randrange(256) for _ in range(n))))
        else:
            blob[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.choice((1, 8, 64))))
    path = os.path.join(tmp, f"mut_{i % 2}")
    with open(path, "wb") as f:
        f.write(bytes(blob))
    sys.stderr.write(f"case {i}\n")
    sys.stderr.flush()
    try:
        if src.endswith(".pt"):
            out = torch.load(path, mmap=(i % 4 == 0))
        else:
            out = load_file(path)
    except (RuntimeError, pickle.UnpicklingError, ValueError, TypeError, KeyError, EOFError,
            IndexError, AttributeError, UnicodeDecodeError, SafetensorError, OverflowError, MemoryError):
        raised += 1
        continue
    loaded += 1
    for v in (out.values() if isinstance(out, dict) else [out]):
        if isinstance(v, torch.Tensor):
            # Every element is read: a view past its storage would read garbage or fault here.
            v.float().sum().item()
            v.clone()
print(f"done loaded={loaded} raised={raised}")
'''
COUNT = int(os.environ.get("CHECKPOINT_FUZZ_COUNT", "400"))
r = subprocess.run([sys.executable, "-c", CHILD, "7", str(COUNT), TMP], capture_output=True, text=True)
last = [l for l in r.stderr.splitlines() if l.startswith("case ")][-1:]
if r.returncode != 0 or not r.stdout.startswith("done"):
    failures.append(f"fuzz child failed (rc={r.returncode}) at {last}: {r.stderr[-2000:]}")
else:
    print("fuzz:", r.stdout.strip().split(" ", 1)[1], file=sys.stderr)

shutil.rmtree(TMP)
if failures:
    print("\n".join(failures))
    raise SystemExit(f"{len(failures)} failures")
print("ok")
