"""Graph-break corpus, side effects around breaks: list appends, global stores, attribute and
item stores and in-place tensor updates traced before a break must be applied before the code
at the break runs (a `disable`d probe records what it sees), and the Python state after the
call must equal eager's. Counts follow PyTorch 2.x."""
import _rynamo_dynamo as _C
import torch
import torch._dynamo
import _harness
from _corpus import check_state, done

LOG = []
SEEN = []
STORE = {}
G = 0
GT = torch.zeros(3)


class Obj:
    def __init__(self):
        self.v = 0
        self.t = None


OBJ = Obj()


@torch._dynamo.disable
def probe(*things):
    """Runs between the graphs: records the Python state it sees."""
    SEEN.append([_copy(t) for t in things])


def _copy(t):
    if isinstance(t, list):
        return list(t)
    return dict(t) if isinstance(t, dict) else t


def reset():
    global G, GT
    LOG.clear()
    SEEN.clear()
    STORE.clear()
    G = 0
    GT = torch.zeros(3)
    OBJ.v = 0
    OBJ.t = None


def snapshot():
    return {
        "log": list(LOG),
        "seen": [list(s) for s in SEEN],
        "store": dict(STORE),
        "G": G,
        "GT": GT.clone(),
        "v": OBJ.v,
        "t": None if OBJ.t is None else OBJ.t.clone(),
    }


def state(fn, *args, graphs, breaks):
    """`check_state` with this file's reset/snapshot, plus the number of breaks."""
    check_state(fn, args, reset, snapshot, graphs=graphs)
    seen = len(_C.break_records())
    if seen != breaks:
        _harness._failures.append(f"{fn.__name__}: expected {breaks} graph break(s), got {seen}")


def append_then_probe(x):
    LOG.append(1)
    y = x + 1
    probe(LOG, y)
    LOG.append(2)
    return y * 2


def global_store_then_probe(x):
    global G
    G = G + 5
    probe(G)
    return x * G


def attr_store_then_probe(x):
    OBJ.v = 3
    OBJ.t = x * 2
    probe(OBJ.v, OBJ.t)
    return OBJ.t + OBJ.v


def item_store_then_probe(x):
    STORE["a"] = x.sum()
    STORE["n"] = 4
    probe(STORE)
    return x + STORE["n"]


def inplace_arg_then_probe(x):
    x.mul_(2)
    probe(x.clone())
    return x + 1


def inplace_global_tensor_then_probe(x):
    GT.add_(x[0, :3])
    probe(GT.clone())
    return GT * 2


def global_tensor_rebind_then_break(x):
    global GT
    GT = x[1, :3] * 3
    torch._dynamo.graph_break()
    return GT + 1


def effects_in_breaking_callee(t):
    LOG.append("callee")
    OBJ.v += 1
    probe(LOG, OBJ.v)
    return t * OBJ.v


def call_effects_callee(x):
    LOG.append("caller")
    y = effects_in_breaking_callee(x + 1)
    LOG.append("after")
    return y - 1


def effects_between_two_breaks(x):
    global G
    LOG.append("a")
    probe(LOG)
    G = 2
    LOG.append("b")
    probe(LOG, G)
    return x * G


def effects_after_break_only(x):
    global G
    y = x + 1
    torch._dynamo.graph_break()
    G = 9
    OBJ.v = -1
    LOG.extend([1, 2])
    return y


def mutate_list_arg_then_break(x, acc):
    acc.append(x.sum())
    acc.append(7)
    print("mutated")
    return len(acc) + x


def effects_then_data_dependent_if(x):
    LOG.append("before")
    if x.sum() > 0:
        LOG.append("pos")
        return x + 1
    LOG.append("neg")
    return x - 1


def augassign_attr_pending(x):
    OBJ.t = x + 1
    OBJ.t += effects_free_break(x)
    return OBJ.t


def effects_free_break(t):
    print("callee breaks first")
    return t * 2


def effects_then_loop_break(x):
    LOG.append("start")
    for i in range(2):
        LOG.append(i)
        torch._dynamo.graph_break()
    return x + len(LOG)


x = torch.randn(4, 5)
pos = torch.rand(4, 5) + 0.1

state(append_then_probe, x, graphs=2, breaks=1)
state(global_store_then_probe, x, graphs=1, breaks=1)
state(attr_store_then_probe, x, graphs=2, breaks=1)
state(item_store_then_probe, x, graphs=2, breaks=1)
state(inplace_arg_then_probe, x, graphs=2, breaks=1)
state(inplace_global_tensor_then_probe, x, graphs=2, breaks=1)
state(global_tensor_rebind_then_break, x, graphs=2, breaks=1)
state(call_effects_callee, x, graphs=3, breaks=2)
state(effects_between_two_breaks, x, graphs=1, breaks=2)
state(effects_after_break_only, x, graphs=1, breaks=1)
state(mutate_list_arg_then_break, x, [], graphs=2, breaks=1)
state(effects_then_data_dependent_if, pos, graphs=2, breaks=1)
state(effects_then_data_dependent_if, -pos, graphs=2, breaks=1)
state(augassign_attr_pending, x, graphs=3, breaks=2)
state(effects_then_loop_break, x, graphs=0, breaks=1)
done()
