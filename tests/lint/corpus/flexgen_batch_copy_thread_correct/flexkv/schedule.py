"""FlexGen-style overlapped decoding: the KV cache of every (layer, GPU batch) lives in pinned
host memory, two device slots hold the batch being computed and the next one. While batch k of
layer j is computed, batch k + 1's cache is loaded into the other slot and batch k's updated
cache is stored back, all on the copy thread."""

import torch

from .copy_worker import CopyJob, CopyWorker
from .policy import Policy


class OverlappedDecoder:
    def __init__(self, layers, policy: Policy, device="cuda"):
        self.layers = layers
        self.policy = policy
        self.device = torch.device(device)
        shape = (policy.max_seq_len, policy.gpu_batch_size, policy.hidden_size)
        self.host_k = [[torch.zeros(shape, dtype=policy.dtype, pin_memory=True)
                        for _ in range(policy.num_gpu_batches)] for _ in layers]
        self.host_v = [[torch.zeros(shape, dtype=policy.dtype, pin_memory=True)
                        for _ in range(policy.num_gpu_batches)] for _ in layers]
        self.dev_k = [torch.empty(shape, dtype=policy.dtype, device=self.device) for _ in range(2)]
        self.dev_v = [torch.empty(shape, dtype=policy.dtype, device=self.device) for _ in range(2)]
        self.slot_bytes = self.dev_k[0].numel() * self.dev_k[0].element_size()
        self.worker = CopyWorker(self.device)

    def _after_compute(self):
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream(self.device))
        return ready

    def load_cache(self, j, k):
        slot = k % 2
        return self.worker.submit(CopyJob(
            kind="load",
            dst_ptrs=[self.dev_k[slot].data_ptr(), self.dev_v[slot].data_ptr()],
            src_ptrs=[self.host_k[j][k].data_ptr(), self.host_v[j][k].data_ptr()],
            sizes=[self.slot_bytes, self.slot_bytes],
            ready=self._after_compute(),
        ))

    def store_cache(self, j, k):
        slot = k % 2
        return self.worker.submit(CopyJob(
            kind="store",
            dst_ptrs=[self.host_k[j][k].data_ptr(), self.host_v[j][k].data_ptr()],
            src_ptrs=[self.dev_k[slot].data_ptr(), self.dev_v[slot].data_ptr()],
            sizes=[self.slot_bytes, self.slot_bytes],
            ready=self._after_compute(),
        ))

    def compute_layer(self, j, k, hidden, pos):
        slot = k % 2
        layer = self.layers[j]
        q, new_k, new_v = layer.qkv(hidden[k]).chunk(3, dim=-1)
        self.dev_k[slot][pos].copy_(new_k.squeeze(0))
        self.dev_v[slot][pos].copy_(new_v.squeeze(0))
        keys, values = self.dev_k[slot][: pos + 1], self.dev_v[slot][: pos + 1]
        scores = torch.einsum("bh,sbh->bs", q.squeeze(0), keys).softmax(-1)
        hidden[k] = hidden[k] + layer.out(torch.einsum("bs,sbh->bh", scores, values)).unsqueeze(0)

    @torch.inference_mode()
    def decode_step(self, hidden, pos):
        """One token for every GPU batch; ``hidden[k]`` is batch k's (1, batch, hidden) state."""
        nb = self.policy.num_gpu_batches
        pending = self.load_cache(0, 0)
        for j in range(len(self.layers)):
            for k in range(nb):
                pending.issued.wait()
                torch.cuda.current_stream(self.device).wait_event(pending.done)
                self.compute_layer(j, k, hidden, pos)
                self.store_cache(j, k)
                nj, nk = (j, k + 1) if k + 1 < nb else (j + 1, 0)
                if nj < len(self.layers):
                    pending = self.load_cache(nj, nk)
        return hidden

    def close(self):
        self.worker.close()
