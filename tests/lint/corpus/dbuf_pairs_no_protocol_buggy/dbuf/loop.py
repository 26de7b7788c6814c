import torch

from dbuf.pairs import PairedInputs


class Runner:
    def __init__(self, model, n: int):
        self.model = model
        self.inputs = PairedInputs(n, torch.device("cuda"))

    def run(self, batches):
        outputs = []
        for tokens in batches:
            ids = self.inputs.load(tokens)
            outputs.append(self.model(ids))
        return outputs
