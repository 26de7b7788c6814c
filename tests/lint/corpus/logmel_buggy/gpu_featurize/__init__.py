from .featurizer import LogMelFeaturizer
from .settings import FeaturizerSettings

__all__ = ["FeaturizerSettings", "LogMelFeaturizer"]
