// A websocket client's frames through an inspect that may answer later (a bridged call answered by
// another process under --workers): each frame is inspected and taken in the order it came, so a
// frame behind an answer still to come waits its turn. Bounded: a client that sends more than
// MAX_WAITING frames meanwhile is ended (1008), like one that does not read.

/**
 * undefined: forward the client frame; a string: answer the client with it instead; `forward`:
 * send these bytes upstream in its place, as text (a frame the gateway signed). A promise of one of
 * these (an answer from another process) holds the frames behind it until it is settled.
 */
export type Inspect = (data: Buffer, isBinary: boolean) => InspectAnswer;
/** An inspect that may answer later (from another process): the frames behind it wait. */
export type AwaitingInspect = (data: Buffer, isBinary: boolean) => InspectAnswer | Promise<InspectAnswer>;
export type InspectAnswer = string | { forward: Buffer | string } | undefined;

export const MAX_WAITING = 1024;

interface Frame { data: Buffer; isBinary: boolean }

export class InOrder {
  /** Frames behind an awaited answer (undefined: none awaited). */
  private waiting: Frame[] | undefined;

  constructor(
    private readonly inspect: AwaitingInspect,
    /** What inspect said of a frame, done. */
    private readonly take: (data: Buffer, isBinary: boolean, answer: InspectAnswer) => void,
    /** Whether frames are still taken (the connection is open). */
    private readonly live: () => boolean,
    private readonly end: (code: number, reason: string) => void,
  ) {}

  push(data: Buffer, isBinary: boolean): void {
    if (!this.waiting) return this.run({ data, isBinary });
    if (this.waiting.length >= MAX_WAITING) return this.end(1008, `more than ${MAX_WAITING} frames sent while the gateway's answer was awaited`);
    this.waiting.push({ data, isBinary });
  }

  private run(f: Frame): void {
    const answer = this.inspect(f.data, f.isBinary);
    if (!(answer instanceof Promise)) return this.take(f.data, f.isBinary, answer);
    this.waiting ??= [];
    // A failed answer is the gateway's fault: the frame is neither forwarded nor answered, the connection ends.
    void answer.then((a) => this.take(f.data, f.isBinary, a), () => this.end(1011, 'internal error')).finally(() => this.drain());
  }

  private drain(): void {
    const q = this.waiting ?? [];
    this.waiting = undefined;
    while (q.length && this.live()) {
      this.run(q.shift()!);
      if (this.waiting) return void (this.waiting as Frame[]).push(...q); // another answer to wait for: the rest stay behind it
    }
  }
}
