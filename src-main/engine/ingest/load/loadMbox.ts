import { toErrorData } from '../../base/errors.js';
import { badInput, formatBytes } from '../badInput.js';
import type { LoadedPart, LoadedText } from '../types.js';
import { finishText } from './finishText.js';
import { MBOX_FROM_LINE } from './formats.js';
import {
  attachmentParts,
  DEFAULT_MAIL_LIMITS,
  readMessage,
  unreadNote,
  type MailLimits,
  type MailPartLoader,
} from './mailMessage.js';

const FROM_LINE = Buffer.from('From ', 'latin1');

/**
 * The messages of an mbox file (RFC 4155), each without its From_ line, with body lines that
 * writers escaped unescaped. A message starts at a line beginning with "From " at the file's start
 * or after a blank line (RFC 4155's separator), or anywhere when the line has a sender and an
 * asctime date. Escaping follows mboxrd (">From " → "From ", ">>From " → ">From "), which also
 * reads mboxo files right (they escape only "From "; an original ">From " line cannot be told apart there).
 */
export function splitMbox(bytes: Buffer): Buffer[] {
  if (!bytes.subarray(0, FROM_LINE.length).equals(FROM_LINE)) return [];
  const starts = [0];
  for (let i = bytes.indexOf('\nFrom ', 0, 'latin1'); i !== -1; i = bytes.indexOf('\nFrom ', i + 1, 'latin1')) {
    const afterBlank = bytes[i - 1] === 0x0a || (bytes[i - 1] === 0x0d && bytes[i - 2] === 0x0a);
    if (afterBlank || MBOX_FROM_LINE.test(bytes.toString('latin1', i + 1, Math.min(bytes.length, i + 200))))
      starts.push(i + 1);
  }
  return starts.map((start, k) => {
    const end = starts[k + 1] ?? bytes.length;
    const newline = bytes.indexOf(0x0a, start);
    const message = newline === -1 || newline >= end ? Buffer.alloc(0) : bytes.subarray(newline + 1, end);
    if (message.indexOf('>From ', 0, 'latin1') === -1) return message;
    // latin1 maps each byte to one character and back, so the message's bytes (any charset) survive.
    return Buffer.from(message.toString('latin1').replace(/^>(>*From )/gm, '$1'), 'latin1');
  });
}

/**
 * An mbox file (Thunderbird, mutt, Apple Mail and Google Takeout exports; mboxo or mboxrd) as one
 * document per message, parts named by their Message-ID (`message/<n>` without one or for one seen
 * before), each message's attachments as parts `<message>/attachment/<n>`. The mbox itself has no
 * text. Limits apply to each message: one above {@link MailLimits.maxMessageBytes}, one mailparser
 * cannot read, or one whose text exceeds `maxTextChars` is a refused part and the rest are read.
 */
export async function loadMbox(
  bytes: Buffer,
  path: string,
  loadPart: MailPartLoader | undefined,
  options: { limits?: MailLimits; maxTextChars: number },
): Promise<LoadedText & { parts: LoadedPart[] }> {
  const limits = { ...DEFAULT_MAIL_LIMITS, ...options.limits };
  const messages = splitMbox(bytes);
  if (messages.length === 0) throw badInput(path, 'not an mbox file (it does not start with a "From " line)');
  const parts: LoadedPart[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const [index, raw] of messages.entries()) {
    if (parts.length >= limits.maxParts) {
      warnings.push(`messages ${index + 1}–${messages.length} not read (more than ${limits.maxParts} parts)`);
      break;
    }
    let partId = `message/${index + 1}`;
    try {
      if (raw.length > limits.maxMessageBytes)
        throw badInput(
          `${path}#${partId}`,
          `message is ${formatBytes(raw.length)}, above the ${formatBytes(limits.maxMessageBytes)} limit for one message`,
        );
      const message = await readMessage(raw, `${path}#${partId}`, limits);
      if (message.messageId && !seen.has(message.messageId)) partId = message.messageId;
      seen.add(partId);
      parts.push({
        partId,
        size: raw.length,
        loaded: finishText(message.loaded, `${path}#${partId}`, options.maxTextChars),
      });
      if (loadPart)
        parts.push(...(await attachmentParts(message, path, `${partId}/`, loadPart, limits.maxParts - parts.length)));
      warnings.push(...unreadNote(message, limits.maxAttachments, `message ${partId}`));
    } catch (error) {
      seen.add(partId);
      parts.push({ partId, size: raw.length, error: toErrorData(error).message });
    }
  }
  return { text: '', mime: 'application/mbox', parts, ...(warnings.length ? { warnings } : {}) };
}
