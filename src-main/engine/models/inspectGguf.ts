import { basename } from 'node:path';
import { GgufFileType, GgufInsights, readGgufFileInfo, type Llama } from 'node-llama-cpp';
import { PolyhopError } from '../base/errors.js';
import type { ModelInfo } from './views.js';
import { ggufPreflight } from './ggufPreflight.js';
import { chatReasoning, resolveFileChatWrapper } from './chatReasoning.js';

/**
 * Reads what a GGUF file says about itself (architecture, size, quantisation, context and
 * embedding length, chat template) and refuses files Polyhop cannot use with a BAD_INPUT error
 * naming the file: not GGUF, forged counts or lengths, truncated tensor data, or an architecture
 * this llama.cpp build does not know. Reads the header only; never loads weights.
 */
export async function inspectGguf(path: string, llama?: Llama): Promise<ModelInfo> {
  const name = basename(path);
  const bad = (reason: string, cause?: unknown): PolyhopError =>
    new PolyhopError('BAD_INPUT', `${name} is not a usable GGUF model: ${reason}`, {
      details: { file: path, reason },
      cause,
    });

  const preflight = await ggufPreflight(path);
  let info: Awaited<ReturnType<typeof readGgufFileInfo>>;
  try {
    info = await readGgufFileInfo(path, {
      readTensorInfo: true,
      sourceType: 'filesystem',
      spliceSplitFiles: false,
      logWarnings: false,
    });
  } catch (error) {
    throw bad(error instanceof Error ? error.message : String(error), error);
  }
  const architecture: string | undefined = info.metadata?.general?.architecture;
  if (typeof architecture !== 'string' || architecture === '') throw bad('it has no general.architecture');

  let insights: GgufInsights;
  try {
    insights = await GgufInsights.from(info, llama);
  } catch (error) {
    throw bad(`its tensors cannot be read (${error instanceof Error ? error.message : String(error)})`, error);
  }
  if (!insights.isSupportedByLlamaCpp)
    throw bad(`architecture "${architecture}" is not supported by this llama.cpp build`);
  const first = info.fullTensorInfo?.[0];
  if (first) {
    // modelSize never exceeds the bytes the tensor data really needs, so a shorter file is truncated.
    const dataStart = Number(first.fileOffset) - Number(first.offset);
    const needed = dataStart + insights.modelSize;
    if (preflight.fileSize < needed)
      throw bad(`tensor data needs ${needed} bytes but the file has ${preflight.fileSize} (truncated download?)`);
  }

  const fileType = info.metadata.general.file_type;
  const chatTemplate = info.metadata.tokenizer?.chat_template;
  const chat =
    typeof chatTemplate === 'string' && chatTemplate.trim() !== ''
      ? chatReasoning(resolveFileChatWrapper(info, name), { fileInfo: info })
      : undefined;
  return {
    path,
    architecture,
    parameters: insights.totalParameters,
    ...(fileType !== undefined ? { quantisation: GgufFileType[fileType] ?? String(fileType) } : {}),
    ...(insights.trainContextSize !== undefined ? { contextLength: insights.trainContextSize } : {}),
    ...(insights.embeddingVectorSize !== undefined ? { embeddingLength: insights.embeddingVectorSize } : {}),
    ...(typeof chatTemplate === 'string' ? { chatTemplate } : {}),
    ...(chat ? { chat: { wrapper: chat.wrapperName, reasons: chat.reasons, switchable: chat.switchable } } : {}),
    metadata: flattenScalars(info.metadata as unknown as Record<string, unknown>),
  };
}

/** Scalar metadata as `a.b.c → value`; arrays (vocabularies) become their length, long strings are left out. */
function flattenScalars(
  tree: Record<string, unknown>,
  prefix = '',
  out: Record<string, string | number | boolean> = {},
): Record<string, string | number | boolean> {
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (path === 'tokenizer.chat_template') continue;
    if (typeof value === 'string') {
      if (value.length <= 500) out[path] = value;
    } else if (typeof value === 'number' || typeof value === 'boolean') out[path] = value;
    else if (typeof value === 'bigint') out[path] = Number(value);
    else if (Array.isArray(value)) out[`${path}.length`] = value.length;
    else if (value && typeof value === 'object') flattenScalars(value as Record<string, unknown>, path, out);
  }
  return out;
}
