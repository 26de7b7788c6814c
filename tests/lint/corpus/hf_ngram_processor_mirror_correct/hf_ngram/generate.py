"""A greedy decoding loop with a processor list, for models without generate() support."""
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, LogitsProcessorList

from .processor import PinnedNoRepeatNGramLogitsProcessor


@torch.inference_mode()
def greedy_generate(model, input_ids, max_new_tokens, logits_processor, eos_token_id):
    past_key_values = None
    next_input = input_ids
    for _ in range(max_new_tokens):
        outputs = model(input_ids=next_input, past_key_values=past_key_values, use_cache=True)
        past_key_values = outputs.past_key_values
        next_token_logits = outputs.logits[:, -1, :].float()
        next_token_scores = logits_processor(input_ids, next_token_logits)
        next_tokens = torch.argmax(next_token_scores, dim=-1)
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        next_input = next_tokens[:, None]
        if (next_tokens == eos_token_id).all():
            break
    return input_ids


def main(model_name, prompts, max_new_tokens=128, ngram_size=3):
    tokenizer = AutoTokenizer.from_pretrained(model_name, padding_side="left")
    model = AutoModelForCausalLM.from_pretrained(model_name, torch_dtype=torch.bfloat16).to("cuda")
    batch = tokenizer(prompts, return_tensors="pt", padding=True)
    input_ids = batch.input_ids.to("cuda")
    processors = LogitsProcessorList(
        [PinnedNoRepeatNGramLogitsProcessor(ngram_size, len(prompts), input_ids.shape[1] + max_new_tokens)]
    )
    out = greedy_generate(model, input_ids, max_new_tokens, processors, tokenizer.eos_token_id)
    return tokenizer.batch_decode(out, skip_special_tokens=True)
