import type { GpuDevice } from './views.js';

export interface LlamaBackendReport {
  backend: string;
  gpu: string | false;
  devices: GpuDevice[];
  error?: string;
}

/**
 * Asks node-llama-cpp which backend it can load here (CUDA, Vulkan, Metal or CPU) and which
 * GPU devices it sees. Never throws: a machine without a usable backend gets `error`.
 */
export async function probeLlamaBackend(): Promise<LlamaBackendReport> {
  try {
    const { getLlama } = await import('node-llama-cpp');
    const llama = await getLlama({ gpu: 'auto', build: 'never', logLevel: 'error' as never, progressLogs: false });
    try {
      const names = llama.gpu === false ? [] : await llama.getGpuDeviceNames();
      const vram = llama.gpu === false ? null : await llama.getVramState();
      const devices = names.map((name) => ({ name, vramTotalBytes: vram?.total ?? 0, vramFreeBytes: vram?.free ?? 0 }));
      return { backend: llama.gpu === false ? 'cpu' : llama.gpu, gpu: llama.gpu, devices };
    } finally {
      await llama.dispose();
    }
  } catch (error) {
    return { backend: 'none', gpu: false, devices: [], error: error instanceof Error ? error.message : String(error) };
  }
}
