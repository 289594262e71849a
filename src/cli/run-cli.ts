// The CLI's dispatch: finds the commands (src/cli/commands/*.ts, each exporting `command:
// CliCommand`), prints help, runs one and returns its exit status. src/cli/main.ts calls it for
// `npm run cli`; the unit tests call it in their own process (tests/fixtures/cli-in-process.ts),
// where the commands share the test fork's GPU device and built pipelines.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, type CliCommand } from '../util/args';

async function loadCommands(): Promise<CliCommand[]> {
  const dir = fileURLToPath(new URL('./commands/', import.meta.url));
  const files = readdirSync(dir).filter((f) => /\.ts$/.test(f) && !f.endsWith('.test.ts')).sort();
  const cmds: CliCommand[] = [];
  for (const f of files) {
    const mod = (await import(new URL(`./commands/${f}`, import.meta.url).href)) as { command?: CliCommand };
    if (mod.command) cmds.push(mod.command);
  }
  return cmds;
}

function help(cmds: CliCommand[]): string {
  const lines = ['Usage: npm run cli -- <command> [options]', '', 'Commands:'];
  for (const c of cmds) lines.push(`  ${c.name.padEnd(10)} ${c.summary}`);
  lines.push('', 'Run `npm run cli -- <command> --help` for the options of one command.');
  return lines.join('\n');
}

/** Runs `npm run cli -- ...argv` in this process; the exit status. */
export async function runCli(argv: string[]): Promise<number> {
  const cmds = await loadCommands();
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(help(cmds));
    return name ? 0 : 1;
  }
  const cmd = cmds.find((c) => c.name === name);
  if (!cmd) {
    console.error(`Unknown command "${name}".\n\n${help(cmds)}`);
    return 2;
  }
  const args = parseArgs(rest);
  if (args.flags.help) {
    console.log(cmd.usage);
    return 0;
  }
  try {
    return await cmd.run(args);
  } catch (e) {
    console.error(`${cmd.name}: ${(e as Error).message}`);
    return 1;
  }
}

