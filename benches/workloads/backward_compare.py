"""Side-by-side timing of backward_ops.py under rynamo and under PyTorch: alternating
processes, `--rounds` rounds, each reporting medians; prints a Markdown table of the medians
over rounds and the ratio rynamo / PyTorch (forward+backward, and backward alone).

    python3 benches/workloads/backward_compare.py --rynamo target/release/rynamo \\
        --torch /tmp/pt/bin/python [--rounds 5] [--reps 7] [--only conv]

Both run single-threaded in the same environment unless --threads is given (the machine is
shared; see /work/shared/benchmarks.md)."""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, env):
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        sys.exit(f"{cmd[0]} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rynamo", required=True)
    ap.add_argument("--torch", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--only", default="")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = str(a.threads)
    env["RAYON_NUM_THREADS"] = str(a.threads)
    for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(k, None)
    script = os.path.join(HERE, "backward_ops.py")
    args = [script, str(a.reps)] + ([a.only] if a.only else [])
    rows = {}
    for _ in range(a.rounds):
        for who, exe in (("rynamo", a.rynamo), ("torch", a.torch)):
            for name, (both, fwd) in run([exe] + args, env).items():
                rows.setdefault(name, {}).setdefault(who, []).append((both, fwd))

    def med(v):
        v = sorted(v)
        return v[len(v) // 2]

    print("| workload | rynamo fwd+bwd ms | torch fwd+bwd ms | ratio | rynamo bwd ms | torch bwd ms | bwd ratio |")
    print("|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        rb = med([b for b, _ in r["rynamo"]])
        tb = med([b for b, _ in r["torch"]])
        rbw = med([b - f for b, f in r["rynamo"]])
        tbw = med([b - f for b, f in r["torch"]])
        print(f"| {name} | {rb:.2f} | {tb:.2f} | {rb / tb:.2f} | {rbw:.2f} | {tbw:.2f} | {rbw / tbw:.2f} |")


main()
