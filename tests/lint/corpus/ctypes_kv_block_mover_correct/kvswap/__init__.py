from .block_mover import KVBlockMover
from .model_runner import ModelRunner, StepInput

__all__ = ["KVBlockMover", "ModelRunner", "StepInput"]
