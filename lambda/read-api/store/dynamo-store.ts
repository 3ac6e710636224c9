import type { StoreClients } from '../../table/client';
import type {
  Admission,
  AdmissionRequest,
  AdmittedKey,
  ApiStore,
  AtLabel,
  Deadline,
  KeyCheckRequest,
  PromptLookup,
  PromptReader,
  ServedCount,
  ServedOutcome,
  UsageSlot,
} from './api-store';
import type { Prompt, PromptWithVersions } from '../../domain/prompt';
import { DynamoPromptStore } from './dynamo-prompt-store';
import { DynamoUsageStore } from './dynamo-usage-store';

/**
 * The API's store on DynamoDB: its key checks and counts (dynamo-usage-store.ts) and its reads of prompts
 * (dynamo-prompt-store.ts), over the same clients and table.
 */
export class DynamoStore implements ApiStore {
  private readonly usage: DynamoUsageStore;
  private readonly prompts: DynamoPromptStore;

  constructor(clients: Pick<StoreClients, 'reads' | 'writes'>, tableName: string) {
    this.usage = new DynamoUsageStore(clients, tableName);
    this.prompts = new DynamoPromptStore(clients, tableName);
  }

  admit(request: AdmissionRequest, deadline: Deadline): Promise<Admission> {
    return this.usage.admit(request, deadline);
  }

  checkKey(request: KeyCheckRequest, deadline: Deadline): Promise<AdmittedKey | undefined> {
    return this.usage.checkKey(request, deadline);
  }

  returnUsageUnit(keyHash: string, slot: UsageSlot, deadline: Deadline, served?: ServedCount): Promise<void> {
    return this.usage.returnUsageUnit(keyHash, slot, deadline, served);
  }

  countServed(keyHash: string, served: ServedCount, deadline: Deadline): Promise<ServedOutcome> {
    return this.usage.countServed(keyHash, served, deadline);
  }

  findLatestPrompt(reader: PromptReader, promptId: string): Promise<PromptLookup> {
    return this.prompts.findLatestPrompt(reader, promptId);
  }

  findPromptVersion(reader: PromptReader, promptId: string, version: string): Promise<PromptLookup> {
    return this.prompts.findPromptVersion(reader, promptId, version);
  }

  findLabelledPrompt(reader: PromptReader, promptId: string, label: string): Promise<PromptLookup> {
    return this.prompts.findLabelledPrompt(reader, promptId, label);
  }

  listPrompts(reader: PromptReader): Promise<Prompt[]> {
    return this.prompts.listPrompts(reader);
  }

  listPromptsWithVersions(reader: PromptReader): Promise<PromptWithVersions[]> {
    return this.prompts.listPromptsWithVersions(reader);
  }

  listLabelledPrompts(reader: PromptReader, label: string): Promise<AtLabel<Prompt>[]> {
    return this.prompts.listLabelledPrompts(reader, label);
  }

  listLabelledPromptsWithVersions(reader: PromptReader, label: string): Promise<AtLabel<PromptWithVersions>[]> {
    return this.prompts.listLabelledPromptsWithVersions(reader, label);
  }
}
