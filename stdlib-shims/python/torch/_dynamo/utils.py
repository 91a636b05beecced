"""Diagnostics utilities (`torch._dynamo.utils`): compile times and the compile profiler."""
import collections

import _rynamo_dynamo as _C

counters = collections.defaultdict(collections.Counter)


def _bump_counter(group, key, n):
    """Called by the compiler on each compiled graph and graph break (see ``stats.rs``)."""
    counters[group][key] += n


def compile_times(repr="str", aggregate=False):
    """Time spent in each compile phase, as PyTorch's "TorchDynamo compilation metrics": Dynamo
    (`_compile.compile_inner`, `bytecode_tracing`), the backend call
    (`OutputGraph.call_user_compiler`) and, for training regions, AOT autograd
    (`create_aot_dispatcher_function`: `aot_trace_joint_graph`,
    `min_cut_rematerialization_partition`, then the forward and backward compiles). One value per
    run unless `aggregate`."""
    rows = _C.compile_phase_times()
    values = [f"{sum(v):.4f}" if aggregate else ", ".join(f"{x:.4f}" for x in v) for _, v in rows]
    if repr == "csv":
        return [name for name, _ in rows], values
    out = "TorchDynamo compilation metrics:\nFunction, Runtimes (s)\n"
    for (name, _), vals in zip(rows, values):
        out += f"{name}, {vals}\n"
    return out


class CompileProfiler:
    """A backend that records graphs and graph breaks; `report()` summarises them."""

    def __init__(self):
        self.frame_count = 0
        self.op_count = 0
        self.backend_ctx_ctor = lambda: None

    def __call__(self, gm, example_inputs):
        self.frame_count += 1
        for node in gm.graph.nodes:
            if "call" in node.op:
                self.op_count += 1
        return gm.forward

    def __enter__(self):
        _C.reset_records()
        return self

    def __exit__(self, *exc):
        return False

    def report(self):
        breaks = _C.break_records()
        out = "Torchdynamo Profiler Report\n===========================\n\nGraph Breaks\n------------\n"
        if breaks:
            counts = collections.Counter(reason.splitlines()[0] for reason, _s, _c in breaks)
            out += "Graph breaks happen when torchdynamo encounters code it can't safely trace.\n"
            out += "Reason, Count\n"
            for reason, n in counts.items():
                out += f"{reason}, {n}\n"
        else:
            out += "No graph breaks detected.\n"
        out += f"\nCompiled graphs: {self.frame_count}, ops: {self.op_count}\n"
        return out
