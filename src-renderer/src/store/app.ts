import { create } from 'zustand';
import type { ApiError, KbSummary, Settings } from '../../api/index.js';
import { api } from '../../api/index.js';
import { toApiError } from '../lib/errors.js';

export const SCREENS = ['corpus', 'ask', 'graph', 'models', 'evaluate', 'settings'] as const;
export type Screen = (typeof SCREENS)[number];
export type Theme = Settings['theme'];

const KB_KEY = 'polyhop.kb';
const THEME_KEY = 'polyhop.theme';
const SCREEN_KEY = 'polyhop.screen';

function stored<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
  const value = localStorage.getItem(key);
  return allowed.includes(value as T) ? (value as T) : fallback;
}

interface AppState {
  screen: Screen;
  /** The knowledge base every screen works on; null when none exists or none is chosen. */
  kb: string | null;
  kbs: KbSummary[];
  kbsStatus: 'loading' | 'ready' | 'error';
  kbsError: ApiError | null;
  settings: Settings | null;
  settingsError: ApiError | null;
  theme: Theme;
  /** The document last opened in Corpus, offered as an export scope in Graph. */
  openDocument: { id: number; title: string } | null;
  /** The entity last opened in Graph. */
  openEntity: { id: number; name: string } | null;
  /** Polite announcement for screen readers (and a visible status line). */
  notice: string;

  setScreen(screen: Screen): void;
  setKb(kb: string | null): void;
  refreshKbs(): Promise<void>;
  loadSettings(): Promise<void>;
  saveSettings(patch: Partial<Settings>): Promise<Settings>;
  setTheme(theme: Theme): void;
  setOpenDocument(doc: { id: number; title: string } | null): void;
  setOpenEntity(entity: { id: number; name: string } | null): void;
  announce(notice: string): void;
}

export const useApp = create<AppState>()((set, get) => ({
  screen: stored(SCREEN_KEY, SCREENS, 'corpus'),
  kb: localStorage.getItem(KB_KEY),
  kbs: [],
  kbsStatus: 'loading',
  kbsError: null,
  settings: null,
  settingsError: null,
  theme: stored(THEME_KEY, ['system', 'light', 'dark'] as const, 'system'),
  openDocument: null,
  openEntity: null,
  notice: '',

  setScreen(screen) {
    localStorage.setItem(SCREEN_KEY, screen);
    set({ screen });
  },
  setKb(kb) {
    if (kb === null) localStorage.removeItem(KB_KEY);
    else localStorage.setItem(KB_KEY, kb);
    if (kb !== get().kb) set({ kb, openDocument: null, openEntity: null });
  },
  async refreshKbs() {
    set((s) => ({ kbsStatus: s.kbs.length ? s.kbsStatus : 'loading', kbsError: null }));
    try {
      const kbs = await api().call('kb:list', {});
      set({ kbs, kbsStatus: 'ready' });
      const current = get().kb;
      if (!kbs.some((k) => k.name === current)) get().setKb(kbs[0]?.name ?? null);
    } catch (error) {
      set({ kbsStatus: 'error', kbsError: toApiError(error) });
    }
  },
  async loadSettings() {
    try {
      const settings = await api().call('system:getSettings', {});
      set({ settings, settingsError: null });
      get().setTheme(settings.theme);
    } catch (error) {
      set({ settingsError: toApiError(error) });
    }
  },
  async saveSettings(patch) {
    const settings = await api().call('system:setSettings', { settings: patch });
    set({ settings, settingsError: null });
    get().setTheme(settings.theme);
    return settings;
  },
  setTheme(theme) {
    localStorage.setItem(THEME_KEY, theme);
    set({ theme });
  },
  setOpenDocument(openDocument) {
    set({ openDocument });
  },
  setOpenEntity(openEntity) {
    set({ openEntity });
  },
  announce(notice) {
    set({ notice });
  },
}));
