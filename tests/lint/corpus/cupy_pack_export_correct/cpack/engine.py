"""Decode engine: the model writes the paged KV cache on the engine's compute stream."""
import cupy

from .exporter import PrefixExporter


class Engine:
    def __init__(self, model, num_pages: int, page_elems: int, export_root: str):
        self.model = model
        self.compute = cupy.cuda.Stream(non_blocking=True)
        self.pages = cupy.zeros((num_pages, page_elems), dtype=cupy.float16)
        self.exporter = PrefixExporter(self.pages, self.compute, export_root)

    def step(self, batch):
        with self.compute:
            return self.model(batch, self.pages)

    def finish(self, key: str, page_ids) -> None:
        self.exporter.export(key, list(page_ids))
