import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Empty, ErrorView, Loading } from './components/StateViews.js';
import { AskScreen } from './screens/ask/AskScreen.js';
import { CorpusScreen } from './screens/corpus/CorpusScreen.js';
import { EvaluateScreen } from './screens/evaluate/EvaluateScreen.js';
import { GraphScreen } from './screens/graph/GraphScreen.js';
import { ImportPanel } from './screens/graph/RdfTransfer.js';
import { ModelsScreen } from './screens/models/ModelsScreen.js';
import { SettingsScreen } from './screens/settings/SettingsScreen.js';
import { SCREENS, useApp, type Screen } from './store/app.js';

/** Screens that work on a knowledge base say so, and where to make one, when there is none. */
function NeedsKb({ children, extra }: { children: (kb: string) => ReactNode; extra?: ReactNode }) {
  const { t } = useTranslation();
  const kb = useApp((s) => s.kb);
  const status = useApp((s) => s.kbsStatus);
  const error = useApp((s) => s.kbsError);
  if (kb) return <>{children(kb)}</>;
  if (status === 'loading') return <Loading />;
  if (error) return <ErrorView error={error} onRetry={() => void useApp.getState().refreshKbs()} />;
  return (
    <div className="stack">
      <Empty
        title={t('common.noKb')}
        hint={t('common.noKbHint')}
        testId="no-kb"
        action={
          <button
            type="button"
            className="primary"
            onClick={() => useApp.getState().setScreen('corpus')}
            data-testid="no-kb-go-corpus"
          >
            {t('common.goToCorpus')}
          </button>
        }
      />
      {extra}
    </div>
  );
}

function ScreenBody({ screen }: { screen: Screen }) {
  switch (screen) {
    case 'corpus':
      return <CorpusScreen />;
    case 'ask':
      return <NeedsKb>{(kb) => <AskScreen key={kb} kb={kb} />}</NeedsKb>;
    case 'graph':
      return <NeedsKb extra={<ImportPanel />}>{(kb) => <GraphScreen key={kb} kb={kb} />}</NeedsKb>;
    case 'models':
      return <ModelsScreen />;
    case 'evaluate':
      return <EvaluateScreen />;
    case 'settings':
      return <SettingsScreen />;
  }
}

function KbSwitcher() {
  const { t } = useTranslation();
  const kbs = useApp((s) => s.kbs);
  const kb = useApp((s) => s.kb);
  if (kbs.length === 0) return null;
  return (
    <label className="kb-switcher">
      <span>{t('app.knowledgeBase')}</span>
      <select
        value={kb ?? ''}
        onChange={(e) => useApp.getState().setKb(e.target.value || null)}
        data-testid="kb-switcher"
      >
        {kbs.map((k) => (
          <option key={k.name} value={k.name}>
            {k.name}
          </option>
        ))}
      </select>
    </label>
  );
}

export function App() {
  const { t } = useTranslation();
  const screen = useApp((s) => s.screen);
  const theme = useApp((s) => s.theme);
  const notice = useApp((s) => s.notice);
  const heading = useRef<HTMLHeadingElement>(null);
  const firstRender = useRef(true);

  useEffect(() => {
    if (theme === 'system') delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
  }, [theme]);

  // Moving to another screen moves focus to its heading, so keyboard and screen-reader users land there.
  useEffect(() => {
    if (firstRender.current) firstRender.current = false;
    else heading.current?.focus();
    document.title = `${t(`nav.${screen}`)} · Polyhop`;
  }, [screen, t]);

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        {t('app.skipToContent')}
      </a>
      <header className="app-header">
        <span className="brand">Polyhop</span>
        <nav aria-label={t('app.navigation')} className="main-nav">
          {SCREENS.map((s) => (
            <button
              key={s}
              type="button"
              aria-current={s === screen ? 'page' : undefined}
              onClick={() => useApp.getState().setScreen(s)}
              data-testid={`nav-${s}`}
            >
              {t(`nav.${s}`)}
            </button>
          ))}
        </nav>
        <KbSwitcher />
      </header>
      <main id="main" className="app-main" data-testid={`screen-${screen}`}>
        <h1 ref={heading} tabIndex={-1} className="screen-title">
          {t(`nav.${screen}`)}
        </h1>
        <ScreenBody screen={screen} />
      </main>
      <footer className="app-status" role="status" aria-live="polite" data-testid="app-notice">
        {notice}
      </footer>
    </div>
  );
}
