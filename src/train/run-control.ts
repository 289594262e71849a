// The commands a caller can give a running training loop (SftRun.run, src/run/rl-run.ts runTraining):
// pause, resume, stop (the loop writes a checkpoint, then returns) and "checkpoint now" (after
// the current step). The loops check it between steps; a step in flight is never cut. No GPU or
// file access here, so the browser worker and the CLI share it; it sits in train/ because both the
// SFT loop and the RL loop (above it) use it. Tested by tests/unit/train/run-control.test.ts.

export type RunState = 'running' | 'paused' | 'stopping';

export class RunControl {
  private state: RunState = 'running';
  private checkpointAsked = false;
  private wake: (() => void) | null = null;
  private waiting = false;

  get current(): RunState {
    return this.state;
  }

  /** True while the loop is held by pause() (between steps), not merely asked to pause. */
  get holding(): boolean {
    return this.waiting;
  }

  /** Holds the loop before its next step until resume() or stop(). */
  pause(): void {
    if (this.state === 'running') this.state = 'paused';
  }

  resume(): void {
    if (this.state !== 'paused') return;
    this.state = 'running';
    this.release();
  }

  /** Ends the loop before its next step, after a checkpoint of what was done. */
  stop(): void {
    this.state = 'stopping';
    this.release();
  }

  /** Asks for a checkpoint after the current step (whatever the save interval). */
  checkpointNow(): void {
    this.checkpointAsked = true;
  }

  /** True once per checkpointNow() call (the loop writes one checkpoint for it). */
  takeCheckpointRequest(): boolean {
    const asked = this.checkpointAsked;
    this.checkpointAsked = false;
    return asked;
  }

  /** Resolves when the loop may take its next step: at once when running, at resume() or stop() when paused. */
  async beforeStep(): Promise<RunState> {
    this.waiting = this.state === 'paused';
    while (this.state === 'paused') await new Promise<void>((r) => { this.wake = r; });
    this.waiting = false;
    return this.state;
  }

  private release(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }
}
