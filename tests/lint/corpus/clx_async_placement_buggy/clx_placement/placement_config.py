"""Placement knobs for chunks whose optimizer states live on the host."""
import torch

OFFLOAD_GRAD_TO_CPU = True
HOST_GRAD_DTYPE = torch.float32
CPU_ADAM_THREADS = 4
ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8
