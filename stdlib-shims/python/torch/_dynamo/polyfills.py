"""Python versions of native functions that Dynamo traces in their place (as PyTorch's
`torch/_dynamo/polyfills/`): infinite iterators become generators, which Dynamo runs lazily."""


def count(start=0, step=1):
    """`itertools.count`."""
    n = start
    while True:
        yield n
        n += step


# What `next(it, _END)` returns once `it` is exhausted (the polyfills below never raise
# StopIteration themselves: a generator simply returns).
_END = object()


def map(function, *iterables):
    """`map`: lazily, stopping at the shortest iterable (the iterables are advanced in order,
    as CPython's map does)."""
    its = [iter(i) for i in iterables]
    while True:
        args = []
        for it in its:
            v = next(it, _END)
            if v is _END:
                return
            args.append(v)
        yield function(*args)


def filter(function, iterable):
    """`filter`: items whose `function(item)` (or the item itself, for `None`) is true."""
    for item in iterable:
        if function is None:
            if item:
                yield item
        elif function(item):
            yield item


def chain_from_iterable(iterables):
    """`itertools.chain.from_iterable`."""
    for it in iterables:
        yield from it


def islice(iterable, *args):
    """`itertools.islice` over an iterator, consuming exactly what CPython's `islice_next`
    consumes (the skipped items first, nothing past `stop`)."""
    s = slice(*args)
    start = 0 if s.start is None else s.start
    stop = -1 if s.stop is None else s.stop
    step = 1 if s.step is None else s.step
    if start < 0 or (s.stop is not None and stop < 0):
        raise ValueError(
            "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize."
        )
    if step <= 0:
        raise ValueError("Step for islice() must be a positive integer or None.")
    it = iter(iterable)
    cnt = 0
    nxt = start
    while True:
        while cnt < nxt:
            item = next(it, _END)
            if item is _END:
                return
            cnt += 1
        if stop != -1 and cnt >= stop:
            return
        item = next(it, _END)
        if item is _END:
            return
        cnt += 1
        old = nxt
        nxt += step
        if nxt < old or (stop != -1 and nxt > stop):
            nxt = stop
        yield item


def starmap(function, iterable):
    """`itertools.starmap`."""
    for args in iterable:
        yield function(*args)


def takewhile(predicate, iterable):
    """`itertools.takewhile`."""
    for x in iterable:
        if predicate(x):
            yield x
        else:
            return


def dropwhile(predicate, iterable):
    """`itertools.dropwhile`."""
    it = iter(iterable)
    for x in it:
        if not predicate(x):
            yield x
            break
    for x in it:
        yield x


def cycle(iterable):
    """`itertools.cycle`: the first pass yields as it reads, later passes repeat it."""
    saved = []
    for element in iterable:
        yield element
        saved.append(element)
    while saved:
        for element in saved:
            yield element


def tee(iterable, n=2):
    """`itertools.tee`: `n` iterators sharing one reader; each item is read once and buffered
    for the iterators that have not reached it yet."""
    it = iter(iterable)
    buffers = [[] for _ in range(n)]

    def gen(mybuf):
        while True:
            if not mybuf:
                value = next(it, _END)
                if value is _END:
                    return
                for b in buffers:
                    b.append(value)
            yield mybuf.pop(0)

    return tuple(gen(b) for b in buffers)


def groupby(iterable, key=None):
    """`itertools.groupby` (the documented pure-Python equivalent): consecutive items with
    equal keys, each group an iterator that advancing the outer iterator exhausts."""
    keyfunc = (lambda x: x) if key is None else key
    iterator = iter(iterable)
    exhausted = False
    curr_value = next(iterator, _END)
    if curr_value is _END:
        return
    curr_key = keyfunc(curr_value)

    def _grouper(target_key):
        nonlocal curr_value, curr_key, exhausted
        yield curr_value
        while True:
            curr_value = next(iterator, _END)
            if curr_value is _END:
                exhausted = True
                return
            curr_key = keyfunc(curr_value)
            if curr_key != target_key:
                return
            yield curr_value

    while not exhausted:
        target_key = curr_key
        curr_group = _grouper(target_key)
        yield curr_key, curr_group
        if curr_key == target_key:
            for _ in curr_group:
                pass
