import type { LoadedPart, LoadedText } from '../types.js';
import {
  attachmentParts,
  DEFAULT_MAIL_LIMITS,
  readMessage,
  unreadNote,
  type MailLimits,
  type MailPartLoader,
} from './mailMessage.js';

/**
 * One e-mail message (RFC 5322, `.eml`) as a document (see {@link readMessage} for its text),
 * and its attachments of formats we read as parts `attachment/<n>`, each its own document. With
 * no `loadPart` (an attached message) attachments are only named.
 */
export async function loadEml(
  bytes: Buffer,
  path: string,
  loadPart?: MailPartLoader,
  limits: MailLimits = {},
): Promise<LoadedText & { parts?: LoadedPart[] }> {
  const { maxAttachments, maxParts } = { ...DEFAULT_MAIL_LIMITS, ...limits };
  const message = await readMessage(bytes, path, limits);
  if (!loadPart || message.attachments.length === 0) return message.loaded;
  const parts = await attachmentParts(message, path, '', loadPart, maxParts);
  const warnings = unreadNote(message, maxAttachments, 'message');
  return { ...message.loaded, parts, ...(warnings.length ? { warnings } : {}) };
}
