import torch

from lmc.gpu_connector import BatchedGPUConnector


def serve_step(model, batch, num_slots, chunk_bytes, backend):
    kv_cache = torch.zeros(num_slots, chunk_bytes, dtype=torch.uint8, device="cuda")
    connector = BatchedGPUConnector(kv_cache, 64, chunk_bytes)
    model(batch, kv_cache)
    for key, blob in zip(batch.keys, connector.from_gpu(batch.slot_ids)):
        backend.put(key, blob)
