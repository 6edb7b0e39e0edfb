// Bootstrap of an analysis worker process: registers tsx, then runs the worker (src/jobs/analysis-worker.ts).

// Ctrl+C in a terminal (SIGINT) and a service manager's stop (SIGTERM) go to the whole process group, this process
// included. Dying of them mid-file made the pool record a crash before the parent's clean stop could hand the file
// back, and the file failed for good. The parent stops this process itself (the 'shutdown' message, SIGKILL 2 s
// later), and this process leaves on its own when the parent's channel closes ('disconnect' in analysis-worker.ts),
// so none is left behind if the parent dies. Set first, before the loader, so a worker still booting ignores them too.
// A closed terminal's SIGHUP goes to the foreground group too. (src/stop-signal.ts's STOP_SIGNALS: this file loads
// before any TypeScript can.)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);

const { register } = await import('tsx/esm/api');
register();
await import('../jobs/analysis-worker.ts');
