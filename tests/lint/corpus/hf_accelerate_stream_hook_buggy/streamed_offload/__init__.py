"""CPU offload of a model's submodules with accelerate-style hooks that move weights on a side
stream of the execution device."""
