"""A ZeRO-1 style engine: flat bf16 weights for the model, flat fp32 master weights and Adam
moments for this rank's partition, all on the device."""
import torch

from deepspeed.accelerator import get_accelerator

from .checkpoint_engine import FastCheckpointEngine


class ZeroFlatEngine:
    def __init__(self, numel, lr=1e-4, betas=(0.9, 0.95), eps=1e-8):
        device = get_accelerator().current_device_name()
        self.bf16_flat = torch.zeros(numel, dtype=torch.bfloat16, device=device)
        self.fp32_flat = torch.zeros(numel, dtype=torch.float32, device=device)
        self.exp_avg = torch.zeros(numel, dtype=torch.float32, device=device)
        self.exp_avg_sq = torch.zeros(numel, dtype=torch.float32, device=device)
        self.lr, self.betas, self.eps = lr, betas, eps
        self.checkpoint_engine = FastCheckpointEngine()

    def step(self, grad_flat):
        b1, b2 = self.betas
        self.exp_avg.mul_(b1).add_(grad_flat, alpha=1 - b1)
        self.exp_avg_sq.mul_(b2).addcmul_(grad_flat, grad_flat, value=1 - b2)
        self.fp32_flat.addcdiv_(self.exp_avg, self.exp_avg_sq.sqrt().add_(self.eps), value=-self.lr)
        self.bf16_flat.copy_(self.fp32_flat)

    def save_checkpoint(self, save_dir, tag):
        partitions = {
            "bf16_weights": self.bf16_flat,
            "fp32_master": self.fp32_flat,
            "exp_avg": self.exp_avg,
            "exp_avg_sq": self.exp_avg_sq,
        }
        self.checkpoint_engine.save(partitions, save_dir, tag)
