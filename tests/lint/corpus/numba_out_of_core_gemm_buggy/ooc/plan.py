from dataclasses import dataclass

from ooc.kernels import TILE


@dataclass(frozen=True)
class TilePlan:
    m: int
    k: int
    n: int
    tile_rows: int

    @property
    def num_tiles(self):
        return (self.m + self.tile_rows - 1) // self.tile_rows

    def rows(self, t):
        start = t * self.tile_rows
        return start, min(start + self.tile_rows, self.m)

    def grid(self, rows):
        return ((rows + TILE - 1) // TILE, (self.n + TILE - 1) // TILE), (TILE, TILE)
