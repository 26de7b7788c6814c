"""Runs the vision tower and hands embeddings to the language model."""

from __future__ import annotations

import cupy as cp

from mm_cache.encoder_cache import EncoderOutputCache
from mm_cache.entries import MMItem


class MultiModalEncoderRunner:
    def __init__(self, vision_tower, projector, cache: EncoderOutputCache) -> None:
        self.vision_tower = vision_tower
        self.projector = projector
        self.cache = cache
        self.encoder_stream = cp.cuda.Stream(non_blocking=True)

    def encode(self, items: list[MMItem]) -> None:
        """Run the encoder for items that are not cached yet (overlaps with decode)."""
        for item in items:
            if item.mm_hash in self.cache:
                continue
            with self.encoder_stream:
                pixels = cp.asarray(item.pixel_values)
                embeddings = self.projector(self.vision_tower(pixels[None]))[0]
                ready = cp.cuda.Event(disable_timing=True)
                ready.record(self.encoder_stream)
            self.cache.put(item.mm_hash, embeddings, ready)

    def merge_embeddings(
        self, inputs_embeds: cp.ndarray, placeholder_mask: cp.ndarray, mm_hashes: list[str]
    ) -> cp.ndarray:
        """Scatter cached encoder outputs into the text embeddings (compute stream)."""
        compute = cp.cuda.get_current_stream()
        chunks = []
        for mm_hash in mm_hashes:
            embeddings, ready = self.cache.get(mm_hash)
            compute.wait_event(ready)
            chunks.append(embeddings)
        if chunks:
            inputs_embeds[placeholder_mask] = cp.concatenate(chunks)
        return inputs_embeds
