// Node only: Ctrl-C during a training run stops it cleanly: the first SIGINT asks the loop to stop
// after the current step and write a checkpoint (resume later with --resume); a second one exits
// at once (the last complete checkpoint stays on the disk). Used by the sft and train commands;
// the stop itself is tested in tests/unit/train/run-control.test.ts.
import type { RunControl } from '../train/run-control';

/** Installs the handler; call the returned function when the run is over. */
export function stopOnInterrupt(control: RunControl, log: (s: string) => void): () => void {
  const onSigint = () => {
    if (control.current === 'stopping') {
      log('\nsecond Ctrl-C: exiting now; the last complete checkpoint is kept\n');
      process.exit(130);
    }
    log('\nCtrl-C: stopping after this step and writing a checkpoint (Ctrl-C again to exit now)\n');
    control.stop();
  };
  process.on('SIGINT', onSigint);
  return () => { process.off('SIGINT', onSigint); };
}
