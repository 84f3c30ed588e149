/**
 * The `like`/`ilike` and `match`/`imatch` patterns of postgres_changes filters, compiled into a
 * small automaton that reads a value once, keeping a set of live steps (Thompson's construction):
 * a match costs at most the value's length times the pattern's steps, whatever the pattern, so
 * no pattern can make the server backtrack for long (JavaScript's own regular expressions can).
 * Regular expressions follow PostgreSQL's POSIX syntax, as upstream Realtime evaluates them in
 * the database; the few constructs an automaton cannot read (back references, lookaround,
 * word boundaries, embedded options) are refused.
 */

/** Thrown for a pattern that cannot be compiled; its message is the one the client reads. */
export class PatternError extends Error {}

/** Most steps a compiled pattern may have: a match costs at most this per character of the value. */
export const MAX_PATTERN_STEPS = 500;

/** PostgreSQL's largest repetition count (`{m,n}`). */
const MAX_REPEAT = 255;

type CharTest = (ch: string) => boolean;

/** A pattern's syntax tree. */
type Ast =
  | { t: 'char'; test: CharTest }
  | { t: 'start' }
  | { t: 'end' }
  | { t: 'seq'; items: Ast[] }
  | { t: 'alt'; options: Ast[] }
  | { t: 'rep'; item: Ast; min: number; max: number };

/** One step of the automaton. */
type Step =
  | { kind: 'char'; test: CharTest; next: number }
  | { kind: 'split'; a: number; b: number }
  | { kind: 'start' | 'end'; next: number }
  | { kind: 'match' };

const ANY: CharTest = () => true;
const DIGIT: CharTest = (ch) => ch >= '0' && ch <= '9';
const SPACE: CharTest = (ch) => /^\s$/.test(ch);
const WORD: CharTest = (ch) => ch === '_' || /^[\p{L}\p{N}]$/u.test(ch);
const not = (test: CharTest): CharTest => (ch) => !test(ch);
const literal = (c: string): CharTest => (ch) => ch === c;

/** POSIX bracket classes (`[[:alpha:]]`). */
const CLASSES: Record<string, CharTest> = {
  alpha: (ch) => /^\p{L}$/u.test(ch),
  digit: DIGIT,
  alnum: (ch) => /^[\p{L}\p{N}]$/u.test(ch),
  upper: (ch) => /^\p{Lu}$/u.test(ch),
  lower: (ch) => /^\p{Ll}$/u.test(ch),
  space: SPACE,
  punct: (ch) => /^\p{P}$/u.test(ch),
  xdigit: (ch) => /^[0-9A-Fa-f]$/.test(ch),
  word: WORD,
};

const ESCAPED_CLASSES: Record<string, CharTest> = { d: DIGIT, D: not(DIGIT), s: SPACE, S: not(SPACE), w: WORD, W: not(WORD) };
const ESCAPED_CHARS: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v', a: '\x07', e: '\x1b' };

const invalid = (reason: string) => new PatternError(`invalid regular expression: ${reason}`);

/** Reads a POSIX regular expression (PostgreSQL's advanced syntax, less what an automaton cannot read). */
class RegexParser {
  private i = 0;
  private readonly chars: string[];

  constructor(pattern: string) {
    this.chars = Array.from(pattern);
  }

  parse(): Ast {
    const ast = this.alternation();
    if (this.i < this.chars.length) throw invalid('parentheses () not balanced');
    return ast;
  }

  private peek(offset = 0): string | undefined {
    return this.chars[this.i + offset];
  }

  private alternation(): Ast {
    const options = [this.sequence()];
    while (this.peek() === '|') {
      this.i++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { t: 'alt', options };
  }

  private sequence(): Ast {
    const items: Ast[] = [];
    for (let ch = this.peek(); ch !== undefined && ch !== '|' && ch !== ')'; ch = this.peek()) {
      items.push(this.quantified(this.atom()));
    }
    return { t: 'seq', items };
  }

  /** `atom` followed by its quantifiers, if any. */
  private quantified(atom: Ast): Ast {
    let item = atom;
    let quantifiers = 0;
    for (;;) {
      const bounds = this.quantifier();
      if (!bounds) return item;
      if (++quantifiers > 1) throw invalid('quantifier operand invalid');
      if (this.peek() === '?') this.i++; // A lazy quantifier matches the same values.
      item = { t: 'rep', item, min: bounds[0], max: bounds[1] };
    }
  }

  private quantifier(): [number, number] | null {
    const ch = this.peek();
    if (ch === '*') return this.i++, [0, Infinity];
    if (ch === '+') return this.i++, [1, Infinity];
    if (ch === '?') return this.i++, [0, 1];
    if (ch !== '{' || !DIGIT(this.peek(1) ?? '')) return null;
    const close = this.chars.indexOf('}', this.i);
    const body = close < 0 ? '' : this.chars.slice(this.i + 1, close).join('');
    const bound = /^(\d+)(,(\d*))?$/.exec(body);
    if (!bound) throw invalid('invalid repetition count(s)');
    const min = Number(bound[1]);
    const max = bound[2] === undefined ? min : bound[3] === '' ? Infinity : Number(bound[3]);
    if (min > MAX_REPEAT || (max !== Infinity && (max > MAX_REPEAT || max < min))) throw invalid('invalid repetition count(s)');
    this.i = close + 1;
    return [min, max];
  }

  private atom(): Ast {
    const ch = this.chars[this.i++]!;
    switch (ch) {
      case '(':
        return this.group();
      case '.':
        return { t: 'char', test: ANY };
      case '^':
        return { t: 'start' };
      case '$':
        return { t: 'end' };
      case '[':
        return { t: 'char', test: this.bracket() };
      case '\\':
        return this.escape();
      case '*':
      case '+':
      case '?':
        throw invalid('quantifier operand invalid');
      case '{':
        if (DIGIT(this.peek() ?? '')) throw invalid('quantifier operand invalid');
        return { t: 'char', test: literal(ch) };
      default:
        return { t: 'char', test: literal(ch) };
    }
  }

  private group(): Ast {
    if (this.peek() === '?') {
      if (this.peek(1) !== ':') throw new PatternError('lookaround and embedded options are not supported in filters');
      this.i += 2;
    }
    const inner = this.alternation();
    if (this.peek() !== ')') throw invalid('parentheses () not balanced');
    this.i++;
    return inner;
  }

  private escape(): Ast {
    const ch = this.chars[this.i++];
    if (ch === undefined) throw invalid('invalid escape \\ sequence');
    if (ch === 'A') return { t: 'start' };
    if (ch === 'Z') return { t: 'end' };
    if (/[1-9]/.test(ch)) throw new PatternError('back references are not supported in filters');
    if ('mMyY'.includes(ch)) throw new PatternError('word boundaries are not supported in filters');
    const escaped = this.escapedChar(ch);
    return { t: 'char', test: escaped };
  }

  /** What `\ch` stands for, inside or outside brackets. */
  private escapedChar(ch: string): CharTest {
    const cls = ESCAPED_CLASSES[ch];
    if (cls) return cls;
    const control = ESCAPED_CHARS[ch];
    if (control) return literal(control);
    if (/[\p{L}\p{N}]/u.test(ch)) throw invalid('invalid escape \\ sequence');
    return literal(ch);
  }

  private bracket(): CharTest {
    const negated = this.peek() === '^';
    if (negated) this.i++;
    const tests: CharTest[] = [];
    for (let first = true; ; first = false) {
      const ch = this.chars[this.i++];
      if (ch === undefined) throw invalid('brackets [] not balanced');
      if (ch === ']' && !first) break;
      if (ch === '[' && this.peek() === ':') {
        tests.push(this.namedClass());
        continue;
      }
      if (ch === '\\') {
        const next = this.chars[this.i++];
        if (next === undefined) throw invalid('brackets [] not balanced');
        tests.push(this.escapedChar(next));
        continue;
      }
      if (this.peek() === '-' && this.peek(1) !== undefined && this.peek(1) !== ']') {
        const to = this.chars[this.i + 1]!;
        this.i += 2;
        if (to < ch) throw invalid('invalid character range');
        tests.push((c) => c >= ch && c <= to);
        continue;
      }
      tests.push(literal(ch));
    }
    const any: CharTest = (c) => tests.some((test) => test(c));
    return negated ? not(any) : any;
  }

  private namedClass(): CharTest {
    const end = this.chars.indexOf(':', this.i + 1);
    const name = end < 0 ? '' : this.chars.slice(this.i + 1, end).join('');
    const test = CLASSES[name];
    if (!test || this.chars[end + 1] !== ']') throw invalid('invalid character class');
    this.i = end + 2;
    return test;
  }
}

/** Builds the automaton of a syntax tree, refusing one of more than {@link MAX_PATTERN_STEPS} steps. */
class Builder {
  readonly steps: Step[] = [{ kind: 'match' }];

  constructor(private readonly caseless: boolean) {}

  private add(step: Step): number {
    if (this.steps.length >= MAX_PATTERN_STEPS) throw new PatternError(`pattern too complex: it compiles to more than ${MAX_PATTERN_STEPS} steps`);
    this.steps.push(step);
    return this.steps.length - 1;
  }

  /** The first step of `ast`, which goes on to step `next`. */
  build(ast: Ast, next: number): number {
    switch (ast.t) {
      case 'char':
        return this.add({ kind: 'char', test: this.caseless ? caseless(ast.test) : ast.test, next });
      case 'start':
      case 'end':
        return this.add({ kind: ast.t, next });
      case 'seq':
        return ast.items.reduceRight((after, item) => this.build(item, after), next);
      case 'alt':
        return ast.options.map((option) => this.build(option, next)).reduceRight((b, a) => this.add({ kind: 'split', a, b }));
      case 'rep':
        return this.repeat(ast.item, ast.min, ast.max, next);
    }
  }

  private repeat(item: Ast, min: number, max: number, next: number): number {
    let tail = next;
    if (max === Infinity) {
      const loop = this.add({ kind: 'split', a: 0, b: next });
      (this.steps[loop] as { a: number }).a = this.build(item, loop);
      tail = loop;
    } else {
      for (let k = 0; k < max - min; k++) tail = this.add({ kind: 'split', a: this.build(item, tail), b: next });
    }
    for (let k = 0; k < min; k++) tail = this.build(item, tail);
    return tail;
  }
}

function caseless(test: CharTest): CharTest {
  return (ch) => test(ch) || test(ch.toLowerCase()) || test(ch.toUpperCase());
}

/** A compiled pattern: whether a value matches it. */
export type Matcher = (value: string) => boolean;

/** Runs the automaton over `value`, anywhere in it: every live step advances once per character. */
function run(steps: Step[], start: number, value: string): boolean {
  const chars = Array.from(value);
  const seen = new Int32Array(steps.length);
  // Follows splits and anchors from `from` at position `pos`, collecting character steps; true at the match.
  const follow = (from: number, pos: number, out: number[]): boolean => {
    const stack = [from];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (seen[at] === pos + 1) continue;
      seen[at] = pos + 1;
      const step = steps[at]!;
      if (step.kind === 'match') return true;
      if (step.kind === 'char') out.push(at);
      else if (step.kind === 'split') stack.push(step.b, step.a);
      else if (step.kind === 'start' ? pos === 0 : pos === chars.length) stack.push(step.next);
    }
    return false;
  };
  let live: number[] = [];
  for (let pos = 0; ; pos++) {
    if (follow(start, pos, live)) return true;
    if (pos === chars.length) return false;
    const ch = chars[pos]!;
    const next: number[] = [];
    for (const at of live) {
      const step = steps[at] as { test: CharTest; next: number };
      if (step.test(ch) && follow(step.next, pos + 1, next)) return true;
    }
    live = next;
  }
}

function compile(ast: Ast, caselessly: boolean): Matcher {
  const builder = new Builder(caselessly);
  const start = builder.build(ast, 0);
  const steps = builder.steps;
  return (value) => run(steps, start, value);
}

/**
 * Compiles a POSIX regular expression (`match`, or `imatch` when `caselessly`), found anywhere
 * in the value as PostgreSQL's `~` finds it. Throws {@link PatternError} with the reason.
 */
export function compileRegex(pattern: string, caselessly: boolean): Matcher {
  return compile(new RegexParser(pattern).parse(), caselessly);
}

/**
 * Compiles a LIKE pattern (`like`, or `ilike` when `caselessly`): `%` any run of characters, `_`
 * any one, `\` takes the next character as it is; the whole value must match.
 */
export function compileLike(pattern: string, caselessly: boolean): Matcher {
  const items: Ast[] = [{ t: 'start' }];
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '%') items.push({ t: 'rep', item: { t: 'char', test: ANY }, min: 0, max: Infinity });
    else if (ch === '_') items.push({ t: 'char', test: ANY });
    else if (ch !== '\\') items.push({ t: 'char', test: literal(ch) });
    else if (++i < chars.length) items.push({ t: 'char', test: literal(chars[i]!) });
    else throw new PatternError('LIKE pattern must not end with escape character');
  }
  items.push({ t: 'end' });
  return compile({ t: 'seq', items }, caselessly);
}
