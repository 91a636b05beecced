"""An LSTM cell written by hand and unrolled over time in a Python loop (the gates from one
Linear, chunked), the hidden states stacked, a linear read-out of the last step."""
import torch
import torch.nn as nn


class LSTMCell(nn.Module):
    def __init__(self, d_in, d_hidden):
        super().__init__()
        self.ih = nn.Linear(d_in, 4 * d_hidden)
        self.hh = nn.Linear(d_hidden, 4 * d_hidden, bias=False)

    def forward(self, x, state):
        h, c = state
        i, f, g, o = (self.ih(x) + self.hh(h)).chunk(4, dim=-1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c


class SequenceModel(nn.Module):
    def __init__(self, d_in, d_hidden, d_out):
        super().__init__()
        self.d_hidden = d_hidden
        self.cell = LSTMCell(d_in, d_hidden)
        self.readout = nn.Linear(d_hidden, d_out)

    def forward(self, xs):
        batch, steps, _ = xs.shape
        h = xs.new_zeros(batch, self.d_hidden)
        c = xs.new_zeros(batch, self.d_hidden)
        outs = []
        for t in range(steps):
            h, c = self.cell(xs[:, t], (h, c))
            outs.append(h)
        return self.readout(outs[-1]), torch.stack(outs, dim=1)


def build(small=False):
    d_in, hid, steps, batch = (4, 8, 3, 2) if small else (64, 128, 16, 16)
    model = SequenceModel(d_in, hid, 8).eval()
    return model, (torch.randn(batch, steps, d_in),)


def main():
    from _suite import check_model

    check_model(build, "lstm_unrolled")


if __name__ == "__main__":
    main()
