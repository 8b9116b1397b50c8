import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parsePythonStringList } from '../../../src-main/engine/eval/datasets/parsePythonStringList.js';
import { readDataset } from '../../../src-main/engine/eval/datasets/readDataset.js';
import type { EvalDataset, EvalPassage } from '../../../src-main/engine/eval/types.js';

// The public samples live beside the repo (`../shared/data`); counts below are those of each SOURCE.md.
const DATA = resolve(import.meta.dirname, '../../../../shared/data');
const tmp = mkdtempSync(join(tmpdir(), 'polyhop-eval-data-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function passagesOf(d: EvalDataset): EvalPassage[] {
  if (d.source.kind !== 'passages') throw new Error('expected passages');
  return d.source.passages;
}

function file(name: string, text: string): string {
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
}

describe('HotpotQA distractor format', () => {
  it('reads the HopRAG dev sample: 10 questions × 10 paragraphs, supporting facts by title', async () => {
    const d = await readDataset(join(DATA, 'hotpotqa/hoprag_hotpotqa_dev_example.jsonl'), { format: 'hotpotqa' });
    expect(d.items).toHaveLength(10);
    expect(passagesOf(d)).toHaveLength(100);
    expect(d.items[0]).toMatchObject({
      id: '5ade063d5542995b365fabcd',
      answers: ['Major League Soccer'],
      language: 'en',
      supportingPassageIds: ['Donnie Smith', 'Major League Soccer'],
    });
    const mls = passagesOf(d).find((p) => p.id === 'Major League Soccer');
    expect(mls?.text).toMatch(/^Major League Soccer \(MLS\) is a men's professional soccer league/);
    expect(d.source.language).toBe('en');
  });

  it('reads the HippoRAG train sample (100 questions) whose paragraphs are exactly its 994-passage corpus', async () => {
    const d = await readDataset(join(DATA, 'hotpotqa/hipporag_hotpotqa_train_sample.json'), { format: 'hotpotqa' });
    expect(d.items).toHaveLength(100);
    const corpus = await readDataset(join(DATA, 'hotpotqa/hipporag_hotpotqa_train_sample_corpus.json'), {
      format: 'hipporag-corpus',
    });
    expect(corpus.items).toHaveLength(0);
    expect(passagesOf(corpus)).toHaveLength(994);
    expect(new Set(passagesOf(d).map((p) => `${p.title}\n${p.text}`))).toEqual(
      new Set(passagesOf(corpus).map((p) => `${p.title}\n${p.text}`)),
    );
  });

  it("keeps only the limited questions' paragraphs, and samples reproducibly", async () => {
    const path = join(DATA, 'hotpotqa/hipporag_hotpotqa_train_sample.json');
    const first = await readDataset(path, { format: 'hotpotqa', limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(passagesOf(first).length).toBeLessThanOrEqual(30);
    const a = await readDataset(path, { format: 'hotpotqa', limit: 5, sample: 'random', seed: 7 });
    const b = await readDataset(path, { format: 'hotpotqa', limit: 5, sample: 'random', seed: 7 });
    expect(a.items.map((i) => i.id)).toEqual(b.items.map((i) => i.id));
    expect(a.items.map((i) => i.id)).not.toEqual(first.items.slice(0, 5).map((i) => i.id));
  });
});

describe('2WikiMultiHopQA', () => {
  it('reads the HopRAG JSONL (10) and the KAG JSON (2) against the 6,119-passage HippoRAG corpus', async () => {
    const hop = await readDataset(join(DATA, '2wikimultihopqa/hoprag_2wikimultihopqa_dev_example.jsonl'), {
      format: '2wiki',
    });
    expect(hop.items).toHaveLength(10);
    const kag = await readDataset(join(DATA, '2wikimultihopqa/kag_2wikimultihopqa_qa_sub.json'), {
      format: '2wiki',
      corpusPath: join(DATA, '2wikimultihopqa/hipporag_2wikimultihopqa_dev1000_corpus.json'),
    });
    expect(kag.items).toHaveLength(2);
    expect(passagesOf(kag)).toHaveLength(6119);
    expect(kag.items[0]).toMatchObject({
      question: "When did Lothair Ii's mother die?",
      answers: ['20 March 851'],
      supportingPassageIds: ['Lothair II', 'Ermengarde of Tours'],
    });
    // Sentences are joined as the HippoRAG corpus joins them.
    expect(passagesOf(kag).find((p) => p.id === 'Teutberga')?.text).toMatch(
      /^Teutberga\( died 11 November 875\) was a queen of Lotharingia by marriage to Lothair II\. She was/,
    );
  });
});

describe('MuSiQue', () => {
  it('reads the HopRAG dev sample (10, all 2-hop) with decompositions and supporting paragraphs', async () => {
    const d = await readDataset(join(DATA, 'musique/hoprag_musique_dev_example.jsonl'), { format: 'musique' });
    expect(d.items).toHaveLength(10);
    expect(passagesOf(d)).toHaveLength(200);
    for (const item of d.items) {
      expect(item.id).toMatch(/^2hop__/);
      expect(item.decomposition).toHaveLength(2);
      expect(item.supportingPassageIds).toHaveLength(2);
      expect(
        item.decomposition?.every(
          (s) => s.supportingPassageId && item.supportingPassageIds?.includes(s.supportingPassageId),
        ),
      ).toBe(true);
    }
  });

  it('reads the HippoRAG train sample (100) with aliases; its paragraphs are the 1,890-passage corpus', async () => {
    const path = join(DATA, 'musique/hipporag_musique_train_sample.json');
    const d = await readDataset(path, {
      format: 'musique',
      corpusPath: join(DATA, 'musique/hipporag_musique_train_sample_corpus.json'),
    });
    expect(d.items).toHaveLength(100);
    expect(passagesOf(d)).toHaveLength(1890);
    expect(d.items[0]?.answers).toEqual(['G. Stanley Hall', 'Stanley Hall']);
    const hops = d.items.map((i) => i.decomposition?.length ?? 0);
    expect(hops.filter((h) => h === 2)).toHaveLength(68);
  });
});

describe('MSE-KG', () => {
  it('reads the 37 competency questions and points the KB at the graph to import', async () => {
    const d = await readDataset(join(DATA, 'mse-kg/competency_questions.json'), { format: 'mse-kg' });
    expect(d.items).toHaveLength(37);
    expect(d.source).toEqual({ kind: 'rdf', path: join(DATA, 'mse-kg/Output.ttl'), format: 'turtle', language: 'en' });
    expect(d.items.find((i) => i.id === '18')).toMatchObject({
      question: 'What are the instruments for APT?',
      answers: ['No Answer'],
    });
    expect(d.items.find((i) => i.id === '4')?.answers[0]).toBe(
      'Prof. Dr. Harald Sack; Mirza Mohtashim Alam; Dr. Jörg Waitelonis; Dr. Heike Fliegl',
    );
  });
});

describe('SQuAD-style JSON', () => {
  it('reads XQuAD: 1,190 questions over 240 paragraphs, language from the file name, BOM stripped (th)', async () => {
    for (const lang of ['en', 'de', 'zh', 'th']) {
      const d = await readDataset(join(DATA, `xquad/xquad.${lang}.json`), { format: 'xquad' });
      expect(d.items).toHaveLength(1190);
      expect(passagesOf(d)).toHaveLength(240);
      expect(d.items[0]).toMatchObject({ id: '56beb4343aeaaa14008c925b', language: lang, answers: ['308'] });
      expect(d.source.language).toBe(lang);
      expect(passagesOf(d).every((p) => !p.text.startsWith('\uFEFF'))).toBe(true);
    }
  });

  it('reads SQuAD-it: 7,609 Italian questions (2,010 paragraphs, 19 without questions, so 1,988 passages)', async () => {
    const d = await readDataset(join(DATA, 'squad-it/SQuAD_it-test.json'), { format: 'xquad' });
    expect(d.items).toHaveLength(7609);
    expect(passagesOf(d)).toHaveLength(1988);
    expect(d.items[0]).toMatchObject({
      language: 'it',
      question: 'Quando è iniziata la crisi petrolifera del 1973?',
      answers: ['ottobre 1973', 'ottobre', '1973'],
    });
  });
});

describe('AfriQA', () => {
  it('reads 302 Swahili test questions with English translations; 294 join a gold English passage', async () => {
    const d = await readDataset(join(DATA, 'afriqa-swahili/queries.afriqa.swa.en.test.jsonl'), { format: 'afriqa' });
    expect(d.items).toHaveLength(302);
    expect(d.items.filter((i) => i.supportingPassageIds)).toHaveLength(294);
    expect(d.source.language).toBe('en');
    expect(d.items[0]).toMatchObject({
      language: 'sw',
      answers: ['Webuye'],
      translations: {
        en: { question: 'Which constituency does nominated MP Musikari Kombo represent?', answers: ['Webuye'] },
      },
    });
  });

  it('reads the dev split (417, no gold passages; 190 unanswerable left out), including answers that are not valid Python', async () => {
    const d = await readDataset(join(DATA, 'afriqa-swahili/queries.afriqa.swa.en.dev.jsonl'), { format: 'afriqa' });
    expect(d.items).toHaveLength(417 - 190);
    expect(d.notes).toEqual(['190 questions without a reference answer were left out']);
    expect(passagesOf(d)).toHaveLength(0);
    expect(parsePythonStringList("['I'm Sprung']")).toEqual(["I'm Sprung"]);
    expect(parsePythonStringList(`['a', "b's", 'c\\'d']`)).toEqual(['a', "b's", "c'd"]);
  });
});

describe('generic CSV and JSONL', () => {
  it('reads CSV with quoted fields, JSON or |-separated answers, language and context', async () => {
    const path = file(
      'qa.csv',
      'id,question,answers,language,context\n' +
        'q1,"Who was the wife of Odysseus, king of Ithaca?","[""Penelope"",""Penelopea""]",en,"Penelope was the wife of Odysseus."\n' +
        'q2,Chi era il figlio di Ulisse?,Telemaco|Telemachus,it,\n',
    );
    const d = await readDataset(path, { format: 'csv' });
    expect(d.name).toBe('qa');
    expect(d.items).toEqual([
      {
        id: 'q1',
        question: 'Who was the wife of Odysseus, king of Ithaca?',
        answers: ['Penelope', 'Penelopea'],
        language: 'en',
        context: 'Penelope was the wife of Odysseus.',
        supportingPassageIds: ['q1'],
      },
      { id: 'q2', question: 'Chi era il figlio di Ulisse?', answers: ['Telemaco', 'Telemachus'], language: 'it' },
    ]);
  });

  it('reads JSONL with answers as list or string and numbers missing ids', async () => {
    const path = file(
      'qa.jsonl',
      '{"question":"Capital of Italy?","answers":["Rome","Roma"]}\n\n{"question":"Capital of France?","answer":"Paris","language":"fr-FR"}\n',
    );
    const d = await readDataset(path, { format: 'jsonl', language: 'en' });
    expect(d.items.map((i) => [i.id, i.answers, i.language])).toEqual([
      ['record-1', ['Rome', 'Roma'], 'en'],
      ['record-2', ['Paris'], 'fr'],
    ]);
  });

  it('names the file and line of a bad record', async () => {
    const noAnswer = file('bad.jsonl', '{"question":"ok?","answers":["yes"]}\n{"question":"no answer"}\n');
    await expect(readDataset(noAnswer, { format: 'jsonl' })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('bad.jsonl line 2: field "answers"'),
    });
    const brokenJson = file('broken.jsonl', '{"question":"ok?","answers":["yes"]}\n{"question": \n');
    await expect(readDataset(brokenJson, { format: 'jsonl' })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('broken.jsonl line 2: not valid JSON'),
    });
    const csv = file('bad.csv', 'question,answers\n"fine?",yes\n"unterminated,yes\n');
    await expect(readDataset(csv, { format: 'csv' })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('bad.csv'),
    });
    const emptyQuestion = file('empty.csv', 'question,answers\n"fine?",yes\n"",yes\n');
    await expect(readDataset(emptyQuestion, { format: 'csv' })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('empty.csv line 3: field "question"'),
    });
    const hotpot = file(
      'hotpot.json',
      JSON.stringify([
        { _id: 'x', question: 'q?', answer: 'a', context: [['T', ['s.']]], supporting_facts: [['Missing', 0]] },
      ]),
    );
    await expect(readDataset(hotpot, { format: 'hotpotqa' })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('hotpot.json record 0: supporting fact "Missing"'),
    });
    await expect(readDataset(file('notjson.json', '[{"_id": 1,'), { format: 'musique' })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('notjson.json'),
    });
    await expect(readDataset(join(tmp, 'absent.json'), { format: 'musique' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
