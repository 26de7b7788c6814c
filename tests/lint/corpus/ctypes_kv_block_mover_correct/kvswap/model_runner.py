from dataclasses import dataclass, field

import torch

from .block_mover import KVBlockMover


@dataclass
class StepInput:
    input_ids: torch.Tensor
    positions: torch.Tensor
    block_tables: torch.Tensor
    logits_indices: torch.Tensor
    # KV of preempted sequences, including what this step writes for them
    blocks_to_swap_out: dict[int, int] = field(default_factory=dict)
    # resumed sequences for the next step; GPU blocks were freed by sequences finished this step
    blocks_to_swap_in: dict[int, int] = field(default_factory=dict)


class ModelRunner:

    def __init__(self, model: torch.nn.Module, gpu_caches: list[torch.Tensor],
                 cpu_caches: list[torch.Tensor]):
        self.model = model
        self.gpu_caches = gpu_caches
        self.mover = KVBlockMover(gpu_caches, cpu_caches)
        self._swaps_pending = False

    @torch.inference_mode()
    def execute_step(self, step: StepInput) -> list[int]:
        compute = torch.cuda.current_stream()
        if self._swaps_pending:
            self.mover.wait_for_swaps(compute)
            self._swaps_pending = False

        hidden = self.model(step.input_ids, step.positions, self.gpu_caches, step.block_tables)
        logits = self.model.compute_logits(hidden[step.logits_indices])
        sampled = torch.argmax(logits, dim=-1)
        token_ids = sampled.tolist()

        if step.blocks_to_swap_out:
            self.mover.swap_out(step.blocks_to_swap_out)
            self._swaps_pending = True
        if step.blocks_to_swap_in:
            self.mover.swap_in(step.blocks_to_swap_in)
            self._swaps_pending = True
        return token_ids
