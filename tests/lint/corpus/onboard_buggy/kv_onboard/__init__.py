from .config import OnboardConfig
from .manager import OnboardingManager
from .scheduler_step import SchedulerStep

__all__ = ["OnboardConfig", "OnboardingManager", "SchedulerStep"]
