from dataclasses import dataclass


@dataclass
class DynamicInferenceConfig:
    """Sizing of the paged KV memory buffer used by the dynamic inference engine."""

    num_layers: int
    num_attention_heads_per_partition: int
    hidden_size_per_attention_head: int
    block_size_tokens: int = 256
    max_requests: int = 512
    gpu_blocks: int = 4096
    host_swap_blocks: int = 8192
    bytes_per_element: int = 2

    @property
    def block_bytes(self) -> int:
        # key and value, all layers
        return (
            2
            * self.num_layers
            * self.block_size_tokens
            * self.num_attention_heads_per_partition
            * self.hidden_size_per_attention_head
            * self.bytes_per_element
        )
