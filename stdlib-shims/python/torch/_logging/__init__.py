"""`torch._logging`: `set_logs` with `TORCH_LOGS`' names."""
import logging

import _rynamo_dynamo as _C

_ARTIFACTS = ("graph_breaks", "recompiles", "recompiles_verbose", "guards", "bytecode", "graph_code", "graph", "output_code")


def set_logs(*, dynamo=None, dynamic=None, graph_breaks=False, recompiles=False, recompiles_verbose=False, guards=False,
             bytecode=False, graph_code=False, graph=False, output_code=False, **others):
    """Turns logging artifacts on (the `TORCH_LOGS` environment variable, when set, wins)."""
    parts = []
    flags = dict(graph_breaks=graph_breaks, recompiles=recompiles, recompiles_verbose=recompiles_verbose,
                 guards=guards, bytecode=bytecode, graph_code=graph_code, graph=graph, output_code=output_code)
    parts.extend(name for name, on in flags.items() if on)
    if dynamo is not None:
        parts.append("+dynamo" if dynamo <= logging.DEBUG else "dynamo")
    if dynamic is not None and dynamic <= logging.INFO:
        parts.append("dynamic")
    _C.set_logs(",".join(parts))
