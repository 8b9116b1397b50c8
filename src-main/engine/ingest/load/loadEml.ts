import { simpleParser, type AddressObject } from 'mailparser';
import { badInput } from '../badInput.js';
import type { LoadedText } from '../types.js';
import { htmlBodyText } from './loadHtml.js';

/** "Name <address>" (or the address alone) for each mailbox, groups flattened, comma-separated. */
function addresses(value: AddressObject | AddressObject[] | undefined): string {
  const mailboxes = (Array.isArray(value) ? value : value ? [value] : []).flatMap((a) => a.value);
  const flat = mailboxes.flatMap((m) => (m.group ? m.group : [m]));
  return flat
    .map((m) => (m.name && m.address ? `${m.name} <${m.address}>` : (m.address ?? m.name)))
    .filter((s) => s)
    .join(', ');
}

/**
 * One e-mail message (RFC 5322, `.eml`) as a document, parsed by mailparser: a header block
 * ("From: …", "To: …", "Cc: …", "Date: …" as an ISO timestamp, "Subject: …"), a blank line, then
 * the plain-text body (the HTML body's text when there is none), then the names of its
 * attachments ("Attachment: report.pdf"), which are not read. The subject is the title.
 */
export async function loadEml(bytes: Buffer, path: string): Promise<LoadedText> {
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
  const attachments = mail.attachments
    .filter((a) => a.contentDisposition === 'attachment' || a.filename)
    .map((a) => `Attachment: ${a.filename ?? a.contentType}`);
  return {
    text: [header, body, attachments.join('\n')].filter((s) => s).join('\n\n'),
    mime: 'message/rfc822',
    ...(mail.subject ? { title: mail.subject } : {}),
  };
}
