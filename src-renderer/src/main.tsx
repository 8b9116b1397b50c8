import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { initI18n, setUiLanguage } from './i18n.js';
import { useApp } from './store/app.js';
import { connectJobEvents, useJobs } from './store/jobs.js';
import './styles.css';

async function start(): Promise<void> {
  await initI18n();
  connectJobEvents();
  const app = useApp.getState();
  void app.refreshKbs();
  void app.loadSettings().then(() => {
    const ui = useApp.getState().settings?.uiLanguage;
    if (ui) void setUiLanguage(ui);
  });
  void useJobs
    .getState()
    .sync()
    .catch(() => undefined); // no running jobs to recover is fine
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}

void start();
