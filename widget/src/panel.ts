import { AssistantPanel } from './assistant-panel.ts';
import { type MountPanel, PANEL_CONTRACT_VERSION, PANEL_REGISTRY } from './panel-contract.ts';

/** The panel script: leaves its `mount` where the launcher looks for it (panel-contract.ts). */
const mount: MountPanel = (host) => {
  if ((host.contract ?? 1) !== PANEL_CONTRACT_VERSION)
    throw new Error("docent: this page's widget.js is from another version of Docent; reload the page");
  return new AssistantPanel(host);
};
(globalThis as unknown as Record<symbol, MountPanel>)[PANEL_REGISTRY] = mount;
