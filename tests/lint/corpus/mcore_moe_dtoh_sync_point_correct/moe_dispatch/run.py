import torch
import torch.distributed as dist

from moe_dispatch.config import MoEConfig
from moe_dispatch.layer import MoELayer, train_step


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank % torch.cuda.device_count())
    config = MoEConfig(hidden_size=1024, ffn_hidden_size=4096, num_experts=8,
                       expert_model_parallel_size=dist.get_world_size(), log_token_counts=True)
    layer = MoELayer(config, dist.group.WORLD, rank, layer_number=1).cuda()
    optimizer = torch.optim.AdamW(layer.parameters(), lr=1e-4)
    for _ in range(10):
        hidden = torch.randn(4, 512, config.hidden_size, device="cuda")
        train_step(layer, hidden, optimizer)
