"""Continues an RL Studio run with TRL's GRPOTrainer on one or many GPUs.

    accelerate launch --num_processes 8 train_grpo.py            # from the bundle folder
    python train_grpo.py --max-steps 2                             # a smoke run on one GPU

Reads what `rl-studio export-trl` wrote beside it: data/train.jsonl (prompt + reward columns),
grpo_config.json (GRPOConfig fields mapped from our config), reward_config.json (the reward
module, its parts, weights and settings), adapter/ (the PEFT adapter to start from) and, for
search_qa, corpus.jsonl. Needs trl, transformers, peft, datasets, accelerate (and bitsandbytes
for --load-in-4bit); everything else it uses is in this folder and tested in RL Studio
(tests/unit/export/export-trl-*.test.ts; this file itself is checked with py_compile only).
"""
import argparse
import importlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def read_json(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return json.load(f)


def parse_args():
    rewards = read_json("reward_config.json")
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default=rewards["base_model"], help="base model id or folder (the adapter's base)")
    p.add_argument("--adapter", default=os.path.join(HERE, "adapter"), help="PEFT adapter to start from ('' for a fresh one)")
    p.add_argument("--output-dir", default=None, help="overrides grpo_config.json output_dir")
    p.add_argument("--max-steps", type=int, default=None, help="overrides max_steps")
    p.add_argument("--load-in-4bit", action="store_true", default=rewards.get("quant") == "nf4", help="QLoRA: NF4 base weights")
    p.add_argument("--use-vllm", action="store_true", help="generate with vLLM (TRL's use_vllm)")
    return p.parse_args(), rewards


def main():
    args, rewards = parse_args()
    import torch
    from datasets import load_dataset
    from peft import LoraConfig, PeftModel, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig
    from trl import GRPOConfig, GRPOTrainer

    module = importlib.import_module(rewards["module"])
    module.configure(weights=rewards["weights"], **rewards["config"])
    funcs = {f.__name__: f for f in module.REWARD_FUNCS}
    reward_funcs = [funcs[name] for name in rewards["parts"]]

    dataset = load_dataset("json", data_files=os.path.join(HERE, "data", "train.jsonl"), split="train")
    tools = None
    if "tools" in dataset.column_names:
        os.environ.setdefault("RL_STUDIO_CORPUS", os.path.join(HERE, "corpus.jsonl"))
        if "search_k" in rewards.get("tools", {}):
            os.environ.setdefault("RL_STUDIO_SEARCH_K", str(rewards["tools"]["search_k"]))
        import tools as bundled_tools  # reads RL_STUDIO_SEARCH_K when imported

        tools = bundled_tools.tools_for(dataset[0]["tools"])
        dataset = dataset.remove_columns(["tools"])

    config = read_json("grpo_config.json")
    config["reward_weights"] = [rewards["weights"].get(name, 0) for name in rewards["parts"]]
    if args.output_dir:
        config["output_dir"] = args.output_dir
    if args.max_steps is not None:
        config["max_steps"] = args.max_steps
    if args.use_vllm:
        config["use_vllm"] = True
    training_args = GRPOConfig(**config)

    quant = None
    if args.load_in_4bit:
        quant = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16)
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.bfloat16, quantization_config=quant)
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    if args.adapter:
        model = PeftModel.from_pretrained(model, args.adapter, is_trainable=True)
    else:
        lora = rewards["lora"]
        model = get_peft_model(model, LoraConfig(r=lora["r"], lora_alpha=lora["lora_alpha"], target_modules=lora["target_modules"], use_rslora=lora["use_rslora"], task_type="CAUSAL_LM"))

    trainer = GRPOTrainer(
        model=model, reward_funcs=reward_funcs, args=training_args, train_dataset=dataset,
        processing_class=tokenizer, tools=tools,
    )
    trainer.train()
    trainer.save_model(training_args.output_dir)


if __name__ == "__main__":
    main()
