"""``torch.hub``: the cache directories, ``load_state_dict_from_url`` / ``download_url_to_file`` (the
checkpoint cache under ``<hub dir>/checkpoints``, loaded with ``torch.load``), and ``list`` / ``help``
/ ``load``, the last of a local ``hubconf.py`` (``source="local"``). torchvision's model builders import
``load_state_dict_from_url`` from here (``torchvision/_internally_replaced_utils.py``), so the module
has to exist for them to import at all; a cached checkpoint loads offline as in PyTorch 2.15.

GitHub sources (``list``, ``help``, ``load`` with ``source="github"``) would download and unpack a
repository archive; they raise instead (``_github_unsupported``)."""

import hashlib
import os
import re
import sys
import tempfile
import warnings
from urllib.parse import urlparse

import torch

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024
# A checkpoint's file name may end with the first digits of its SHA-256 (`resnet18-f37072fd.pth`).
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")

_hub_dir = None


def _get_torch_home():
    return os.path.expanduser(
        os.getenv(ENV_TORCH_HOME, os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")))


def get_dir():
    """The directory hub caches go to: ``set_dir``'s, else ``$TORCH_HOME/hub``."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead")
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d):
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Downloads ``url`` to ``dst``. The bytes go to a temporary file in ``dst``'s directory, which
    replaces ``dst`` only once complete and, with ``hash_prefix``, only when its SHA-256 starts so:
    an interrupted or corrupt download never leaves a file at ``dst``."""
    from urllib.request import Request, urlopen

    dst = os.path.expanduser(dst)
    digest = hashlib.sha256()
    with urlopen(Request(url, headers={"User-Agent": "torch.hub"})) as response:
        tmp = tempfile.NamedTemporaryFile(dir=os.path.dirname(os.path.abspath(dst)), suffix=".partial",
                                          delete=False)
        try:
            with tmp:
                for chunk in iter(lambda: response.read(READ_DATA_CHUNK), b""):
                    tmp.write(chunk)
                    digest.update(chunk)
            got = digest.hexdigest()
            if hash_prefix is not None and not got.startswith(hash_prefix):
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{got}")')
            os.replace(tmp.name, dst)
        finally:
            if os.path.exists(tmp.name):
                os.remove(tmp.name)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=False):
    """``torch.load`` of the checkpoint at ``url``, cached as ``<model_dir>/<file name>`` (downloaded
    only when missing)."""
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead")
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stderr.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            r = HASH_REGEX.search(filename)
            hash_prefix = r.group(1) if r else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    return torch.load(cached_file, map_location=map_location, weights_only=weights_only)


def _github_unsupported(github):
    raise RuntimeError(f"torch.hub: loading '{github}' from GitHub is not supported by Rynamo; clone the "
                       "repository and pass its directory with source='local'")


def _load_local_hubconf(repo_dir):
    import importlib.util

    path = os.path.join(repo_dir, MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, repo_dir)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(repo_dir)
    missing = [pkg for pkg in getattr(module, VAR_DEPENDENCY, [])
               if importlib.util.find_spec(pkg) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entry(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    func = getattr(module, model, None)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def list(github, force_reload=False, skip_validation=False, trust_repo=None, verbose=True):
    """The entrypoints of a GitHub repository's ``hubconf.py``: needs a download, so it raises."""
    _github_unsupported(github)


def help(github, model, force_reload=False, skip_validation=False, trust_repo=None):
    """An entrypoint's docstring from a GitHub repository's ``hubconf.py``: raises, as ``list``."""
    _github_unsupported(github)


def load(repo_or_dir, model, *args, source="github", trust_repo=None, force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """Calls entrypoint ``model`` of ``repo_or_dir``'s ``hubconf.py`` (``source="local"`` only)."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        _github_unsupported(repo_or_dir)
    return _entry(_load_local_hubconf(repo_or_dir), model)(*args, **kwargs)
