"""TORCH_TRACE writes structured compile logs that tlparse reads: every line is a glog prefix and
a JSON envelope, payloads follow as tab-indented lines whose md5 matches `has_payload`, interned
file names are defined before use, and each frame compile opens with `dynamo_start` and closes
with `compilation_metrics` (graph, guards and break reasons in between). A training region adds
AOT autograd's joint, forward and backward graphs (`aot_joint_graph`, `aot_forward_graph`,
`aot_backward_graph`) to its compile."""
import hashlib
import json
import os
import re
import tempfile

trace_dir = tempfile.mkdtemp(prefix="rynamo_trace_")
# Read at the first compile, so setting it here (before any torch.compile call) is enough.
os.environ["TORCH_TRACE"] = trace_dir

import torch
import torch._dynamo


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    print("woo")
    if b.sum() < 0:
        b = b * -1
    return x * b


opt = torch.compile(toy_example, backend="eager", dynamic=False)  # pins a size recompile
for n in (10, 10, 4):
    a, b = torch.randn(n), torch.randn(n)
    assert bool((opt(a, b) == toy_example(a, b)).all())


@torch.compile(fullgraph=True, backend="eager")
def no_print(x):
    print("x")
    return x + 1


try:
    no_print(torch.ones(2))
    raise AssertionError("fullgraph=True must raise")
except torch._dynamo.exc.Unsupported:
    pass

# A training region (an input requires grad): AOT autograd's graphs join its compile's records.
lin = torch.nn.Linear(3, 2)
torch.compile(lambda x: torch.tanh(lin(x)).sum(), backend="aot_eager")(torch.randn(4, 3)).backward()

files = os.listdir(trace_dir)
assert len(files) == 1 and files[0].startswith("dedicated_log_torch_trace_"), files
lines = open(os.path.join(trace_dir, files[0])).read().split("\n")
assert lines[-1] == "", "the log ends with a newline"
lines.pop()

# tlparse's glog regex.
glog = re.compile(r"[VIWEC](\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2}).(\d{6}) (\d+)([^:]+):(\d+)\] (.)")
records = []
interned = {}
i = 0
while i < len(lines):
    m = glog.match(lines[i])
    assert m, "not a glog line: %r" % lines[i]
    env = json.loads(lines[i][m.start(10):])
    i += 1
    payload = []
    while i < len(lines) and lines[i].startswith("\t"):
        payload.append(lines[i][1:])
        i += 1
    payload = "\n".join(payload)
    if "has_payload" in env:
        assert hashlib.md5(payload.encode()).hexdigest() == env["has_payload"], env
    else:
        assert payload == "", env
    if "str" in env:
        name, idx = env["str"]
        assert idx not in interned.values()
        interned[name] = idx
        continue
    for frame in env.get("dynamo_start", {}).get("stack", []):
        assert frame["filename"] in interned.values(), "file id used before its str record"
    records.append((env, payload))

kinds = [next(k for k in e if k in (
    "dynamo_start", "dynamo_output_graph", "dynamo_guards", "dynamo_cpp_guards_str",
    "artifact", "compilation_metrics", "aot_joint_graph", "aot_forward_graph",
    "aot_backward_graph")) for e, _ in records]
ids = [(e["frame_id"], e["frame_compile_id"]) for e, _ in records]

# Every compile opens with dynamo_start and closes with compilation_metrics.
starts = [ids[k] for k, kind in enumerate(kinds) if kind == "dynamo_start"]
ends = [ids[k] for k, kind in enumerate(kinds) if kind == "compilation_metrics"]
assert starts == ends, (starts, ends)
# toy_example at n=10 (graph + break), its two resume functions, the recompile at n=4 (three
# frames again), no_print and the training lambda.
assert len(starts) == 8, starts
assert len(set(starts)) == 8

stack = records[0][0]["dynamo_start"]["stack"]
assert stack[-1]["name"] == "toy_example", stack
assert stack[-2]["name"] == "<module>", stack

graphs = [p for (e, p), k in zip(records, kinds) if k == "dynamo_output_graph"]
assert len(graphs) == 7, len(graphs)
assert "class GraphModule(torch.nn.Module):" in graphs[0]
assert "torch.abs(" in graphs[0], graphs[0]
sizes = [e["dynamo_output_graph"]["sizes"] for e, _ in records if "dynamo_output_graph" in e]
assert sizes[0] == {"L_a_": [10], "L_b_": [10]}, sizes[0]

guards = [json.loads(p) for (e, p), k in zip(records, kinds) if k == "dynamo_guards"]
assert any("size=[10]" in g["code"] for g in guards[0]), guards[0]

reasons = [p for e, p in records if e.get("artifact", {}).get("name") == "dynamo_graph_break_reason"]
assert any("print" in r and "toy_example" in r for r in reasons), reasons

metrics = [e["compilation_metrics"] for e, _ in records if "compilation_metrics" in e]
assert metrics[0]["co_name"] == "toy_example" and metrics[0]["graph_op_count"] == 3, metrics[0]
assert any(m["co_name"].startswith("torch_dynamo_resume_in_toy_example_at_") for m in metrics)
failed = metrics[-2]
assert failed["co_name"] == "no_print" and failed["fail_type"] == "Unsupported", failed
assert failed["fail_user_frame_lineno"] == 37, failed
aot = [(k, ids[i], p) for i, ((e, p), k) in enumerate(zip(records, kinds)) if k.startswith("aot_")]
assert [k for k, _, _ in aot] == ["aot_joint_graph", "aot_forward_graph", "aot_backward_graph"], aot
assert {i for _, i, _ in aot} == {starts[-1]}, (aot, starts[-1])
assert "tanh" in aot[1][2] and "tangents" in aot[2][2], aot
print("ok")
