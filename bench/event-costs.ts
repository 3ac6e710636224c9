import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Operations } from '../lambda/operations';
import type { EventItem } from '../lambda/table/item-types';
import { prefixes } from '../lambda/table/schema';
import { Table } from '../lambda/table/table';

/** What one change announced: its events, the bytes of their items, and the write units they add to its transaction. */
export interface EventCost {
  readonly change: string;
  readonly events: readonly string[];
  readonly bytes: readonly number[];
  readonly writeUnits: number;
}

/** DynamoDB's size of an item: each attribute's name and value (UTF-8); a number counted at its most, 21 bytes. */
function itemBytes(item: object): number {
  return Object.entries(item).reduce(
    (size, [name, value]) => size + Buffer.byteLength(name) + (typeof value === 'number' ? 21 : Buffer.byteLength(String(value))),
    0,
  );
}

/** A transactional write costs 2 write units per KB (rounded up) of each item. */
const transactionalUnits = (bytes: number): number => 2 * Math.ceil(bytes / 1024);

/**
 * Makes real changes through the operations every door uses (docs/events.md) on one account, and weighs the event
 * items each wrote in its own transaction: the write cost each change gains from announcing itself.
 */
export async function measureEventCosts(client: DynamoDBDocumentClient, tableName: string, accountId: string): Promise<EventCost[]> {
  const table = new Table(client, tableName, () => new Date());
  const operations = new Operations({ table, actor: { type: 'cli', operator: 'bench' } });
  const changes: [string, () => Promise<unknown>][] = [
    [
      'move a label (note of 60 characters)',
      () => operations.labels.set(accountId, 'p-0003', 'production', '1.0.0', { note: 'Ship the shorter subject line: opens went up 4% in the test.' }),
    ],
    ['remove a label', () => operations.labels.remove(accountId, 'p-0003', 'production')],
    ['start a rollout', () => operations.rollouts.start(accountId, 'p-0004', 'production', { to: '1.0.0', percent: 10 })],
    ['change its share', () => operations.rollouts.change(accountId, 'p-0004', 'production', { percent: 50 })],
    ['complete it (the label moves too)', () => operations.rollouts.complete(accountId, 'p-0004', 'production')],
    ['create a key', () => operations.keys.create(accountId, { name: 'bench events' })],
    ['delete a prompt', () => operations.prompts.delete(accountId, 'p-0005')],
    ['restore it', () => operations.prompts.restore(accountId, 'p-0005')],
  ];
  const costs: EventCost[] = [];
  for (const [change, make] of changes) {
    const before = new Set((await eventItems(table, accountId)).map((item) => item.eventId));
    await make();
    const written = (await eventItems(table, accountId)).filter((item) => !before.has(item.eventId));
    const bytes = written.map(itemBytes);
    costs.push({ change, events: written.map((item) => item.eventType), bytes, writeUnits: bytes.reduce((sum, each) => sum + transactionalUnits(each), 0) });
  }
  return costs;
}

function eventItems(table: Table, accountId: string): Promise<EventItem[]> {
  return table.queryPartition<EventItem>('benchEvents', accountId, prefixes.events, { ConsistentRead: true });
}
