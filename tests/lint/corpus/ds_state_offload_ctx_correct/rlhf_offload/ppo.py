import torch

from .engine import ActorEngine, OffloadConfig


class PPOTrainer:
    def __init__(self, actor_model, generate_fn, lr=1e-6, ppo_epochs=1):
        self.actor = ActorEngine(actor_model, lr, OffloadConfig())
        self.generate_fn = generate_fn
        self.ppo_epochs = ppo_epochs

    @torch.no_grad()
    def make_experience(self, prompts):
        sequences = self.generate_fn(self.actor.module, prompts)
        logprobs = torch.log_softmax(self.actor.module(sequences), dim=-1)
        return sequences, logprobs

    def train_rlhf(self, prompts):
        with self.actor.offloaded_states():
            sequences, old_logprobs = self.make_experience(prompts)
        for _ in range(self.ppo_epochs):
            logprobs = torch.log_softmax(self.actor.module(sequences), dim=-1)
            ratio = (logprobs - old_logprobs).exp()
            loss = -ratio.mean()
            self.actor.backward(loss)
            self.actor.step()
        return loss.detach()
