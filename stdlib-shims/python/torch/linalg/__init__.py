"""``torch.linalg``: norms, inverses, solvers and factorizations of (batches of) matrices.

The factorizations are registry ops computed by faer (``torch._C._linalg_*``, f64 internally);
this module adds PyTorch's argument handling (broadcast batch dims, vectors as right-hand sides,
``left=False``, modes), the compositions (``norm``s, ``pinv``, ``lstsq``, ``matrix_power``,
``matrix_rank``, ``multi_dot``, ...) and ``LinAlgError`` for singular or indefinite inputs."""

import math

import torch
import torch._autocast_policy as _autocast_policy
from torch import _C
from torch.return_types import _make

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "det", "diagonal", "eigh", "eigvalsh", "inv", "inv_ex",
           "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr",
           "slogdet", "solve", "solve_ex", "svd", "svdvals", "vecdot", "vector_norm"]


class _LinAlgError(RuntimeError):
    """Raised for singular, non-positive-definite or non-converging inputs (PyTorch's
    ``torch._C._LinAlgError``, exported as ``torch.linalg.LinAlgError``)."""


_LinAlgError.__module__ = "torch._C"
_C._LinAlgError = _LinAlgError
LinAlgError = _LinAlgError


torch.return_types.linalg_slogdet = _make("linalg_slogdet", ("sign", "logabsdet"))
torch.return_types.linalg_qr = _make("linalg_qr", ("Q", "R"))
torch.return_types.linalg_svd = _make("linalg_svd", ("U", "S", "Vh"))
torch.return_types.linalg_eigh = _make("linalg_eigh", ("eigenvalues", "eigenvectors"))
torch.return_types.linalg_lstsq = _make("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
torch.return_types.linalg_inv_ex = _make("linalg_inv_ex", ("inverse", "info"))
torch.return_types.linalg_cholesky_ex = _make("linalg_cholesky_ex", ("L", "info"))
torch.return_types.linalg_solve_ex = _make("linalg_solve_ex", ("result", "info"))

_LINALG_FAILURES = ("is singular", "not positive-definite", "failed to converge")


def _run(fn, *args):
    try:
        return fn(*args)
    except RuntimeError as e:
        if any(s in str(e) for s in _LINALG_FAILURES):
            raise LinAlgError(str(e)) from None
        raise


@_autocast_policy.fp32
def inv(A, *, out=None):
    return _run(_C._linalg_inv, A)


@_autocast_policy.fp32
def inv_ex(A, *, check_errors=False, out=None):
    try:
        return torch.return_types.linalg_inv_ex((inv(A), torch.zeros(A.shape[:-2], dtype=torch.int32)))
    except LinAlgError as e:
        if check_errors:
            raise LinAlgError(str(e).replace("linalg.inv:", "linalg.inv_ex:", 1)) from None
        # `info` is LAPACK's: the (1-based) index of the first zero pivot of the LU factorization.
        text = str(e)
        order = int(text.split("diagonal element ")[1].split(" ")[0]) if "diagonal element " in text else 1
        nan = torch.full(A.shape, float("nan"), dtype=A.dtype)
        return torch.return_types.linalg_inv_ex((nan, torch.full(A.shape[:-2], order, dtype=torch.int32)))


def det(A, *, out=None):
    return _C._linalg_det(A)


def slogdet(A, *, out=None):
    return torch.return_types.linalg_slogdet(_C._linalg_slogdet(A))


@_autocast_policy.fp32
def cholesky(A, *, upper=False, out=None):
    return _run(_C._linalg_cholesky, A, upper)


@_autocast_policy.fp32
def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    try:
        return torch.return_types.linalg_cholesky_ex((cholesky(A, upper=upper), torch.zeros(A.shape[:-2],
                                                                                               dtype=torch.int32)))
    except LinAlgError as e:
        if check_errors:
            raise LinAlgError(str(e).replace("linalg.cholesky:", "linalg.cholesky_ex:", 1)) from None
        order = int(str(e).split("leading minor of order ")[1].split(" ")[0])
        return torch.return_types.linalg_cholesky_ex((torch.zeros_like(A), torch.full(A.shape[:-2], order,
                                                                                        dtype=torch.int32)))


def _solve_is_vector(A, B):
    # PyTorch treats B as a batch of vectors when B.ndim == 1, or when B has one dim less than A
    # and matches A's shape without its last dim.
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


@_autocast_policy.fp32
def solve(A, B, *, left=True, out=None):
    if A.dim() < 2:
        raise RuntimeError("linalg.solve: The input tensor A must have at least 2 dimensions.")
    vector = _solve_is_vector(A, B)
    if not left:
        if vector:
            raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not supported for "
                               "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)")
        return solve(A.transpose(-2, -1), B.transpose(-2, -1)).transpose(-2, -1)
    b = B.unsqueeze(-1) if vector else B
    if b.dim() < 2:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 1 dimensions.")
    batch = torch.broadcast_shapes(tuple(A.shape[:-2]), tuple(b.shape[:-2]))
    a = A.expand(*batch, *A.shape[-2:])
    b = b.expand(*batch, *b.shape[-2:])
    x = _run(_C._linalg_solve, a, b)
    return x.squeeze(-1) if vector else x


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    try:
        x = solve(A, B, left=left)
        return torch.return_types.linalg_solve_ex((x, torch.zeros(A.shape[:-2], dtype=torch.int32)))
    except LinAlgError:
        if check_errors:
            raise
        return torch.return_types.linalg_solve_ex((torch.full_like(B, float("nan")),
                                                   torch.ones(A.shape[:-2], dtype=torch.int32)))


@_autocast_policy.fp32
def qr(A, mode="reduced", *, out=None):
    return torch.return_types.linalg_qr(_C._linalg_qr(A, mode))


@_autocast_policy.fp32
def svd(A, full_matrices=True, *, driver=None, out=None):
    return torch.return_types.linalg_svd(_run(_C._linalg_svd, A, full_matrices))


@_autocast_policy.fp32
def svdvals(A, *, driver=None, out=None):
    return svd(A, full_matrices=False)[1]


@_autocast_policy.fp32
def eigh(A, UPLO="L", *, out=None):
    return torch.return_types.linalg_eigh(_run(_C._linalg_eigh, A, UPLO))


@_autocast_policy.fp32
def eigvalsh(A, UPLO="L", *, out=None):
    return eigh(A, UPLO)[0]


_ATEN_NAMES = {torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char", torch.uint8: "Byte",
               torch.bool: "Bool"}


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    if isinstance(ord, str):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not str")
    if not x.is_floating_point():
        raise NotImplementedError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                                  f"{_ATEN_NAMES.get(x.dtype, x.dtype)}")
    if dtype is not None:
        x = x.to(dtype)
    if isinstance(dim, int):
        dim = [dim]
    dims = list(range(x.dim())) if dim is None else list(dim)
    if x.numel() == 0 and (ord < 0 or ord == math.inf) and dim is None:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the "
                           "operation does not have an identity")
    a = x.abs()
    if ord == math.inf:
        return a.amax(dims, keepdim=keepdim) if dims else a
    if ord == -math.inf:
        return a.amin(dims, keepdim=keepdim) if dims else a
    if ord == 0:
        return (x != 0).to(x.dtype).sum(dims, keepdim=keepdim)
    if ord == 1:
        return a.sum(dims, keepdim=keepdim)
    if ord == 2:
        return (a * a).sum(dims, keepdim=keepdim).sqrt()
    return a.pow(ord).sum(dims, keepdim=keepdim).pow(1.0 / ord)


def _matrix_dims(A, dim):
    if not (isinstance(dim, (list, tuple)) and len(dim) == 2):
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim if not isinstance(dim, (list, tuple)) else ' '.join(str(d) for d in dim)}")
    d0, d1 = (d % A.dim() for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = _matrix_dims(A, dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        moved = A.movedim((d0, d1), (-2, -1))
        s = svdvals(moved)
        if ord == "nuc":
            r = s.sum(-1)
        elif ord == 2:
            r = s.amax(-1)
        else:
            r = s.amin(-1)
        if keepdim:
            for d in sorted((d0, d1)):
                r = r.unsqueeze(d)
        return r
    if ord in (1, -1, math.inf, -math.inf):
        # 1: max column sum (reduce rows first); inf: max row sum.
        first, second = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = A.abs().sum(first, keepdim=True)
        r = sums.amax(second, keepdim=True) if ord > 0 else sums.amin(second, keepdim=True)
        if not keepdim:
            r = r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
        return r
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    if dim is not None and isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype)
        flat = A if dim is not None else A.reshape(-1)
        return vector_norm(flat, 2, dim, keepdim if dim is not None else False, dtype=dtype) if dim is not None \
            else vector_norm(A, 2, None, keepdim, dtype=dtype)
    if isinstance(ord, str):
        if dim is None:
            if A.dim() != 2:
                raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                                   f"{A.dim()}D.")
            dim = (-2, -1)
        if len(dim) != 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.dim() == 1:
            return vector_norm(A, ord, None, keepdim, dtype=dtype)
        if A.dim() == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.dim()}D.")
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


def matrix_power(A, n, *, out=None):
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        if A.dim() < 2:
            raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if n == 0:
        # As ATen: the identity copied into a clone of A, so the result stays in A's graph (zero gradient).
        return A.clone().copy_(torch.eye(A.shape[-1], dtype=A.dtype).expand(A.shape))
    if n < 0:
        A = inv(A)
        n = -n
    # Binary powering, as ATen's: the result multiplies the squares of the set bits, low to high.
    result = None
    z = A
    while True:
        if n % 2 == 1:
            result = z if result is None else torch.matmul(result, z)
        n //= 2
        if n == 0:
            return result.clone() if result is A else result
        z = torch.matmul(z, z)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    if A.dim() < 2:
        raise RuntimeError("linalg.pinv: The input tensor A must have at least 2 dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else torch.finfo(A.dtype).eps * max(m, n)
    atol = 0.0 if atol is None else atol
    if hermitian:
        vals, vecs = eigh(A)
        mag = vals.abs()
        tol = torch.clamp(mag.amax(-1, keepdim=True) * rtol, min=atol) if rtol > 0 else torch.full_like(mag[..., :1], atol)
        inv_vals = torch.where(mag > tol, 1.0 / vals, torch.zeros_like(vals))
        return torch.matmul(vecs * inv_vals.unsqueeze(-2), vecs.transpose(-2, -1))
    U, S, Vh = svd(A, full_matrices=False)
    tol = torch.clamp(S.amax(-1, keepdim=True) * rtol, min=atol) if rtol > 0 else torch.full_like(S[..., :1], atol)
    s_inv = torch.where(S > tol, 1.0 / S, torch.zeros_like(S))
    return torch.matmul(Vh.transpose(-2, -1) * s_inv.unsqueeze(-2), U.transpose(-2, -1))


@_autocast_policy.fp32
def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    S = eigvalsh(A).abs() if hermitian else svdvals(A)
    m, n = A.shape[-2], A.shape[-1]
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else torch.finfo(A.dtype).eps * max(m, n)
    atol = 0.0 if atol is None else atol
    tol = torch.clamp(S.amax(-1, keepdim=True) * rtol, min=atol) if S.shape[-1] else S[..., :1]
    return (S > tol).sum(-1)


@_autocast_policy.fp32
def lstsq(A, B, rcond=None, *, driver=None):
    """Least squares through the SVD: the minimum-norm solution over the singular values above
    ``rcond * max(S)`` (default ``eps * max(m, n)``), as LAPACK's drivers return for CPU inputs.
    Which of ``residuals`` / ``rank`` / ``singular_values`` are filled follows the driver, as in
    PyTorch: ``gelsy`` (default) gives ``rank`` only, ``gels`` ``residuals`` only, ``gelsd``/``gelss``
    all three; residuals only where ``m > n`` and every matrix has full rank."""
    if driver not in (None, "gelsy", "gels", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    driver = driver or "gelsy"
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    vector = B.dim() == A.dim() - 1
    b = B.unsqueeze(-1) if vector else B
    m, n = A.shape[-2], A.shape[-1]
    if b.shape[-2] != m:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    if rcond is None or rcond < 0:
        rcond = torch.finfo(A.dtype).eps * max(m, n)
    U, S, Vh = svd(A, full_matrices=False)
    keep = S > S[..., :1] * rcond if S.shape[-1] else S > 0
    s_inv = torch.where(keep, 1.0 / torch.where(keep, S, torch.ones_like(S)), torch.zeros_like(S))
    x = torch.matmul(Vh.transpose(-2, -1) * s_inv.unsqueeze(-2), torch.matmul(U.transpose(-2, -1), b))
    rank = keep.sum(-1)
    empty = torch.zeros(0, dtype=A.dtype)
    residuals = empty
    if driver != "gelsy" and m > n and bool((rank == n).all()):
        residuals = (torch.matmul(A, x) - b).pow(2).sum(-2)
    ranks = torch.zeros(0, dtype=torch.int64) if driver == "gels" else rank
    svals = S if driver in ("gelsd", "gelss") else empty
    sol = x.squeeze(-1) if vector else x
    return torch.return_types.linalg_lstsq((sol, residuals, ranks, svals))


def matmul(input, other, *, out=None):
    return torch.matmul(input, other)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return torch.diagonal(A, offset, dim1, dim2)


@_autocast_policy.lower_precision_fp
def vecdot(x, y, *, dim=-1, out=None):
    return (x * y).sum(dim)


def multi_dot(tensors, *, out=None):
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    result = tensors[0]
    for t in tensors[1:]:
        result = torch.matmul(result, t)
    return result
