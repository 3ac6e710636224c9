import { useState } from 'preact/hooks';
import type { PromptDetail } from '../../api/types';
import { useAction, useId } from '../../components/hooks';
import { Button, Control, DeniedNote, ErrorNote, isFieldProblem } from '../../components/ui';
import { denial } from '../../logic/roles';
import { useWorkspace } from '../../workspace';
import { tagsFromText } from './prompt-list';

/** The prompt's name, description and tags: read by everyone, changed by editors. */
export function DetailsPanel({ detail, onChanged }: { detail: PromptDetail; onChanged(): void }) {
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
