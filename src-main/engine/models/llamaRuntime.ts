import { getLlama, LlamaLogLevel, type Llama } from 'node-llama-cpp';
import { PolyhopError } from '../base/errors.js';

/** Which llama.cpp backend to load: `'auto'` tries CUDA, Vulkan, Metal, then CPU. */
export type LlamaGpuChoice = 'auto' | 'cuda' | 'vulkan' | 'metal' | false;

export interface LlamaRuntime {
  llama: Llama;
  /** 'cuda' | 'vulkan' | 'metal' | 'cpu'. */
  backend: string;
  /** Human-readable: backend, devices and free VRAM. */
  description: string;
}

const runtimes = new Map<string, Promise<LlamaRuntime>>();

/**
 * One llama.cpp binding per backend choice, shared by every model in the process (generation
 * and GGUF embeddings). Uses only the prebuilt binaries shipped in node_modules: it never
 * compiles or downloads anything, so it works offline and fails fast with a clear message.
 */
export function getLlamaRuntime(gpu: LlamaGpuChoice = 'auto'): Promise<LlamaRuntime> {
  const key = String(gpu);
  let pending = runtimes.get(key);
  if (!pending) {
    pending = load(gpu);
    runtimes.set(key, pending);
    pending.catch(() => runtimes.delete(key));
  }
  return pending;
}

async function load(gpu: LlamaGpuChoice): Promise<LlamaRuntime> {
  let llama: Llama;
  try {
    llama = await getLlama({
      gpu,
      build: 'never',
      skipDownload: true,
      progressLogs: false,
      logLevel: LlamaLogLevel.error,
    });
  } catch (error) {
    throw new PolyhopError(
      'UNSUPPORTED',
      `No usable llama.cpp backend for gpu=${key(gpu)}: ${error instanceof Error ? error.message : String(error)}`,
      {
        details: { gpu },
        cause: error,
      },
    );
  }
  const backend = llama.gpu === false ? 'cpu' : llama.gpu;
  if (llama.gpu === false) {
    return {
      llama,
      backend,
      description: `CPU (${llama.cpuMathCores} math cores; no GPU backend available${gpu === false ? ', GPU disabled' : ''})`,
    };
  }
  const [names, vram] = await Promise.all([llama.getGpuDeviceNames(), llama.getVramState()]);
  const gib = (n: number) => `${(n / 2 ** 30).toFixed(1)} GiB`;
  return {
    llama,
    backend,
    description: `${backend.toUpperCase()} on ${names.join(', ') || 'unknown device'} (${gib(vram.free)} free of ${gib(vram.total)})`,
  };
}

const key = (gpu: LlamaGpuChoice): string => (gpu === false ? 'cpu' : gpu);
