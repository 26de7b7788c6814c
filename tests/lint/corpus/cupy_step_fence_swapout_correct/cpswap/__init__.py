from .engine import DecodeEngine, EngineConfig

__all__ = ["DecodeEngine", "EngineConfig"]
