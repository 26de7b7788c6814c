from .sampler import GreedySampler, SamplerStats

__all__ = ["GreedySampler", "SamplerStats"]
