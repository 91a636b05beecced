"""One case of a golden-file test (`functions/functions_vs_pytorch.py`,
`special/_golden_check.py`): run it eagerly or compiled with `backend`, compare each output and,
where the case asks, each float input's gradient with PyTorch's golden entries.

The directory supplies its case helpers (`prepared`, `float_tensors`, `loss_of`, as the module
`cases`) and its comparison `close(name, tensor, golden entry)`, which appends to `failures`."""

import torch
import torch._dynamo


def run_case(case, backend, gold, close, failures, cases):
    name, fn, _, grad = case
    tag = f"{name}[{backend}]"
    inputs = cases.prepared(case)
    torch._dynamo.reset()
    f = fn if backend == "none" else torch.compile(fn, backend=backend)
    try:
        outs = cases.float_tensors(f(*inputs))
    except Exception as e:  # a crash fails this case only
        failures.append(f"{tag}: raised {type(e).__name__}: {e}")
        return
    if len(outs) != len(gold["outs"]):
        failures.append(f"{tag}: {len(outs)} outputs, PyTorch has {len(gold['outs'])}")
        return
    for k, (t, e) in enumerate(zip(outs, gold["outs"])):
        close(f"{tag} output {k}", t, e)
    if not grad:
        return
    try:
        cases.loss_of(outs).backward()
    except Exception as e:
        failures.append(f"{tag}: backward raised {type(e).__name__}: {e}")
        return
    floats = [x for x in inputs if x.is_floating_point()]
    for k, (x, e) in enumerate(zip(floats, gold["grads"])):
        if x.grad is None:
            failures.append(f"{tag} grad {k}: None, PyTorch has a gradient")
        else:
            close(f"{tag} grad {k}", x.grad, e)
