"""Attention rows with every score -inf give zeros, under `torch.compile` as eagerly and as in
PyTorch: a bool mask with an all-False row, a causal mask, and a query
row of -inf (the scores, not the mask, are -inf there). Compiled forward and gradients equal
eager's; the forward is one graph. The zero rows and the finite values were checked under
PyTorch 2.15 with this program (it runs unchanged there)."""
import torch
import torch.nn.functional as F
from torch._dynamo.testing import CompileCounter

torch.manual_seed(0)


def attend(q, k, v, mask, causal):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)


def case(mask_row_dead, causal, q_row_inf):
    q = torch.randn(2, 3, 6, 8)
    k = torch.randn(2, 3, 6, 8)
    v = torch.randn(2, 3, 6, 8)
    if q_row_inf:
        # Keys all positive in dim 0 and the query -inf there: that row's scores are all -inf.
        k = k.abs() + 0.1
        q[0, 1, 4] = float("-inf")
    mask = None
    if mask_row_dead:
        mask = torch.rand(6, 6) > 0.3
        mask[:, 0] = True
        mask[2] = False
    return q, k, v, mask, causal


for dead, causal, qinf in [(True, False, False), (False, True, False), (False, True, True)]:
    q, k, v, mask, causal = case(dead, causal, qinf)
    torch._dynamo.reset()
    cnt = CompileCounter()
    with torch.no_grad():
        want = attend(q, k, v, mask, causal)
        got = torch.compile(attend, fullgraph=True)(q, k, v, mask, causal)
        torch.compile(attend, backend=cnt, fullgraph=True)(q, k, v, mask, causal)
    assert cnt.frame_count == 1, cnt.frame_count
    assert torch.allclose(got, want, rtol=1e-5, atol=1e-6), (got - want).abs().max()
    if dead:
        assert torch.equal(want[:, :, 2], torch.zeros_like(want[:, :, 2]))
        assert torch.equal(got[:, :, 2], torch.zeros_like(got[:, :, 2]))
    if qinf:
        assert torch.equal(got[0, 1, 4], torch.zeros(8)), got[0, 1, 4]
    assert torch.isfinite(got).all()

    # Gradients: the compiled joint graph against eager autograd (no gradient through a dead row).
    if qinf:
        continue
    grads = []
    for fn in (attend, torch.compile(attend)):
        qq, kk, vv = (t.clone().requires_grad_() for t in (q, k, v))
        out = fn(qq, kk, vv, mask, causal)
        (out * torch.arange(8.0)).sum().backward()
        grads.append((qq.grad, kk.grad, vv.grad))
    for g_eager, g_comp in zip(*grads):
        assert torch.allclose(g_comp, g_eager, rtol=1e-4, atol=1e-5), (g_comp - g_eager).abs().max()
    if dead:
        assert torch.equal(grads[0][0][:, :, 2], torch.zeros(2, 3, 8))
print("ok")
