import { simpleParser, type AddressObject, type Attachment } from 'mailparser';
import { toErrorData } from '../../base/errors.js';
import { badInput } from '../badInput.js';
import type { LoadedPart, LoadedText } from '../types.js';
import { FORMAT_BY_EXTENSION, MIME_BY_FORMAT, extensionOf, type DocumentFormat } from './formats.js';
import { htmlBodyText } from './loadHtml.js';

/** Limits on mail, applied to each message on its own: a message past one is refused alone, its file's other messages are read. */
export interface MailLimits {
  /** A message (in an MBOX) above this many bytes is refused. Default: 64 MiB. */
  maxMessageBytes?: number;
  /** Attachments read per message, in its order; later ones are named in its text, not read. Default: 100. */
  maxAttachments?: number;
  /** Parts (messages and attachments) one file yields; past it the rest are left out with a note. Default: 10,000. */
  maxParts?: number;
}

export const DEFAULT_MAIL_LIMITS: Required<MailLimits> = {
  maxMessageBytes: 64 * 1024 ** 2,
  maxAttachments: 100,
  maxParts: 10_000,
};

/**
 * Loads an attachment's bytes as a document: `fileName` picks the format, `partPath` (the file's
 * path, `#`, the part id) names it in errors. Throws BAD_INPUT like any loader.
 */
export type MailPartLoader = (
  bytes: Buffer,
  fileName: string,
  partPath: string,
) => Promise<LoadedText & { title: string; language: string; parts?: LoadedPart[]; bytes?: Uint8Array }>;

/** One parsed message: its text (header block, body, attachment names) and the attachments we can read. */
export interface MailMessage {
  loaded: LoadedText;
  /** The Message-ID without its angle brackets; undefined when the message has none. */
  messageId: string | undefined;
  attachments: { fileName: string; content: Buffer }[];
  /** Attachments past {@link MailLimits.maxAttachments}, named only. */
  unreadAttachments: number;
}

/** "Name <address>" (or the address alone) for each mailbox, groups flattened, comma-separated. */
function addresses(value: AddressObject | AddressObject[] | undefined): string {
  const mailboxes = (Array.isArray(value) ? value : value ? [value] : []).flatMap((a) => a.value);
  const flat = mailboxes.flatMap((m) => (m.group ? m.group : [m]));
  return flat
    .map((m) => (m.name && m.address ? `${m.name} <${m.address}>` : (m.address ?? m.name)))
    .filter((s) => s)
    .join(', ');
}

const FORMAT_BY_MIME = new Map<string, DocumentFormat>(
  Object.entries(MIME_BY_FORMAT).map(([format, mime]) => [mime, format as DocumentFormat]),
);

/**
 * The file name an attachment is loaded under, which picks its format: its own name when its
 * extension is a format we read, else a name made from its content type; undefined when neither
 * names one (it is then only named in the message's text). Inline parts (a signature's logo) are skipped.
 */
function loadableName(attachment: Attachment, n: number): string | undefined {
  if (attachment.related) return undefined;
  const name = attachment.filename;
  if (name && FORMAT_BY_EXTENSION[extensionOf(name)]) return name;
  const format = FORMAT_BY_MIME.get(attachment.contentType.toLowerCase());
  if (!format || format === 'text') return undefined;
  const extension = Object.entries(FORMAT_BY_EXTENSION).find(([, f]) => f === format)![0];
  return `${name ?? `attachment-${n}`}${extension}`;
}

/**
 * Parses one RFC 5322 message with mailparser: a header block ("From: …", "To: …", "Cc: …",
 * "Date: …" as an ISO timestamp, "Subject: …"), a blank line, the plain-text body (the HTML
 * body's text when there is none), then its attachments' names ("Attachment: report.pdf"). The
 * subject is the title. BAD_INPUT when mailparser fails (a nesting bomb trips its child-node
 * limit) or the bytes have none of From, Date and Subject.
 */
export async function readMessage(bytes: Buffer, path: string, limits: MailLimits = {}): Promise<MailMessage> {
  const { maxAttachments } = { ...DEFAULT_MAIL_LIMITS, ...limits };
  let mail;
  try {
    mail = await simpleParser(bytes, { skipImageLinks: true, skipTextToHtml: true });
  } catch (error) {
    throw badInput(path, `cannot read the e-mail message (${(error as Error).message})`, { cause: error });
  }
  const from = addresses(mail.from);
  if (!from && !mail.subject && !mail.date) throw badInput(path, 'not an e-mail message (no From, Date or Subject)');
  const header = [
    ['From', from],
    ['To', addresses(mail.to)],
    ['Cc', addresses(mail.cc)],
    ['Date', mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date.toISOString() : ''],
    ['Subject', mail.subject ?? ''],
  ]
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  const body = mail.text?.trim() || (typeof mail.html === 'string' ? htmlBodyText(mail.html).trim() : '');
  const named = mail.attachments.filter((a) => a.contentDisposition === 'attachment' || a.filename);
  const attachments: MailMessage['attachments'] = [];
  let unreadAttachments = 0;
  for (const [index, attachment] of named.entries()) {
    const fileName = loadableName(attachment, index + 1);
    if (!fileName) continue;
    if (attachments.length < maxAttachments) attachments.push({ fileName, content: attachment.content });
    else unreadAttachments++;
  }
  return {
    loaded: {
      text: [header, body, named.map((a) => `Attachment: ${a.filename ?? a.contentType}`).join('\n')]
        .filter((s) => s)
        .join('\n\n'),
      mime: 'message/rfc822',
      ...(mail.subject ? { title: mail.subject } : {}),
    },
    messageId: mail.messageId?.replace(/^<|>$/g, '') || undefined,
    attachments,
    unreadAttachments,
  };
}

/**
 * Loads a message's attachments as parts `<prefix>attachment/<n>` (1-based, counting only the
 * attachments read), each refused on its own when its loader refuses it; an attached message's own
 * parts follow it as `<prefix>attachment/<n>/attachment/<m>` (as deep as the loader reads them).
 * Stops at `room` parts, nested ones included.
 */
export async function attachmentParts(
  message: MailMessage,
  path: string,
  prefix: string,
  loadPart: MailPartLoader,
  room: number,
): Promise<LoadedPart[]> {
  const parts: LoadedPart[] = [];
  for (const [index, attachment] of message.attachments.entries()) {
    if (parts.length >= room) break;
    const partId = `${prefix}attachment/${index + 1}`;
    const size = attachment.content.length;
    try {
      const {
        parts: nested = [],
        bytes,
        ...loaded
      } = await loadPart(attachment.content, attachment.fileName, `${path}#${partId}`);
      parts.push({ partId, size, loaded, ...(bytes ? { bytes } : {}) });
      for (const part of nested.slice(0, room - parts.length))
        parts.push({ ...part, partId: `${partId}/${part.partId}` });
    } catch (error) {
      parts.push({ partId, size, error: toErrorData(error).message });
    }
  }
  return parts;
}

/** The note on a message whose attachments were not all read. */
export function unreadNote(message: MailMessage, maxAttachments: number, where: string): string[] {
  return message.unreadAttachments > 0
    ? [`${where}: ${message.unreadAttachments} attachments past the first ${maxAttachments} not read`]
    : [];
}
