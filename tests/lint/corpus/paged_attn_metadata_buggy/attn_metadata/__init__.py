from .block_table import BlockTable
from .input_batch import CachedRequestState, InputBatch
from .model_runner import FlashAttentionMetadata, GPUModelRunner
