"""The capture-coverage run: `rynamo coverage.py [MODEL...]` prints one JSON line per model
program in this folder (see `_suite.coverage_row`); with no names, every model. Run by
`scripts/bench --coverage`."""
import importlib
import json
import os
import sys

from _suite import coverage_row


def model_names():
    here = os.path.dirname(os.path.abspath(__file__))
    return sorted(
        f[:-3] for f in os.listdir(here) if f.endswith(".py") and not f.startswith("_") and f != "coverage.py"
    )


def main():
    names = sys.argv[1:] or model_names()
    for name in names:
        module = importlib.import_module(name)
        try:
            row = coverage_row(name, module.build)
        except Exception as e:  # a model that fails is a row with its error, not a lost table
            row = {"model": name, "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
