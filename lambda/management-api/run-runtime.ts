import { loadRunConfig } from '../config';
import { createModels } from '../models/models';
import { managementDependencies } from './runtime';
import type { RunDependencies } from './streaming-handler';

/** The run function's dependencies, built once per cold start: the management functions', and the stack's models. */
export function runDependencies(env: NodeJS.ProcessEnv = process.env): RunDependencies {
  const config = loadRunConfig(env);
  return { ...managementDependencies(env), models: createModels(config.models) };
}
