"""PPO-style trainer loop: collect on the GPU, record in the background, update."""
import torch

from .config import RecorderConfig
from .storage import RolloutStorage
from .writer import RolloutRecorder


class OnPolicyTrainer:
    def __init__(self, env, policy, optimizer, config: RecorderConfig):
        self.env = env                  # GPU-vectorised: step() returns CUDA tensors
        self.policy = policy
        self.optimizer = optimizer
        self.config = config
        self.storage = RolloutStorage(config.num_steps, config.num_envs, env.obs_dim,
                                      env.act_dim, torch.device("cuda", torch.cuda.current_device()))
        self.recorder = RolloutRecorder(config, self.storage)
        self.obs = env.reset()

    @torch.no_grad()
    def collect(self) -> None:
        for _ in range(self.config.num_steps):
            actions, values = self.policy.act(self.obs)
            next_obs, rewards, dones = self.env.step(actions)
            self.storage.add(self.obs, actions, rewards, dones, values)
            self.obs = next_obs
        self.storage.bootstrap(self.policy.value(self.obs))
        self.storage.seal()

    def update(self) -> float:
        s = self.storage
        loss = self.policy.loss(s.observations, s.actions, s.rewards, s.dones, s.values)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return loss.detach()

    def train(self, iterations: int) -> None:
        for it in range(iterations):
            # the recorder may still be reading last iteration's rollout
            self.recorder.wait()
            self.storage.clear()
            self.collect()
            if it % self.config.record_every == 0:
                self.recorder.submit(self.storage, it)
            self.update()
        self.recorder.close()
