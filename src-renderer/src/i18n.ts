import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from '../locales/en.json';

export const UI_LANGUAGES = ['en', 'it', 'fr', 'es', 'de', 'zh'] as const;
export type UiLanguage = (typeof UI_LANGUAGES)[number];

const UI_LANGUAGE_KEY = 'polyhop.uiLanguage';

/** Each non-English locale is its own chunk, fetched from the app itself when chosen. */
const loaders: Record<Exclude<UiLanguage, 'en'>, () => Promise<{ default: unknown }>> = {
  it: () => import('../locales/it.json'),
  fr: () => import('../locales/fr.json'),
  es: () => import('../locales/es.json'),
  de: () => import('../locales/de.json'),
  zh: () => import('../locales/zh.json'),
};

/** `navigator.language` (e.g. "it-IT", "zh-Hans-CN") reduced to a shipped language, else English. */
export function pickLanguage(preferred: string | null | undefined): UiLanguage {
  const candidates = [preferred, localStorage.getItem(UI_LANGUAGE_KEY), ...navigator.languages, navigator.language];
  for (const candidate of candidates) {
    const base = candidate?.toLowerCase().split('-')[0];
    if (base && (UI_LANGUAGES as readonly string[]).includes(base)) return base as UiLanguage;
  }
  return 'en';
}

/** Switches the UI language, loading its strings first; `null` follows the OS. */
export async function setUiLanguage(language: string | null): Promise<void> {
  if (language) localStorage.setItem(UI_LANGUAGE_KEY, language);
  else localStorage.removeItem(UI_LANGUAGE_KEY);
  const lng = pickLanguage(language);
  if (lng !== 'en' && !i18next.hasResourceBundle(lng, 'translation')) {
    const module = await loaders[lng]();
    i18next.addResourceBundle(lng, 'translation', module.default, true, true);
  }
  await i18next.changeLanguage(lng);
  document.documentElement.lang = lng;
}

export async function initI18n(): Promise<void> {
  await i18next.use(initReactI18next).init({
    resources: { en: { translation: en } },
    lng: 'en',
    fallbackLng: 'en',
    interpolation: { escapeValue: false }, // React escapes
    returnNull: false,
  });
  await setUiLanguage(localStorage.getItem(UI_LANGUAGE_KEY)).catch(() => undefined);
}
