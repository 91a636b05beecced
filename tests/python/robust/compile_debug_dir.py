"""Issue 30: `TORCH_COMPILE_DEBUG=1` writes `torch_compile_debug/run_<time>-pid_<pid>/` under
`TORCH_COMPILE_DEBUG_DIR` (PyTorch's layout): a README, Dynamo's log, each frame's graph and
guards, and per compiled graph the graph after each pass, each kernel's loop IR and disassembly;
a training region adds its joint, forward and backward graphs. Runs a child process against a
fresh folder."""
import os
import shutil
import subprocess
import sys
import tempfile

CHILD = r'''
import torch
def f(x):
    y = (x * 2).sin()
    print("break")
    return y.sum()
torch.compile(f)(torch.ones(3))
a = torch.ones(3, requires_grad=True)
torch.compile(lambda a: (a * a).sum())(a).backward()
assert a.grad.tolist() == [2.0, 2.0, 2.0]
'''

base = tempfile.mkdtemp()
try:
    env = dict(os.environ, TORCH_COMPILE_DEBUG="1", TORCH_COMPILE_DEBUG_DIR=base)
    r = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "break\n", (r.returncode, r.stdout, r.stderr)
    runs = os.listdir(os.path.join(base, "torch_compile_debug"))
    assert len(runs) == 1 and runs[0].startswith("run_") and "-pid_" in runs[0], runs
    run = os.path.join(base, "torch_compile_debug", runs[0])
    files = set()
    for root, _, names in os.walk(run):
        for n in names:
            p = os.path.join(root, n)
            assert os.path.getsize(p) > 0, p
            files.add(os.path.relpath(p, run))
    for want in ("README.md", "torchdynamo/debug.log", "torchdynamo/frame_0_0/graph.txt",
                 "torchdynamo/frame_0_0/guards.txt", "torchdynamo/frame_0_0/graph_code.py"):
        assert want in files, (want, sorted(files))
    readme = open(os.path.join(run, "README.md")).read()
    for name in ("guards.txt", "loop_ir", ".asm", "passes/", "joint", "backward"):
        assert name in readme, name
    with open(os.path.join(run, "torchdynamo/frame_0_0/graph.txt")) as fh:
        graph = fh.read()
    assert "mul(" in graph and "sin(" in graph, graph
    inference = [f for f in files if f.startswith("torchinductor/model__0_0_inference/")]
    assert any("/passes/" in f for f in inference), inference
    assert any(f.endswith(".loop_ir.txt") for f in inference), inference
    asm = [f for f in inference if f.endswith(".asm")]
    assert asm, inference
    with open(os.path.join(run, asm[0])) as fh:
        assert "ret" in fh.read()
    training = [f for f in files if "_training/" in f]
    for part in ("joint.graph.txt", "forward.graph.txt", "backward.graph.txt"):
        assert any(f.endswith(part) for f in training), (part, training)
    assert any("/backward/kernels/" in f for f in training), training

    # Off by default: nothing is written.
    env = dict(os.environ, TORCH_COMPILE_DEBUG_DIR=os.path.join(base, "off"))
    env.pop("TORCH_COMPILE_DEBUG", None)
    r = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(os.path.join(base, "off")), os.listdir(os.path.join(base, "off"))
finally:
    shutil.rmtree(base)
print("ok")
