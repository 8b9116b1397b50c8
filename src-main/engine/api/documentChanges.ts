import { lstat, stat } from 'node:fs/promises';
import { basename, extname, resolve, sep } from 'node:path';
import { yieldToEventLoop } from '../base/concurrency.js';
import { toErrorData } from '../base/errors.js';
import { formatForPath, MIME_BY_FORMAT } from '../ingest/load/formats.js';
import { hashFile, scanFolder } from '../ingest/scanFolder.js';
import { IgnoreRules } from '../ingest/watch/IgnoreRules.js';
import type { DocumentRecord } from '../kb/types.js';
import { estimateIndexing } from '../mder/indexingEstimate.js';
import type { AddDocumentsResult, DocumentRow } from './contract.js';
import type { Engine } from './Engine.js';
import type { KbSession } from './KbSessions.js';

/** What a scan found: files present now, documents whose file is gone, and what could not be read. */
interface FoundChanges {
  found: { path: string; size: number; sha256: string }[];
  gone: DocumentRecord[];
  errors: AddDocumentsResult['errors'];
}

/** Files recorded per transaction by {@link recordChanges}. */
const FILES_PER_TRANSACTION = 256;

/** The KB's file documents under a folder (its path, or anything below it); parts follow their container. */
function documentsUnder(session: KbSession, folder: string): DocumentRecord[] {
  const under: DocumentRecord[] = [];
  for (const doc of session.kb.documents.iterateDocuments())
    if (doc.containerId === null && (doc.path === folder || doc.path.startsWith(folder + sep))) under.push(doc);
  return under;
}

/** A document's id and its parts' (an MBOX's messages…), which are added, moved and removed with it. */
export function withParts(session: KbSession, id: number): number[] {
  return [id, ...session.kb.documents.partsOf(id).map((part) => part.id)];
}

/**
 * Adds files and folders: new files become pending documents, changed files (another hash) are
 * replaced, unchanged ones skipped; a folder given again is a re-scan, so files gone from it
 * are removed, and a file that moved inside it (same content, new path) keeps its document and
 * what was extracted from it. Reading and chunking happen in the indexing job, so this returns
 * quickly. A watched folder's catch-up scan is this call.
 */
export async function addDocuments(
  engine: Engine,
  name: string,
  paths: readonly string[],
): Promise<AddDocumentsResult> {
  const session = engine.kbs.get(name);
  const changes: FoundChanges = { found: [], gone: [], errors: [] };
  for (const raw of paths) {
    const path = resolve(raw);
    try {
      const info = await stat(path);
      if (info.isDirectory()) {
        const scan = await scanFolder(path, { ignore: engine.watches.ignorePatterns(session.name, path) });
        changes.found.push(...scan.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })));
        for (const skipped of scan.skipped) changes.errors.push({ path: skipped.path, reason: skipped.reason });
        const present = new Set(scan.files.map((f) => f.path));
        changes.gone.push(...documentsUnder(session, path).filter((doc) => !present.has(doc.path)));
      } else if (info.isFile()) {
        changes.found.push({ path, size: info.size, sha256: await hashFile(path) });
      } else {
        // Devices and pipes never end: hashing /dev/zero would hang the call.
        changes.errors.push({ path, reason: 'not a regular file' });
      }
    } catch (error) {
      changes.errors.push({ path, reason: toErrorData(error).message });
    }
  }
  const result = await recordChanges(engine, session, changes);
  // A text file's size is about its characters (HTML's markup makes it high); a PDF's, an office file's or an e-book's is not.
  const textual = result.added.filter((d) => d.mime.startsWith('text/'));
  if (textual.length > 0) {
    const estimate = estimateIndexing(textual.reduce((sum, d) => sum + d.size, 0));
    result.estimate = { ...estimate, documents: textual.length, uncounted: result.added.length - textual.length };
  }
  return result;
}

/**
 * Brings the KB up to date with the paths a watcher reported under `root` (files or folders
 * created, changed or deleted): each is looked at now, whatever the event said, so a burst of
 * events for one file counts once and a file deleted again before this runs is simply gone.
 * Ignored and unsupported paths are left alone.
 */
export async function syncChangedPaths(
  engine: Engine,
  name: string,
  root: string,
  paths: readonly string[],
  ignore: readonly string[],
): Promise<AddDocumentsResult> {
  const session = engine.kbs.get(name);
  const rules = new IgnoreRules(root, { patterns: ignore });
  const changes: FoundChanges = { found: [], gone: [], errors: [] };
  const goneIds = new Set<number>();
  const markGone = (path: string) => {
    for (const doc of documentsUnder(session, path)) {
      if (goneIds.has(doc.id)) continue;
      goneIds.add(doc.id);
      changes.gone.push(doc);
    }
  };
  for (const path of [...new Set(paths)].sort()) {
    if (rules.covers(path)) continue;
    try {
      const info = await lstat(path);
      if (info.isDirectory()) {
        const scan = await scanFolder(path, { ignore, ignoreRoot: root });
        changes.found.push(...scan.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })));
        const present = new Set(scan.files.map((f) => f.path));
        for (const doc of documentsUnder(session, path)) {
          if (present.has(doc.path) || goneIds.has(doc.id)) continue;
          goneIds.add(doc.id);
          changes.gone.push(doc);
        }
      } else if (info.isFile() && formatForPath(path)) {
        changes.found.push({ path, size: info.size, sha256: await hashFile(path) });
      } else if (!info.isFile()) {
        markGone(path); // a document's file replaced by a link or a special file is no longer the document
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') markGone(path);
      else changes.errors.push({ path, reason: toErrorData(error).message });
    }
  }
  return recordChanges(engine, session, changes);
}

/**
 * Records a scan's outcome: a gone document whose content reappears at a new path is moved
 * there (same id, chunks, triples), other gone documents are removed, new and changed files
 * become pending. In transactions of a few hundred files, with the event loop let go between
 * them (one statement per file and no await held every front door for the whole folder); a
 * kill between two leaves what the next scan finds and finishes.
 */
async function recordChanges(engine: Engine, session: KbSession, changes: FoundChanges): Promise<AddDocumentsResult> {
  const { kb } = session;
  const result: AddDocumentsResult = { added: [], unchanged: 0, renamed: 0, removed: 0, errors: changes.errors };
  const goneByHash = new Map<string, DocumentRecord[]>();
  for (const doc of changes.gone) goneByHash.set(doc.hash, [...(goneByHash.get(doc.hash) ?? []), doc]);
  const moved: number[] = [];
  const replaced: number[] = [];
  for (let start = 0; start < changes.found.length; start += FILES_PER_TRANSACTION) {
    kb.transaction(() => {
      for (const file of changes.found.slice(start, start + FILES_PER_TRANSACTION)) {
        const existing = kb.documents.findDocumentByPath(file.path);
        if (existing?.hash === file.sha256) {
          result.unchanged++;
          continue;
        }
        const from = existing ? undefined : goneByHash.get(file.sha256)?.shift();
        if (from) {
          moved.push(...withParts(session, from.id));
          kb.documents.updateDocument(from.id, { path: file.path, title: movedTitle(from, file.path) });
          result.renamed++;
          continue;
        }
        if (existing) {
          const ids = withParts(session, existing.id);
          replaced.push(...ids);
          // A changed file is read again: its answers say so (deleting it would say 'removed').
          kb.answers.markStale(ids, 'reindexed');
          kb.documents.deleteDocument(existing.id);
        }
        const format = formatForPath(file.path);
        const added = kb.documents.addDocument({
          path: file.path,
          title: basename(file.path),
          hash: file.sha256,
          mime: format ? MIME_BY_FORMAT[format] : 'application/octet-stream',
          size: file.size,
        });
        result.added.push(toRow(added));
      }
    });
    await yieldToEventLoop();
  }
  const movedIds = new Set(moved);
  const removed = changes.gone.filter((doc) => !movedIds.has(doc.id));
  const removedIds: number[] = [];
  for (const doc of removed) {
    if (!kb.documents.getDocument(doc.id)) continue;
    const ids = withParts(session, doc.id);
    kb.documents.deleteDocument(doc.id);
    result.removed++;
    removedIds.push(...ids);
    for (const id of ids) await updateView(session.rdf.documentRemoved(id));
  }
  for (const id of replaced) await updateView(session.rdf.documentRemoved(id));
  for (const id of moved) await updateView(session.rdf.documentAdded(id));
  await answersOfDocumentsChanged(session, [...removedIds, ...replaced]);
  if (result.removed + result.renamed + replaced.length > 0) engine.stores.changed(session.name);
  return result;
}

/** A title the loader found stays; one that was the old file's name follows the rename. */
function movedTitle(doc: DocumentRecord, path: string): string {
  if (doc.title === basename(doc.path)) return basename(path);
  if (doc.title === basename(doc.path, extname(doc.path))) return basename(path, extname(path));
  return doc.title;
}

/**
 * The RDF view follows SQLite (the system of record): it is told after the change. A failure
 * there never fails the request: the view is derived, and rebuilds from SQLite on its next load.
 */
export async function updateView(update: Promise<void>): Promise<void> {
  await update.catch((error: unknown) => console.error('[polyhop] RDF view update failed; it will be rebuilt:', error));
}

/**
 * After documents were deleted (migration 0014's trigger marked the answers citing them stale):
 * those answers' graphs in the RDF view follow.
 */
export async function answersOfDocumentsChanged(session: KbSession, documentIds: readonly number[]): Promise<void> {
  const ids = session.kb.answers.citing(documentIds);
  if (ids.length > 0) await updateView(session.rdf.answersChanged(ids));
}

export function toRow(d: DocumentRecord): DocumentRow {
  return {
    id: d.id,
    path: d.path,
    title: d.title,
    mime: d.mime,
    size: d.size,
    language: d.language,
    status: d.status,
    error: d.error,
    chunkCount: d.chunkCount,
    tripleCount: d.tripleCount,
    addedAt: d.addedAt,
  };
}
