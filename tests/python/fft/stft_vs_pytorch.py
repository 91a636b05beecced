"""torch.stft against PyTorch 2.15's eager values: real and complex input, 1-D and batched, centred
(reflect and constant padding) or not, the hop and win_length defaults, a window shorter than n_fft
(zero-padded in the middle), one- and two-sided, normalized, return_complex=False, Tensor.stft, a
power spectrogram compiled on both backends, and the argument errors in ATen's words (the message
names the input after centre padding). Spectra are compared through view_as_real with tolerances
scaled by each result's largest magnitude, as fft_vs_pytorch.py explains: 1e-5 for float32, 1e-12
for float64.

Goldens: `stft_pt.json`, recorded by `PYTHONPATH=tests/python /tmp/pt/bin/python
tests/python/fft/stft_vs_pytorch.py --record`."""
import os
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nn"))

import torch  # noqa: E402
from torch._dynamo.testing import CompileCounter  # noqa: E402

from _eager_goldens import Goldens  # noqa: E402


class ScaledGoldens(Goldens):
    def _compare(self, tag, got, want):
        if len(got) != len(want):
            self.failures.append(f"{tag}: {len(got)} tensors, PyTorch has {len(want)}")
            return
        for i, (t, w) in enumerate(zip(got, want)):
            if list(t.shape) != w["shape"] or str(t.dtype) != w["dtype"]:
                self.failures.append(f"{tag} tensor {i}: {t.dtype}{list(t.shape)}, PyTorch {w['dtype']}{w['shape']}")
                continue
            ref = torch.tensor(w["values"], dtype=t.dtype).reshape(w["shape"])
            tol = 1e-12 if t.dtype == torch.float64 else 1e-5
            scale = max(1.0, ref.abs().max().item()) if ref.numel() else 1.0
            err = (t.double() - ref.double()).abs().max().item() if ref.numel() else 0.0
            if err > tol * scale:
                self.failures.append(f"{tag} tensor {i}: max abs diff {err:.3g} (allowed {tol * scale:.3g})")


warnings.simplefilter("ignore")
goldens = ScaledGoldens(__file__, "stft_pt.json")
# Computed in float64 (float32 sin/cos may differ from PyTorch's vectorised ones in the last bit).
k = torch.arange(37, dtype=torch.float64)
sig64 = (k * 0.0556 - 1).sin() * 3 + (k * 0.139).cos()
sig = sig64.float()
batch = torch.stack([sig, sig.flip(0) * 0.5])
wave = torch.complex(sig, sig.flip(0))
real = torch.view_as_real
cases = {
    "hann": lambda: real(torch.stft(sig, 8, window=torch.hann_window(8), return_complex=True)),
    "rectangular, default hop": lambda: real(torch.stft(sig, 6, return_complex=True)),
    "batched, hop 3": lambda: real(torch.stft(batch, 8, hop_length=3, window=torch.hann_window(8),
                                              return_complex=True)),
    "not centred": lambda: real(torch.stft(sig, 8, hop_length=2, center=False, return_complex=True)),
    "constant padding": lambda: real(torch.stft(sig, 8, pad_mode="constant", return_complex=True)),
    "short window": lambda: real(torch.stft(sig, 8, win_length=5, window=torch.hamming_window(5),
                                            return_complex=True)),
    "short, no window": lambda: real(torch.stft(sig, 8, win_length=3, return_complex=True)),
    "two-sided": lambda: real(torch.stft(sig, 8, onesided=False, return_complex=True)),
    "normalized": lambda: real(torch.stft(sig, 8, normalized=True, return_complex=True)),
    "complex input": lambda: real(torch.stft(wave, 8, window=torch.hann_window(8))),
    "return_complex=False": lambda: torch.stft(sig, 8, return_complex=False),
    "float64": lambda: real(torch.stft(sig64, 8, window=torch.hann_window(8, dtype=torch.float64),
                                       return_complex=True)),
    "Tensor.stft": lambda: real(sig.stft(8, 4, return_complex=True)),
    "power spectrogram": lambda: torch.stft(sig, 8, 2, window=torch.hann_window(8), return_complex=True).abs() ** 2,
}
for label, fn in cases.items():
    goldens.check(label, fn)
for label, call in [
    ("no return_complex", lambda: torch.stft(sig, 4)),
    ("n_fft 0", lambda: torch.stft(sig, 0, return_complex=True)),
    ("centre padding too large", lambda: torch.stft(sig, 80, return_complex=True)),
    ("hop 0", lambda: torch.stft(sig, 4, hop_length=0, return_complex=True)),
    ("win_length > n_fft", lambda: torch.stft(sig, 4, win_length=5, return_complex=True)),
    ("window size", lambda: torch.stft(sig, 4, window=torch.ones(3), return_complex=True)),
    ("3-D input", lambda: torch.stft(sig.reshape(1, 1, 37), 4, return_complex=True)),
    ("n_fft > length", lambda: torch.stft(sig, 40, center=False, return_complex=True)),
    ("integer input", lambda: torch.stft(sig.int(), 4, return_complex=True)),
]:
    goldens.raises(label, call)
# One graph, as in PyTorch: the checks build their messages only when they raise.
torch._dynamo.reset()
counter = CompileCounter()
torch.compile(cases["power spectrogram"], backend=counter)()
goldens.text("graphs", counter.frame_count)
goldens.finish()
