// The CLI: `npm run cli -- <command> [options]` (src/cli/run-cli.ts finds and runs the command).
// Exercised by tests/unit/cli/cli-model.test.ts and every command's own tests.
import { runCli } from './run-cli';
import { settleGpuWork } from '../gpu/runtime';

// Nothing may still run on the GPU when the process exits (settleGpuWork).
runCli(process.argv.slice(2)).then(async (code) => {
  await settleGpuWork();
  process.exit(code);
});
