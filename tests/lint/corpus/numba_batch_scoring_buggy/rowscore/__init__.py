from rowscore.config import ScoringConfig, SyncMode
from rowscore.service import ScoringService

__all__ = ["ScoringConfig", "ScoringService", "SyncMode"]
