"""Host-side expert load statistics for online expert placement."""

from .balancer import PlacementBalancer
from .readback import ExpertLoadReadback
from .step import MoeStepRunner

__all__ = ["ExpertLoadReadback", "MoeStepRunner", "PlacementBalancer"]
