"""Window functions against PyTorch 2.15: hann, hamming (alpha, beta), blackman, bartlett and kaiser
(beta), periodic and symmetric, lengths 0 to 7, float32 and float64, requires_grad, the argument
errors; inside a compiled function on both backends; torch._assert. The .out is PyTorch's output:
every value exact, but kaiser's: ATen evaluates its Bessel expression fused in float, the composition
here rounds between steps (1 ulp apart), so float32 kaiser is compared with float64 within 1e-6 and
float64 kaiser printed at 10 significant digits."""
import torch

torch.set_printoptions(precision=8)
windows = [("hann_window", ()), ("hamming_window", ()), ("hamming_window", (0.6, 0.4)), ("blackman_window", ()),
           ("bartlett_window", ()), ("kaiser_window", ()), ("kaiser_window", (5.0,))]
for name, extra in windows:
    fn = getattr(torch, name)
    for n in range(8):
        for periodic in (True, False):
            values = fn(n, periodic, *extra)
            if name == "kaiser_window":
                wide = fn(n, periodic, *extra, dtype=torch.float64)
                close = torch.allclose(values.double(), wide, rtol=1e-6, atol=1e-9)
                values = (close, [f"{v:.9e}" for v in wide.tolist()])
            else:
                values = values.tolist()
            print(name, extra, n, periodic, values)
    if name != "kaiser_window":
        print(name, "float64", fn(6, dtype=torch.float64))
print(torch.hann_window(4, requires_grad=True), torch.hann_window(5, periodic=False, dtype=torch.float16))
for call in ["torch.hann_window(-1)", "torch.bartlett_window(-2)", "torch.hann_window(4, dtype=torch.int64)",
             "torch.blackman_window(4, dtype=torch.int32)", "torch.hann_window(4.0)"]:
    try:
        eval(call)
    except Exception as e:
        print(call, type(e).__name__, str(e).splitlines()[0])


def spectrum(x):
    w = torch.hann_window(x.shape[-1], dtype=x.dtype)
    return (x * w).sum(-1) + torch.blackman_window(3, periodic=False).sum()


for backend in ("eager", "inductor"):
    torch._dynamo.reset()
    print("compiled", backend, torch.compile(spectrum, backend=backend)(torch.arange(8.0).reshape(2, 4)))
torch._assert(True, "fine")
try:
    torch._assert(1 > 2, "one is not above two")
except AssertionError as e:
    print("AssertionError", e)
