// The CLI's defaults without --config: the default preset's paths (model, task files, corpus)
// resolve from the repo root whatever the working directory; paths the command line gives stay as
// given; an explicit --config is read as written. The commands themselves run in cli-chat and
// fresh-clone tests.
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../src/util/args';
import { DEFAULT_MODEL, REPO_ROOT } from '../../../src/cli/defaults';
import { readConfig } from '../../../src/cli/commands/train';

const ROOT = resolve(__dirname, '../../..');
const quiet = () => {};

describe('cli defaults', () => {
  it('no --config: configs/agent_grpo.yaml with repo-rooted paths to files that exist', () => {
    expect(resolve(REPO_ROOT)).toBe(ROOT);
    const cfg = readConfig(parseArgs([]), quiet);
    expect(cfg.model.path).toBe(join(ROOT, DEFAULT_MODEL));
    expect(cfg.data.env).toBe('agent');
    for (const f of [cfg.model.path, cfg.data.dataset!, cfg.data.eval_dataset!, cfg.data.corpus!]) {
      expect(isAbsolute(f), f).toBe(true);
      expect(existsSync(f), f).toBe(true);
    }
    expect(cfg.data.corpus).toBe(join(ROOT, 'datasets/agent_corpus.jsonl'));
    expect(cfg.log.out_dir).toBe('runs/agent_grpo');   // runs are written where the user is
  });

  it('command-line paths stay as given; an explicit --config is not rewritten', () => {
    const cfg = readConfig(parseArgs(['--model', 'my/model', '--dataset', 'my.jsonl', '--out', 'here']), quiet);
    expect(cfg.model.path).toBe('my/model');
    expect(cfg.data.dataset).toBe('my.jsonl');
    expect(cfg.data.eval_dataset).toBe(join(ROOT, 'datasets/agent_eval.jsonl'));
    expect(cfg.log.out_dir).toBe('here');
    const explicit = readConfig(parseArgs(['--config', join(ROOT, 'configs/agent_grpo.yaml')]), quiet);
    expect(explicit.model.path).toBe(DEFAULT_MODEL);
    expect(explicit.data.dataset).toBeNull();
  });
});
