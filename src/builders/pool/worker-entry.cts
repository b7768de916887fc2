// The file each builder thread is started with. piscina require()s its entry before trying
// import(), and on Node 20.19+ require() of an ES module while the thread's own import() of the
// plugin registry is in flight can abort the whole process in V8 ("v8::Module::IsGraphAsync must
// be used on an instantiated module", seen in a test run). This CommonJS entry is required plainly
// and loads the ES module worker (./worker.ts) with import() alone.
type Build = (task: unknown) => Promise<unknown>;

let worker: Promise<{ default: Build }> | undefined;

async function build(task: unknown): Promise<unknown> {
  worker ??= import('./worker.js') as Promise<{ default: Build }>;
  return (await worker).default(task);
}

export = build;
