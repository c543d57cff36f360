import { derivedSuffix } from './naming.ts';

/**
 * Grouping operation names: the same endpoint called with different IDs (`GET /users/42`,
 * `GET /users/97`) becomes one group (`GET /users/{id}`), whose requests the engine then merges
 * exactly. Two kinds of rule, applied in order to each name: the user's `pattern → name` rules (the
 * first whose pattern matches renames it; `$1`… in the name are the pattern's groups), then, when
 * asked, the built-in ID rule.
 *
 * Patterns come from links and the command line: they are data. Each is capped in length, compiled
 * in a try/catch, and refused with the reason when it is invalid or has the shapes that make a
 * regular-expression engine backtrack exponentially (a quantified group that holds a quantifier, a
 * back-reference); names longer than MAX_SUBJECT_CHARS are left as they are.
 */

export interface NameRule {
  pattern: string;
  name: string;
}

export interface NameRules {
  /** The built-in ID rule (`--group-ids`). */
  ids: boolean;
  rules: NameRule[];
}

export const NO_NAME_RULES: NameRules = { ids: false, rules: [] };

export const MAX_PATTERN_CHARS = 200;
export const MAX_NAME_CHARS = 200;
export const MAX_RULES = 20;
/** Longer operation names are not matched against the user's patterns (nor renamed by them). */
export const MAX_SUBJECT_CHARS = 2000;

/** What stands in for an ID, and for a query value. */
export const ID = '{id}';
export const VALUE = '{value}';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** Hex of 8+ digits with both a digit and a letter (an ObjectId, a hash), not inside a word. */
const HEX = /(?<![0-9a-z])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}(?![0-9a-z])/gi;
/** A number standing alone: not part of a word, a version (`1.1`), a decimal or a port (`:8080`). */
const NUMBER = /(?<![\w.:])\d+(?![\w.])/g;
/** A query string's values: `?a=1&b=x` → `?a={value}&b={value}`. */
const QUERY_VALUE = /([?&;][^=&#\s]*=)[^&#\s]*/g;

/** The built-in ID rule: UUIDs, long hex, numbers and query values become placeholders. */
export function withoutIds(name: string): string {
  const q = name.indexOf('?');
  const path = q < 0 ? name : name.slice(0, q);
  const query = q < 0 ? '' : name.slice(q).replace(QUERY_VALUE, `$1${VALUE}`);
  return path.replace(UUID, ID).replace(HEX, ID).replace(NUMBER, ID) + query;
}

/** `REGEX=>NAME` (the CLI's `--group` and the link's form) → a rule, or the reason it is not one. */
export function parseRuleSpec(spec: string): NameRule | { error: string } {
  const at = spec.lastIndexOf('=>');
  if (at < 0) return { error: `"${spec.slice(0, 60)}" is not REGEX=>NAME` };
  const rule = { pattern: spec.slice(0, at), name: spec.slice(at + 2) };
  const problem = ruleProblem(rule);
  return problem ? { error: problem } : rule;
}

export function ruleSpec(rule: NameRule): string {
  return `${rule.pattern}=>${rule.name}`;
}

/** Nested quantifiers — `(a+)+`, `(a*)*`, `(a|aa){2,}` — and back-references can take exponential time. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*(?:[+*]|\{\d+,\d*\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,\d*\})/;
const ALTERNATION_QUANTIFIED = /\((?:[^()\\]|\\.)*\|(?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,\d*\})/;
const BACK_REFERENCE = /\\[1-9]|\\k</;

/** Why a rule cannot be used, or null when it can. */
export function ruleProblem(rule: NameRule): string | null {
  if (rule.pattern.length === 0) return 'the pattern is empty';
  if (rule.pattern.length > MAX_PATTERN_CHARS) return `the pattern is over ${MAX_PATTERN_CHARS} characters`;
  if (rule.name.length === 0) return 'the name is empty';
  if (rule.name.length > MAX_NAME_CHARS) return `the name is over ${MAX_NAME_CHARS} characters`;
  if (NESTED_QUANTIFIER.test(rule.pattern) || ALTERNATION_QUANTIFIED.test(rule.pattern)) return 'a repeated group that itself repeats can take exponential time: refused';
  if (BACK_REFERENCE.test(rule.pattern)) return 'back-references can take exponential time: refused';
  try {
    new RegExp(rule.pattern, 'u');
  } catch (e) {
    return `not a regular expression: ${e instanceof Error ? e.message : String(e)}`;
  }
  return null;
}

/** The rules that can be used, and each refused one with its reason. */
export function checkRules(rules: NameRules): { usable: NameRules; problems: string[] } {
  const problems: string[] = [];
  const usable: NameRule[] = [];
  rules.rules.forEach((rule, i) => {
    if (i >= MAX_RULES) {
      if (i === MAX_RULES) problems.push(`only the first ${MAX_RULES} rules are used`);
      return;
    }
    const problem = ruleProblem(rule);
    if (problem) problems.push(`rule ${i + 1} (${ruleSpec(rule).slice(0, 60)}): ${problem}`);
    else usable.push(rule);
  });
  return { usable: { ids: rules.ids, rules: usable }, problems };
}

/**
 * The renaming the rules make, for whole operation names (`Intended-X`, `X-FAILED`, `X (report)`
 * and the other derived views keep their prefix and suffix around the renamed `X`). Rules that cannot be used are left out
 * (see `checkRules` for why).
 */
export function renamer(rules: NameRules): ((op: string) => string) | null {
  const { usable } = checkRules(rules);
  if (!usable.ids && usable.rules.length === 0) return null;
  const compiled = usable.rules.map((r) => ({ re: new RegExp(r.pattern, 'u'), name: r.name }));
  const core = (name: string): string => {
    if (name.length <= MAX_SUBJECT_CHARS) {
      for (const { re, name: to } of compiled) {
        const m = re.exec(name);
        if (m) return to.replace(/\$(\d)/g, (_, d: string) => m[Number(d)] ?? '');
      }
    }
    return usable.ids ? withoutIds(name) : name;
  };
  const cache = new Map<string, string>();
  return (op) => {
    let out = cache.get(op);
    if (out === undefined) {
      const derived = derivedSuffix(op);
      let rest = op.slice(0, op.length - derived.length);
      const intended = /^Intended-/i.exec(rest)?.[0] ?? '';
      rest = rest.slice(intended.length);
      const failed = /-FAILED$/i.exec(rest)?.[0] ?? '';
      rest = rest.slice(0, rest.length - failed.length);
      out = `${intended}${core(rest)}${failed}${derived}`;
      cache.set(op, out);
    }
    return out;
  };
}

/** How many distinct names become how many groups under the ID rule: worth offering when fewer. */
export function idCollapse(names: readonly string[]): { names: number; groups: number } {
  const distinct = new Set(names);
  return { names: distinct.size, groups: new Set([...distinct].map(withoutIds)).size };
}
