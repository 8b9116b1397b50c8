/**
 * The contract's names as plain constants, importing nothing, so the sandboxed preload and the
 * renderer take them without the schema library: every method, every event, the IPC channels.
 * `requests.ts` has one schema per method (the compiler checks the two lists agree).
 */
import type { EventName } from './events.js';

export const METHODS = [
  'system:doctor',
  'system:getSettings',
  'system:setSettings',
  'kb:list',
  'kb:create',
  'kb:info',
  'kb:rename',
  'kb:delete',
  'kb:reembed',
  'kb:upgrade',
  'kb:backup',
  'kb:restore',
  'docs:add',
  'docs:list',
  'docs:get',
  'docs:remove',
  'docs:reindex',
  'docs:source',
  'docs:page',
  'docs:file',
  'watch:add',
  'watch:remove',
  'watch:list',
  'index:start',
  'jobs:list',
  'jobs:cancel',
  'jobs:pause',
  'graph:search',
  'graph:entity',
  'graph:neighbourhood',
  'rdf:export',
  'rdf:import',
  'sparql:query',
  'store:set',
  'store:show',
  'store:publish',
  'store:sync',
  'store:remove',
  'qa:ask',
  'qa:history',
  'qa:rewrite',
  'qa:estimate',
  'threads:list',
  'threads:get',
  'threads:rename',
  'threads:delete',
  'threads:export',
  'models:list',
  'models:catalog',
  'models:status',
  'models:load',
  'models:unload',
  'models:inspect',
  'models:import',
  'models:remove',
  'models:download',
  'models:try',
  'endpoints:list',
  'endpoints:add',
  'endpoints:remove',
  'endpoints:test',
  'eval:run',
  'eval:report',
] as const;
export type Method = (typeof METHODS)[number];

export const EVENT_NAMES: EventName[] = ['job:progress', 'job:finished', 'qa:token', 'watch:synced', 'endpoint:notice'];

/** Channel names on the Electron IPC bridge. */
export const IPC_INVOKE_CHANNEL = 'polyhop:invoke';
export const IPC_EVENT_CHANNEL = 'polyhop:event';
