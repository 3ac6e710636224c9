import { ConfigError, loadModelsConfig } from '../../lambda/config';
import { apiKeySecretArns, bedrockResourceArns, CatalogError, DEFAULT_CATALOG, localCatalog, parseCatalog, publicModel } from '../../lambda/models/catalog';

/** docs/runs.md "Models": the catalog, a deploy setting with a default, and the exact ARNs IAM allows. */

const WHERE = { partition: 'aws', region: 'us-east-1', account: '123456789012' };
const openAi = {
  modelId: 'gpt-4o-mini',
  provider: 'openai',
  inputUsdPerMTok: 0.15,
  outputUsdPerMTok: 0.6,
  baseUrl: 'https://api.openai.com/v1/',
  apiKeySecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:openai-key-AbCdEf',
};

test('the default catalog is current Bedrock models, inference profiles and a model id, and reads back as a deploy setting', () => {
  expect(DEFAULT_CATALOG.every((model) => model.provider === 'bedrock')).toBe(true);
  expect(DEFAULT_CATALOG.some((model) => model.modelId.startsWith('us.'))).toBe(true);
  expect(DEFAULT_CATALOG.some((model) => !model.modelId.startsWith('us.'))).toBe(true);
  expect(parseCatalog(JSON.stringify(DEFAULT_CATALOG))).toEqual(DEFAULT_CATALOG);
});

test('IAM allows exactly each profile, its foundation model in each region it routes to, and a model id in the stack region, never *', () => {
  const arns = bedrockResourceArns(
    parseCatalog(
      JSON.stringify([
        { modelId: 'us.amazon.nova-lite-v1:0', provider: 'bedrock', inputUsdPerMTok: 0.06, outputUsdPerMTok: 0.24, regions: ['us-east-1', 'us-west-2'] },
        { modelId: 'amazon.nova-micro-v1:0', provider: 'bedrock', inputUsdPerMTok: 0.035, outputUsdPerMTok: 0.14 },
        openAi,
      ]),
    ),
    WHERE,
  );
  expect(arns).toEqual([
    'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-lite-v1:0',
    'arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-lite-v1:0',
    'arn:aws:bedrock:us-west-2::foundation-model/amazon.nova-lite-v1:0',
    'arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-micro-v1:0',
  ]);
  expect(bedrockResourceArns(DEFAULT_CATALOG, WHERE).some((arn) => arn.includes('*'))).toBe(false);
});

test('an inference profile without the regions it routes to is refused, naming the field', () => {
  expect(() => parseCatalog(JSON.stringify([{ modelId: 'us.amazon.nova-lite-v1:0', provider: 'bedrock', inputUsdPerMTok: 1, outputUsdPerMTok: 1 }]))).toThrow(
    'models[0].regions',
  );
});

test.each([
  ['not JSON', '{', 'models: must be JSON'],
  ['an empty list', '[]', 'at least one model'],
  ['an unknown provider', JSON.stringify([{ ...openAi, provider: 'azure' }]), 'models[0].provider'],
  ['a negative price', JSON.stringify([{ ...openAi, inputUsdPerMTok: -1 }]), 'models[0].inputUsdPerMTok'],
  ['an unknown field', JSON.stringify([{ ...openAi, apiKey: 'sk-live' }]), 'unknown field apiKey'],
  ['an openai model without its endpoint', JSON.stringify([{ ...openAi, baseUrl: undefined }]), 'models[0].baseUrl'],
  ['a base URL carrying credentials', JSON.stringify([{ ...openAi, baseUrl: 'https://user:pw@example.com/v1' }]), 'models[0].baseUrl'],
  ['a secret that is not a Secrets Manager ARN', JSON.stringify([{ ...openAi, apiKeySecretArn: 'openai-key' }]), 'models[0].apiKeySecretArn'],
  ['the same model twice', JSON.stringify([openAi, openAi]), 'models[1].modelId: gpt-4o-mini is in the catalog twice'],
  ['an endpoint field on a Bedrock model', JSON.stringify([{ ...DEFAULT_CATALOG[4], baseUrl: 'https://example.com' }]), 'only an openai model'],
])('a catalog with %s is refused, naming what is wrong', (_what, text, message) => {
  expect(() => parseCatalog(text)).toThrow(CatalogError);
  expect(() => parseCatalog(text)).toThrow(message);
});

test('an openai model takes a temperature up to 2 by default, Bedrock and the stand-in up to 1', () => {
  const [model] = parseCatalog(JSON.stringify([openAi]));
  expect(model?.maxTemperature).toBe(2);
  expect(model?.baseUrl).toBe('https://api.openai.com/v1');
  expect(DEFAULT_CATALOG.every((entry) => entry.maxTemperature === 1)).toBe(true);
});

test('what GET models shows of a model says nothing of its endpoint key', () => {
  const [model] = parseCatalog(JSON.stringify([{ ...openAi, apiKeyEnv: 'OPENAI_API_KEY', apiKeySecretArn: undefined }]));
  if (!model) throw new Error('no model');
  expect(Object.keys(publicModel(model)).sort()).toEqual([
    'inputUsdPerMTok',
    'modelId',
    'name',
    'outputUsdPerMTok',
    'provider',
    'streaming',
    'structuredOutput',
  ]);
});

test('IAM reads exactly the secrets the catalog names', () => {
  expect(apiKeySecretArns(parseCatalog(JSON.stringify([openAi, { ...openAi, modelId: 'gpt-4o' }])))).toEqual([openAi.apiKeySecretArn]);
});

describe('lambda/config.ts reads the models', () => {
  test('without MODELS, a stand-in address gives the local catalog: every model local, the demo seed’s among them', () => {
    const config = loadModelsConfig({ AWS_ENDPOINT_URL_BEDROCK_RUNTIME: 'http://127.0.0.1:3004' });
    expect(config.catalog).toEqual(localCatalog());
    expect(config.catalog.every((model) => model.provider === 'local')).toBe(true);
    expect(config.catalog.map((model) => model.modelId)).toEqual(expect.arrayContaining(['gpt-4o-mini', DEFAULT_CATALOG[0]?.modelId]));
    expect(config.standInEndpoint).toBe('http://127.0.0.1:3004');
  });

  test('without MODELS or a stand-in, the default Bedrock catalog', () => {
    expect(loadModelsConfig({}).catalog).toEqual(DEFAULT_CATALOG);
  });

  test('MODELS is the deploy setting, refused with the field named', () => {
    expect(loadModelsConfig({ MODELS: JSON.stringify([openAi]) }).catalog.map((model) => model.modelId)).toEqual(['gpt-4o-mini']);
    expect(() => loadModelsConfig({ MODELS: '[{"modelId": "x"}]' })).toThrow(ConfigError);
    expect(() => loadModelsConfig({ MODELS: '[{"modelId": "x"}]' })).toThrow('Environment variable MODELS: models[0].provider');
  });

  test('local models without the stand-in’s address stop the cold start', () => {
    const local = JSON.stringify([{ modelId: 'm', provider: 'local', inputUsdPerMTok: 0, outputUsdPerMTok: 0 }]);
    expect(() => loadModelsConfig({ MODELS: local })).toThrow('AWS_ENDPOINT_URL_BEDROCK_RUNTIME is required');
  });

  test('an endpoint key named by apiKeyEnv is read from the environment, and only that variable', () => {
    const models = JSON.stringify([{ ...openAi, apiKeySecretArn: undefined, apiKeyEnv: 'OPENAI_API_KEY' }]);
    const config = loadModelsConfig({ MODELS: models, OPENAI_API_KEY: ' sk-local-1234 ', OTHER_KEY: 'x' });
    expect([...config.endpointKeys]).toEqual([['gpt-4o-mini', 'sk-local-1234']]);
  });
});
