"""torch.save / torch.load: checkpoints written by real PyTorch 2.15 (`fixtures/`, made by
`_gen_fixtures.py`) load with their values, dtypes, strides and shared storages; Rynamo's own
files round-trip (every dtype, views saved once, Parameters, module and optimizer state_dicts,
nested containers, BytesIO, map_location, mmap=True); the legacy format loads; weights_only
refuses a pickle calling os.system with PyTorch's error and add_safe_globals admits a class;
truncated and corrupt files raise an error naming the file."""

import atexit
import io
import os
import pickle
import shutil
import tempfile
from collections import OrderedDict

import torch
from _fixture_expect import EXPECT

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures")
TMP = tempfile.mkdtemp(prefix="rynamo_ser_")
atexit.register(shutil.rmtree, TMP, True)  # the files are only read back here
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def values(t):
    return [float(v) if t.is_floating_point() else (bool(v) if t.dtype == torch.bool else int(v))
            for v in t.reshape(-1).tolist()]


def check_tensor(name, t, spec):
    dtype, shape, stride, offset, vals = spec
    expect(isinstance(t, torch.Tensor), f"{name}: not a tensor")
    expect(str(t.dtype) == "torch." + dtype, f"{name}: dtype {t.dtype} != {dtype}")
    expect(list(t.shape) == shape and list(t.stride()) == stride and t.storage_offset() == offset,
           f"{name}: layout {list(t.shape)} {list(t.stride())} {t.storage_offset()} != {shape} {stride} {offset}")
    expect(values(t) == vals, f"{name}: values {values(t)} != {vals}")


# --- PyTorch's checkpoint ---
for kwargs in ({}, {"mmap": True}, {"map_location": "cpu"}, {"map_location": lambda s, loc: s},
               {"map_location": {"cpu": "cpu"}}, {"weights_only": False}):
    ck = torch.load(os.path.join(FIX, "pt_checkpoint.pt"), **kwargs)
    tag = f"pt_checkpoint {list(kwargs)}"
    for name, spec in EXPECT["tensors"].items():
        check_tensor(f"{tag} {name}", ck["tensors"][name], spec)
    expect(type(ck["tensors"]) is OrderedDict, f"{tag}: container type {type(ck['tensors'])}")
    expect(type(ck["tensors"]["param"]) is torch.nn.Parameter and ck["tensors"]["param"].requires_grad,
           f"{tag}: Parameter lost")
    # Views of one storage still share it.
    ck["tensors"]["f32"][1, 0] = 42.0
    expect(float(ck["tensors"]["row"][0]) == 42.0 and float(ck["tensors"]["colT"][0, 1]) == 42.0,
           f"{tag}: views do not share storage")
    expect(list(ck["model"]) == list(EXPECT["model"]), f"{tag}: model keys {list(ck['model'])}")
    for k, (shape, vals) in EXPECT["model"].items():
        expect(list(ck["model"][k].shape) == shape and values(ck["model"][k]) == vals, f"{tag}: model {k}")
    expect(dict(ck["model"]._metadata) == EXPECT["model_metadata"], f"{tag}: _metadata {ck['model']._metadata}")
    expect(ck["optim"]["param_groups"] == EXPECT["optim_groups"], f"{tag}: optim groups")
    expect({i: {k: values(v) for k, v in s.items()} for i, s in ck["optim"]["state"].items()} == EXPECT["optim_state"],
           f"{tag}: optim state")
    expect(ck["meta"] == EXPECT["meta"], f"{tag}: meta {ck['meta']}")

# The checkpoint drives a real model and optimizer.
model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
ck = torch.load(os.path.join(FIX, "pt_checkpoint.pt"))
model.load_state_dict(ck["model"])
opt.load_state_dict(ck["optim"])
expect(values(model[0].weight) == EXPECT["model"]["0.weight"][1], "load_state_dict into a module")
expect(float(opt.state[model[0].weight]["step"]) == 1.0, "optimizer state restored")

# mmap=True: copy-on-write, the file is unchanged.
m = torch.load(os.path.join(FIX, "pt_checkpoint.pt"), mmap=True)
m["tensors"]["f64"][0] = 99.0
again = torch.load(os.path.join(FIX, "pt_checkpoint.pt"))
expect(float(again["tensors"]["f64"][0]) == -1.0, "mmap write reached the file")

# --- legacy format ---
legacy = torch.load(os.path.join(FIX, "pt_legacy.pt"))
expect(values(legacy["w"]) == EXPECT["tensors"]["f32"][4] and values(legacy["v"]) == [1.0, 1.125, 1.25, 1.375]
       and legacy["n"] == 5, f"legacy: {legacy}")
legacy["w"][2, 0] = -7.0
expect(float(legacy["v"][0]) == -7.0, "legacy: views do not share storage")

# --- malicious pickle ---
for path in (os.path.join(FIX, "evil_os_system.pt"),):
    try:
        torch.load(path)
        failures.append("evil pickle loaded")
    except pickle.UnpicklingError as e:
        msg = str(e)
        expect(msg.startswith("Weights only load failed. In PyTorch 2.6, we changed the default value of the "
                              "`weights_only` argument in `torch.load` from `False` to `True`."), f"evil: {msg!r}")
        expect("Trying to load unsupported GLOBAL posix.system whose module posix is blocked." in msg, f"evil: {msg!r}")


class Point:
    def __init__(self, x):
        self.x = x


buf = io.BytesIO()
torch.save({"p": Point(3), "t": torch.ones(2)}, buf)
buf.seek(0)
try:
    torch.load(buf)
    failures.append("unlisted class loaded")
except pickle.UnpicklingError as e:
    expect("Unsupported global: GLOBAL __main__.Point was not an allowed global by default." in str(e), str(e))
buf.seek(0)
with torch.serialization.safe_globals([Point]):
    got = torch.load(buf)
expect(got["p"].x == 3 and values(got["t"]) == [1.0, 1.0], "safe_globals load")
buf.seek(0)
expect(torch.load(buf, weights_only=False)["p"].x == 3, "weights_only=False load")
try:
    torch.load(buf, pickle_module=pickle, weights_only=True)
    failures.append("pickle_module with weights_only accepted")
except RuntimeError as e:
    expect(str(e) == "Can not safely load weights when explicit pickle_module is specified", str(e))

# --- Rynamo's own files round-trip ---
dtypes = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
          torch.int8, torch.uint8, torch.bool]
data = OrderedDict()
for d in dtypes:
    data[str(d)] = (torch.arange(6) % 3 == 1).to(d) if d == torch.bool else torch.arange(6).reshape(2, 3).to(d)
big = torch.arange(24, dtype=torch.float32).reshape(4, 6)
data["view"] = big[1:3, ::2]
data["big"] = big
data["param"] = torch.nn.Parameter(torch.ones(3))
data["nested"] = {"list": [torch.zeros(1), 2, "s"], "tuple": (1.5, None), "set": {1, 2}}
path = os.path.join(TMP, "round.pt")
torch.save(data, path)
for kwargs in ({}, {"mmap": True}, {"weights_only": False}):
    back = torch.load(path, **kwargs)
    expect(list(back) == list(data), f"round trip keys {list(back)}")
    for k in data:
        if isinstance(data[k], torch.Tensor):
            a, b = data[k], back[k]
            expect(a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
                   and a.storage_offset() == b.storage_offset() and values(a) == values(b), f"round trip {k}")
    expect(type(back["param"]) is torch.nn.Parameter, "round trip Parameter")
    expect(back["nested"]["tuple"] == (1.5, None) and back["nested"]["set"] == {1, 2}
           and back["nested"]["list"][1:] == [2, "s"], f"round trip nested {back['nested']}")
    back["big"][1, 0] = -1.0
    expect(float(back["view"][0, 0]) == -1.0, "round trip: view shares storage with its base")

# An open file object (storages written straight from memory) and a buffer (through bytes) give
# the same archive records.
fpath = os.path.join(TMP, "fileobj.pt")
with open(fpath, "wb") as fh:
    torch.save(data, fh)
bio = io.BytesIO()
torch.save(data, bio)
import zipfile  # noqa: E402
za, zb = zipfile.ZipFile(fpath), zipfile.ZipFile(io.BytesIO(bio.getvalue()))
expect(za.testzip() is None and zb.testzip() is None, "CRC mismatch in a written archive")
expect([i.filename.split("/", 1)[1] for i in za.infolist()] == [i.filename.split("/", 1)[1] for i in zb.infolist()]
       and all(za.read(a) == zb.read(b) for a, b in zip(za.namelist(), zb.namelist()) if "serialization_id" not in a),
       "file and buffer archives differ")
expect(values(torch.load(fpath)["big"]) == values(big), "file object round trip")

# The big storage is written once: two views of it cost no extra bytes.
p1, p2 = os.path.join(TMP, "one.pt"), os.path.join(TMP, "two.pt")
torch.save({"a": big}, p1)
torch.save({"a": big, "b": big[1], "c": big.t()}, p2)
expect(os.path.getsize(p2) - os.path.getsize(p1) < 400, "shared storage saved twice")

# Saving the same storage as two dtypes is refused, as in PyTorch.
try:
    torch.save([big, big.view(torch.int32)], io.BytesIO())
    failures.append("two dtypes over one storage saved")
except RuntimeError as e:
    expect(str(e) == "Cannot save multiple tensors or storages that view the same data as different types", str(e))

# map_location to CUDA: PyTorch's CPU-only error.
try:
    torch.load(path, map_location="cuda")
    failures.append("map_location=cuda accepted")
except RuntimeError as e:
    expect(str(e).startswith("Attempting to deserialize object on a CUDA device"), str(e))

try:
    torch.load(io.BytesIO(open(path, "rb").read()), mmap=True)
    failures.append("mmap of a buffer accepted")
except ValueError as e:
    expect(str(e) == "f must be a file path in order to use the mmap argument", str(e))

# Plain pickle (outside torch.save): by value, views keep their layout.
plain = pickle.loads(pickle.dumps({"v": big[1:3, ::2], "p": torch.nn.Parameter(torch.ones(2))}))
expect(values(plain["v"]) == values(big[1:3, ::2]) and plain["v"].stride() == big[1:3, ::2].stride()
       and type(plain["p"]) is torch.nn.Parameter, "pickle.dumps round trip")

# --- truncated and corrupt files: an error naming the file, never a crash ---
raw = open(path, "rb").read()
for label, blob in (("truncated", raw[: len(raw) // 2]), ("tail-cut", raw[:-30]), ("garbage", b"\x00" * 100),
                    ("zip-of-junk", raw[:200] + b"\xff" * (len(raw) - 200)), ("empty", b"")):
    bad = os.path.join(TMP, f"{label}.pt")
    with open(bad, "wb") as f:
        f.write(blob)
    try:
        torch.load(bad)
        failures.append(f"{label}: loaded")
    except (RuntimeError, pickle.UnpicklingError, ValueError) as e:
        expect(bad in str(e), f"{label}: message does not name the file: {e}")
    except Exception as e:  # noqa: BLE001 -- any other type is a failure to report, not to crash on
        failures.append(f"{label}: {type(e).__name__}: {e}")

if failures:
    print("\n".join(failures[:30]))
    raise SystemExit(f"{len(failures)} failures")
print("serialization: PyTorch fixtures, legacy format, round trips, weights_only and corrupt files all pass")
