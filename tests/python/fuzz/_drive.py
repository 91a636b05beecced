"""Drives the fuzzer's runner (`_run.py`) in subprocesses of the `rynamo` binary, so a program
that kills the process (signal, abort, hang) is caught, attributed to that program, and the
batch goes on after it; and shrinks a finding by deleting lines while it persists. Used by
`scripts/fuzz` (under CPython) and `fuzz_ci.py` (under rynamo)."""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "_run.py")
sys.path.insert(0, HERE)

import _gen  # noqa: E402

# Lines the binary writes when something went wrong inside it while the program still ran on:
# a frame handler that failed (the frame then runs uncompiled) or a Rust panic.
INTERNAL = ["[rynamo] frame handler failed", "panicked at"]


def run_batch(binary, args, timeout):
    """Runs the runner once; returns (events, finished, tail): events as (kind, id, detail)
    tuples in order (kind BEGIN/FAIL/END/INTERNAL), whether it wrote DONE, and the last lines."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=os.path.dirname(HERE))
    env.pop("TORCH_LOGS", None)
    try:
        proc = subprocess.run([binary, RUNNER, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout, env=env)
        out, status = proc.stdout, proc.returncode
    except subprocess.TimeoutExpired as e:
        out, status = e.stdout or b"", "timeout"
    lines = out.decode("utf-8", "replace").splitlines()
    events, current, finished = [], None, False
    for line in lines:
        head, _, rest = line.partition(" ")
        if head == "BEGIN":
            current = rest
            events.append(("BEGIN", rest, None))
        elif head == "END":
            events.append(("END", rest, None))
            current = None
        elif head == "FAIL":
            pid, _, detail = rest.partition(" ")
            events.append(("FAIL", pid, json.loads(detail)))
        elif line == "DONE":
            finished = True
        elif current is not None and any(m in line for m in INTERNAL):
            events.append(("INTERNAL", current, {"backend": "?", "call": -1, "message": line.strip()[:300]}))
    if not finished and status == 0:
        status = "exited early"
    return events, finished, status, lines[-40:]


def fuzz(binary, seed, start, count, batch=200, timeout=600, on_finding=None):
    """Runs programs [start, start+count) of `seed`; returns (programs run, findings), each
    finding a dict with the program id, kind (mismatch, crash, internal) and detail."""
    findings, ran, i, end = [], 0, start, start + count
    while i < end:
        n = min(batch, end - i)
        events, finished, status, tail = run_batch(binary, ["--seed", str(seed), "--start", str(i), "--count", str(n)], timeout)
        begun = [int(pid) for kind, pid, _ in events if kind == "BEGIN"]
        ended = {int(pid) for kind, pid, _ in events if kind == "END"}
        for kind, pid, detail in events:
            if kind in ("FAIL", "INTERNAL"):
                f = {"seed": seed, "index": int(pid), "kind": "mismatch" if kind == "FAIL" else "internal", **detail}
                findings.append(f)
                if on_finding:
                    on_finding(f)
        ran += len(ended)
        if finished:
            i += n
            continue
        # The process died or hung inside the last program it began: that program crashed.
        dead = begun[-1] if begun and begun[-1] not in ended else i + len(ended)
        f = {"seed": seed, "index": dead, "kind": "crash", "backend": "?", "call": -1,
             "message": f"process ended ({status}) during the program; last output:\n" + "\n".join(tail)}
        findings.append(f)
        if on_finding:
            on_finding(f)
        ran += 1
        i = dead + 1
    return ran, findings


def signature(binary, text, timeout=120):
    """What a program file does wrong, as a comparable key: (kind, backend) of its first finding,
    or None when it runs clean (or cannot even be loaded)."""
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"fuzz_min_{os.getpid()}.py")
    with open(path, "w") as fh:
        fh.write(text)
    try:
        events, finished, status, _ = run_batch(binary, [path], timeout)
    finally:
        os.unlink(path)
    if not finished:
        return ("crash", status if status == "timeout" else "died")
    for kind, _, detail in events:
        if kind == "INTERNAL":
            # The panic's place (`panicked at FILE:LINE`), without the thread name and id.
            m = re.search(r"panicked at ([^:]+)", detail["message"])
            return ("internal", m.group(1) if m else detail["message"].split(":")[0])
        if kind == "FAIL" and detail["backend"] != "runner":
            return ("mismatch", detail["backend"])
    return None


def minimize(binary, text, log=lambda s: None):
    """Shrinks a failing program file: deletes chunks of lines (halving the chunk size down to
    single lines), then the results it returns, then the calls and special input values, while
    its signature stays the same."""
    want = signature(binary, text)
    if want is None:
        raise ValueError("the program does not fail")
    log(f"signature {want}")
    lines = text.split("\n")
    while True:
        before = len(lines), sum(map(len, lines))
        lines = _drop_lines(binary, lines, want, log)
        lines = _drop_returned(binary, lines, want)
        if (len(lines), sum(map(len, lines))) == before:
            break
    # Fewer calls, no special values.
    case = eval(lines[0].partition("=")[2], {})
    for change in ([("calls", c) for c in (1, 2)] + [("special", i) for i in range(len(case["inputs"]))]):
        trial = json.loads(json.dumps(case))
        if change[0] == "calls" and "calls" in case:
            continue
        if change[0] == "calls":
            trial["calls"] = change[1]
        else:
            trial["inputs"][change[1]]["special"] = False
        cand = [f"CASE = {trial!r}"] + lines[1:]
        if signature(binary, "\n".join(cand)) == want:
            lines, case = cand, trial
            log(f"case: {change}")
    return "\n".join(lines), want


def _drop_lines(binary, lines, want, log):
    """Deletes chunks of lines (halving the chunk size down to single lines) while the
    signature stays `want`; line 0 (the CASE) stays."""
    chunk = max(1, len(lines) // 4)
    while chunk >= 1:
        i = 1
        while i < len(lines):
            cand = lines[:i] + lines[i + chunk:]
            if signature(binary, "\n".join(cand)) == want:
                lines = cand
                log(f"-{chunk} lines at {i}: {len(lines)} left")
            else:
                i += chunk
        chunk //= 2
    return lines


def _drop_returned(binary, lines, want):
    """Drops values from a `return (a, b, ...)` while the signature stays `want`."""
    for j, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("return (") and stripped.endswith(")"):
            items = [x.strip() for x in stripped[len("return ("):-1].split(",") if x.strip()]
            k = 0
            while k < len(items) and len(items) > 1:
                rest = items[:k] + items[k + 1:]
                cand = list(lines)
                cand[j] = line[: len(line) - len(stripped)] + f"return ({', '.join(rest)},)"
                if signature(binary, "\n".join(cand)) == want:
                    lines, items = cand, rest
                else:
                    k += 1
    return lines


def program_text(seed, index):
    src, case = _gen.make_case(seed, index)
    return _gen.program_file(src, case)
