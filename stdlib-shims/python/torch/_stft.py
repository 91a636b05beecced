"""``torch.stft`` (and ``Tensor.stft``) as a composition: centre padding (``F.pad``, reflect by default),
frames as a strided ``unfold``, the window zero-padded to ``n_fft`` in the middle, then ``fft.rfft``
(one-sided, real input) or ``fft.fft`` along each frame, scaled by ``n_fft ** -0.5`` when normalized,
and transposed to PyTorch's ``(..., freq, frames)``. The argument checks and their messages are
ATen's (``SpectralOps.cpp``): the prefix names the input after centre padding. Audio front ends use
it (whisper's ``log_mel_spectrogram``)."""

import warnings

import torch

_warned_rectangular = False


def _describe(x, n_fft, hop, win, window, normalized, onesided, return_complex, align_to_window):
    w = "None" if window is None else f"{window.type()}{{{list(window.shape)}}}"
    flag = lambda v: "None" if v is None else int(bool(v))  # noqa: E731
    return (f"stft({x.type()}{list(x.shape)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, window={w}, "
            f"normalized={int(bool(normalized))}, onesided={flag(onesided)}, return_complex={flag(return_complex)}, "
            f"align_to_window={align_to_window})")


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    global _warned_rectangular
    if window is None and not _warned_rectangular:
        _warned_rectangular = True
        warnings.warn("A window was not provided. A rectangular window will be applied,which is known to cause "
                      "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                      "recommended to reduce spectral leakage.To suppress this warning and use a rectangular "
                      "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
    if center and input.dim() <= 3:
        # ATen pads a 3-D view ([1, 1, L] for 1-D input, [1, B, L] for 2-D), then views it back.
        pad = n_fft // 2
        shape = list(input.shape)
        extended = input.reshape([1] * (3 - input.dim()) + shape)
        input = torch.nn.functional.pad(extended, [pad, pad], mode=pad_mode).reshape(shape[:-1] + [-1])
    is_complex = input.is_complex()
    if return_complex is None and not is_complex and (window is None or not window.is_complex()):
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                           "require that return_complex=True in a future PyTorch release.")
    if return_complex is False:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
                      "complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you can "
                      "still call torch.view_as_real on the complex output to recover the old return format.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length

    def fail(kind, message):
        # Built only when raising: Dynamo would break the graph on the f-string of a shape list.
        prefix = _describe(input, n_fft, hop, win, window, normalized, onesided, return_complex, align_to_window)
        return kind(f"{prefix} : {message}")

    if input.dim() not in (1, 2):
        raise fail(RuntimeError, "expected a 1D or 2D tensor")
    if not (input.is_floating_point() or is_complex):
        raise fail(NotImplementedError, "expected a tensor of floating point or complex values")
    length = input.shape[-1]
    if n_fft <= 0 or n_fft > length:
        raise fail(RuntimeError, f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise fail(RuntimeError, f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise fail(RuntimeError, f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise fail(RuntimeError, f"expected a 1D window tensor of size equal to win_length={win}, but got window "
                                 f"with size {list(window.shape)}")
    frames = input.unfold(-1, n_fft, hop)
    if window is not None or win < n_fft:
        w = window if window is not None else torch.ones(win, dtype=input.real.dtype if is_complex else input.dtype)
        if win < n_fft:
            left = (n_fft - win) // 2
            w = torch.nn.functional.pad(w, [left, n_fft - win - left])
        frames = frames * w
    one_sided = (not is_complex and (window is None or not window.is_complex())) if onesided is None else onesided
    spec = torch.fft.rfft(frames, dim=-1) if one_sided else torch.fft.fft(frames, dim=-1)
    if normalized:
        spec = spec * (n_fft ** -0.5)
    spec = spec.transpose(-1, -2)
    return spec if return_complex or return_complex is None else torch.view_as_real(spec)
