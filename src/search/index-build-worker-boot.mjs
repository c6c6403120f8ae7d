// Plain JavaScript so the worker can start from any host (the CLI, Vitest): it registers tsx's
// loader in this thread, then loads the TypeScript worker. The build (dist/) runs the compiled one.
import { register } from 'tsx/esm/api';

register();
await import('./index-build-worker.ts');
