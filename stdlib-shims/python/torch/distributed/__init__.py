"""``torch.distributed`` for one process.

Rynamo runs a single process, so the one process group it can form has world size 1. Training
scripts written for ``torchrun`` (nanoGPT's ``train.py``, say) import these names unconditionally
and call ``init_process_group`` when ``RANK``/``WORLD_SIZE`` are set; with a world of one they run
here as they do under PyTorch's gloo backend. Every collective over one rank is exact without
communication: a sum, mean, max or gather over one contribution is that contribution, so the
tensors are left as they are. A world size over 1 is refused with a clear error instead of waiting
for peers that can never join.

Errors before ``init_process_group`` and the ``env://`` rendezvous checks carry PyTorch 2.15's
texts."""

import os

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor",
           "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "barrier", "broadcast",
           "broadcast_object_list", "destroy_process_group", "gather", "gather_object", "get_backend", "get_rank",
           "get_world_size", "group", "init_process_group", "is_available", "is_gloo_available", "is_initialized",
           "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "new_group", "reduce",
           "reduce_scatter", "reduce_scatter_tensor", "scatter", "scatter_object_list"]

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


class _RedOp:
    """One reduction kind; prints as PyTorch's ``RedOpType.SUM``."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"RedOpType.{self.name}"

    __str__ = __repr__


class ReduceOp:
    SUM = _RedOp("SUM")
    AVG = _RedOp("AVG")
    PRODUCT = _RedOp("PRODUCT")
    MIN = _RedOp("MIN")
    MAX = _RedOp("MAX")
    BAND = _RedOp("BAND")
    BOR = _RedOp("BOR")
    BXOR = _RedOp("BXOR")
    PREMUL_SUM = _RedOp("PREMUL_SUM")


class Backend(str):
    """A backend name, lower-cased as PyTorch's ``Backend("GLOO") == "gloo"``."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        return str.__new__(cls, name.lower())


class ProcessGroup:
    """A group of ranks; here always the one process."""

    def __init__(self, backend, ranks=(0,)):
        self._backend = backend
        self._ranks = list(ranks)

    def rank(self):
        return 0

    def size(self):
        return 1

    def name(self):
        return self._backend


class Work:
    """The handle an ``async_op=True`` collective returns; the work is already done."""

    def wait(self, timeout=None):
        return True

    def is_completed(self):
        return True

    def is_success(self):
        return True

    def exception(self):
        return None


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = -100


class _World:
    """``dist.group.WORLD``: the default group once initialised, ``None`` before."""

    @property
    def WORLD(self):
        return GroupMember.WORLD


group = _World()


def is_available():
    return True


def is_gloo_available():
    return True


def is_nccl_available():
    return False


def is_mpi_available():
    return False


def is_torchelastic_launched():
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def is_initialized():
    return GroupMember.WORLD is not None


def _default_group(group=None):
    if GroupMember.WORLD is None:
        raise ValueError(_NOT_INITIALIZED)
    return GroupMember.WORLD if group is None else group


def _rendezvous_error(scheme, msg):
    return ValueError(f"Error initializing torch.distributed using {scheme} rendezvous: {msg}")


def _env_int(name, given):
    """``given`` unless it is -1, else the environment variable ``name`` (PyTorch's env:// reads)."""
    if given != -1:
        return int(given)
    value = os.environ.get(name)
    if value is None:
        raise _rendezvous_error("env://", f"environment variable {name} expected, but not set")
    return int(value)


def _rendezvous(init_method, world_size, rank, store):
    """The (rank, world size) the rendezvous gives, with PyTorch's checks and error texts."""
    if store is not None:
        if world_size <= 0 or rank < 0:
            raise ValueError("world_size and rank must be specified when store is given")
        return rank, world_size
    if init_method is None or init_method.startswith("env://"):
        rank = _env_int("RANK", rank)
        world_size = _env_int("WORLD_SIZE", world_size)
        for var in ("MASTER_ADDR", "MASTER_PORT"):
            if os.environ.get(var) is None:
                raise _rendezvous_error("env://", f"environment variable {var} expected, but not set")
        return rank, world_size
    scheme = init_method.split("://", 1)[0] + "://" if "://" in init_method else init_method
    if scheme not in ("tcp://", "file://"):
        raise RuntimeError(f"No rendezvous handler for {scheme}")
    if rank == -1:
        raise _rendezvous_error(scheme, "rank parameter missing")
    if world_size == -1:
        raise _rendezvous_error(scheme, "world size parameter missing")
    return int(rank), int(world_size)


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    rank, world_size = _rendezvous(init_method, world_size, rank, store)
    name = Backend(backend) if backend is not None else Backend.GLOO
    if name in ("nccl", "cuda"):
        raise RuntimeError("Distributed package doesn't have NCCL built in")
    if name == "mpi":
        raise RuntimeError("Distributed package doesn't have MPI built in. MPI is only included if you build "
                           "PyTorch from source on a host that has MPI installed.")
    if world_size != 1:
        raise RuntimeError(f"rynamo runs one process, so torch.distributed forms only a world of size 1; "
                           f"init_process_group got world_size={world_size}. Run the script without torchrun "
                           f"(or with --nproc_per_node=1).")
    if rank != 0:
        raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, 0]")
    GroupMember.WORLD = ProcessGroup(str(name).replace("cpu:", ""))


def destroy_process_group(group=None):
    if group is None or group is GroupMember.WORLD:
        GroupMember.WORLD = None


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    world = _default_group()
    if ranks is not None and any(r != 0 for r in ranks):
        raise ValueError(f"The new group's rank should be within the world_size set by init_process_group, "
                         f"got ranks {list(ranks)} in a world of size 1")
    return ProcessGroup(world.name(), ranks or [0])


def get_rank(group=None):
    return _default_group(group).rank()


def get_world_size(group=None):
    return _default_group(group).size()


def get_backend(group=None):
    return Backend(_default_group(group).name())


def get_node_local_rank(fallback_rank=None):
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
                       "and want the code to run locally instead.")


def _done(async_op):
    return Work() if async_op else None


def _one_rank(group, async_op):
    """Checks the group and returns what a collective over one rank returns."""
    _default_group(group)
    return _done(async_op)


def barrier(group=None, async_op=False, device_ids=None):
    return _one_rank(group, async_op)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    return _one_rank(group, async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    return _one_rank(group, async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    return _one_rank(group, async_op)


def _fill(outputs, inputs):
    for out, inp in zip(outputs, inputs):
        out.copy_(inp)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    done = _one_rank(group, async_op)
    _fill(tensor_list, [tensor])
    return done


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    done = _one_rank(group, async_op)
    output_tensor.copy_(input_tensor.reshape(output_tensor.shape))
    return done


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    done = _one_rank(group, async_op)
    if gather_list is not None:
        _fill(gather_list, [tensor])
    return done


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    done = _one_rank(group, async_op)
    if scatter_list:
        tensor.copy_(scatter_list[0])
    return done


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    done = _one_rank(group, async_op)
    _fill([output], input_list)
    return done


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    done = _one_rank(group, async_op)
    output.copy_(input.reshape(output.shape))
    return done


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    done = _one_rank(group, async_op)
    _fill(output_tensor_list, input_tensor_list)
    return done


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    done = _one_rank(group, async_op)
    output.copy_(input)
    return done


def all_gather_object(object_list, obj, group=None):
    _default_group(group)
    object_list[0] = obj


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    _default_group(group)
    if object_gather_list is not None:
        object_gather_list[0] = obj


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    _default_group(group)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    _default_group(group)
    if scatter_object_input_list:
        scatter_object_output_list[0] = scatter_object_input_list[0]
