"""Per-request logit bias tables kept resident on the GPU and refreshed from pinned host rows."""
from .runner import LogitsBiasRunner
from .table import BiasTable
from .updater import BiasTableUpdater

__all__ = ["BiasTable", "BiasTableUpdater", "LogitsBiasRunner"]
