# SPDX-License-Identifier: Apache-2.0
from .hooks import StepHookRegistry
from .worker import DriverOffloadWorker, SaveRequest

__all__ = ["DriverOffloadWorker", "SaveRequest", "StepHookRegistry"]
