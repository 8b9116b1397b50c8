import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import type { Engine } from '../../../../src-main/engine/api/Engine.js';
import type { SparqlResult } from '../../../../src-main/engine/api/contract.js';
import type { KnowledgeBase } from '../../../../src-main/engine/kb/index.js';

export interface DatabaseHealth {
  /** `PRAGMA integrity_check` rows (["ok"] when intact). */
  integrity: string[];
  /** `PRAGMA foreign_key_check` rows (none when every reference holds). */
  foreignKeys: unknown[];
  /** Keys of the LLM-call cache. */
  cachedKeys: Set<string>;
}

/** Checks the KB file through a second connection (the engine's may be open meanwhile). */
export function databaseHealth(file: string): DatabaseHealth {
  const db = new Database(file);
  try {
    sqliteVec.load(db);
    return {
      integrity: (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check),
      foreignKeys: db.pragma('foreign_key_check') as unknown[],
      cachedKeys: new Set(db.prepare('SELECT key FROM llm_cache').pluck().all() as string[]),
    };
  } finally {
    db.close();
  }
}

const PREFIX = 'PREFIX ph: <https://polyhop.app/ontology#>\n';

/**
 * What the RDF view holds, through the Api's `sparql:query`, next to what SQLite holds: counts of
 * documents, chunks, entities and triples, and every triple by names with its description.
 */
export async function rdfAgainstSqlite(
  engine: Engine,
  kbName: string,
  kb: KnowledgeBase,
): Promise<{ view: RdfFigures; sqlite: RdfFigures }> {
  const query = async (sparql: string): Promise<SparqlResult> => {
    const reply = await engine.call('sparql:query', {
      kb: kbName,
      query: PREFIX + sparql,
      maxRows: 100_000,
      timeoutMs: 60_000,
    });
    if (!reply.ok) throw new Error(`sparql:query: ${reply.error.code}: ${reply.error.message}`);
    return reply.value as SparqlResult;
  };
  const types = await query('SELECT ?type (COUNT(?x) AS ?n) WHERE { ?x a ?type } GROUP BY ?type');
  const count = (type: string): number =>
    Number(types.rows.find((r) => r.type === `https://polyhop.app/ontology#${type}`)?.n ?? 0);
  const facts = await query(
    'SELECT ?s ?r ?o ?d WHERE { ?t a ph:Triple ; ph:hasSource/ph:hasName ?s ; ph:hasRelationship/ph:hasName ?r ; ph:hasTarget/ph:hasName ?o . OPTIONAL { ?t ph:hasDescription ?d } }',
  );
  const stats = kb.stats();
  return {
    view: {
      documents: count('Document'),
      chunks: count('Chunk'),
      entities: count('Entity'),
      triples: count('Triple'),
      facts: facts.rows.map((r) => `${r.s} | ${r.r} | ${r.o} | ${r.d ?? ''}`).sort(),
    },
    sqlite: {
      documents: stats.documents,
      chunks: stats.chunks,
      entities: stats.entities,
      triples: stats.triples,
      facts: [...kb.graph.iterateTriples()]
        .map((t) => `${t.sourceName} | ${t.relation} | ${t.targetName} | ${t.description ?? ''}`)
        .sort(),
    },
  };
}

export interface RdfFigures {
  documents: number;
  chunks: number;
  entities: number;
  triples: number;
  facts: string[];
}
