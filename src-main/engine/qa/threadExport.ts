import type { Citation, Thread } from './Answer.js';

/**
 * A thread as a Markdown document: per turn the question as asked (and the standalone question it
 * was answered as, when that differs), the short answer, the explained answer with its `[n]`
 * citations and the numbered sources they point to, then strategy and cost.
 */
export function threadMarkdown(thread: Thread, kbName: string): string {
  const lines = [
    `# ${oneLine(thread.title)}`,
    '',
    `Knowledge base: ${kbName} · ${thread.turnCount} turn${thread.turnCount === 1 ? '' : 's'} · started ${thread.createdAt}`,
  ];
  for (const turn of thread.turns) {
    lines.push('', `## ${turn.position}. ${oneLine(turn.question)}`, '');
    if (turn.standaloneQuestion !== turn.question) lines.push(`Asked as: ${oneLine(turn.standaloneQuestion)}`, '');
    const answer = turn.answer;
    if (!answer) {
      lines.push('(The answer is no longer in the history.)');
      continue;
    }
    if (answer.shortAnswer) lines.push(`**${oneLine(answer.shortAnswer)}**`, '');
    lines.push(answer.text.trim() || '(no answer)');
    if (answer.evidence.length > 0) {
      lines.push('', 'Sources:', '');
      answer.evidence.forEach((e, i) => {
        const cites = e.citations.map(citation).join('; ');
        lines.push(`${i + 1}. ${oneLine(e.label)}${cites ? ` — ${cites}` : ''}`);
      });
    }
    const u = answer.usage;
    lines.push(
      '',
      `_${answer.strategy}${answer.retrievalOnly ? ' (retrieval only)' : ''} · ${u.llmCalls} LLM calls · ` +
        `${u.promptTokens}+${u.completionTokens} tokens · ${u.ms} ms · ${turn.askedAt}_`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A thread as JSON: the thread with its turns and whole answers (evidence, citations, trace, usage). */
export function threadJson(thread: Thread, kbName: string): string {
  return `${JSON.stringify({ kb: kbName, ...thread }, null, 2)}\n`;
}

function citation(c: Citation): string {
  return `${oneLine(c.documentTitle)}${c.page ? ` p. ${c.page}` : ''} [${c.startOffset}–${c.endOffset}]`;
}

const oneLine = (text: string): string => text.replace(/\s+/gu, ' ').trim();
