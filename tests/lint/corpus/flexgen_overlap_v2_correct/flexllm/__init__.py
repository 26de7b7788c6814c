from .flex_llama import LlamaLM
from .policy import Policy

__all__ = ["LlamaLM", "Policy"]
