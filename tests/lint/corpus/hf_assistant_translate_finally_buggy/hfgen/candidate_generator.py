"""Candidate generators for assisted decoding: the base class drafts with a smaller model that
shares the tokenizer; the subclass translates ids when the tokenizers differ."""

import torch

from hfgen.translator import SUPPRESS_TOKEN_ID, AssistantToTargetTranslator


class CandidateGenerator:
    def get_candidates(self, input_ids: torch.LongTensor):
        raise NotImplementedError

    def update_candidate_strategy(self, input_ids, scores, num_matches: int) -> None:
        raise NotImplementedError


class AssistedCandidateGenerator(CandidateGenerator):
    def __init__(self, assistant_model, num_assistant_tokens: int = 20):
        self.assistant_model = assistant_model
        self.num_assistant_tokens = num_assistant_tokens

    def _draft(self, assistant_input_ids: torch.LongTensor) -> torch.LongTensor:
        out = self.assistant_model.generate(assistant_input_ids, max_new_tokens=self.num_assistant_tokens,
                                            do_sample=False)
        return out[:, assistant_input_ids.shape[1]:]

    def get_candidates(self, input_ids: torch.LongTensor):
        new_ids = self._draft(input_ids)
        return torch.cat([input_ids, new_ids], dim=-1), None

    def update_candidate_strategy(self, input_ids, scores, num_matches: int) -> None:
        if num_matches == self.num_assistant_tokens:
            self.num_assistant_tokens += 2
        else:
            self.num_assistant_tokens = max(1, self.num_assistant_tokens - 1)


class UniversalSpeculativeDecodingGenerator(AssistedCandidateGenerator):
    def __init__(self, assistant_model, translator: AssistantToTargetTranslator, num_assistant_tokens: int = 20):
        super().__init__(assistant_model, num_assistant_tokens)
        self.translator = translator
        self.assistant_prefix = None

    def get_candidates(self, input_ids: torch.LongTensor):
        if self.assistant_prefix is None:
            raise RuntimeError("call prime() with the prompt first")
        new_assistant_ids = self._draft(self.assistant_prefix)
        target_new = self.translator.get_target_ids(new_assistant_ids)
        # stop the draft at the first token the target vocabulary does not have
        valid = (target_new != SUPPRESS_TOKEN_ID).cumprod(dim=-1).bool().all(dim=0)
        target_new = target_new[:, valid]
        self.assistant_prefix = torch.cat([self.assistant_prefix, new_assistant_ids[:, valid]], dim=-1)
        return torch.cat([input_ids, target_new], dim=-1), None

    def prime(self, prompt_assistant_ids: torch.LongTensor) -> None:
        self.assistant_prefix = prompt_assistant_ids
