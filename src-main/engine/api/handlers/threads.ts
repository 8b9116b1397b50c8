import type { KnowledgeBase } from '../../kb/index.js';
import type { ThreadRecord } from '../../kb/ThreadRepository.js';
import { threadJson, threadMarkdown, type EarlierTurn } from '../../qa/index.js';
import type { Answer, Thread, ThreadSummary } from '../contract.js';
import type { Handlers } from '../dispatch.js';
import type { Engine } from '../Engine.js';

/** The KB's conversations: list (and search), read, rename, delete, export. `qa:ask` adds their turns. */
export function threadHandlers(
  engine: Engine,
): Pick<Handlers, 'threads:list' | 'threads:get' | 'threads:rename' | 'threads:delete' | 'threads:export'> {
  return {
    'threads:list': ({ kb, search, limit }) =>
      engine.kbs.get(kb).kb.threads.listThreads(search, limit).map(threadSummary),
    'threads:get': ({ kb, thread }) => threadView(engine.kbs.get(kb).kb, thread),
    'threads:rename': ({ kb, thread, title }) =>
      threadSummary(engine.kbs.get(kb).kb.threads.renameThread(thread, title)),
    'threads:delete': ({ kb, thread }) => ({ deleted: engine.kbs.get(kb).kb.threads.deleteThread(thread) }),
    'threads:export': ({ kb, thread, format }) => {
      const session = engine.kbs.get(kb);
      const view = threadView(session.kb, thread);
      const base = fileBase(view.title) || `thread-${view.id}`;
      return format === 'json'
        ? { format, fileName: `${base}.json`, mime: 'application/json', text: threadJson(view, session.name) }
        : { format, fileName: `${base}.md`, mime: 'text/markdown', text: threadMarkdown(view, session.name) };
    },
  };
}

export function threadSummary(r: ThreadRecord): ThreadSummary {
  return {
    id: r.id,
    title: r.title,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    turnCount: r.turns,
    lastQuestion: r.lastQuestion,
  };
}

/** The thread with its turns and their answers (NOT_FOUND for an unknown id). */
export function threadView(kb: KnowledgeBase, id: number): Thread {
  const turns = kb.threads.turns(id).map((t) => ({
    id: t.id,
    position: t.position,
    question: t.question,
    standaloneQuestion: t.standaloneQuestion,
    historyId: t.historyId,
    askedAt: t.askedAt,
    answer: t.answerJson ? (JSON.parse(t.answerJson) as Answer) : null,
    stale: t.stale,
  }));
  return { ...threadSummary(kb.threads.thread(id)), turns };
}

/** What the follow-up rewrite reads of a thread's turns (NOT_FOUND for an unknown thread). */
export function earlierTurns(kb: KnowledgeBase, id: number): EarlierTurn[] {
  return threadView(kb, id).turns.map((t) => ({
    question: t.standaloneQuestion,
    answer: t.answer?.shortAnswer || t.answer?.text || '',
    ...(t.answer ? { language: t.answer.questionLanguage } : {}),
  }));
}

/** A file name from a title: letters, digits and dashes, at most 60 characters. */
function fileBase(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .toLowerCase();
}
