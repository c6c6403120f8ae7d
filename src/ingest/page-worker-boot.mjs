// Plain JavaScript so a worker can start from any host (npm start, the CLI, Vitest): it registers
// tsx's loader in this thread, then loads the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./page-worker.ts');
