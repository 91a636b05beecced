"""Model programs in the shapes of the public models issue 29 names, written for this suite: an LSTM
language model (word-language-model's shape: embedding, stacked LSTM with dropout, tied decoder), a
U-Net with transposed-convolution upsampling, a fast-style-transfer network (reflection padding,
instance norm, residual blocks, nearest upsampling), a small GPT with nanoGPT-style `generate()`
(top-k filtering, `torch.multinomial`) and a LLaMA-style model (RMSNorm, rotary embeddings through
complex `torch.polar`/`view_as_complex`, grouped-query attention, SwiGLU, built under
`with torch.device`). Shared by `_gen_goldens.py` (real PyTorch) and
`zoo_vs_pytorch.py` (Rynamo). Parameters and inputs are deterministic (sines of a ramp, no RNG)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def det(shape, phase, scale=1.0, dtype=torch.float32):
    n = 1
    for s in shape:
        n *= s
    i = torch.arange(n, dtype=torch.float64)
    return ((torch.sin(i * 0.37 + phase) + 0.3 * torch.cos(i * i * 0.11)) * scale).to(dtype).reshape(shape)


def init_params(module):
    with torch.no_grad():
        for k, (name, p) in enumerate(module.named_parameters()):
            fan = p.shape[1] if p.dim() > 1 else 1
            for s in p.shape[2:]:
                fan *= s
            scale = 1.0 / math.sqrt(fan) if p.dim() > 1 else 0.1
            base = 1.0 if p.dim() == 1 and ("norm" in name or name.endswith("in1.weight")) else 0.0
            p.copy_(det(p.shape, 0.5 + 0.1 * k, scale) + base)
    return module


# --- LSTM language model ---------------------------------------------------------------------------
class LSTMLanguageModel(nn.Module):
    def __init__(self, ntoken=30, ninp=12, nhid=12, nlayers=2, dropout=0.25):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.decoder.weight = self.encoder.weight  # tied, as word-language-model's --tied
        self.nlayers, self.nhid = nlayers, nhid

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))

    def forward(self, tokens, hidden):
        emb = self.drop(self.encoder(tokens))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.decoder.out_features)
        return F.log_softmax(decoded, dim=1), hidden


# --- U-Net -----------------------------------------------------------------------------------------
class DoubleConv(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Up(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.up = nn.ConvTranspose2d(cin, cin // 2, kernel_size=2, stride=2)
        self.conv = DoubleConv(cin, cout)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        dy, dx = x2.size(2) - x1.size(2), x2.size(3) - x1.size(3)
        x1 = F.pad(x1, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
        return self.conv(torch.cat([x2, x1], dim=1))


class UNet(nn.Module):
    def __init__(self, cin=2, classes=3, w=4):
        super().__init__()
        self.inc = DoubleConv(cin, w)
        self.down1 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(w, 2 * w))
        self.down2 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(2 * w, 4 * w))
        self.up1 = Up(4 * w, 2 * w)
        self.up2 = Up(2 * w, w)
        self.outc = nn.Conv2d(w, classes, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        return self.outc(self.up2(self.up1(x3, x2), x1))


# --- fast style transfer ---------------------------------------------------------------------------
class ConvLayer(nn.Module):
    def __init__(self, cin, cout, k, stride):
        super().__init__()
        self.pad = nn.ReflectionPad2d(k // 2)
        self.conv = nn.Conv2d(cin, cout, k, stride)

    def forward(self, x):
        return self.conv(self.pad(x))


class ResidualBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1, self.in1 = ConvLayer(c, c, 3, 1), nn.InstanceNorm2d(c, affine=True)
        self.conv2, self.in2 = ConvLayer(c, c, 3, 1), nn.InstanceNorm2d(c, affine=True)

    def forward(self, x):
        y = F.relu(self.in1(self.conv1(x)))
        return self.in2(self.conv2(y)) + x


class UpsampleConv(nn.Module):
    def __init__(self, cin, cout, k, upsample):
        super().__init__()
        self.upsample = upsample
        self.conv = ConvLayer(cin, cout, k, 1)

    def forward(self, x):
        return self.conv(F.interpolate(x, mode="nearest", scale_factor=self.upsample))


class StyleNet(nn.Module):
    def __init__(self, w=4):
        super().__init__()
        self.conv1, self.in1 = ConvLayer(3, w, 5, 1), nn.InstanceNorm2d(w, affine=True)
        self.conv2, self.in2 = ConvLayer(w, 2 * w, 3, 2), nn.InstanceNorm2d(2 * w, affine=True)
        self.res = nn.Sequential(ResidualBlock(2 * w), ResidualBlock(2 * w))
        self.up = UpsampleConv(2 * w, w, 3, 2)
        self.in3 = nn.InstanceNorm2d(w, affine=True)
        self.out = ConvLayer(w, 3, 5, 1)

    def forward(self, x):
        y = F.relu(self.in1(self.conv1(x)))
        y = F.relu(self.in2(self.conv2(y)))
        y = self.res(y)
        y = F.relu(self.in3(self.up(y)))
        return self.out(y)


# --- GPT with generate() ---------------------------------------------------------------------------
class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.heads = heads

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab=20, block=12, d=16, heads=2, layers=2):
        super().__init__()
        self.block_size = block
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(block, d)
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx, targets=None):
        t = idx.size(1)
        x = self.wte(idx) + self.wpe(torch.arange(0, t, dtype=torch.long))
        for blk in self.blocks:
            x = blk(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None, step=None):
        step = self if step is None else step
        for _ in range(max_new_tokens):
            cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size:]
            logits, _ = step(cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
        return idx


# --- LLaMA-style model ------------------------------------------------------------------------------
class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, dtype=torch.float32)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)  # complex64 rotations


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = freqs_cis.view(1, xq_.shape[1], 1, xq_.shape[-1])
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def repeat_kv(x, n_rep):
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return x[:, :, :, None, :].expand(bs, slen, n_kv_heads, n_rep, head_dim).reshape(bs, slen, n_kv_heads * n_rep,
                                                                                     head_dim)


class Attention(nn.Module):
    """Grouped-query attention: `n_heads` query heads share `n_kv_heads` key/value heads."""

    def __init__(self, dim, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = n_heads, n_kv_heads, dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)

    def forward(self, x, freqs_cis, mask):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, self.n_kv_heads, self.head_dim)
        xv = self.wv(x).view(bsz, seqlen, self.n_kv_heads, self.head_dim)
        xq, xk = apply_rotary_emb(xq, xk, freqs_cis)
        keys = repeat_kv(xk, self.n_heads // self.n_kv_heads)
        values = repeat_kv(xv, self.n_heads // self.n_kv_heads)
        xq, keys, values = xq.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2)
        scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(self.head_dim)
        scores = F.softmax((scores + mask).float(), dim=-1).type_as(xq)
        out = torch.matmul(scores, values).transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.wo(out)


class FeedForward(nn.Module):
    """SwiGLU: `w2(silu(w1(x)) * w3(x))`."""

    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, hidden):
        super().__init__()
        self.attention = Attention(dim, n_heads, n_kv_heads)
        self.feed_forward = FeedForward(dim, hidden)
        self.attention_norm, self.ffn_norm = RMSNorm(dim), RMSNorm(dim)

    def forward(self, x, freqs_cis, mask):
        h = x + self.attention(self.attention_norm(x), freqs_cis, mask)
        return h + self.feed_forward(self.ffn_norm(h))


class LLaMA(nn.Module):
    def __init__(self, vocab=24, dim=16, n_layers=2, n_heads=4, n_kv_heads=2, hidden=32, max_seq_len=16):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList([TransformerBlock(dim, n_heads, n_kv_heads, hidden) for _ in range(n_layers)])
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab, bias=False)
        self.freqs_cis = precompute_freqs_cis(dim // n_heads, max_seq_len * 2)

    def forward(self, tokens):
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        freqs_cis = self.freqs_cis[:seqlen]
        mask = torch.full((seqlen, seqlen), float("-inf"))
        mask = torch.triu(mask, diagonal=1)
        for layer in self.layers:
            h = layer(h, freqs_cis, mask)
        return self.output(self.norm(h)).float()


def tokens(shape, vocab, phase):
    n = 1
    for s in shape:
        n *= s
    return ((torch.arange(n) * 7 + phase) % vocab).reshape(shape)


# (name, make model, make inputs, loss from outputs). Training runs STEPS SGD steps on the loss.
def lstm_lm():
    m = init_params(LSTMLanguageModel())
    toks = tokens((6, 3), 30, 1)
    target = tokens((6 * 3,), 30, 4)

    def loss(outs):
        return F.nll_loss(outs[0], target)
    return m, (lambda: (toks, m.init_hidden(3))), loss


def unet():
    m = init_params(UNet())
    return m, (lambda: (det((2, 2, 12, 12), 0.3),)), (lambda outs: (outs[0] * det(outs[0].shape, 0.9)).mean())


def style():
    m = init_params(StyleNet())
    return m, (lambda: (det((1, 3, 12, 12), 0.7, 2.0),)), (lambda outs: outs[0].pow(2).mean())


def gpt():
    m = init_params(GPT())
    idx, tgt = tokens((2, 8), 20, 3), tokens((2, 8), 20, 5)
    return m, (lambda: (idx, tgt)), (lambda outs: outs[1])


def llama():
    # Built as LLaMA 2's reference code builds its model: under `with torch.device(...)`.
    with torch.device("cpu"):
        m = init_params(LLaMA())
    toks, target = tokens((2, 7), 24, 3), tokens((2 * 7,), 24, 5)
    return m, (lambda: (toks,)), (lambda outs: F.cross_entropy(outs[0].view(-1, 24), target))


MODELS = {"lstm_lm": lstm_lm, "unet": unet, "style": style, "gpt": gpt, "llama": llama}
STEPS = 3
LR = 0.05


def outputs(result):
    """Tensors of a forward's result, flattened (nested tuples: LSTM hidden state)."""
    out = []
    for r in (result if isinstance(result, tuple) else (result,)):
        if isinstance(r, tuple):
            out.extend(r)
        elif r is not None:
            out.append(r)
    return out


def train(name, model, inputs, loss_fn, fwd):
    """`STEPS` SGD steps (momentum 0.9) in training mode; returns the losses and the final parameters.
    Dropout runs with p set to 0 on both sides (PyTorch's RNG stream is not reproducible here)."""
    for mod in model.modules():
        if isinstance(mod, nn.Dropout):
            mod.p = 0.0
        if isinstance(mod, nn.LSTM):
            mod.dropout = 0.0
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    losses = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = loss_fn(outputs(fwd(*inputs())))
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return losses, [p.detach() for p in model.parameters()]
