"""Point-to-point activation exchange between pipeline stages (a cut-down
``megatron.core.pipeline_parallel.p2p_communication``)."""

import torch
import torch.distributed as dist


class PipelineGroup:
    def __init__(self, group, rank: int, world_size: int):
        self.group = group
        self.rank = rank
        self.world_size = world_size

    @property
    def is_first_stage(self) -> bool:
        return self.rank == 0

    @property
    def is_last_stage(self) -> bool:
        return self.rank == self.world_size - 1

    def prev_rank(self) -> int:
        return dist.get_global_rank(self.group, self.rank - 1)

    def next_rank(self) -> int:
        return dist.get_global_rank(self.group, self.rank + 1)


def recv_forward(tensor_shape, dtype, pp: PipelineGroup):
    if pp.is_first_stage:
        return None
    tensor_recv_prev = torch.empty(tensor_shape, dtype=dtype, device=torch.cuda.current_device(),
                                   requires_grad=False)
    req = dist.irecv(tensor_recv_prev, src=pp.prev_rank(), group=pp.group)
    req.wait()
    return tensor_recv_prev


def send_forward(output_tensor, pp: PipelineGroup):
    if pp.is_last_stage:
        return
    req = dist.isend(output_tensor.contiguous(), dst=pp.next_rank(), group=pp.group)
    req.wait()
