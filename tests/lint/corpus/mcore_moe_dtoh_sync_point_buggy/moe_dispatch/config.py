from dataclasses import dataclass


@dataclass
class MoEConfig:
    hidden_size: int
    ffn_hidden_size: int
    num_experts: int
    router_topk: int = 2
    expert_model_parallel_size: int = 1
    log_token_counts: bool = False

    @property
    def num_local_experts(self) -> int:
        return self.num_experts // self.expert_model_parallel_size
