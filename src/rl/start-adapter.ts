// Starting an RL run from a PEFT adapter (model.adapter / `train --adapter DIR`, e.g. what `sft`
// wrote): the adapter's adapter_config.json decides the LoRA rank, alpha, rsLoRA and targets. A
// lora.* field left at its default is taken from the adapter; one set to another value is an
// error naming the field, both values and the fix. Tested by tests/unit/rl/rl-start-adapter.test.ts.
import type { LoraConfig } from '../model/types';
import { DEFAULT_CONFIG, type RlConfig } from './config-schema';

/** The run config with its lora section taken from the adapter; throws on a disagreement. */
export function configFromAdapter(cfg: RlConfig, adapter: LoraConfig, dir: string): RlConfig {
  const where = `${dir}/adapter_config.json`;
  if (cfg.lora.mode !== 'lora') throw new Error(`model.adapter (${dir}) starts a LoRA policy but lora.mode is "${cfg.lora.mode}"; set lora.mode: lora`);
  const d = DEFAULT_CONFIG.lora;
  const alphaOf = (l: RlConfig['lora']) => l.alpha || 2 * l.rank;
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();
  const checks: [string, boolean, boolean, string, string][] = [
    ['lora.rank', cfg.lora.rank === d.rank, cfg.lora.rank === adapter.rank, String(cfg.lora.rank), `r ${adapter.rank}`],
    ['lora.alpha', cfg.lora.alpha === d.alpha, alphaOf(cfg.lora) === adapter.alpha, String(cfg.lora.alpha), `lora_alpha ${adapter.alpha}`],
    ['lora.rslora', cfg.lora.rslora === d.rslora, cfg.lora.rslora === adapter.useRslora, String(cfg.lora.rslora), `use_rslora ${adapter.useRslora}`],
    ['lora.targets', same(cfg.lora.targets, d.targets), same(cfg.lora.targets, adapter.targets), `[${cfg.lora.targets.join(', ')}]`, `target_modules [${adapter.targets.map((p) => `${p}_proj`).join(', ')}]`],
  ];
  for (const [field, isDefault, agrees, mine, theirs] of checks) {
    if (!isDefault && !agrees) {
      throw new Error(`${field} is ${mine} but the starting adapter ${where} has ${theirs}; the adapter decides the LoRA shape: remove ${field} from the config (or set it to match)`);
    }
  }
  return { ...cfg, lora: { ...cfg.lora, rank: adapter.rank, alpha: adapter.alpha, rslora: adapter.useRslora, targets: [...adapter.targets] } };
}
