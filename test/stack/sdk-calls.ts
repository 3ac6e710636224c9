import * as path from 'node:path';
import ts from 'typescript';
import { ADMIN_INDEX_PARTITION_KEY, PARTITION_KEY } from '../../lambda/table/schema';

/**
 * What a Lambda function's code can call, read from the code itself with TypeScript's type checker: from
 * its roots (the entry file, and for a management function the handlers of its routes), every function,
 * method, constructor and value its code refers to, followed transitively through lambda/, and in that code
 * every AWS SDK command it builds and every table-schema key builder it uses.
 *
 * Sound where the code calls what it names: a call through an interface reaches every class of lambda/ that
 * implements it; a callback is reached as part of the function that writes it. What it cannot see is said
 * where it matters (the `barriers` of an analysis), and the test checks those separately.
 */

const ROOT = path.join(__dirname, '../..');
const posix = (file: string): string => file.split(path.sep).join('/');
/** TypeScript names files with forward slashes everywhere. */
const LAMBDA_DIR = `${posix(ROOT)}/lambda/`;
const SDK_DIR = '/node_modules/@aws-sdk/';
const TABLE_SCHEMA = `${LAMBDA_DIR}table/schema.ts`;
/**
 * A transaction's ConditionCheck is built by this one function of lambda/table/transaction.ts, and nowhere else:
 * code that uses it sends one (IAM's `dynamodb:ConditionCheckItem`, which a transaction's check needs of its own).
 */
const CONDITION_CHECK = { file: `${LAMBDA_DIR}table/transaction.ts`, name: 'conditionCheck', action: 'dynamodb:ConditionCheckItem' } as const;

export interface CodeReach {
  /**
   * IAM actions of the SDK commands the code builds (`dynamodb:Query`, `cognito-idp:AdminCreateUser`), each
   * with the path that reaches it, innermost first, to say why in a failure.
   */
  readonly actions: ReadonlyMap<string, string>;
  /** Members of table-schema.ts's key builders it uses: `keys.apiKey`, `prefixes.accountPartition`, `adminIndexKeys.keysOf`. */
  readonly keyBuilders: ReadonlySet<string>;
  /** What its queries' key conditions name first: the table's partition key (`pk`) or the admin index's (`gsi1pk`). */
  readonly queried: ReadonlySet<'table' | 'index'>;
}

export interface Roots {
  /** Files whose every statement runs: a function's entry file. */
  readonly files: readonly string[];
  /** Further code the function runs: a route's handler, found in its file. */
  readonly nodes?: readonly ts.Node[];
  /** Code never followed, called or written inside what is: given by the caller, which must justify each. */
  readonly barriers?: readonly ts.Node[];
}

/** lib-dynamodb's document commands, by the DynamoDB action each sends. */
const DOCUMENT_COMMANDS: Readonly<Record<string, string>> = {
  GetCommand: 'GetItem',
  PutCommand: 'PutItem',
  UpdateCommand: 'UpdateItem',
  DeleteCommand: 'DeleteItem',
  QueryCommand: 'Query',
  ScanCommand: 'Scan',
  BatchGetCommand: 'BatchGetItem',
  BatchWriteCommand: 'BatchWriteItem',
  TransactGetCommand: 'TransactGetItems',
  TransactWriteCommand: 'TransactWriteItems',
  ExecuteStatementCommand: 'PartiQLSelect',
};

/** The IAM action of an SDK command class or paginator, from the package that declares it. */
function actionOf(name: string, file: string): string | undefined {
  const pkg = /node_modules\/(@aws-sdk\/[^/]+)\//.exec(file)?.[1];
  const paginated = /^paginate([A-Z]\w*)$/.exec(name)?.[1];
  const command = /^([A-Z]\w*)Command$/.exec(name)?.[1];
  if (paginated === undefined && command === undefined) return undefined;
  switch (pkg) {
    case '@aws-sdk/lib-dynamodb': {
      const action = paginated ?? DOCUMENT_COMMANDS[name];
      if (!action) throw new Error(`no IAM action known for ${name} of ${pkg}`);
      return `dynamodb:${action}`;
    }
    case '@aws-sdk/client-dynamodb':
      return `dynamodb:${paginated ?? command}`;
    case '@aws-sdk/client-cognito-identity-provider':
      return `cognito-idp:${paginated ?? command}`;
    case '@aws-sdk/client-eventbridge':
      return `events:${paginated ?? command}`;
    case '@aws-sdk/client-kms':
      return `kms:${paginated ?? command}`;
    case '@aws-sdk/client-bedrock-runtime': {
      // Converse is allowed by InvokeModel, ConverseStream by InvokeModelWithResponseStream (Bedrock's IAM).
      const action = { Converse: 'InvokeModel', ConverseStream: 'InvokeModelWithResponseStream' }[command ?? ''];
      if (!action) throw new Error(`no IAM action known for ${name} of ${pkg}`);
      return `bedrock:${action}`;
    }
    case '@aws-sdk/client-secrets-manager':
      return `secretsmanager:${paginated ?? command}`;
    case '@aws-sdk/client-sqs': {
      // A batch call needs the single call's action: IAM has none of its own for it.
      const action = paginated ?? command ?? '';
      return `sqs:${action.endsWith('Batch') ? action.slice(0, -'Batch'.length) : action}`;
    }
    default:
      throw new Error(`${name} of ${pkg ?? file}: a client this analysis has no IAM prefix for`);
  }
}

export class CodeAnalysis {
  readonly program: ts.Program;
  readonly checker: ts.TypeChecker;
  readonly #classes: ts.ClassDeclaration[];

  constructor(entryFiles: readonly string[]) {
    const config = ts.getParsedCommandLineOfConfigFile(
      path.join(ROOT, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
          throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
        },
      },
    );
    if (!config) throw new Error('cannot read tsconfig.json');
    this.program = ts.createProgram({ rootNames: entryFiles.map((file) => path.join(ROOT, file)), options: config.options });
    this.checker = this.program.getTypeChecker();
    this.#classes = this.program
      .getSourceFiles()
      .filter((file) => file.fileName.startsWith(LAMBDA_DIR))
      .flatMap((file) => file.statements.filter(ts.isClassDeclaration));
  }

  sourceFile(file: string): ts.SourceFile {
    const found = this.program.getSourceFile(path.join(ROOT, file));
    if (!found) throw new Error(`${file} is not in the program`);
    return found;
  }

  /** The initializer of a top-level `const name = ...` of a file. */
  constInitializer(file: string, name: string): ts.Expression {
    for (const statement of this.sourceFile(file).statements) {
      if (!ts.isVariableStatement(statement)) continue;
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name) && declaration.name.text === name && declaration.initializer) return declaration.initializer;
      }
    }
    throw new Error(`${file} declares no const ${name}`);
  }

  reach(roots: Roots): CodeReach {
    const actions = new Map<string, string>();
    const keyBuilders = new Set<string>();
    const queried = new Set<'table' | 'index'>();
    const barriers = new Set<ts.Node>(roots.barriers ?? []);
    const visited = new Set<ts.Node>(barriers);
    const pending: ts.Node[] = [...roots.files.map((file) => this.sourceFile(file)), ...(roots.nodes ?? [])];
    /** What made the analysis follow a node: the name whose use led there. */
    const cause = new Map<ts.Node, ts.Node>();
    const push = (node: ts.Node, usage: ts.Node): void => {
      if (!cause.has(node)) cause.set(node, usage);
      pending.push(node);
    };
    const pathTo = (usage: ts.Node): string => {
      const steps: string[] = [];
      for (let step: ts.Node | undefined = usage; step !== undefined && steps.length < 40; ) {
        steps.push(describe(step));
        let scope: ts.Node | undefined = step;
        step = undefined;
        for (; scope !== undefined && step === undefined; scope = scope.parent) step = cause.get(scope);
      }
      return steps.join(' <- ');
    };

    const follow = (declaration: ts.Declaration, usage: ts.Identifier): void => {
      const file = posix(declaration.getSourceFile().fileName);
      if (file.includes(SDK_DIR)) {
        const name = (declaration as { name?: ts.Node }).name;
        // Commands are classes; paginators are functions, declared as such or as consts of a function type.
        const runs = ts.isClassDeclaration(declaration) || ts.isFunctionDeclaration(declaration) || ts.isVariableDeclaration(declaration);
        const action = runs && name && ts.isIdentifier(name) ? actionOf(name.text, file) : undefined;
        if (action && !actions.has(action)) actions.set(action, pathTo(usage));
        return;
      }
      if (!file.startsWith(LAMBDA_DIR)) return;
      if (file === CONDITION_CHECK.file && ts.isFunctionDeclaration(declaration) && declaration.name?.text === CONDITION_CHECK.name) {
        if (!actions.has(CONDITION_CHECK.action)) actions.set(CONDITION_CHECK.action, pathTo(usage));
      }
      if (file === TABLE_SCHEMA) {
        const member = schemaMemberOf(declaration);
        if (member) keyBuilders.add(member);
      }
      if (ts.isVariableDeclaration(declaration)) {
        // `keys.apiKey(...)`: the member is followed on its own, not every builder of the object.
        const ofMember = ts.isPropertyAccessExpression(usage.parent) && usage.parent.expression === usage;
        const initializer = declaration.initializer && unwrapped(declaration.initializer);
        if (initializer && !(ofMember && ts.isObjectLiteralExpression(initializer))) push(initializer, usage);
        return;
      }
      if (ts.isClassDeclaration(declaration)) {
        // `new X(...)` runs its constructor and field initializers, and its base class's.
        for (const member of declaration.members) {
          const isStatic = ts.getCombinedModifierFlags(member as ts.Declaration) & ts.ModifierFlags.Static;
          if (ts.isConstructorDeclaration(member) || (ts.isPropertyDeclaration(member) && !isStatic)) push(member, usage);
        }
        for (const clause of declaration.heritageClauses ?? []) for (const type of clause.types) push(type.expression, usage);
        return;
      }
      if (ts.isMethodSignature(declaration) || ts.isPropertySignature(declaration)) {
        for (const implementation of this.implementationsOf(declaration)) push(implementation, usage);
        return;
      }
      if (
        ts.isFunctionDeclaration(declaration) ||
        ts.isMethodDeclaration(declaration) ||
        ts.isGetAccessorDeclaration(declaration) ||
        ts.isSetAccessorDeclaration(declaration) ||
        ts.isConstructorDeclaration(declaration) ||
        ts.isPropertyAssignment(declaration) ||
        ts.isPropertyDeclaration(declaration) ||
        ts.isEnumDeclaration(declaration)
      ) {
        push(declaration, usage);
      }
    };

    const visit = (node: ts.Node): void => {
      if (barriers.has(node)) return;
      // Types leave nothing at run time, and imports are followed where the imported names are used.
      if (ts.isTypeNode(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isImportDeclaration(node)) return;
      if (ts.isPropertyAssignment(node) && node.name.getText() === 'KeyConditionExpression') {
        for (const condition of literalTexts(node.initializer)) queried.add(keyConditionTarget(condition, node));
      }
      if (ts.isIdentifier(node) && !isDeclarationName(node)) {
        for (const declaration of this.symbolAt(node)?.declarations ?? []) follow(declaration, node);
      }
      ts.forEachChild(node, visit);
    };

    while (pending.length > 0) {
      const node = pending.pop() as ts.Node;
      if (visited.has(node)) continue;
      visited.add(node);
      visit(node);
    }
    return { actions, keyBuilders, queried };
  }

  private symbolAt(node: ts.Identifier): ts.Symbol | undefined {
    const symbol =
      ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node
        ? this.checker.getShorthandAssignmentValueSymbol(node.parent)
        : this.checker.getSymbolAtLocation(node);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) return this.checker.getAliasedSymbol(symbol);
    return symbol;
  }

  /** The members of lambda/'s classes that implement an interface's member: what a call through the interface may run. */
  private implementationsOf(signature: ts.MethodSignature | ts.PropertySignature): ts.Node[] {
    const owner = signature.parent;
    if (!ts.isInterfaceDeclaration(owner) && !ts.isTypeLiteralNode(owner)) return [];
    const name = signature.name.getText();
    const interfaceType = this.checker.getTypeAtLocation(owner);
    return this.#classes.flatMap((declaration) => {
      const member = declaration.members.find((candidate) => candidate.name?.getText() === name);
      if (!member || !declaration.name) return [];
      const instanceType = this.checker.getDeclaredTypeOfSymbol(this.checker.getSymbolAtLocation(declaration.name) as ts.Symbol);
      return this.checker.isTypeAssignableTo(instanceType, interfaceType) ? [member] : [];
    });
  }
}

/** `name (lambda/table/table.ts:100)`: a use of a name, where it is. */
function describe(node: ts.Node): string {
  const file = node.getSourceFile();
  const { line } = file.getLineAndCharacterOfPosition(node.getStart());
  return `${node.getText().slice(0, 40)} (${posix(path.relative(ROOT, file.fileName))}:${line + 1})`;
}

/** The texts an expression can have: a string literal, or either branch of a condition of them. */
function literalTexts(expression: ts.Expression): string[] {
  const inner = unwrapped(expression);
  if (ts.isStringLiteral(inner) || ts.isNoSubstitutionTemplateLiteral(inner)) return [inner.text];
  if (ts.isConditionalExpression(inner)) return [...literalTexts(inner.whenTrue), ...literalTexts(inner.whenFalse)];
  throw new Error(`a KeyConditionExpression that is not written out (${describe(expression)}): the analysis cannot tell what it queries`);
}

/** `pk = :pk AND ...` queries the table, `gsi1pk = :pk ...` the admin index. */
function keyConditionTarget(condition: string, where: ts.Node): 'table' | 'index' {
  const attribute = condition.trim().split(/\s/)[0];
  if (attribute === PARTITION_KEY) return 'table';
  if (attribute === ADMIN_INDEX_PARTITION_KEY) return 'index';
  throw new Error(`a key condition on ${attribute} (${describe(where)}): neither the table's partition key nor the admin index's`);
}

/** `{ ... } as const` and `(...)` are what they wrap. */
function unwrapped(expression: ts.Expression): ts.Expression {
  let current = expression;
  while (ts.isAsExpression(current) || ts.isParenthesizedExpression(current) || ts.isSatisfiesExpression(current)) current = current.expression;
  return current;
}

function isDeclarationName(node: ts.Identifier): boolean {
  const parent = node.parent;
  return (
    (ts.isVariableDeclaration(parent) ||
      ts.isFunctionDeclaration(parent) ||
      ts.isClassDeclaration(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isParameter(parent) ||
      ts.isBindingElement(parent)) &&
    parent.name === node
  );
}

/** `keys.apiKey` for the property `apiKey` of `export const keys = { ... }` in table-schema.ts. */
function schemaMemberOf(declaration: ts.Declaration): string | undefined {
  if (!ts.isPropertyAssignment(declaration)) return undefined;
  const object = declaration.parent;
  if (!ts.isObjectLiteralExpression(object)) return undefined;
  let variable: ts.Node = object.parent;
  while (ts.isAsExpression(variable) || ts.isSatisfiesExpression(variable)) variable = variable.parent;
  if (!ts.isVariableDeclaration(variable)) return undefined;
  return `${variable.name.getText()}.${declaration.name.getText()}`;
}
