"""Layer-wise KV retrieval into vLLM's paged cache (LMCache style)."""

from .engine import LayerwiseRetriever
from .gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from .staging import StagingRing
