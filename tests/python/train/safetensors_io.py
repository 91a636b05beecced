"""safetensors.torch against files from the `safetensors` package (`fixtures/st_package.safetensors`,
made by `_gen_fixtures.py`): values, dtypes, key order, metadata, slices; Rynamo's files and bytes
round-trip; malformed headers raise SafetensorError; torch.frombuffer shares memory."""

import atexit
import os
import shutil
import tempfile

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import load, load_file, save, save_file

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures", "st_package.safetensors")
TMP = tempfile.mkdtemp(prefix="rynamo_st_")
atexit.register(shutil.rmtree, TMP, True)  # the files are only read back here
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


base = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 8
d = load_file(FIX)
expect(sorted(d) == ["bias", "empty", "half", "weight"], f"keys {list(d)}")
expect(torch.equal(d["weight"], base), "weight")
expect(d["bias"].dtype == torch.int64 and d["bias"].tolist() == [1, -2, 3], "bias")
expect(d["half"].dtype == torch.float16 and d["half"].tolist() == [0.25, 8.0], "half")
expect(d["empty"].shape == (0,), "empty")
with safe_open(FIX, framework="pt") as f:
    expect(f.keys() == ["bias", "empty", "half", "weight"], f"safe_open keys {f.keys()}")
    expect(f.metadata() == {"format": "pt", "source": "safetensors"}, f"metadata {f.metadata()}")
    sl = f.get_slice("weight")
    expect(sl.get_shape() == [3, 4] and sl.get_dtype() == "F32", "slice info")
    expect(torch.equal(sl[1:], base[1:]), "slice values")
    try:
        f.get_tensor("missing")
        failures.append("missing tensor")
    except SafetensorError as e:
        expect(str(e) == "File does not contain tensor missing", str(e))

tensors = {
    "a": torch.arange(6, dtype=torch.float64).reshape(2, 3), "b": torch.tensor([True, False]),
    "c": torch.tensor([1.5, -2.5], dtype=torch.bfloat16), "d": torch.tensor([7], dtype=torch.int8),
    "e": torch.tensor(2.0), "f": torch.zeros(2, 0),
}
path = os.path.join(TMP, "round.safetensors")
save_file(tensors, path, metadata={"k": "v"})
back = load_file(path)
for k, v in tensors.items():
    expect(back[k].dtype == v.dtype and back[k].shape == v.shape and torch.equal(back[k], v), f"round trip {k}")
back2 = load(save(tensors))
expect(all(torch.equal(back2[k], v) for k, v in tensors.items()), "bytes round trip")
with safe_open(path, "pt") as f:
    expect(f.metadata() == {"k": "v"}, "metadata round trip")
# The writer's layout: 8-byte little-endian header length, JSON, data aligned to 8.
raw = open(path, "rb").read()
n = int.from_bytes(raw[:8], "little")
expect(n % 8 == 0 and raw[8:9] == b"{", f"header layout n={n}")

for label, blob in (("short", b"\x01\x02"), ("huge", (10**12).to_bytes(8, "little") + b"{}"),
                    ("json", (8).to_bytes(8, "little") + b"{notjson"),
                    ("offsets", b'\x40\x00\x00\x00\x00\x00\x00\x00' +
                     b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}        ' + b"\x00" * 4)):
    bad = os.path.join(TMP, label)
    with open(bad, "wb") as f:
        f.write(blob)
    try:
        load_file(bad)
        failures.append(f"{label}: loaded")
    except SafetensorError as e:
        expect(str(e).startswith("Error while deserializing header"), f"{label}: {e}")

try:
    save_file({"x": base.t()}, os.path.join(TMP, "nc"))
    failures.append("non-contiguous saved")
except ValueError as e:
    expect("non contiguous tensor" in str(e), str(e))
try:
    save_file({"x": base, "y": base[1]}, os.path.join(TMP, "shared"))
    failures.append("shared tensors saved")
except RuntimeError as e:
    expect("Some tensors share memory" in str(e), str(e))

# torch.frombuffer: shares a writable buffer, copies a read-only one.
ba = bytearray(b"\x00\x00\x80\x3f\x00\x00\x00\x40")
t = torch.frombuffer(ba, dtype=torch.float32)
expect(t.tolist() == [1.0, 2.0], f"frombuffer {t}")
t[0] = 3.0
expect(bytes(ba[:4]) == b"\x00\x00\x40\x40", "frombuffer does not share memory")
expect(torch.frombuffer(b"\x01\x02\x03\x04", dtype=torch.int16, count=1, offset=2).tolist() == [0x0403], "offset")
try:
    torch.frombuffer(b"\x01\x02\x03", dtype=torch.int16)
    failures.append("ragged buffer accepted")
except ValueError as e:
    expect("must be a multiple of element size" in str(e), str(e))

if failures:
    print("\n".join(failures))
    raise SystemExit(f"{len(failures)} failures")
print("safetensors: package fixture, round trips, malformed files and frombuffer pass")
