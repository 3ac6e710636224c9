import type { IssuedKey } from '../../api/types';
import { Button, CopyButton } from '../../components/ui';
import { curlSnippet, mcpSnippet, pythonSnippet, typeScriptSnippet } from './snippets';
import { useWorkspace } from '../../workspace';

/** The one time a key's secret is on screen: copy it now, with code that uses it. */
export function SecretPanel({ issued, why, promptId, onDone }: { issued: IssuedKey; why: string; promptId: string | undefined; onDone(): void }) {
  const { config } = useWorkspace();
  const samples = [
    { title: 'Try it with curl', text: curlSnippet(config.readApiUrl, issued.apiKey, promptId), copy: 'Copy curl command', rows: 2 },
    { title: 'Use it from TypeScript', text: typeScriptSnippet(config.readApiUrl, promptId), copy: 'Copy TypeScript code', rows: 6 },
    { title: 'Use it from Python', text: pythonSnippet(config.readApiUrl, promptId), copy: 'Copy Python code', rows: 7 },
    { title: "An MCP client's configuration", text: mcpSnippet(config.readApiUrl, issued.apiKey), copy: 'Copy MCP configuration', rows: 10 },
  ];
  return (
    <section aria-labelledby="secret-title" class="card secret">
      <h2 id="secret-title">Copy your new key now</h2>
      <p>
        {why} <strong>This is the only time it is shown:</strong> only its hash is stored, so nobody can show it again. Keep it in your application's secret
        settings.
      </p>
      <div class="field copy-row">
        <label>
          <span class="label">New API key</span>
          <input class="mono" readOnly value={issued.apiKey} size={Math.min(60, issued.apiKey.length + 2)} onFocus={(event) => event.currentTarget.select()} />
        </label>
        <CopyButton text={issued.apiKey} label="Copy key" copiedText="Key copied" />
      </div>
      <p class="muted">
        Each sample reads what the <code>production</code> label points at: drop the label for the latest version.
      </p>
      {samples.map((sample) => (
        <div class="field copy-row" key={sample.title}>
          <label>
            <span class="label">{sample.title}</span>
            <textarea class="mono" readOnly rows={sample.rows} value={sample.text} />
          </label>
          <CopyButton text={sample.text} label={sample.copy} />
        </div>
      ))}
      <Button kind="primary" onClick={onDone}>
        I have copied the key
      </Button>
    </section>
  );
}
