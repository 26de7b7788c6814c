from .config import ExpertOffloadConfig
from .expert_cache import ExpertSlotCache
from .layer import OffloadedSparseMoeBlock

__all__ = ["ExpertOffloadConfig", "ExpertSlotCache", "OffloadedSparseMoeBlock"]
