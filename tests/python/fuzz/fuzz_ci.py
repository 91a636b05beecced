"""The project fuzzer's CI budget (issue 30 requirement 5): a fixed seed's first programs, each
run eagerly and under torch.compile (default backend and backend="eager") over three calls with
changing shapes, in subprocesses of this binary (scripts/fuzz runs any number locally). Any
mismatch, crash or internal failure fails the test with the program to reproduce it.

Before that, the machinery checks itself on planted faults: a program that aborts the process is
reported as a crash of that program (and the batch goes on after it), a program that behaves
differently under compilation is reported as a mismatch, and the minimizer shrinks it to the
lines that matter, and a tolerance failure judged against a float64 run accepts only a value at
least half as accurate as eager's."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _drive  # noqa: E402

SEED = int(os.environ.get("FUZZ_SEED", "30"))
PROGRAMS = int(os.environ.get("FUZZ_PROGRAMS", "400"))
BINARY = sys.executable  # the rynamo binary running this script
failures = []

CASE = "CASE = {'seed': 0, 'index': 0, 'inputs': [{'dtype': 'float32', 'shape': ['A'], 'special': False}], 'dims': {'A': [3, 0, 2]}}"


def program(body):
    lines = [CASE, "G = []", "COUNT = 0", "def make():", "    cell = 0", "    def f(x0):"]
    lines += ["        " + line for line in body]
    lines += ["    return f, lambda: cell"]
    return "\n".join(lines) + "\n"


# --- a planted crash is caught and attributed ------------------------------------------------
crash = program(["v1 = x0 + 1", "__import__('os').abort()", "return v1"])
sig = _drive.signature(BINARY, crash)
if sig != ("crash", "died"):
    failures.append(f"an aborting program gave signature {sig}, not a crash")

# --- a planted mismatch is found, and minimized to the lines that cause it --------------------
padded = program([
    "v1 = x0.sin()",
    "G.append(v1.shape[0])",
    "v3 = x0 + 1 if torch.compiler.is_compiling() else x0",
    "return (v1, v3)",
])
sig = _drive.signature(BINARY, padded)
if sig != ("mismatch", "eager"):  # the first backend run (see _run.BACKENDS)
    failures.append(f"a program that differs under compilation gave signature {sig}")
else:
    small, _ = _drive.minimize(BINARY, padded)
    body = [line.strip() for line in small.split("\n") if line.startswith("        ")]
    if body != ["v3 = x0 + 1 if torch.compiler.is_compiling() else x0", "return (v3,)"]:
        failures.append(f"minimized to {body}")

# --- the float64 judgement accepts the more accurate side, never a wrong value ---------------
import torch  # noqa: E402

import _run  # noqa: E402

eager, ref = torch.tensor([1.0, 132330725376.0]), torch.tensor([1.0, 132330410179.96165], dtype=torch.float64)
closer = torch.tensor([1.0, 132330471424.0])  # seed 18 program 9800: compiled nearer the truth
if _run.tensor_diff(eager, closer, "f32", ref) is not None or _run.tensor_diff(eager, closer, "f32") is None:
    failures.append("the float64 reference did not decide seed 18 program 9800's case")
for wrong in ([1.1, 132330471424.0], [1.0, 132332000000.0]):  # 5x eager's error
    if _run.tensor_diff(eager, torch.tensor(wrong), "f32", ref) is None:
        failures.append(f"the float64 reference accepted the wrong value {wrong}")

# --- the budget -----------------------------------------------------------------------------
start = time.time()
ran, findings = _drive.fuzz(BINARY, SEED, 0, PROGRAMS, batch=100)
for f in findings:
    failures.append(
        f"{f['kind']} in program {f['index']} of seed {f['seed']} ({f['backend']}, call {f['call']}): {f['message']}\n"
        f"  reproduce: scripts/fuzz --show {f['seed']}:{f['index']} > p.py && rynamo tests/python/fuzz/_run.py p.py\n"
        + _drive.program_text(f["seed"], f["index"])
    )
if ran != PROGRAMS:
    failures.append(f"ran {ran} programs, expected {PROGRAMS}")
print(f"seed {SEED}: {ran} programs, {len(findings)} findings, {time.time() - start:.1f} s")
if failures:
    for f in failures:
        print("FAIL", f)
    raise SystemExit(1)
print("ok")
