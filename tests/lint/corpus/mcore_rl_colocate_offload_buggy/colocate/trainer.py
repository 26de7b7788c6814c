"""GRPO-style actor loop: rollout with the inference engine, then a policy update."""

import torch

from colocate.buffers import ParamAndGradBuffer
from colocate.offload import ColocatedStateOffloader, released_for_rollout


class ColocatedActor:
    def __init__(self, model, rollout_engine, lr=1e-6, snapshot_dir=None):
        self.model = model
        self.rollout_engine = rollout_engine
        params = [p for p in model.parameters() if p.requires_grad]
        self.buffers = [ParamAndGradBuffer.build("bf16_params", params, torch.bfloat16, torch.device("cuda"))]
        self.optimizer = torch.optim.AdamW(params, lr=lr, fused=True)
        self.offloader = ColocatedStateOffloader(snapshot_dir=snapshot_dir)
        self.iteration = 0

    def update_policy(self, batch):
        logprobs = self.model(batch["input_ids"]).logits.log_softmax(-1)
        taken = logprobs.gather(-1, batch["actions"].unsqueeze(-1)).squeeze(-1)
        loss = -(taken * batch["advantages"]).mean()
        loss.backward()
        for p in self.model.parameters():
            if p.grad is not None:
                p.main_grad.add_(p.grad)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss.detach()

    def iterate(self, prompts):
        self.iteration += 1
        with released_for_rollout(self.offloader, self.buffers, self.optimizer, self.iteration):
            self.rollout_engine.wake_up()
            rollouts = self.rollout_engine.generate(prompts)
            self.rollout_engine.sleep()
        return self.update_policy(rollouts.to_batch(device="cuda"))
