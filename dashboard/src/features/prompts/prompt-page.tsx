import { useEffect, useRef, useState } from 'preact/hooks';
import type { ChangeRequest, PromptDetail, Rollout, VersionContent } from '../../api/types';
import { useAction, useId, useLoad, useVisibleInterval } from '../../components/hooks';
import { ConfirmDialog } from '../../components/dialog';
import { Button, Control, DeniedNote, ErrorNote, FieldError, isFieldProblem, Loading, PageTitle, When } from '../../components/ui';
import { tagsFromText } from './prompt-list';
import { denial, labelDenial } from '../../logic/roles';
import { approvalsNeeded } from '../settings/approval-settings';
import { rollingOutNote, SERVED_POLL_MS } from '../rollouts/rollouts';
import { hrefOf } from '../../logic/route';
import { LabelHistory } from '../labels/label-history';
import { RolloutsSection } from '../rollouts/rollout-panel';
import { LabelMoveDialog, ChangeRequestOpenedNote } from '../labels/label-move';
import { newestFirst, newVersionProblem, nextVersions, VERSION_HINT } from '../versions/versions';
import { useWorkspace } from '../../workspace';

/** A prompt: its versions (published and drafts), its labels, a new draft, comparing, deleting and restoring. */
export function PromptPage({ promptId }: { promptId: string }) {
  const { api, account } = useWorkspace();
  const prompt = useLoad(() => api.prompt(account.accountId, promptId), [api, account.accountId, promptId]);
  if (!prompt.data) {
    return (
      <>
        <PageTitle>{promptId}</PageTitle>
        {prompt.loading ? <Loading what="the prompt" /> : null}
        <ErrorNote problem={prompt.problem} doing="Reading the prompt" />
      </>
    );
  }
  const detail = prompt.data;
  return (
    <>
      <p class="breadcrumb">
        <a href={hrefOf({ page: 'prompts', accountId: account.accountId })}>Prompts</a> / <span class="mono">{detail.promptId}</span>
      </p>
      <PageTitle>{detail.promptName}</PageTitle>
      <p class="muted">
        <span class="mono">{detail.promptId}</span> · latest published: <strong class="mono">{detail.latestVersion ?? 'none'}</strong>
        {detail.deleted ? (
          <>
            {' '}
            · <span class="badge warn">deleted: the read API answers 404 for it</span>
          </>
        ) : null}
      </p>
      <DetailsPanel detail={detail} onChanged={prompt.reload} />
      <Versions detail={detail} />
      <NewDraft detail={detail} />
      <LabelSections detail={detail} onChanged={prompt.reload} />
      <CompareChooser detail={detail} />
      <DeleteRestore detail={detail} onChanged={prompt.reload} />
    </>
  );
}

/** The prompt's name, description and tags: read by everyone, changed by editors. */
function DetailsPanel({ detail, onChanged }: { detail: PromptDetail; onChanged(): void }) {
  const { api, account, role, announce } = useWorkspace();
  const [name, setName] = useState(detail.promptName);
  const [description, setDescription] = useState(detail.description ?? '');
  const [tags, setTags] = useState(detail.tags.join(', '));
  const denied = denial(role, 'edit drafts');
  const deniedId = useId('details-denied');
  const save = useAction(async () => {
    await api.updatePromptDetails(account.accountId, detail.promptId, {
      promptName: name.trim(),
      description: description.trim() || null,
      tags: tagsFromText(tags),
    });
    announce('Details saved.');
    onChanged();
  });
  const unchanged =
    name.trim() === detail.promptName && (description.trim() || null) === detail.description && tagsFromText(tags).join(',') === detail.tags.join(',');
  return (
    <section aria-labelledby="details-title" class="card">
      <h2 id="details-title">Details</h2>
      <p class="muted">
        {detail.description ?? 'No description yet.'} {detail.tags.length > 0 ? `Tags: ${detail.tags.join(', ')}.` : ''}
      </p>
      <DeniedNote id={deniedId} reason={denied} />
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <Control label="Name" problem={save.problem} field="promptName" describedBy={denied ? deniedId : undefined}>
          {(control) => (
            <input {...control} value={name} required maxLength={200} disabled={denied !== undefined} onInput={(event) => setName(event.currentTarget.value)} />
          )}
        </Control>
        <Control label="Description" problem={save.problem} field="description">
          {(control) => (
            <input
              {...control}
              value={description}
              maxLength={1000}
              size={50}
              disabled={denied !== undefined}
              onInput={(event) => setDescription(event.currentTarget.value)}
            />
          )}
        </Control>
        <Control label="Tags" hint="Separated by commas: a to z, 0 to 9, - and _." problem={save.problem} field="tags">
          {(control) => <input {...control} value={tags} disabled={denied !== undefined} onInput={(event) => setTags(event.currentTarget.value)} />}
        </Control>
        <Button type="submit" kind="primary" busy={save.busy} busyText="Saving…" denied={denied} deniedId={deniedId} disabled={unchanged}>
          Save details
        </Button>
      </form>
      {isFieldProblem(save.problem, ['promptName', 'description', 'tags']) ? null : <ErrorNote problem={save.problem} doing="Saving the details" />}
    </section>
  );
}

function Versions({ detail }: { detail: PromptDetail }) {
  const { account } = useWorkspace();
  const versions = newestFirst(detail.versions);
  const labelsOf = (version: string) =>
    Object.entries(detail.labels)
      .filter(([, v]) => v === version)
      .map(([label]) => label);
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      {versions.length === 0 ? <p>No versions yet: start a draft below.</p> : null}
      <table class="list">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">State</th>
            <th scope="col">By and when</th>
            <th scope="col">Note</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v) => (
            <tr key={v.version}>
              <th scope="row">
                <a
                  class="mono"
                  href={hrefOf({ page: 'version', accountId: account.accountId, promptId: detail.promptId, version: v.version })}
                  aria-label={`Open version ${v.version}${v.published ? '' : ' (draft)'}`}
                >
                  {v.version}
                </a>{' '}
                {labelsOf(v.version).map((label) => (
                  <span key={label} class="badge">
                    {label}
                  </span>
                ))}
              </th>
              <td>{v.published ? <span class="badge ok">published</span> : <span class="badge draft">draft</span>}</td>
              <td>
                {v.published ? (
                  <>
                    {v.publishedBy ?? '—'}
                    <div class="muted">
                      <When iso={v.publishedAt} />
                    </div>
                  </>
                ) : (
                  <>
                    {v.updatedBy ?? '—'}
                    <div class="muted">
                      saved <When iso={v.updatedAt} />
                    </div>
                  </>
                )}
              </td>
              <td>{v.note ?? <span class="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export const EMPTY_CONTENT: VersionContent = {
  systemMessage: '',
  userMessage: '',
  config: { model: 'gpt-4o-mini', temperature: 0.7, schema: [], inputData: null, inputDataRootName: null },
};

/** A new draft from any version (or from nothing), numbered by default with the next patch. */
export function NewDraft({ detail, initialFrom }: { detail: PromptDetail; initialFrom?: string }) {
  const { api, account, role, navigate } = useWorkspace();
  const existing = detail.versions.map((v) => v.version);
  const suggested = nextVersions(existing);
  const sources = newestFirst(detail.versions);
  const [from, setFrom] = useState<string>(initialFrom ?? detail.latestVersion ?? sources[0]?.version ?? '');
  const [version, setVersion] = useState(suggested.patch);
  const [touched, setTouched] = useState(false);
  const denied = denial(role, 'edit drafts') ?? (detail.deleted ? 'This prompt is deleted: restore it before adding drafts.' : undefined);
  const deniedId = useId('new-draft-denied');
  const versionError = useId('draft-version-error');
  const versionId = useId('draft-version');
  const problem = touched ? newVersionProblem(version, existing) : undefined;
  const create = useAction(async () => {
    const content = from ? await api.version(account.accountId, detail.promptId, from) : EMPTY_CONTENT;
    await api.createDraft(account.accountId, detail.promptId, version, {
      systemMessage: content.systemMessage,
      userMessage: content.userMessage,
      config: content.config,
    });
    navigate({ page: 'version', accountId: account.accountId, promptId: detail.promptId, version });
  });
  return (
    <section aria-labelledby="new-draft-title" class="card">
      <h2 id="new-draft-title">New draft</h2>
      <DeniedNote id={deniedId} reason={denied} />
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          setTouched(true);
          if (newVersionProblem(version, existing) === undefined) void create.run();
        }}
      >
        <Control label="Start from">
          {(control) => (
            <select {...control} value={from} disabled={denied !== undefined} onChange={(event) => setFrom(event.currentTarget.value)}>
              {sources.map((v) => (
                <option key={v.version} value={v.version}>
                  version {v.version}
                  {v.published ? '' : ' (draft)'}
                </option>
              ))}
              <option value="">an empty prompt</option>
            </select>
          )}
        </Control>
        <div class="control">
          <label for={versionId}>Draft version</label>
          <input
            id={versionId}
            class="mono"
            value={version}
            disabled={denied !== undefined}
            aria-invalid={problem ? 'true' : undefined}
            aria-describedby={`${versionError} ${versionError}-api`}
            title={VERSION_HINT}
            onInput={(event) => {
              setVersion(event.currentTarget.value.trim());
              setTouched(true);
            }}
          />
          <span id={versionError} class={problem ? 'field-error' : 'hint'} role={problem ? 'alert' : undefined}>
            {problem ?? `Suggested: ${suggested.patch}, the next patch.`}
          </span>
          <FieldError problem={create.problem} field="version" id={`${versionError}-api`} />
        </div>
        <fieldset class="choices">
          <legend class="visually-hidden">Suggested versions</legend>
          {(['patch', 'minor', 'major'] as const).map((kind) => (
            <button key={kind} type="button" class="button plain small" disabled={denied !== undefined} onClick={() => setVersion(suggested[kind])}>
              Next {kind} {suggested[kind]}
            </button>
          ))}
        </fieldset>
        <Button type="submit" kind="primary" busy={create.busy} busyText="Creating the draft…" denied={denied} deniedId={deniedId}>
          Create draft
        </Button>
      </form>
      <ErrorNote problem={create.problem} doing="Creating the draft" />
    </section>
  );
}

/**
 * The labels, their rollouts and their history, which share one read of the labels' rollouts: a label rolling out
 * cannot be moved, removed or restored (409), and its history gains an entry at each change of the rollout. The
 * rollouts are read again every few seconds while the page is visible and one is active, for its served counts.
 */
function LabelSections({ detail, onChanged }: { detail: PromptDetail; onChanged(): void }) {
  const { api, account } = useWorkspace();
  const labels = Object.keys(detail.labels).sort((a, b) => a.localeCompare(b));
  const rollouts = useLoad(async () => {
    const found = await Promise.all(labels.map(async (label) => [label, await api.rollout(account.accountId, detail.promptId, label)] as const));
    return new Map(found.flatMap(([label, rollout]) => (rollout ? [[label, rollout] as const] : [])));
  }, [api, account.accountId, detail.promptId, labels.join('\n'), Object.values(detail.labels).join('\n')]);
  const active = rollouts.data !== undefined && rollouts.data.size > 0;
  useVisibleInterval(rollouts.reload, SERVED_POLL_MS, active);
  // A rollout that ended elsewhere (a person in another tab, the guard alarm) may have moved its label: read the prompt again.
  const seen = useRef<ReadonlySet<string>>(new Set());
  useEffect(() => {
    if (!rollouts.data) return;
    const now = new Set(rollouts.data.keys());
    const ended = [...seen.current].some((label) => !now.has(label));
    seen.current = now;
    if (ended) onChanged();
  }, [rollouts.data, onChanged]);
  const changed = () => {
    rollouts.reload();
    onChanged();
  };
  // The history reads again when a rollout starts, changes share or ends: each writes an entry.
  const rolloutMarks = new Map(labels.map((label) => [label, rolloutMark(rollouts.data?.get(label))]));
  return (
    <>
      <LabelsPanel detail={detail} rollouts={rollouts.data} onChanged={changed} />
      <RolloutsSection detail={detail} rollouts={rollouts.data} loading={rollouts.loading} problem={rollouts.problem} onChanged={changed} />
      <LabelHistory detail={detail} rollouts={rollouts.data} rolloutMarks={rolloutMarks} onChanged={changed} />
    </>
  );
}

const rolloutMark = (rollout: Rollout | undefined): string => (rollout ? `${rollout.rolloutId}:${rollout.percent}` : 'none');

function LabelsPanel({ detail, rollouts, onChanged }: { detail: PromptDetail; rollouts: ReadonlyMap<string, Rollout> | undefined; onChanged(): void }) {
  const { settings } = useWorkspace();
  const published = newestFirst(detail.versions.filter((v) => v.published));
  const protectedLabels = settings?.protectedLabels ?? ['production'];
  const approvals = settings?.approvals;
  const labels = Object.entries(detail.labels).sort(([a], [b]) => a.localeCompare(b));
  return (
    <section aria-labelledby="labels-title">
      <h2 id="labels-title">Labels</h2>
      <p class="muted">
        The read API serves a label's version for <code>?label=name</code>. To roll back, move the label to an earlier version, or restore it from its history
        below: it follows from the next request. Protected labels ({protectedLabels.join(', ') || 'none'}) need an admin.
        {approvals && approvals.labels.length > 0
          ? ` Moves of ${approvals.labels.join(', ')} need ${approvals.required === 1 ? 'an approval' : `${approvals.required} approvals`}: they open a change request.`
          : ''}
      </p>
      {published.length === 0 ? <p>Publish a version before labelling it.</p> : null}
      {labels.length > 0 ? (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Version</th>
              <th scope="col">Move or remove</th>
            </tr>
          </thead>
          <tbody>
            {labels.map(([label, version]) => (
              <LabelRow
                key={label}
                detail={detail}
                label={label}
                version={version}
                published={published.map((v) => v.version)}
                protectedLabels={protectedLabels}
                rollout={rollouts?.get(label)}
                onChanged={onChanged}
              />
            ))}
          </tbody>
        </table>
      ) : (
        <p>No labels yet.</p>
      )}
      {published.length > 0 ? (
        <AddLabel detail={detail} published={published.map((v) => v.version)} protectedLabels={protectedLabels} onChanged={onChanged} />
      ) : null}
    </section>
  );
}

function LabelRow(props: {
  detail: PromptDetail;
  label: string;
  version: string;
  published: string[];
  protectedLabels: readonly string[];
  rollout: Rollout | undefined;
  onChanged(): void;
}) {
  const { api, account, role, announce, settings, refreshAccount } = useWorkspace();
  const { detail, label } = props;
  const [target, setTarget] = useState(props.version);
  const [confirming, setConfirming] = useState(false);
  const [opened, setOpened] = useState<ChangeRequest | undefined>(undefined);
  const denied = labelDenial(role, label, props.protectedLabels) ?? (props.rollout ? rollingOutNote(props.rollout) : undefined);
  const deniedId = useId('label-denied');
  const isProtected = props.protectedLabels.includes(label);
  const approvals = approvalsNeeded(settings?.approvals, label);
  const move = useAction(async (note: string = '') => {
    const outcome = await api.setLabel(account.accountId, detail.promptId, label, target, { note });
    setConfirming(false);
    if (outcome.kind === 'requested') {
      setOpened(outcome.request);
      announce(`A change request was opened to move ${label} to ${target}.`);
      refreshAccount();
      return;
    }
    setOpened(undefined);
    announce(`${label} now points at ${target}.`);
    props.onChanged();
  });
  const remove = useAction(async () => {
    const outcome = await api.removeLabel(account.accountId, detail.promptId, label);
    if (outcome.kind === 'requested') {
      setOpened(outcome.request);
      announce(`A change request was opened to remove ${label}.`);
      refreshAccount();
      return;
    }
    announce(`${label} removed.`);
    props.onChanged();
  });
  return (
    <tr>
      <th scope="row">
        <span class="badge">{label}</span> {isProtected ? <span class="muted">protected</span> : null}
      </th>
      <td class="mono">{props.version}</td>
      <td>
        <div class="inline-form">
          <label>
            Version for {label}
            <select
              value={target}
              disabled={denied !== undefined}
              aria-describedby={denied ? deniedId : undefined}
              onChange={(event) => setTarget(event.currentTarget.value)}
            >
              {props.published.map((v) => (
                <option key={v} value={v}>
                  {v}
                  {v === props.version ? ' (current)' : ''}
                </option>
              ))}
            </select>
          </label>
          <Button
            kind="primary"
            busy={move.busy && !confirming}
            busyText="Moving…"
            denied={denied}
            deniedId={deniedId}
            disabled={target === props.version}
            onClick={() => (isProtected || approvals !== undefined ? setConfirming(true) : void move.run())}
          >
            Move {label}
          </Button>
          <Button kind="danger" busy={remove.busy} busyText="Removing…" denied={denied} deniedId={deniedId} onClick={() => void remove.run()}>
            Remove {label}
          </Button>
        </div>
        <DeniedNote id={deniedId} reason={denied} />
        {confirming ? null : <ErrorNote problem={move.problem} doing={`Moving ${label}`} />}
        <ErrorNote problem={remove.problem} doing={`Removing ${label}`} />
        {opened ? <ChangeRequestOpenedNote request={opened} /> : null}
        {confirming ? (
          <LabelMoveDialog
            promptId={detail.promptId}
            label={label}
            from={props.version}
            to={target}
            isProtected={isProtected}
            approvals={approvals}
            busy={move.busy}
            problem={move.problem}
            onConfirm={(note) => void move.run(note)}
            onCancel={() => {
              setConfirming(false);
              move.clear();
            }}
          />
        ) : null}
      </td>
    </tr>
  );
}

function AddLabel(props: { detail: PromptDetail; published: string[]; protectedLabels: readonly string[]; onChanged(): void }) {
  const { api, account, role, announce, settings, refreshAccount } = useWorkspace();
  const [label, setLabel] = useState('');
  const [version, setVersion] = useState(props.published[0] ?? '');
  const [confirming, setConfirming] = useState(false);
  const [opened, setOpened] = useState<ChangeRequest | undefined>(undefined);
  const name = label.trim();
  const denied = labelDenial(role, name === '' ? 'staging' : name, props.protectedLabels);
  const deniedId = useId('add-label-denied');
  const approvals = approvalsNeeded(settings?.approvals, name);
  const set = useAction(async (note: string = '') => {
    const outcome = await api.setLabel(account.accountId, props.detail.promptId, name, version, { note });
    setConfirming(false);
    setLabel('');
    if (outcome.kind === 'requested') {
      setOpened(outcome.request);
      announce(`A change request was opened to point ${name} at ${version}.`);
      refreshAccount();
      return;
    }
    setOpened(undefined);
    announce(`${name} now points at ${version}.`);
    props.onChanged();
  });
  const current = Object.hasOwn(props.detail.labels, name) ? props.detail.labels[name] : undefined;
  return (
    <form
      class="inline-form card"
      aria-labelledby="add-label-title"
      onSubmit={(event) => {
        event.preventDefault();
        if (props.protectedLabels.includes(name) || approvals !== undefined) setConfirming(true);
        else void set.run();
      }}
    >
      <h3 id="add-label-title">Point a label at a version</h3>
      <Control label="Label name" problem={set.problem} field="label" hint={LABEL_HINT} describedBy={denied ? deniedId : undefined}>
        {(control) => (
          <input
            {...control}
            value={label}
            list="common-labels"
            required
            pattern="[a-z][a-z0-9_\-]{0,31}"
            title={LABEL_HINT}
            disabled={denied !== undefined && name === ''}
            onInput={(event) => setLabel(event.currentTarget.value)}
          />
        )}
      </Control>
      <datalist id="common-labels">
        <option value="production" />
        <option value="staging" />
      </datalist>
      <Control label="Version to label">
        {(control) => (
          <select {...control} value={version} disabled={denied !== undefined} onChange={(event) => setVersion(event.currentTarget.value)}>
            {props.published.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        )}
      </Control>
      <Button type="submit" kind="primary" busy={set.busy && !confirming} busyText="Setting…" denied={denied} deniedId={deniedId}>
        Set label
      </Button>
      <DeniedNote id={deniedId} reason={denied} />
      {isFieldProblem(set.problem, ['label']) || confirming ? null : <ErrorNote problem={set.problem} doing="Setting the label" />}
      {opened ? <ChangeRequestOpenedNote request={opened} /> : null}
      {confirming ? (
        <LabelMoveDialog
          promptId={props.detail.promptId}
          label={name}
          from={current}
          to={version}
          isProtected={props.protectedLabels.includes(name)}
          approvals={approvals}
          busy={set.busy}
          problem={set.problem}
          onConfirm={(note) => void set.run(note)}
          onCancel={() => {
            setConfirming(false);
            set.clear();
          }}
        />
      ) : null}
    </form>
  );
}

const LABEL_HINT = '1 to 32 characters: a to z, 0 to 9, - and _, starting with a letter.';

function CompareChooser({ detail }: { detail: PromptDetail }) {
  const { account, navigate } = useWorkspace();
  const versions = newestFirst(detail.versions).map((v) => v.version);
  const [to, setTo] = useState(versions[0] ?? '');
  const [from, setFrom] = useState(versions[1] ?? versions[0] ?? '');
  if (versions.length < 2) return null;
  return (
    <section aria-labelledby="compare-title">
      <h2 id="compare-title">Compare two versions</h2>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          navigate({ page: 'compare', accountId: account.accountId, promptId: detail.promptId, from, to });
        }}
      >
        <label>
          Compare from
          <select value={from} onChange={(event) => setFrom(event.currentTarget.value)}>
            {versions.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </label>
        <label>
          Compare to
          <select value={to} onChange={(event) => setTo(event.currentTarget.value)}>
            {versions.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </label>
        <Button type="submit">Show differences</Button>
      </form>
    </section>
  );
}

function DeleteRestore({ detail, onChanged }: { detail: PromptDetail; onChanged(): void }) {
  const { api, account, role, announce } = useWorkspace();
  const [confirming, setConfirming] = useState(false);
  const denied = denial(role, 'delete and restore prompts');
  const deniedId = useId('delete-denied');
  const opener = useRef<HTMLDivElement>(null);
  const remove = useAction(async () => {
    await api.deletePrompt(account.accountId, detail.promptId);
    setConfirming(false);
    announce(`${detail.promptId} deleted.`);
    onChanged();
  });
  const restore = useAction(async () => {
    await api.restorePrompt(account.accountId, detail.promptId);
    announce(`${detail.promptId} restored.`);
    onChanged();
  });
  return (
    <section aria-labelledby="danger-title" class="card danger-zone">
      <h2 id="danger-title">{detail.deleted ? 'Restore' : 'Delete'}</h2>
      <DeniedNote id={deniedId} reason={denied} />
      <div ref={opener}>
        {detail.deleted ? (
          <>
            <p>Restoring brings the prompt back to the read API from the next request, with its versions and labels.</p>
            <Button kind="primary" busy={restore.busy} busyText="Restoring…" denied={denied} deniedId={deniedId} onClick={() => void restore.run()}>
              Restore prompt
            </Button>
            <ErrorNote problem={restore.problem} doing="Restoring the prompt" />
          </>
        ) : (
          <>
            <p>Deleting hides the prompt from the read API from the next request (404). It can be restored, labels included.</p>
            <Button kind="danger" denied={denied} deniedId={deniedId} onClick={() => setConfirming(true)}>
              Delete prompt
            </Button>
          </>
        )}
      </div>
      <ConfirmDialog
        open={confirming}
        title={`Delete ${detail.promptId}?`}
        confirmText="Yes, delete the prompt"
        busy={remove.busy}
        problem={remove.problem}
        doing="Deleting the prompt"
        onConfirm={() => void remove.run()}
        onCancel={() => {
          setConfirming(false);
          remove.clear();
        }}
      >
        <p>Applications asking for it get 404 from the next request until someone restores it.</p>
      </ConfirmDialog>
    </section>
  );
}
