from flexgen_cpu.generate import generate

__all__ = ["generate"]
