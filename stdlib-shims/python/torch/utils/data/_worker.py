"""Worker threads of the ``DataLoader`` (``num_workers > 0``) and ``get_worker_info``.

Workers are threads, not processes: RustPython has real threads without a global lock, and
tensors are shared without pickling. Each worker pulls ``(task index, batch indices)`` from its own
queue and puts ``(task index, batch or exception)`` on the shared result queue. Thread workers do
not reseed the process-wide ``torch``/``random`` generators (that would race with the main thread
and the other workers); a dataset wanting per-worker randomness uses ``get_worker_info().seed``."""

import sys
import threading
import traceback

_local = threading.local()


class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker."""

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_initialized", True)

    def __setattr__(self, key, val):
        if getattr(self, "_initialized", False):
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        object.__setattr__(self, key, val)

    def __repr__(self):
        items = ", ".join(f"{k}={getattr(self, k)}" for k in ("id", "num_workers", "seed", "dataset"))
        return f"{self.__class__.__name__}({items})"


def get_worker_info():
    """The current worker's ``WorkerInfo`` (``id``, ``num_workers``, ``seed``, ``dataset``), or
    ``None`` in the main thread."""
    return getattr(_local, "info", None)


class ExceptionWrapper:
    """An exception caught in a worker, re-raised in the main thread with the worker's traceback."""

    def __init__(self, exc_info, where):
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


class KeyErrorMessage(str):
    def __repr__(self):
        return self


class _IterableStop:
    """A worker's iterable dataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


_RESUME = object()


def worker_loop(dataset_kind, dataset, index_queue, result_queue, fetcher_factory, auto_collation, collate_fn,
                drop_last, base_seed, init_fn, worker_id, num_workers):
    """A worker thread: initialise, then fetch batches until told to stop (``None``)."""
    _local.info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=base_seed + worker_id, dataset=dataset,
                             worker_method="thread")
    init_error = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = fetcher_factory(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
    except Exception:
        init_error = ExceptionWrapper(sys.exc_info(), where=f"in DataLoader worker process {worker_id}")
        fetcher = None
    exhausted = False
    while True:
        task = index_queue.get()
        if task is None:
            break
        if task is _RESUME:
            # A new epoch of a persistent worker: a fresh iterator over an iterable dataset.
            exhausted = False
            if fetcher is not None:
                fetcher = fetcher_factory(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
            continue
        idx, indices = task
        if init_error is not None:
            result_queue.put((idx, init_error))
            init_error = None
            continue
        if exhausted:
            result_queue.put((idx, _IterableStop(worker_id)))
            continue
        try:
            data = fetcher.fetch(indices)
        except StopIteration:
            exhausted = True
            data = _IterableStop(worker_id)
        except Exception:
            data = ExceptionWrapper(sys.exc_info(), where=f"in DataLoader worker process {worker_id}")
        result_queue.put((idx, data))
