from .metrics import StepMetricsCollector
from .trainer_callback import MetricsLoggingCallback

__all__ = ["StepMetricsCollector", "MetricsLoggingCallback"]
