"""The function surface of issue 29 whose results are not plain tensors: `torch.multinomial`
(distributions, generators, errors), `torch.linalg`'s failure reporting (`LinAlgError`, the `_ex`
variants' `info`), `torch.testing.assert_close`'s messages, and the process/config API
(`is_complex`, legacy tensor types, `get_device_module`, `torch.backends` flags, thread counts).
Its stdout equals `api_vs_pytorch.out`, recorded by running this script under real PyTorch 2.15."""

import torch
import torch.linalg
import torch.testing


def show(label, fn):
    try:
        r = fn()
    except Exception as e:
        print(f"{label}: {type(e).__name__}: {e}")
    else:
        print(f"{label}: {r}")


# --- multinomial ---------------------------------------------------------------------------------
probs = torch.tensor([[0.1, 0.0, 0.3, 0.6], [5.0, 5.0, 0.0, 10.0]])
g = torch.Generator().manual_seed(7)
draws = torch.multinomial(probs, 20000, replacement=True, generator=g)
print("with replacement:", draws.dtype, list(draws.shape))
for r in range(2):
    freq = torch.bincount(draws[r], minlength=4).double() / 20000
    want = probs[r].double() / probs[r].sum()
    # 6 standard deviations of a binomial frequency: fails only on a wrong distribution.
    sd = (want * (1 - want) / 20000).sqrt()
    print(f"row {r} frequencies match:", bool(((freq - want).abs() <= 6 * sd + 1e-12).all()))
first = torch.multinomial(probs, 3, generator=torch.Generator().manual_seed(3))
again = torch.multinomial(probs, 3, generator=torch.Generator().manual_seed(3))
print("same seed, same draws:", bool((first == again).all()))
print("without replacement: the positive categories", [sorted(row) for row in first.tolist()])
counts = torch.zeros(4)
for s in range(600):
    pick = torch.multinomial(torch.tensor([1.0, 2.0, 3.0, 4.0]), 2, generator=torch.Generator().manual_seed(s))
    counts[pick[0]] += 1
print("first-draw order matches the weights:", bool((counts[1:] > counts[:-1]).all()))
torch.manual_seed(11)
a = torch.tensor([0.2, 0.8]).multinomial(5, True)
torch.manual_seed(11)
b = torch.multinomial(torch.tensor([0.2, 0.8]), 5, True)
print("method == function under one seed:", bool((a == b).all()), list(a.shape))
show("1-D, one sample", lambda: torch.multinomial(torch.tensor([0.0, 0.0, 1.0]), 1).tolist())
show("too many without replacement", lambda: torch.multinomial(torch.tensor([0.5, 0.5]), 3))
show("negative weight", lambda: torch.multinomial(torch.tensor([0.5, -0.5]), 1))
show("zero sum", lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 1))
show("3-D", lambda: torch.multinomial(torch.ones(2, 2, 2), 1))
show("int input", lambda: torch.multinomial(torch.tensor([1, 2]), 1))
show("n = 0", lambda: torch.multinomial(torch.tensor([1.0, 2.0]), 0))

# --- linalg failures -----------------------------------------------------------------------------
sing = torch.tensor([[1.0, 2.0], [2.0, 4.0]])
print("LinAlgError is a RuntimeError:", issubclass(torch.linalg.LinAlgError, RuntimeError))
show("inv singular", lambda: torch.linalg.inv(sing))
show("solve singular", lambda: torch.linalg.solve(sing, torch.ones(2)))
show("cholesky indefinite", lambda: torch.linalg.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]])))
show("inv non-square", lambda: torch.linalg.inv(torch.ones(2, 3)))
show("inv int", lambda: torch.linalg.inv(torch.ones(2, 2, dtype=torch.int64)))
show("det 1-D", lambda: torch.linalg.det(torch.ones(3)))
show("qr mode", lambda: torch.linalg.qr(torch.ones(2, 2), mode="full"))
show("eigh UPLO", lambda: torch.linalg.eigh(torch.eye(2), UPLO="X"))
show("matrix_norm dims", lambda: torch.linalg.matrix_norm(torch.ones(2, 2), dim=(0, 0)))
show("norm 3-D with ord", lambda: torch.linalg.norm(torch.ones(2, 2, 2), 2))
show("vector_norm int", lambda: torch.linalg.vector_norm(torch.ones(3, dtype=torch.int64)))
show("det singular", lambda: torch.linalg.det(sing).item() == 0)
show("slogdet singular", lambda: tuple(abs(x.item()) for x in torch.linalg.slogdet(sing)))
r = torch.linalg.inv_ex(sing)
print("inv_ex info:", r.info.item(), r.info.dtype)
r = torch.linalg.inv_ex(torch.eye(2) * 2)
print("inv_ex ok:", r.inverse.tolist(), r.info.item())
r = torch.linalg.cholesky_ex(torch.tensor([[4.0, 0.0, 0.0], [0.0, 1.0, 3.0], [0.0, 3.0, 1.0]]))
print("cholesky_ex info:", r.info.item())
show("cholesky_ex check_errors", lambda: torch.linalg.cholesky_ex(-torch.eye(2), check_errors=True))
print("return types:", type(torch.linalg.slogdet(torch.eye(2))).__name__, type(torch.linalg.qr(torch.eye(2))).__name__,
      type(torch.linalg.svd(torch.eye(2))).__name__, type(torch.linalg.eigh(torch.eye(2))).__name__,
      type(torch.linalg.lstsq(torch.eye(2), torch.eye(2))).__name__)

# --- assert_close --------------------------------------------------------------------------------
show("assert_close equal", lambda: torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0])))
show("assert_close values", lambda: torch.testing.assert_close(torch.tensor([1.0, 2.0, 3.0]),
                                                               torch.tensor([1.0, 2.5, 3.0])))
show("assert_close shape", lambda: torch.testing.assert_close(torch.ones(2), torch.ones(3)))
show("assert_close dtype", lambda: torch.testing.assert_close(torch.ones(2), torch.ones(2, dtype=torch.float64)))
show("assert_close no dtype check", lambda: torch.testing.assert_close(torch.ones(2), torch.ones(2, dtype=torch.float64),
                                                                       check_dtype=False))
show("assert_close ints", lambda: torch.testing.assert_close(torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4])))
show("assert_close nan", lambda: torch.testing.assert_close(torch.tensor([float("nan")]), torch.tensor([float("nan")])))
show("assert_close equal_nan", lambda: torch.testing.assert_close(torch.tensor([float("nan")]),
                                                                  torch.tensor([float("nan")]), equal_nan=True))
show("assert_close tolerances", lambda: torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.1]),
                                                                   rtol=0.0, atol=0.2))
show("assert_close scalars", lambda: torch.testing.assert_close(1.0, 1.5))
show("assert_close msg", lambda: torch.testing.assert_close(torch.ones(1), torch.zeros(1), msg="custom"))
show("assert_close sequences", lambda: torch.testing.assert_close([torch.ones(1), torch.ones(2)],
                                                                  [torch.ones(1), torch.zeros(2)]))

# --- process and config API ----------------------------------------------------------------------
print("is_complex:", torch.is_complex(torch.ones(1)), torch.ones(1).is_complex())
print("legacy types:", torch.FloatTensor([1, 2]).dtype, torch.LongTensor([1]).dtype, torch.DoubleTensor(2).shape,
      isinstance(torch.ones(1), torch.FloatTensor), isinstance(torch.ones(1), torch.LongTensor))
print("tensor.type():", torch.ones(1).type(), torch.ones(1).type(torch.DoubleTensor).dtype,
      torch.ones(1).type("torch.LongTensor").dtype)
# (Build-dependent answers, such as `torch.version.cuda` or `cudnn.is_available()`, are left out: the
# oracle is a CUDA build, Rynamo a CPU one.)
print("get_device_module:", torch.get_device_module("cpu").__name__, torch.get_device_module(torch.device("cpu")).__name__)
print("backends:", torch.backends.mkldnn.is_available() in (True, False), torch.backends.mps.is_available(),
      type(torch.backends.cudnn.benchmark).__name__, torch.backends.cuda.matmul.allow_tf32)
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = True
print("flags set:", torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic)
old = torch.get_num_threads()
torch.set_num_threads(1)
print("threads:", torch.get_num_threads(), old >= 1)
torch.set_num_threads(old)
show("set_num_threads 0", lambda: torch.set_num_threads(0))
print("interop:", torch.get_num_interop_threads() >= 1)
print("version:", isinstance(torch.version.__version__, str), torch.version.debug in (True, False),
      torch.__version__ == torch.version.__version__)
print("config show:", isinstance(torch.__config__.show(), str), isinstance(torch.__config__.parallel_info(), str))
with torch.device("cpu"):
    print("with device:", torch.ones(2).device, torch.zeros(1).device.type)
print("default device:", torch.get_default_device())

# --- nn.init.orthogonal_ (QR of a normal sample; the stream differs from PyTorch's, the properties do not)
for shape, gain in (((4, 6), 1.0), ((6, 4), 2.0), ((3, 2, 2), 0.5)):
    w = torch.nn.init.orthogonal_(torch.empty(shape), gain=gain)
    flat = w.reshape(shape[0], -1) / gain
    gram = flat @ flat.t() if flat.shape[0] <= flat.shape[1] else flat.t() @ flat
    print("orthogonal_", shape, "orthonormal:", bool((gram - torch.eye(gram.shape[0])).abs().max() < 1e-5))
show("orthogonal_ 1-D", lambda: torch.nn.init.orthogonal_(torch.empty(3)))
print("orthogonal_ empty:", list(torch.nn.init.orthogonal_(torch.empty(0, 3)).shape))
