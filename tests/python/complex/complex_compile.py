"""LLaMA 2's rotary embedding under torch.compile (issue 29 req 3): compiled equals eager on both
backends (complex nodes run their eager kernels inside the graph), forward and backward, and the
graph and break counts are PyTorch 2.15's (stdout equals `complex_compile.out`, recorded with
`/tmp/pt/bin/python complex_compile.py`)."""
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounterWithBackend


def rotary(xq, xk, freqs):
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    shape = [d if i == 1 or i == xq_.ndim - 1 else 1 for i, d in enumerate(xq_.shape)]
    freqs_cis = freqs_cis.view(*shape)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def attention_scores(xq, xk, freqs):
    q, k = rotary(xq, xk, freqs)
    return (q * k).sum(-1).softmax(-1)


bsz, seqlen, heads, head_dim = 2, 5, 3, 8
n = bsz * seqlen * heads * head_dim
xq = torch.sin(torch.arange(n, dtype=torch.float32) * 0.37).reshape(bsz, seqlen, heads, head_dim)
xk = torch.cos(torch.arange(n, dtype=torch.float32) * 0.11).reshape(bsz, seqlen, heads, head_dim)
freqs = torch.outer(torch.arange(seqlen, dtype=torch.float32),
                    1.0 / (10000.0 ** (torch.arange(0, head_dim, 2).float() / head_dim)))


for backend in ["eager", "inductor"]:
    for fn in [rotary, attention_scores]:
        torch._dynamo.reset()
        counter = CompileCounterWithBackend(backend)
        compiled = torch.compile(fn, backend=counter)
        want = fn(xq, xk, freqs)
        got = compiled(xq, xk, freqs)
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        same = all(torch.allclose(a, b, rtol=1e-5, atol=1e-6) and a.dtype == b.dtype and a.shape == b.shape
                   for a, b in zip(want, got))
        print(f"{backend} {fn.__name__}: compiled == eager: {same}, graphs: {counter.frame_count}")

        # Backward through the compiled function, against eager autograd.
        torch._dynamo.reset()
        counter = CompileCounterWithBackend(backend)
        compiled = torch.compile(fn, backend=counter)
        grads = []
        for f in [fn, compiled]:
            q, k, fr = (t.detach().clone().requires_grad_(True) for t in (xq, xk, freqs))
            out = f(q, k, fr)
            out = out if isinstance(out, tuple) else (out,)
            sum(((o * torch.linspace(-1, 1, o.numel()).reshape(o.shape)).sum() for o in out)).backward()
            grads.append([q.grad, k.grad, fr.grad])
        same = all(torch.allclose(a, b, rtol=1e-4, atol=1e-5) for a, b in zip(*grads))
        print(f"{backend} {fn.__name__} backward: compiled == eager: {same}, graphs: {counter.frame_count}")
