// The one run config of every trainer (GRPO, rejection sampling, reward-weighted, SFT): the YAML
// schema, its defaults per trainer and its validation. For now the implementation lives in
// src/rl/config-validate.ts and config-schema.ts (the lead moves it here with the folder layering); new
// code imports it from this module under its neutral name. Tested by tests/unit/rl/rl-config.test.ts.
export type { RlConfig as RunConfig, TrainerKind } from '../rl/config-schema';
export { ConfigError, defaultsFor, parseConfig, resolveConfig, type ConfigOverrides } from '../rl/config-validate';
