"""ZeRO-Offload with one-step delayed parameter update (DPU)."""
PIN_MEMORY = True
CPU_ADAM_WORKERS = 1
ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8
