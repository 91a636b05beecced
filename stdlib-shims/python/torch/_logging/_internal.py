"""`TORCH_LOGS` validation with PyTorch's rules and messages: the variable is a comma-separated
list of `[+|-]name`, where a name is `all`, a registered log, a registered artifact or an
importable module; anything else stops `import torch` with PyTorch's `ValueError` listing the
valid names (checked against PyTorch 2.15). Which of them Rynamo actually emits is listed by
`TORCH_LOGS=help`; the others are accepted and print nothing, as PyTorch prints nothing for
components that do not run (a CUDA log on a CPU)."""
import importlib.util
import re

# PyTorch 2.15's registered log names (`log_registry.log_alias_to_log_qnames`).
LOGS = ("aot", "async_compile", "autograd", "c10d", "cache", "ddp", "distributed", "dtensor", "dynamic", "dynamo",
        "export", "fake_tensor", "flex_gemm", "fsdp", "inductor", "native_dsl", "onnx", "pp", "torch")

# PyTorch 2.15's registered artifact names (`log_registry.artifact_names`).
ARTIFACTS = (
    "annotation", "aot_graphs", "aot_graphs_effects", "aot_joint_graph", "auto_chunker", "autotuning",
    "autotuning_inputs", "benchmarking", "bytecode", "caching", "compiled_autograd", "compiled_autograd_verbose",
    "compute_dependencies", "cudagraph_static_inputs", "cudagraphs", "custom_format_test_artifact", "ddp_graphs",
    "fusion", "graph", "graph_breaks", "graph_code", "graph_code_verbose", "graph_region_expansion", "graph_sizes",
    "guards", "hierarchical_compile", "incremental", "inductor_metrics", "ir_post_fusion", "ir_pre_fusion",
    "kernel_code", "loop_ordering", "loop_tiling", "native_dsl_compile", "node_runtime_estimation",
    "not_implemented", "onnx_diagnostics", "output_code", "overlap", "overlap_scheduling", "partitioned_scatter",
    "perf_hints", "post_grad_graphs", "pre_grad_graphs", "recompiles", "recompiles_verbose", "schedule",
    "side_effects", "sym_node", "trace_bytecode", "trace_call", "trace_shape_events", "trace_source",
    "verbose_guards",
)

# What Rynamo writes (interpreter/src/dynamo/logs.rs); the rest are accepted and quiet.
EMITTED = ("dynamo", "graph_breaks", "recompiles", "recompiles_verbose", "guards", "bytecode", "graph_code", "graph",
           "output_code", "aot_graphs", "aot_joint_graph")

_SETTINGS = re.compile(r"((\+|-)?[\w\.]+,\s*)*(\+|-)?[\w\.]+?")


def _invalid_settings_err_msg(settings):
    valid = ", ".join(sorted(("all",) + LOGS + ARTIFACTS))
    return (
        f"\nInvalid log settings: {settings}, must be a comma separated list of fully\n"
        "qualified module names, registered log names or registered artifact names.\n"
        'For more info on various settings, try TORCH_LOGS="help"\n'
        f"Valid settings:\n{valid}\n"
    )


def help_message(verbose=False):
    names = ("all",) + LOGS + (ARTIFACTS if verbose else EMITTED[1:])
    lines = "\n".join(f"  {n}{'' if n in EMITTED or n == 'all' else '  (accepted; Rynamo writes nothing for it)'}" for n in names)
    heading = "All registered names" if verbose else "Names Rynamo writes logs for (use TORCH_LOGS='+help' for the full list)"
    return (
        "\nTORCH_LOGS Info\n\n"
        "Examples:\n"
        '  TORCH_LOGS="+dynamo,guards" logs Dynamo at DEBUG level (every traced instruction)\n'
        "  and prints each compiled entry's guards.\n\n"
        '  TORCH_LOGS="graph_breaks,recompiles" prints where graphs break and why functions\n'
        "  recompile.\n\n"
        '  TORCH_LOGS="output_code" prints the kernels the default backend generated.\n\n'
        f"{heading}\n{lines}\n"
    )


def parse_log_settings(settings):
    """Checks a `TORCH_LOGS` value as PyTorch's `_parse_log_settings` does; returns the names."""
    if settings == "":
        return []
    if settings == "help":
        raise ValueError(help_message(verbose=False))
    if settings == "+help":
        raise ValueError(help_message(verbose=True))
    if _SETTINGS.fullmatch(settings) is None:
        raise ValueError(_invalid_settings_err_msg(settings))
    names = []
    for name in re.sub(r"\s+", "", settings).split(","):
        clean = name.replace("+", "").replace("-", "")
        if clean == "all" or clean in LOGS or clean in ARTIFACTS:
            names.append(clean)
        elif importlib.util.find_spec(clean) is not None:
            names.append(clean)
        else:
            raise ValueError(_invalid_settings_err_msg(settings))
    return names
