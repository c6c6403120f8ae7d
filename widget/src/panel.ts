import { AssistantPanel } from './assistant-panel.ts';
import { type MountPanel, PANEL_REGISTRY } from './panel-contract.ts';

/** The panel script: leaves its `mount` where the launcher looks for it (panel-contract.ts). */
const mount: MountPanel = (host) => new AssistantPanel(host);
(globalThis as unknown as Record<symbol, MountPanel>)[PANEL_REGISTRY] = mount;
