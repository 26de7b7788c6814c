from dataclasses import dataclass


@dataclass(frozen=True)
class TriggerConfig:
    height: int = 2048
    width: int = 2048
    tile: int = 32
    # a pixel is "hot" above this value, a tile fires with at least min_pixels hot pixels
    threshold: float = 0.85
    min_pixels: int = 24
    # frames in flight between the submitting thread and the consumer
    depth: int = 3

    @property
    def tiles(self) -> tuple:
        return (self.height // self.tile, self.width // self.tile)
