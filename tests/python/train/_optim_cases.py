"""The optimizer and scheduler cases shared by the golden generator (`_gen_optim_goldens.py`,
run under real PyTorch) and the tests (run under Rynamo): a fixed three-parameter model with
deterministic initial weights, hand-computed gradients, and the configurations to run.

Gradients use only IEEE-exact float32 ops (sub, mul by 2, add), so both frameworks see the same
bits: g = 2 * (p - target) + noise(step)."""

import struct

import torch

SHAPES = [(4, 3), (3,), (2, 2)]
STEPS = 10


def _values(n, seed):
    # Multiples of 1/64 in [-1, 1): exact in float32.
    return [float(((i * 37 + seed * 11) % 128) - 64) / 64.0 for i in range(n)]


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def initial_params(dtype=torch.float32):
    return [torch.tensor(_values(_numel(s), k + 1), dtype=dtype).reshape(s) for k, s in enumerate(SHAPES)]


def targets(dtype=torch.float32):
    return [torch.tensor(_values(_numel(s), k + 7), dtype=dtype).reshape(s) * 0.5 for k, s in enumerate(SHAPES)]


def noise(step, k, shape, dtype=torch.float32):
    n = _numel(shape)
    return torch.tensor([float(((i * 13 + step * 7 + k * 5) % 11) - 5) / 16.0 for i in range(n)],
                        dtype=dtype).reshape(shape)


def set_grads(params, step):
    with torch.no_grad():
        for k, (p, t) in enumerate(zip(params, targets(params[0].dtype))):
            p.grad = (p - t).mul(2.0).add(noise(step, k, p.shape, p.dtype))


def curvatures(shape, k, dtype=torch.float32):
    """Per-element weights from 1/8 to 64 (powers of two: products stay exact), so the quadratic
    is ill-conditioned and L-BFGS is still moving after 10 steps."""
    n = _numel(shape)
    return torch.tensor([2.0 ** (((i * 5 + k * 3) % 10) - 3) for i in range(n)], dtype=dtype).reshape(shape)


def quadratic_closure(params):
    """LBFGS closure: loss = sum_k sum(w_k * (p_k - t_k)^2); gradients 2 w (p - t) set analytically
    (no autograd needed)."""
    tgts = targets(params[0].dtype)
    weights = [curvatures(p.shape, k, p.dtype) for k, p in enumerate(params)]

    def closure():
        loss = 0.0
        with torch.no_grad():
            for p, t, w in zip(params, tgts, weights):
                diff = p - t
                p.grad = diff.mul(w).mul(2.0)
                loss += float(diff.mul(diff).mul(w).sum())
        return torch.tensor(loss)

    return closure


# (name, optimizer class name, kwargs, grouped): grouped cases give each parameter its own group.
OPTIMIZERS = [
    ("sgd_plain", "SGD", dict(lr=0.1), False),
    ("sgd_momentum", "SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01), False),
    ("sgd_nesterov", "SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.02), False),
    ("sgd_maximize", "SGD", dict(lr=0.01, momentum=0.5, maximize=True), False),
    ("adam", "Adam", dict(lr=0.01), False),
    ("adam_amsgrad_wd", "Adam", dict(lr=0.02, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True), False),
    ("adam_groups", "Adam", dict(lr=0.01, eps=1e-6), True),
    ("adamw", "AdamW", dict(lr=0.01), False),
    ("adamw_amsgrad_max", "AdamW", dict(lr=0.01, weight_decay=0.05, amsgrad=True, maximize=True), False),
    ("rmsprop", "RMSprop", dict(lr=0.01), False),
    ("rmsprop_centered", "RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.01), False),
    ("adagrad", "Adagrad", dict(lr=0.1), False),
    ("adagrad_decay", "Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.05, initial_accumulator_value=0.1), False),
    ("adamax", "Adamax", dict(lr=0.02), False),
    ("adamax_wd", "Adamax", dict(lr=0.02, betas=(0.8, 0.9), weight_decay=0.1), False),
    ("nadam", "NAdam", dict(lr=0.01), False),
    ("nadam_decoupled", "NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True), False),
    ("radam", "RAdam", dict(lr=0.01), False),
    ("radam_wd", "RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True), False),
    ("adadelta", "Adadelta", dict(lr=1.0), False),
    ("adadelta_wd_max", "Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1, maximize=True), False),
    ("asgd", "ASGD", dict(lr=0.05), False),
    # t0=3: averaging starts inside the 10 steps (mu < 1 from step 4).
    ("asgd_avg", "ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=3, weight_decay=0.01), False),
    ("rprop", "Rprop", dict(lr=0.01), False),
    ("rprop_clamped_max", "Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True), False),
    # SHAPES has matrices (factored second moment) and a vector (full second moment).
    ("adafactor", "Adafactor", dict(lr=0.05), False),
    ("adafactor_wd_max", "Adafactor", dict(lr=0.02, beta2_decay=-0.5, eps=(1e-20, 1e-3), d=1.5, weight_decay=0.1,
                                          maximize=True), False),
]

LBFGS_CASES = [
    ("lbfgs", dict(lr=0.2, max_iter=2, history_size=4)),
    ("lbfgs_wolfe", dict(lr=1, max_iter=2, history_size=3, line_search_fn="strong_wolfe")),
]


def make_optimizer(cls_name, params, kwargs, grouped):
    cls = getattr(torch.optim, cls_name)
    if grouped:
        groups = [{"params": [p], "lr": kwargs["lr"] * (k + 1)} for k, p in enumerate(params)]
        return cls(groups, **kwargs)
    return cls(params, **kwargs)


# Schedulers: (name, builder(optimizer) -> scheduler). Each runs STEPS epochs of
# optimizer.step(); scheduler.step().
def _lam(epoch):
    return 0.9**epoch


def schedulers():
    S = torch.optim.lr_scheduler
    return [
        ("lambda", lambda o: S.LambdaLR(o, _lam)),
        ("multiplicative", lambda o: S.MultiplicativeLR(o, lambda e: 0.95)),
        ("step", lambda o: S.StepLR(o, step_size=3, gamma=0.5)),
        ("multistep", lambda o: S.MultiStepLR(o, milestones=[2, 5, 5, 8], gamma=0.3)),
        ("constant", lambda o: S.ConstantLR(o, factor=0.25, total_iters=4)),
        ("linear", lambda o: S.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=6)),
        ("exponential", lambda o: S.ExponentialLR(o, gamma=0.8)),
        ("polynomial", lambda o: S.PolynomialLR(o, total_iters=7, power=2.0)),
        ("cosine", lambda o: S.CosineAnnealingLR(o, T_max=4, eta_min=0.001)),
        ("cosine_restarts", lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01)),
        ("onecycle", lambda o: S.OneCycleLR(o, max_lr=0.5, total_steps=12)),
        ("onecycle_linear3", lambda o: S.OneCycleLR(o, max_lr=[0.5, 0.2], total_steps=12, anneal_strategy="linear",
                                                     three_phase=True)),
        ("cyclic", lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3)),
        ("cyclic_tri2", lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=3,
                                             mode="triangular2")),
        ("cyclic_exp", lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range",
                                            gamma=0.9, cycle_momentum=False)),
        ("sequential", lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.5, total_iters=3),
                                                    S.ExponentialLR(o, gamma=0.7)], milestones=[4])),
        ("chained", lambda o: S.ChainedScheduler([S.ConstantLR(o, factor=0.5, total_iters=3),
                                                  S.ExponentialLR(o, gamma=0.9)])),
    ]


PLATEAU_METRICS = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.8, 0.81, 0.82, 0.83]


def scheduler_optimizer(name):
    """Two param groups; Adam for the cyclic ones that cycle beta1, SGD with momentum otherwise."""
    params = initial_params()
    groups = [{"params": params[:2]}, {"params": params[2:], "lr": 0.05}]
    if name.startswith("onecycle"):
        return torch.optim.Adam(groups, lr=0.1)
    return torch.optim.SGD(groups, lr=0.1, momentum=0.9)


# --- encoding of tensors and state for the golden file ---

_FMT = {"float32": "f", "float64": "d", "int64": "q"}


def encode(value):
    if isinstance(value, torch.Tensor):
        name = str(value.dtype).replace("torch.", "")
        flat = [float(v) if name != "int64" else int(v) for v in value.reshape(-1).tolist()]
        return ("tensor", name, list(value.shape), struct.pack("<%d%s" % (len(flat), _FMT[name]), *flat).hex())
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, tuple):
        return ("tuple", [encode(v) for v in value])
    return value


def decode(value):
    if isinstance(value, tuple) and value and value[0] == "tensor":
        _, name, shape, hexdata = value
        raw = bytes.fromhex(hexdata)
        size = struct.calcsize(_FMT[name])
        flat = list(struct.unpack("<%d%s" % (len(raw) // size, _FMT[name]), raw))
        return torch.tensor(flat, dtype=getattr(torch, name)).reshape(shape)
    if isinstance(value, tuple) and value and value[0] == "tuple":
        return tuple(decode(v) for v in value[1])
    if isinstance(value, dict):
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value
