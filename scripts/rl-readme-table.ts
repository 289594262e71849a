// Prints the README "Training with RL" field table from the config's own field docs
// (src/rl/config-schema.ts FIELDS), so the table cannot drift: paste its output into README.md.
// tests/unit/rl/rl-config.test.ts fails when README.md lacks a field or differs from this table.
// Run: npx tsx scripts/rl-readme-table.ts
import { configFieldTable } from '../src/rl/config-validate';

console.log(configFieldTable());
