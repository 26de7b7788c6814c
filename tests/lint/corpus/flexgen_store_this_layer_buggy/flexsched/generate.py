import torch

from .executor import LayerwiseExecutor


class OverlapGenerator(LayerwiseExecutor):
    def __init__(self, embed, lm_head, layers, hidden_size, policy, **kwargs):
        super().__init__(layers, hidden_size, policy, **kwargs)
        self.embed = embed
        self.lm_head = lm_head

    @torch.no_grad()
    def generate(self, input_ids, prefill):
        """``prefill`` fills ``cache_home`` for the prompt and returns its last hidden state."""
        hidden = prefill(self, input_ids)
        # prefill ran through the same device buffers; let it drain before the first prefetch
        self.sync()
        out = []
        for i in range(self.policy.gen_len):
            pos = self.policy.prompt_len + i
            self.load_weight(0)
            self.load_cache(pos, 0)
            self.sync()
            for j in range(self.num_layers):
                if j + 1 < self.num_layers:
                    self.load_weight(j + 1)
                    self.load_cache(pos, j + 1)
                hidden = self.compute_layer(hidden, pos, j)
                # write this layer's new K/V back right away; sync() below waits for it
                self.store_cache(pos, j)
                self.sync()
            next_ids = self.lm_head(hidden[:, -1]).argmax(dim=-1, keepdim=True)
            out.append(next_ids)
            hidden = self.embed(next_ids)
        return torch.cat(out, dim=1).cpu()
