"""Python versions of native functions that Dynamo traces in their place (as PyTorch's
`torch/_dynamo/polyfills/`): infinite iterators become generators, which Dynamo runs lazily."""


def count(start=0, step=1):
    """`itertools.count`."""
    n = start
    while True:
        yield n
        n += step
