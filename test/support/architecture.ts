import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository's root folder (this file lives in `test/support/`). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The comment that excuses a function from the length limit, with its reason after the colon. */
export const LONG_REASON = '// Long because:';

/** One import of one module by another, as written in the importer. */
export interface ImportEdge {
  /** The importing module, relative to the repository root with `/` separators. */
  from: string;
  /** The imported module, relative to the repository root with `/` separators. */
  to: string;
  /** 1-based line of the import in the importer. */
  line: number;
  /** True when the import brings in types only (`import type`, `export type`, `import('x').T`). */
  typeOnly: boolean;
  /** The names imported as values (`import { A, type B }` gives `['A']`); `'*'` for a namespace or side-effect import, `'default'` for a default one. */
  values: string[];
}

/** A function longer than the limit, named as the test reports it. */
export interface LongFunction {
  /** The module, relative to the repository root. */
  file: string;
  /** The function's name, or what it is assigned to; `anonymous in NAME` for an unnamed one inside NAME. */
  name: string;
  /** 1-based line where the function starts. */
  line: number;
  /** Lines from its first to its last, both counted. */
  lines: number;
}

/** The repository path of `file`, with `/` separators. */
export function repoPath(file: string): string {
  return relative(REPO_ROOT, file).split(sep).join('/');
}

/** Every `.ts` and `.tsx` file under the given repository folders (declaration files excluded), sorted. */
export function sourceFiles(folders: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      const path = join(folder, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry) && !entry.endsWith('.d.ts')) found.push(repoPath(path));
    }
  };
  for (const folder of folders) walk(join(REPO_ROOT, folder));
  return found.sort();
}

/** Parses one repository module. */
export function parseModule(path: string, text = readFileSync(join(REPO_ROOT, path), 'utf8')): ts.SourceFile {
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
}

/** The compiler options of the repository's tsconfig.json, used to resolve imports as tsc does. */
function compilerOptions(): ts.CompilerOptions {
  const configPath = join(REPO_ROOT, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(configPath, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(config, ts.sys, REPO_ROOT).options;
}

/** One module specifier found in a source file, before resolution. */
interface Specifier {
  text: string;
  line: number;
  typeOnly: boolean;
  values: string[];
}

/** The value names an import clause brings in (type-only specifiers left out). */
function importedValues(clause: ts.ImportClause | undefined): string[] {
  if (!clause) return ['*'];
  if (clause.isTypeOnly) return [];
  const values: string[] = [];
  if (clause.name) values.push('default');
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) values.push('*');
  if (bindings && ts.isNamedImports(bindings)) {
    for (const element of bindings.elements) {
      if (!element.isTypeOnly) values.push((element.propertyName ?? element.name).text);
    }
  }
  return values;
}

/** The value names an `export ... from` re-exports (type-only specifiers left out). */
function reexportedValues(declaration: ts.ExportDeclaration): string[] {
  if (declaration.isTypeOnly) return [];
  const clause = declaration.exportClause;
  if (!clause || ts.isNamespaceExport(clause)) return ['*'];
  return clause.elements.filter((element) => !element.isTypeOnly).map((element) => (element.propertyName ?? element.name).text);
}

/** Every module specifier in a source file: imports, re-exports, `import x = require()`, `import()` calls and `import('x').T` types. */
function specifiers(source: ts.SourceFile): Specifier[] {
  const found: Specifier[] = [];
  const add = (literal: ts.Node, values: string[], typeOnly: boolean) => {
    if (!ts.isStringLiteralLike(literal)) return;
    const line = source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1;
    found.push({ text: literal.text, line, typeOnly, values });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const values = importedValues(node.importClause);
      add(node.moduleSpecifier, values, values.length === 0);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const values = reexportedValues(node);
      add(node.moduleSpecifier, values, values.length === 0);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly ? [] : ['*'], node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) {
      add(node.arguments[0], ['*'], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, [], true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The repository module a specifier names, or undefined for a package outside the repository. */
function resolveSpecifier(text: string, importer: string, options: ts.CompilerOptions): string | undefined {
  const absoluteImporter = join(REPO_ROOT, importer);
  const resolved = ts.resolveModuleName(text, absoluteImporter, options, ts.sys).resolvedModule;
  if (resolved) {
    if (resolved.isExternalLibraryImport || resolved.resolvedFileName.includes(`${sep}node_modules${sep}`)) return undefined;
    return repoPath(resolved.resolvedFileName);
  }
  if (!text.startsWith('.')) return undefined;
  // A relative import tsc does not resolve (a stylesheet): still a repository module.
  const target = resolve(dirname(absoluteImporter), text);
  if (!existsSync(target)) throw new Error(`${importer}: cannot resolve '${text}'`);
  return repoPath(target);
}

/**
 * The import graph of the modules under `folders` and of every repository module they reach:
 * all edges between repository modules, type-only imports included, in file then line order.
 */
export function importGraph(folders: readonly string[]): ImportEdge[] {
  const options = compilerOptions();
  const edges: ImportEdge[] = [];
  const pending = sourceFiles(folders);
  const seen = new Set(pending);
  while (pending.length > 0) {
    const from = pending.shift()!;
    if (!/\.tsx?$/.test(from)) continue;
    for (const specifier of specifiers(parseModule(from))) {
      const to = resolveSpecifier(specifier.text, from, options);
      if (to === undefined) continue;
      edges.push({ from, to, line: specifier.line, typeOnly: specifier.typeOnly, values: specifier.values });
      if (!seen.has(to)) {
        seen.add(to);
        pending.push(to);
      }
    }
  }
  return edges;
}

/**
 * Every elementary cycle of the graph, each as the path of its modules from the alphabetically
 * first back to itself (`a -> b -> a`), shortest first, then in name order. Stops looking past
 * `limit` cycles (one wrong import can close hundreds).
 */
export function findCycles(edges: readonly Pick<ImportEdge, 'from' | 'to'>[], limit = 1000): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    const targets = next.get(from) ?? [];
    if (!targets.includes(to)) targets.push(to);
    next.set(from, targets);
  }
  const nodes = [...new Set(edges.flatMap((edge) => [edge.from, edge.to]))].sort();
  const cycles: string[] = [];
  for (const start of nodes) {
    // Only cycles whose first module is `start`: every other module on them sorts after it.
    const path = [start];
    const onPath = new Set(path);
    const walk = (node: string): void => {
      for (const target of next.get(node) ?? []) {
        if (cycles.length >= limit) return;
        if (target === start) cycles.push([...path, start].join(' -> '));
        else if (target > start && !onPath.has(target)) {
          path.push(target);
          onPath.add(target);
          walk(target);
          onPath.delete(target);
          path.pop();
        }
      }
    };
    walk(start);
  }
  const length = (cycle: string) => cycle.split(' -> ').length;
  return cycles.sort((a, b) => length(a) - length(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** The top folder of a repository module, with `test/support` told apart from the rest of `test`. */
export function layerOf(path: string): string {
  if (path.startsWith('test/support/')) return 'test/support';
  return path.split('/')[0]!;
}

/** Arithmetic a literal value may be written with (`5 * 60 * 1000`). */
const ARITHMETIC: readonly ts.SyntaxKind[] = [
  ts.SyntaxKind.PlusToken, ts.SyntaxKind.MinusToken, ts.SyntaxKind.AsteriskToken, ts.SyntaxKind.SlashToken,
  ts.SyntaxKind.PercentToken, ts.SyntaxKind.AsteriskAsteriskToken,
];

/**
 * True when an initialiser is a literal value: a string, number (or arithmetic of numbers),
 * boolean, null, or an array or object of such, `as const` allowed. A name of another constant
 * is not one: it would have to be followed to its own module.
 */
function isLiteralValue(node: ts.Expression): boolean {
  if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isParenthesizedExpression(node)) return isLiteralValue(node.expression);
  if (ts.isBinaryExpression(node)) return ARITHMETIC.includes(node.operatorToken.kind) && isLiteralValue(node.left) && isLiteralValue(node.right);
  if (ts.isPrefixUnaryExpression(node)) return node.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(node.operand);
  if (ts.isStringLiteralLike(node) || ts.isNumericLiteral(node)) return true;
  if ([ts.SyntaxKind.TrueKeyword, ts.SyntaxKind.FalseKeyword, ts.SyntaxKind.NullKeyword].includes(node.kind)) return true;
  if (ts.isArrayLiteralExpression(node)) return node.elements.every(isLiteralValue);
  if (ts.isObjectLiteralExpression(node)) {
    return node.properties.every((property) => ts.isPropertyAssignment(property) && isLiteralValue(property.initializer));
  }
  return false;
}

/** True when the module `source` exports `name` as a `const` whose value is a literal (see {@link isLiteralValue}). */
export function exportsPureConstant(source: ts.SourceFile, name: string): boolean {
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const exported = statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.name.text === name) {
        return declaration.initializer !== undefined && isLiteralValue(declaration.initializer);
      }
    }
  }
  return false;
}

/** The name a function is known by: its own, or that of what it is assigned to, else `anonymous in` the enclosing one. */
function functionName(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return `${node.parent.name?.text ?? 'anonymous class'}.constructor`;
  if (node.name && !ts.isComputedPropertyName(node.name)) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && ts.isIdentifier(parent.name)) {
    return parent.name.text;
  }
  let outer: ts.Node | undefined = parent;
  while (outer && !ts.isFunctionLike(outer)) outer = outer.parent;
  return outer ? `anonymous in ${functionName(outer as ts.SignatureDeclaration, source)}` : 'anonymous';
}

/** True when the line above the function's first line, or that first line, holds {@link LONG_REASON}. */
function hasLongReason(lines: readonly string[], firstLine: number): boolean {
  const above = lines[firstLine - 2] ?? '';
  const first = lines[firstLine - 1] ?? '';
  return above.includes(LONG_REASON) || first.includes(LONG_REASON);
}

/**
 * Every function (declaration, expression, arrow, method, accessor, constructor) of a module
 * longer than `limit` lines, counted from its first line to its last, unless the line above it or
 * its first line gives a reason (`// Long because: ...`).
 */
export function longFunctions(source: ts.SourceFile, limit: number): LongFunction[] {
  const found: LongFunction[] = [];
  const lines = source.text.split('\n');
  const visit = (node: ts.Node) => {
    const isFunction = ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node)
      || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node) || ts.isConstructorDeclaration(node);
    if (isFunction && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const count = last - first + 1;
      if (count > limit && !hasLongReason(lines, first)) {
        found.push({ file: source.fileName, name: functionName(node, source), line: first, lines: count });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The exported statements of `source` with no JSDoc block (`/** ... *\/`) right before them, as
 * `file:line name`. Re-exports (`export { ... } from`) are not declarations and are skipped.
 */
export function undocumentedExports(source: ts.SourceFile): string[] {
  const found: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) || ts.isExportAssignment(statement)) continue;
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
    if (!modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue;
    const leading = source.text.slice(statement.getFullStart(), statement.getStart(source));
    if (leading.includes('/**')) continue;
    const line = source.getLineAndCharacterOfPosition(statement.getStart(source)).line + 1;
    found.push(`${source.fileName}:${line} ${statement.getText(source).split('\n')[0]!.slice(0, 60)}`);
  }
  return found;
}
