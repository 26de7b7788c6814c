"""Optimizer defaults (mirror the `optimizer` / `zero_optimization` config)."""

ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8
WEIGHT_DECAY = 0.0
INITIAL_LOSS_SCALE = 2.0 ** 16
PIN_GRAD_BUFFERS = True
